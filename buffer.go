package gfxcuda

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Buffer is linear GPU memory visible to Vulkan as a VkBuffer and to CUDA
// as a device pointer; the same bytes, no copies.
type Buffer struct {
	s        state
	vk       *vulkan.Buffer        // nil until imported when lazy (guarded by the Device's lock)
	ext      *cuda.ExternalMemory  // Vulkan-allocated memory imported into CUDA
	mapped   *cuda.MappedBuffer    // its mapping
	cu       *cuda.ShareableMemory // or: CUDA-allocated memory (NewBufferFromCUDA, or imported FromCUDA)
	ptr      cuda.DevicePtr
	size     uint64
	imported bool        // made by ImportBuffer: not exportable again
	lazy     *lazyVulkan // ImportOptions.LazyVulkan: the Vulkan import still to make
	view     computeView // its compute view (ComputeResource, cudacompute.go), guarded by the Device's lock
	seg      *Segment    // or: a view of a Pool's segment (Device.SegmentBuffer), held until free
	segOff   uint64      // its offset in the segment
}

// lazyVulkan is the Vulkan half of an import made on first use: the
// descriptor it will take and what it needs. The Device's lock guards it.
type lazyVulkan struct {
	fd        int // owned until the import takes it; -1 then
	alloc     uint64
	dedicated bool
	err       error // the import's failure, for good
}

func (l *lazyVulkan) close() {
	if l != nil && l.fd >= 0 {
		closeFD(l.fd)
		l.fd = -1
	}
}

// NewBuffer allocates size bytes in Vulkan (a dedicated, exportable,
// device-local allocation), exports it as an OPAQUE_FD and imports it into
// CUDA with the allocation's real size. The CUDA pointer stays valid until
// the Buffer is closed.
func (d *Device) NewBuffer(size uint64) (*Buffer, error) {
	if size == 0 {
		return nil, fmt.Errorf("interop: NewBuffer of 0 bytes")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Exportable: true})
	if err != nil {
		return nil, fmt.Errorf("interop: Vulkan buffer of %d bytes: %w", size, err)
	}
	fd, err := vb.ExportFD()
	if err != nil {
		vb.Close()
		return nil, err
	}
	ext, err := d.ctx.ImportMemoryFD(fd, vb.AllocationSize(), vb.Dedicated()) // takes fd
	if err != nil {
		vb.Close()
		return nil, err
	}
	mb, err := ext.MapBuffer(0, size)
	if err != nil {
		ext.Close()
		vb.Close()
		return nil, err
	}
	b := &Buffer{s: state{d: d}, vk: vb, ext: ext, mapped: mb, ptr: mb.Ptr(), size: size}
	d.adopt(b, &b.s, guardBuffer(vb))
	return b, nil
}

// NewBufferFromCUDA allocates size bytes with CUDA (cuMemCreate, rounded up
// to the allocation granularity), exports them as a POSIX fd and imports
// them into Vulkan as a buffer of size bytes.
func (d *Device) NewBufferFromCUDA(size uint64) (*Buffer, error) {
	if size == 0 {
		return nil, fmt.Errorf("interop: NewBufferFromCUDA of 0 bytes")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	sm, err := d.ctx.AllocShareable(size)
	if err != nil {
		return nil, err
	}
	fd, err := sm.ExportFD()
	if err != nil {
		sm.Close()
		return nil, err
	}
	vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Import: &vulkan.ImportFD{FD: fd, Size: sm.Size()}}) // takes fd
	if err != nil {
		sm.Close()
		return nil, fmt.Errorf("interop: importing CUDA memory into Vulkan: %w", err)
	}
	b := &Buffer{s: state{d: d}, vk: vb, cu: sm, ptr: sm.Ptr(), size: size}
	d.adopt(b, &b.s, guardBuffer(vb))
	return b, nil
}

func (b *Buffer) st() *state { return &b.s }

// Vulkan returns the Vulkan buffer. A buffer imported with
// ImportOptions.LazyVulkan is imported into Vulkan by the first call
// (hand-offs leave a resource Vulkan has not used alone); nil when that
// import failed (VulkanBuffer
// returns why).
func (b *Buffer) Vulkan() *vulkan.Buffer {
	vb, _ := b.VulkanBuffer()
	return vb
}

// VulkanBuffer is Vulkan with the error of a lazy import.
func (b *Buffer) VulkanBuffer() (*vulkan.Buffer, error) {
	if b.lazy == nil {
		return b.vk, nil
	}
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return b.vulkanLocked()
}

// VulkanImported reports whether the buffer exists in Vulkan yet: always,
// except for a lazily imported buffer that Vulkan has not used.
func (b *Buffer) VulkanImported() bool {
	if b.lazy == nil {
		return true
	}
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return b.vk != nil
}

// vulkanLocked makes the lazy Vulkan import if it is due. Called with the
// Device's lock held.
func (b *Buffer) vulkanLocked() (*vulkan.Buffer, error) {
	if b.vk != nil || b.lazy == nil {
		return b.vk, nil
	}
	if b.lazy.err != nil {
		return nil, b.lazy.err
	}
	d := b.s.d
	if b.s.closed || d.closed {
		return nil, ErrClosed
	}
	fd := b.lazy.fd
	b.lazy.fd = -1
	vb, err := importVulkanBuffer(d.vk, fd, b.size, b.lazy.alloc, b.lazy.dedicated, b.segOff) // takes fd
	if err != nil {
		b.lazy.err = fmt.Errorf("interop: importing a buffer into Vulkan: %w", err)
		return nil, b.lazy.err
	}
	b.vk = vb
	return vb, nil
}

