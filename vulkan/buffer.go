package vulkan

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Heap says where a buffer's memory lives and how the host reaches it.
type Heap int

// Memory heaps.
const (
	// HeapDefault is device-local memory, the fastest for the GPU. The host
	// reaches it only through Upload and Readback, which copy through a
	// staging buffer.
	HeapDefault Heap = iota
	// HeapUpload is host-visible, coherent memory meant for the host to
	// write and the GPU to read (write-combined on discrete GPUs). Map
	// gives a persistent mapping.
	HeapUpload
	// HeapReadback is host-visible memory meant for the GPU to write and
	// the host to read: cached where the device offers it. Map gives a
	// persistent mapping.
	HeapReadback
)

// String returns "default", "upload" or "readback".
func (h Heap) String() string {
	switch h {
	case HeapDefault:
		return "default"
	case HeapUpload:
		return "upload"
	case HeapReadback:
		return "readback"
	}
	return fmt.Sprintf("Heap(%d)", int(h))
}

// BufferUsage is a set of VkBufferUsageFlags bits.
type BufferUsage uint32

// Buffer usage bits.
const (
	BufferTransferSrc  BufferUsage = vk.BufferUsageTransferSrc
	BufferTransferDst  BufferUsage = vk.BufferUsageTransferDst
	BufferUniformTexel BufferUsage = vk.BufferUsageUniformTexelBuffer
	BufferStorageTexel BufferUsage = vk.BufferUsageStorageTexelBuffer
	BufferUniform      BufferUsage = vk.BufferUsageUniformBuffer
	BufferStorage      BufferUsage = vk.BufferUsageStorageBuffer
	BufferIndirect     BufferUsage = vk.BufferUsageIndirectBuffer
)

// String lists the set bits, such as "TRANSFER_SRC|STORAGE", or "0".
func (u BufferUsage) String() string {
	return flagString(uint32(u), []flagName{
		{uint32(BufferTransferSrc), "TRANSFER_SRC"},
		{uint32(BufferTransferDst), "TRANSFER_DST"},
		{uint32(BufferUniformTexel), "UNIFORM_TEXEL"},
		{uint32(BufferStorageTexel), "STORAGE_TEXEL"},
		{uint32(BufferUniform), "UNIFORM"},
		{uint32(BufferStorage), "STORAGE"},
		{uint32(BufferIndirect), "INDIRECT"},
	})
}

const (
	bufferTransfer    = BufferTransferSrc | BufferTransferDst
	bufferTexel       = BufferUniformTexel | BufferStorageTexel
	defaultBufferBits = BufferStorage | BufferUniform | bufferTransfer | BufferIndirect
)

// BufferOptions configures Device.NewBuffer.
type BufferOptions struct {
	// Size is the size in bytes; it must not be zero.
	Size uint64
	// Usage says how the buffer is used. Zero means storage, uniform,
	// indirect and uniform and storage texel buffer (the texel bits are
	// dropped where they would prevent export or import). Transfer source
	// and destination are always added: Upload, Readback and copies need
	// them.
	Usage BufferUsage
	Heap  Heap
	// Exportable makes the buffer a dedicated allocation that ExportFD can
	// export as an OPAQUE_FD file descriptor, for CUDA
	// (cuImportExternalMemory) or another Vulkan device or process.
	Exportable bool
	// Import, when not nil, imports the memory of a file descriptor instead
	// of allocating it; Size, Usage and Heap must be those of the exporter
	// (for a Vulkan exporter) for the import to be valid. Exportable and
	// Import exclude each other.
	Import *ImportFD
	// Memory, when not nil, places the buffer in that memory at byte
	// Offset instead of giving it an allocation of its own; the memory
	// must be on Heap and Offset a multiple of the buffer's alignment
	// (errors wrap ErrPlacement). Buffers placed over the same bytes
	// alias. Excludes Exportable, Import and Sparse.
	Memory *Memory
	Offset uint64
	// Sparse makes a sparse buffer on HeapDefault: no memory at first;
	// BindSparse binds its blocks (Buffer.Sparse says their size) to
	// places in Memory objects. It needs the device's sparseBinding
	// feature (errors wrap ErrUnsupported where it lacks it).
	Sparse bool
}

