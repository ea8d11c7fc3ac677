package interop

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Buffer is linear GPU memory visible to Vulkan as a VkBuffer and to CUDA
// as a device pointer; the same bytes, no copies.
type Buffer struct {
	s      state
	vk     *vulkan.Buffer
	ext    *cuda.ExternalMemory  // Vulkan-allocated memory imported into CUDA
	mapped *cuda.MappedBuffer    // its mapping
	cu     *cuda.ShareableMemory // or: CUDA-allocated memory imported into Vulkan
	ptr    cuda.DevicePtr
	size   uint64
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
	d.adopt(b, &b.s, vb.SetGuard)
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
	d.adopt(b, &b.s, vb.SetGuard)
	return b, nil
}

func (b *Buffer) st() *state { return &b.s }

// Vulkan returns the Vulkan buffer.
func (b *Buffer) Vulkan() *vulkan.Buffer { return b.vk }

// Ptr returns the CUDA device pointer to the buffer's first byte.
func (b *Buffer) Ptr() cuda.DevicePtr { return b.ptr }

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

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
	err = errors.Join(err, b.vk.Close())
	if b.cu != nil {
		err = errors.Join(err, b.cu.Close())
	}
	return err
}

// Close frees the buffer in both APIs, after the Device's stream and the
// Vulkan queue have finished their work (work on other CUDA streams that
// uses the buffer must have finished too). Idempotent; Device.Close closes
// buffers still open.
func (b *Buffer) Close() error {
	d := b.s.d
	d.mu.Lock()
	if b.s.closed || d.closed {
		d.mu.Unlock()
		return nil
	}
	if b.s.ring != nil {
		d.mu.Unlock()
		return fmt.Errorf("interop: Close: %w: close its Ring first", ErrHeldByCUDA)
	}
	delete(d.kids, b)
	b.s.closed = true // no new hand-offs
	d.mu.Unlock()
	// Without the Device's lock, so that other hand-offs go on: wait for
	// the CUDA work queued on the Device's stream so far; the Vulkan
	// objects wait for their own last use when closed.
	err := hostWait(d.cs, d.stream)
	return errors.Join(err, b.free())
}