// Ptr returns the CUDA device pointer to the buffer's first byte.
func (b *Buffer) Ptr() cuda.DevicePtr { return b.ptr }

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Offset returns the buffer's offset in its allocation (AllocationSize
// bytes, what ExportFD exports): non-zero for a view of a Pool's segment
// (Device.SegmentBuffer) or an import of one; 0 otherwise.
func (b *Buffer) Offset() uint64 { return b.segOff }

// Range returns the CUDA pointer to bytes [off, off+n) of the buffer, or an
// error when the range does not fit.
func (b *Buffer) Range(off, n uint64) (cuda.DevicePtr, error) {
	if off+n > b.size || off+n < off {
		return 0, fmt.Errorf("interop: range [%d, %d) outside a %d-byte buffer", off, off+n, b.size)
	}
	return b.ptr.Add(off), nil
}

// Map hands the buffer to CUDA on stream s (nil: the Device's stream), calls
// f with its device pointer and the stream to queue work on, and hands it
// back to Vulkan, whatever f returns.
func (b *Buffer) Map(s *cuda.Stream, f func(ptr cuda.DevicePtr, s *cuda.Stream) error) error {
	acc, err := b.s.d.ToCUDA(s, b)
	if err != nil {
		return err
	}
	ferr := f(b.ptr, acc.Stream())
	return errors.Join(ferr, acc.Done())
}

func (b *Buffer) closeLocked() error {
	if b.s.closed {
		return nil
	}
	b.s.closed = true
	return b.free()
}

// free destroys the buffer in both APIs.
func (b *Buffer) free() error {
	var err error
	if b.ext != nil {
		err = b.ext.Close() // unmaps b.mapped too
	}
	if b.vk != nil {
		err = errors.Join(err, b.vk.Close())
	}
	if b.cu != nil {
		err = errors.Join(err, b.cu.Close())
	}
	if b.seg != nil {
		err = errors.Join(err, b.seg.Release())
	}
	b.lazy.close()
	return err
}

// Close frees the buffer in both APIs, after the CUDA work queued in the
// context so far (on any stream, as cudaFree waits) and the Vulkan queue's
// work on it have finished: work still queued never faults. A Buffer over
// a pool segment (Device.SegmentBuffer) does not wait for CUDA: it frees no CUDA
// memory, and the segment's last release waits. Idempotent; Device.Close
// closes buffers still open.
func (b *Buffer) Close() error {
	d := b.s.d
	d.mu.Lock()
	if b.s.closed || d.closed {
		d.mu.Unlock()
		return nil
	}
	if b.s.holder != nil {
		d.mu.Unlock()
		return fmt.Errorf("interop: Close: %w: close the ring or producer that holds it first", ErrHeldByCUDA)
	}
	delete(d.kids, b)
	b.s.closed = true // no new hand-offs
	d.mu.Unlock()
	// Without the Device's lock, so that other hand-offs go on: wait, as
	// cudaFree does, for the CUDA work queued in the context so far, on
	// any stream (PyTorch's too: work still queued on the memory would
	// fault once it is freed, slangpy #929); the Vulkan objects wait for
	// their own last use when closed. A view of a pool segment frees no
	// CUDA memory: the segment's last release waits instead.
	var err error
	if b.seg == nil {
		err = d.cs.syncContext()
	}
	return errors.Join(err, b.free())
}

// computeView is a shared resource's view on a compute device, made by its
// first dispatch and kept until the resource is closed (the view wraps the
// resource's Vulkan object and owns nothing).
type computeView struct {
	dev *compute.Device
	res compute.Resource
}

// get returns the cached view of a resource on cd, making it with mk when
// there is none for cd. Called with d.mu held.
func (v *computeView) get(cd *compute.Device, mk func() (compute.Resource, error)) (compute.Resource, error) {
	if v.res != nil && v.dev == cd {
		return v.res, nil
	}
	r, err := mk()
	if err != nil {
		return nil, err
	}
	*v = computeView{dev: cd, res: r}
	return r, nil
}

func (b *Buffer) live() error {
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.s.closed || d.closed {
		return ErrClosed
	}
	return nil
}

// importVulkanBuffer imports size bytes at off of an exported allocation
// of alloc bytes (fd, which it takes) as a Vulkan buffer: the buffer's own
// import, or at an offset, the allocation's import with the buffer placed
// in it (the buffer keeps the import).
func importVulkanBuffer(dev *vulkan.Device, fd int, size, alloc uint64, dedicated bool, off uint64) (*vulkan.Buffer, error) {
	if off == 0 {
		return dev.NewBuffer(vulkan.BufferOptions{Size: size, Import: &vulkan.ImportFD{FD: fd, Size: alloc, Dedicated: dedicated}}) // takes fd
	}
	return importPlaced(dev, fd, size, alloc, off)
}

// importPlaced imports an allocation (fd, which it takes) as a Memory and
// places a buffer of size bytes at off in it.
func importPlaced(dev *vulkan.Device, fd int, size, alloc, off uint64) (*vulkan.Buffer, error) {
	m, err := dev.ImportMemory(vulkan.ImportFD{FD: fd, Size: alloc}) // takes fd
	if err != nil {
		return nil, err
	}
	vb, err := dev.NewBuffer(vulkan.BufferOptions{Size: size, Memory: m, Offset: off})
	return vb, errors.Join(err, m.Close()) // vb keeps the memory
}

// Device returns the Device that made or imported the buffer.
func (b *Buffer) Device() *Device { return b.s.d }

// FromCUDA reports whether the buffer's memory is a CUDA allocation
// (NewBufferFromCUDA, a Pool's segment) rather than a Vulkan one.
func (b *Buffer) FromCUDA() bool { return b.cu != nil || b.seg != nil }