// ImportFD describes OPAQUE_FD memory to import (VkImportMemoryFdInfoKHR).
//
// Ownership: when NewBuffer or NewImage succeeds, the Vulkan driver owns FD
// (it is closed when the buffer or image is); when it fails, FD has been
// closed. Either way the caller must not use or close FD after the call.
type ImportFD struct {
	FD int
	// Size is the size of the exporter's allocation: AllocationSize of a
	// Buffer or Image, or the size CUDA allocated.
	Size uint64
	// Dedicated says that the exporter's allocation is dedicated to one
	// buffer (as Exportable buffers are); the importer must match it.
	// Images ignore it: imported images are always dedicated allocations,
	// as exported ones are.
	Dedicated bool
}

// Buffer is a VkBuffer with its own memory allocation. Its methods are safe
// for concurrent use, though concurrent Upload and GPU use of the same
// bytes are the caller's to order.
type Buffer struct {
	resource
	d          *Device
	size       uint64
	usage      BufferUsage
	heap       Heap
	exportable bool
	dedicated  bool
	allocSize  uint64
	memFlags   MemoryPropertyFlags
	h          vk.Buffer
	mem        vk.DeviceMemory
	mapped     unsafe.Pointer // whole allocation; nil for HeapDefault
	memory     *Memory        // the Memory the buffer is placed in, or nil
	memOff     uint64         // the buffer's offset in its memory
	memSize    uint64         // the size of its memory allocation
	sparse     *sparseState   // nil unless Sparse
}

// NewBuffer creates a buffer and its memory, on the heap o.Heap asks for,
// optionally exportable or imported from a file descriptor.
func (d *Device) NewBuffer(o BufferOptions) (*Buffer, error) {
	fd := -1
	if o.Import != nil {
		fd = o.Import.FD
	}
	b, taken, err := d.newBuffer(o)
	if err != nil {
		if !taken {
			closeFD(fd)
		}
		return nil, fmt.Errorf("vulkan: NewBuffer: %w", err)
	}
	return b, nil
}

// newBuffer does NewBuffer's work. taken reports whether the driver took
// ownership of an imported file descriptor: it did once vkAllocateMemory
// succeeded, even if a later step failed and freed the memory (and closed
// the descriptor) again.
func (d *Device) newBuffer(o BufferOptions) (b *Buffer, taken bool, err error) {
	b, err = d.createBuffer(o)
	return b, b != nil && b.mem != 0, err
}

