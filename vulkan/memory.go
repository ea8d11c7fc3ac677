package vulkan

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// ErrPlacement is wrapped by the errors of NewBuffer and NewImage when a
// resource cannot be placed in a Memory where asked (another device's
// memory, another heap, a memory type the resource cannot use, an offset
// that is misaligned or leaves too few bytes).
var ErrPlacement = errors.New("resource cannot be placed there")

// Memory is one device memory allocation on a heap, in which buffers and
// images are placed (BufferOptions.Memory, ImageOptions.Memory) and to
// which sparse resources bind their blocks. Resources placed over the same
// bytes alias: each sees what the others write, once the work that wrote
// it has finished (gfxcuda's batches on one device run in submission
// order, and host access waits for every batch that used any resource of
// the Memory). A Memory is what compushady calls a Heap.
//
// The allocation is freed when the Memory and every resource placed in or
// bound to it are closed. Its methods are safe for concurrent use.
type Memory struct {
	resource
	d      *Device
	size   uint64
	heap   Heap
	typ    int
	flags  MemoryPropertyFlags
	h      vk.DeviceMemory
	mapped unsafe.Pointer // whole allocation; nil for HeapDefault
	refs   atomic.Int64   // the Memory itself and the resources using it
	// external is the handle type the memory was imported with (0: not
	// imported): buffers placed in it are created with it
	// (VkExternalMemoryBufferCreateInfo, VUID-vkBindBufferMemory-memory-02985).
	external uint32
}

// placementBits returns the memory types that both a buffer of the default
// usage and, on the default heap, an optimal-tiling image can be placed in.
func (d *Device) placementBits(heap Heap) uint32 {
	bits := ^uint32(0)
	if b, err := d.raw.CreateBuffer(vk.BufferCreateInfo{Size: 4096, Usage: uint32(defaultBufferBits | bufferTexel)}); err == nil {
		bits &= d.raw.BufferMemoryRequirements(b).MemoryTypeBits
		d.raw.DestroyBuffer(b)
	}
	if heap == HeapDefault {
		if i, err := d.raw.CreateImage(vk.ImageCreateInfo{Type: vk.ImageType2D, Format: vk.FormatR8G8B8A8Unorm,
			Extent: [3]uint32{64, 64, 1}, MipLevels: 1, ArrayLayers: 1, Tiling: vk.ImageTilingOptimal,
			Usage: vk.ImageUsageSampled | vk.ImageUsageStorage | vk.ImageUsageTransferSrc | vk.ImageUsageTransferDst}); err == nil {
			ib := d.raw.ImageMemoryRequirements(i).MemoryTypeBits
			d.raw.DestroyImage(i)
			if bits&ib != 0 {
				bits &= ib
			}
		}
	}
	return bits
}

// NewMemory allocates size bytes on heap for resources to be placed in.
// Host-visible heaps are mapped for the Memory's life.
func (d *Device) NewMemory(size uint64, heap Heap) (*Memory, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	switch {
	case size == 0:
		return nil, errors.New("vulkan: NewMemory: size 0")
	case heap < HeapDefault || heap > HeapReadback:
		return nil, fmt.Errorf("vulkan: NewMemory: unknown heap %v", heap)
	}
	t, err := chooseMemoryType(d.pd.MemoryTypes, d.placementBits(heap), heap)
	if err != nil {
		return nil, fmt.Errorf("vulkan: NewMemory: %s: %w", d.pd.Name, err)
	}
	m := &Memory{d: d, size: size, heap: heap, typ: t, flags: d.pd.MemoryTypes[t].Flags}
	if m.h, err = d.raw.AllocateMemory(vk.MemoryAllocateInfo{Size: size, TypeIndex: uint32(t)}); err != nil {
		return nil, fmt.Errorf("vulkan: NewMemory: %d bytes of %v memory: %w", size, m.flags, err)
	}
	if heap != HeapDefault {
		if m.flags&MemoryHostVisible == 0 {
			d.raw.FreeMemory(m.h)
			return nil, fmt.Errorf("vulkan: NewMemory: %v heap memory is not host-visible", heap)
		}
		if m.mapped, err = d.raw.MapMemory(m.h, 0, vk.WholeSize); err != nil {
			d.raw.FreeMemory(m.h)
			return nil, fmt.Errorf("vulkan: NewMemory: %w", err)
		}
	}
	m.refs.Store(1)
	d.register(m)
	return m, nil
}

// ImportMemory imports the memory of an OPAQUE_FD file descriptor as a
// Memory on the default heap, in which buffers are then placed at any
// offset that meets their alignment (BufferOptions.Memory, Offset): one
// import of an allocation, many buffers over its parts. im.Size is the
// exporter's allocation size; the exporter's allocation must not be
// dedicated (a CUDA allocation made with cuMemCreate and exported as a
// POSIX descriptor is not). Ownership of im.FD is as for
// BufferOptions.Import: the driver owns it once the call succeeds, and it
// is closed when the call fails. Images cannot be placed in imported
// memory.
func (d *Device) ImportMemory(im ImportFD) (*Memory, error) {
	m, taken, err := d.importMemory(im)
	if err != nil {
		if !taken {
			closeFD(im.FD)
		}
		return nil, fmt.Errorf("vulkan: ImportMemory: %w", err)
	}
	return m, nil
}