func (d *Device) createBuffer(o BufferOptions) (*Buffer, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	switch {
	case o.Size == 0:
		return nil, errors.New("size 0")
	case o.Heap < HeapDefault || o.Heap > HeapReadback:
		return nil, fmt.Errorf("unknown heap %v", o.Heap)
	case o.Exportable && o.Import != nil:
		return nil, errors.New("both Exportable and Import")
	case o.Import != nil && o.Import.FD < 0:
		return nil, fmt.Errorf("import of file descriptor %d: %w", o.Import.FD, ErrorInvalidExternalHandle)
	case o.Import != nil && o.Import.Size == 0:
		return nil, errors.New("import: ImportFD.Size must be the exporter's allocation size")
	case (o.Memory != nil || o.Sparse) && (o.Exportable || o.Import != nil):
		return nil, errors.New("a placed or sparse buffer cannot be exportable or imported")
	case o.Memory != nil && o.Sparse:
		return nil, errors.New("a sparse buffer is bound with BindSparse, not placed in a Memory")
	case o.Sparse && o.Heap != HeapDefault:
		return nil, fmt.Errorf("a sparse buffer on the %v heap: sparse buffers live on the default heap", o.Heap)
	case o.Sparse && !d.SparseSupported():
		return nil, fmt.Errorf("%s: sparse buffers need the sparseBinding feature and a queue that binds sparse memory, which this device lacks: %w", d.pd.Name, ErrUnsupported)
	}
	if o.Memory != nil || o.Sparse {
		return d.createPlacedBuffer(o)
	}
	external := o.Exportable || o.Import != nil
	if external && !d.raw.HasMemoryFD() {
		return nil, d.fdUnsupported("OPAQUE_FD memory export and import", "VK_KHR_external_memory_fd missing")
	}
	usage := o.Usage | bufferTransfer
	if o.Usage == 0 {
		usage = defaultBufferBits | bufferTexel
	}
	if external {
		ok := func(u BufferUsage) (bool, error) {
			p, err := d.inst.raw.ExternalBufferProperties(d.pd.h, 0, uint32(u), vk.ExternalMemoryHandleTypeOpaqueFD)
			if err != nil {
				return false, err
			}
			if o.Exportable {
				return p.Features&vk.ExternalMemoryFeatureExportable != 0, nil
			}
			return p.Features&vk.ExternalMemoryFeatureImportable != 0, nil
		}
		good, err := ok(usage)
		if err != nil {
			return nil, err
		}
		if !good && o.Usage == 0 {
			usage = defaultBufferBits
			if good, err = ok(usage); err != nil {
				return nil, err
			}
		}
		if !good {
			what := "export"
			if o.Import != nil {
				what = "import"
			}
			return nil, fmt.Errorf("%s: OPAQUE_FD %s of a buffer with usage %v: %w", d.pd.Name, what, usage, ErrUnsupported)
		}
	}

	b := &Buffer{d: d, size: o.Size, usage: usage, heap: o.Heap, exportable: o.Exportable}
	var handles uint32
	if external {
		handles = vk.ExternalMemoryHandleTypeOpaqueFD
	}
	var err error
	b.h, err = d.raw.CreateBuffer(vk.BufferCreateInfo{Size: o.Size, Usage: uint32(usage), ExternalHandleTypes: handles})
	if err != nil {
		return nil, err
	}
	req := d.raw.BufferMemoryRequirements(b.h)
	b.allocSize = req.Size
	b.dedicated = o.Exportable || req.RequiresDedicated || req.PrefersDedicated
	info := vk.MemoryAllocateInfo{Size: req.Size}
	if o.Exportable {
		info.ExportHandleTypes = vk.ExternalMemoryHandleTypeOpaqueFD
	}
	if o.Import != nil {
		switch {
		case o.Import.Size < req.Size:
			d.raw.DestroyBuffer(b.h)
			return nil, fmt.Errorf("import: allocation size %d is below the %d bytes the buffer needs", o.Import.Size, req.Size)
		case o.Import.Dedicated && o.Import.Size != req.Size:
			// A dedicated allocation has exactly the buffer's size
			// (VUID-VkMemoryDedicatedAllocateInfo-buffer-01435).
			d.raw.DestroyBuffer(b.h)
			return nil, fmt.Errorf("import: dedicated allocation size %d differs from the %d bytes the buffer needs: the exporter's buffer was not made with the same options", o.Import.Size, req.Size)
		}
		b.dedicated = o.Import.Dedicated
		b.allocSize = o.Import.Size
		info.Size = o.Import.Size
		info.ImportHandleType = vk.ExternalMemoryHandleTypeOpaqueFD
		info.ImportFD = o.Import.FD
	}
	if b.dedicated && d.pd.effectiveAPI.AtLeast(1, 1) {
		info.DedicatedBuffer = b.h
	} else {
		b.dedicated = false
	}
	t, err := chooseMemoryType(d.pd.MemoryTypes, req.MemoryTypeBits, o.Heap)
	if err != nil {
		d.raw.DestroyBuffer(b.h)
		return nil, fmt.Errorf("%s: %w", d.pd.Name, err)
	}
	info.TypeIndex = uint32(t)
	b.memFlags = d.pd.MemoryTypes[t].Flags
	mem, err := d.raw.AllocateMemory(info)
	if err != nil {
		d.raw.DestroyBuffer(b.h)
		return nil, fmt.Errorf("%d bytes of %v memory: %w", info.Size, b.memFlags, err)
	}
	b.mem = mem // from here the driver owns an imported descriptor
	b.memSize = info.Size
	fail := func(err error) (*Buffer, error) {
		b.free()
		return b, err
	}
	if err := d.raw.BindBufferMemory(b.h, mem, 0); err != nil {
		return fail(err)
	}
	if o.Heap != HeapDefault {
		if b.memFlags&MemoryHostVisible == 0 {
			return fail(fmt.Errorf("%v heap memory is not host-visible", o.Heap))
		}
		if b.mapped, err = d.raw.MapMemory(mem, 0, vk.WholeSize); err != nil {
			return fail(err)
		}
	}
	d.register(b)
	return b, nil
}

// chooseMemoryType picks the memory type for heap among the types whose
// bit is set in bits: the first of the best score, so that an exporter and
// an importer with the same requirements choose the same type.
func chooseMemoryType(types []MemoryType, bits uint32, heap Heap) (int, error) {
	best, bestScore := -1, -1
	for i, t := range types {
		f := t.Flags
		// Lazily allocated and protected memory, and the vendor bits above
		// (AMD device-coherent, NVIDIA RDMA), need features gfxcuda does
		// not enable.
		if bits&(1<<i) == 0 || f&(MemoryLazilyAllocated|MemoryProtected) != 0 || f >= 1<<6 {
			continue
		}
		score := 0
		local, visible := f&MemoryDeviceLocal != 0, f&MemoryHostVisible != 0
		coherent, cached := f&MemoryHostCoherent != 0, f&MemoryHostCached != 0
		switch heap {
		case HeapDefault:
			if local {
				score += 8
			}
			if !visible { // leave the BAR window to those who map it
				score += 2
			}
		case HeapUpload:
			if !visible {
				continue
			}
			if coherent {
				score += 8
			}
			if !cached {
				score += 2
			}
			if !local {
				score++
			}
		case HeapReadback:
			if !visible {
				continue
			}
			if cached {
				score += 8
			}
			if coherent {
				score += 4
			}
			if !local {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("no memory type for the %v heap among types 0x%x", heap, bits)
	}
	return best, nil
}

func (b *Buffer) acquire() error {
	if b == nil || b.d == nil || !b.life.acquire() {
		return ErrClosed
	}
	return nil
}

// Size is the size in bytes the buffer was created with.
func (b *Buffer) Size() uint64 { return b.size }

// AllocationSize is the size of the buffer's memory allocation
// (VkMemoryRequirements.size, or the imported size): what an importer of
// its exported file descriptor must be told.
func (b *Buffer) AllocationSize() uint64 { return b.allocSize }

// Dedicated reports whether the buffer's memory is a dedicated allocation
// (VkMemoryDedicatedAllocateInfo), as CUDA's import needs to know.
func (b *Buffer) Dedicated() bool { return b.dedicated }

// Heap is the heap the buffer was created on.
func (b *Buffer) Heap() Heap { return b.heap }

// Usage is the buffer's usage, defaults and transfer bits included.
func (b *Buffer) Usage() BufferUsage { return b.usage }

// Exportable reports whether ExportFD can export the buffer's memory.
func (b *Buffer) Exportable() bool { return b.exportable }

// MemoryFlags are the property flags of the buffer's memory type.
func (b *Buffer) MemoryFlags() MemoryPropertyFlags { return b.memFlags }

// handle returns the VkBuffer, for code of this package; use it while the
// buffer is acquired.
func (b *Buffer) handle() vk.Buffer { return b.h }

// ExportFD exports the buffer's memory as a new OPAQUE_FD file descriptor
// (vkGetMemoryFdKHR), which the caller owns and must close, or hand to an
// importer. The buffer must have been created Exportable.
func (b *Buffer) ExportFD() (int, error) {
	if err := b.acquire(); err != nil {
		return -1, err
	}
	defer b.life.release()
	if !b.exportable {
		return -1, errors.New("vulkan: ExportFD: the buffer was not created Exportable")
	}
	fd, err := b.d.raw.MemoryFD(b.mem, vk.ExternalMemoryHandleTypeOpaqueFD)
	if err != nil {
		return -1, fmt.Errorf("vulkan: ExportFD: %w", err)
	}
	return fd, nil
}

// Map returns the buffer's bytes, mapped for the life of the buffer, for
// HeapUpload and HeapReadback buffers; it fails for HeapDefault ones. The
// slice must not be used after Close. Where the memory is not coherent
// (MemoryFlags lacks MemoryHostCoherent), call Flush after writing and
// Invalidate before reading. Accesses must not race with GPU work on the
// same bytes: wait for that work first.
func (b *Buffer) Map() ([]byte, error) {
	if err := b.acquire(); err != nil {
		return nil, err
	}
	defer b.life.release()
	if b.mapped == nil {
		return nil, fmt.Errorf("vulkan: Map: the buffer is on the %v heap, which the host cannot map; use Upload and Readback, or HeapUpload or HeapReadback", b.heap)
	}
	return unsafe.Slice((*byte)(b.mapped), b.size), nil
}

// atomRange widens [off, off+size) to the device's nonCoherentAtomSize, as
// vkFlushMappedMemoryRanges requires.
func (b *Buffer) atomRange(off, size uint64) (uint64, uint64) {
	atom := b.d.pd.nonCoherentAtomSize
	off += b.memOff
	start := off / atom * atom
	end := (off + size + atom - 1) / atom * atom
	if end >= b.memSize {
		return start, vk.WholeSize
	}
	return start, end - start
}

// Flush makes host writes to bytes [off, off+size) of a mapped buffer
// visible to the device. It does nothing for coherent memory.
func (b *Buffer) Flush(off, size uint64) error {
	if err := b.acquire(); err != nil {
		return err
	}
	defer b.life.release()
	return b.flush(off, size)
}

func (b *Buffer) flush(off, size uint64) error {
	if b.mapped == nil || b.memFlags&MemoryHostCoherent != 0 || size == 0 {
		return nil
	}
	o, s := b.atomRange(off, size)
	if err := b.d.raw.FlushMappedMemory(b.mem, o, s); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

// Invalidate makes device writes to bytes [off, off+size) of a mapped
// buffer visible to the host. It does nothing for coherent memory.
func (b *Buffer) Invalidate(off, size uint64) error {
	if err := b.acquire(); err != nil {
		return err
	}
	defer b.life.release()
	return b.invalidate(off, size)
}

func (b *Buffer) invalidate(off, size uint64) error {
	if b.mapped == nil || b.memFlags&MemoryHostCoherent != 0 || size == 0 {
		return nil
	}
	o, s := b.atomRange(off, size)
	if err := b.d.raw.InvalidateMappedMemory(b.mem, o, s); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

func (b *Buffer) checkRange(what string, off uint64, n int) error {
	if off > b.size || uint64(n) > b.size-off {
		return fmt.Errorf("vulkan: %s: bytes [%d, %d) outside the %d-byte buffer", what, off, off+uint64(n), b.size)
	}
	return nil
}

// Upload writes data into the buffer at byte offset off and returns when it
// is there. It first waits for the batches submitted through Commands that
// use the buffer. HeapUpload and HeapReadback buffers are written through
// their mapping; HeapDefault buffers through the device's reused staging
// memory and copies on its queue, pipelined in pieces (up to 8 MiB), or
// straight from the caller's memory, imported, as Device.SetTransferMode
// says.
func (b *Buffer) Upload(off uint64, data []byte) error {
	if err := b.acquire(); err != nil {
		return err
	}
	defer b.life.release()
	if err := b.guarded("Upload", nil); err != nil {
		return err
	}
	if err := b.checkRange("Upload", off, len(data)); err != nil || len(data) == 0 {
		return err
	}
	if b.mapped != nil {
		return b.uploadMapped(off, data)
	}
	return b.staged(off, data, nil)
}

// uploadMapped is Upload of a mapped buffer (HeapUpload, HeapReadback):
// once the batches that use it have finished, a host copy into the
// mapping (mappedCopy) and a flush.
func (b *Buffer) uploadMapped(off uint64, data []byte) error {
	if err := b.d.waitSerial(b.used()); err != nil {
		return err
	}
	mappedCopy(unsafe.Slice((*byte)(unsafe.Add(b.mapped, off)), len(data)), data)
	return b.flush(off, uint64(len(data)))
}

// Readback copies bytes of the buffer from byte offset off into dst, once
// the batches submitted through Commands that use the buffer have finished.
// HeapDefault buffers are read through a staging buffer, as Upload writes.
func (b *Buffer) Readback(off uint64, dst []byte) error {
	if err := b.acquire(); err != nil {
		return err
	}
	defer b.life.release()
	if err := b.guarded("Readback", nil); err != nil {
		return err
	}
	if err := b.checkRange("Readback", off, len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	if b.mapped != nil {
		return b.readbackMapped(off, dst)
	}
	return b.staged(off, nil, dst)
}

// readbackMapped is Readback of a mapped buffer (HeapUpload,
// HeapReadback): once the batches that use it have finished, an
// invalidate and a host copy out of the mapping (mappedCopy).
func (b *Buffer) readbackMapped(off uint64, dst []byte) error {
	if err := b.d.waitSerial(b.used()); err != nil {
		return err
	}
	if err := b.invalidate(off, uint64(len(dst))); err != nil {
		return err
	}
	mappedCopy(dst, unsafe.Slice((*byte)(unsafe.Add(b.mapped, off)), len(dst)))
	return nil
}

// staged uploads up, or reads back into down, for a buffer the host does
// not map: the page-aligned part of a large transfer straight from or into
// the caller's memory, imported (viaImport, where Device.SetTransferMode's
// mode imports on this device), and the rest through the device's staging
// rings (stageUp, stageDown): reused memory, pieces pipelined so that the
// host copy of one overlaps the DMA of the others, each piece's copy
// between full barriers (earlier work on the buffer finishes first; later
// work, and the host, see the result). staging.go says when each
// mechanism is chosen.
func (b *Buffer) staged(off uint64, up, down []byte) error {
	host := up
	if up == nil {
		host = down
	}
	if ok, err := b.viaImport(off, host, up != nil); ok {
		return err
	}
	if up != nil {
		return b.d.stageUp(bufferPieces(b, off, up, true))
	}
	return b.d.stageDown(bufferPieces(b, off, down, false))
}

// Close waits for the batches submitted through Commands that use the
// buffer, then frees it and its memory (which closes an imported file
// descriptor). Work submitted otherwise, such as CUDA's on an exported
// copy, is the caller's to wait for first. Close is idempotent and returns
// nil.
func (b *Buffer) Close() error {
	if b == nil || b.d == nil {
		return nil
	}
	b.d.closeChild(&b.life, b.free)
	return nil
}

func (b *Buffer) closeOrder() int { return orderBuffer }
func (b *Buffer) destroy()        { b.life.shut(b.free) }

// free destroys the buffer's handles: from Close, from the device's Close,
// or when NewBuffer fails half way.
func (b *Buffer) free() {
	b.d.waitSerial(b.used())
	if b.memory != nil || b.sparse != nil {
		b.mapped = nil
		b.d.raw.DestroyBuffer(b.h)
		if b.memory != nil {
			b.memory.unref()
		}
		b.sparse.release()
		b.d.unregister(b)
		return
	}
	if b.mapped != nil {
		b.d.raw.UnmapMemory(b.mem)
		b.mapped = nil
	}
	b.d.raw.DestroyBuffer(b.h)
	b.d.raw.FreeMemory(b.mem)
	b.d.unregister(b)
}