// importMemory does ImportMemory's work; taken reports whether the driver
// took the descriptor.
func (d *Device) importMemory(im ImportFD) (*Memory, bool, error) {
	if err := d.acquire(); err != nil {
		return nil, false, err
	}
	defer d.life.release()
	switch {
	case im.FD < 0:
		return nil, false, fmt.Errorf("import of file descriptor %d: %w", im.FD, ErrorInvalidExternalHandle)
	case im.Size == 0:
		return nil, false, errors.New("ImportFD.Size must be the exporter's allocation size")
	case im.Dedicated:
		return nil, false, errors.New("a dedicated allocation belongs to one resource; import it with NewBuffer or NewImage (BufferOptions.Import)")
	case !d.raw.HasMemoryFD():
		return nil, false, d.fdUnsupported("OPAQUE_FD memory import", "VK_KHR_external_memory_fd missing")
	}
	// The memory types a buffer placed in it may use: those of external
	// buffers of the default usages (with the texel bits where imports
	// allow them, as createPlacedBuffer makes them).
	bits := ^uint32(0)
	usages := []BufferUsage{defaultBufferBits}
	if d.importable(defaultBufferBits | bufferTexel) {
		usages = append(usages, defaultBufferBits|bufferTexel)
	}
	for _, u := range usages {
		b, err := d.raw.CreateBuffer(vk.BufferCreateInfo{Size: 4096, Usage: uint32(u),
			ExternalHandleTypes: vk.ExternalMemoryHandleTypeOpaqueFD})
		if err != nil {
			return nil, false, err
		}
		bits &= d.raw.BufferMemoryRequirements(b).MemoryTypeBits
		d.raw.DestroyBuffer(b)
	}
	t, err := chooseMemoryType(d.pd.MemoryTypes, bits, HeapDefault)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", d.pd.Name, err)
	}
	m := &Memory{d: d, size: im.Size, heap: HeapDefault, typ: t, flags: d.pd.MemoryTypes[t].Flags,
		external: vk.ExternalMemoryHandleTypeOpaqueFD}
	m.h, err = d.raw.AllocateMemory(vk.MemoryAllocateInfo{Size: im.Size, TypeIndex: uint32(t),
		ImportHandleType: vk.ExternalMemoryHandleTypeOpaqueFD, ImportFD: im.FD})
	if err != nil {
		return nil, false, fmt.Errorf("importing %d bytes of %v memory: %w", im.Size, m.flags, err)
	}
	m.refs.Store(1)
	d.register(m)
	return m, true, nil
}

// Size is the allocation's size in bytes.
func (m *Memory) Size() uint64 { return m.size }

// Imported reports whether the memory was imported (ImportMemory).
func (m *Memory) Imported() bool { return m.external != 0 }

// Heap is the heap the memory is on.
func (m *Memory) Heap() Heap { return m.heap }

// MemoryFlags are the property flags of the memory's type.
func (m *Memory) MemoryFlags() MemoryPropertyFlags { return m.flags }

// place checks that a resource of requirements req can be placed at off
// and takes a reference for it.
func (m *Memory) place(d *Device, what string, heap Heap, req vk.MemoryRequirements, off uint64) error {
	if err := m.fits(d, what, heap, req, off); err != nil {
		return err
	}
	if !m.ref() {
		return ErrClosed
	}
	return nil
}

// fits checks that what, of requirements req on heap, may live at off in
// the memory: placed resources and sparse blocks alike.
func (m *Memory) fits(d *Device, what string, heap Heap, req vk.MemoryRequirements, off uint64) error {
	switch {
	case m.d != d:
		return fmt.Errorf("%s placed in memory of another device: %w", what, ErrPlacement)
	case heap != m.heap:
		return fmt.Errorf("%s for the %v heap placed in %v-heap memory; place it in memory of its own heap: %w", what, heap, m.heap, ErrPlacement)
	case req.MemoryTypeBits&(1<<m.typ) == 0:
		return fmt.Errorf("%s cannot live in this memory's type %d (it takes types 0x%x): %w", what, m.typ, req.MemoryTypeBits, ErrPlacement)
	case req.Alignment > 1 && off%req.Alignment != 0:
		return fmt.Errorf("%s at offset %d: the offset must be a multiple of %d, its alignment on this device: %w", what, off, req.Alignment, ErrPlacement)
	case off > m.size || req.Size > m.size-off:
		return fmt.Errorf("%s needs %d bytes at offset %d, which does not fit in the %d bytes of the memory (make it bigger or place the resource lower): %w", what, req.Size, off, m.size, ErrPlacement)
	}
	return nil
}

// ref takes a reference for a resource that uses the memory; it fails
// once the memory has been freed.
func (m *Memory) ref() bool {
	for {
		n := m.refs.Load()
		if n <= 0 {
			return false
		}
		if m.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// unref drops a reference and frees the allocation after the last one.
func (m *Memory) unref() {
	if m.refs.Add(-1) == 0 {
		m.d.waitSerial(m.lastUse.Load())
		if m.mapped != nil {
			m.d.raw.UnmapMemory(m.h)
			m.mapped = nil
		}
		m.d.raw.FreeMemory(m.h)
		m.d.unregister(m)
	}
}

// Close drops the Memory; the allocation is freed once the resources
// placed in or bound to it are closed too. Close is idempotent and returns
// nil.
func (m *Memory) Close() error {
	if m == nil || m.d == nil {
		return nil
	}
	m.d.closeChild(&m.life, m.unref)
	return nil
}

func (m *Memory) closeOrder() int { return orderMemory }
func (m *Memory) destroy()        { m.life.shut(m.unref) }
