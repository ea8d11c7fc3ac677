// Buffers over a Pool's segments: the Vulkan side of the memory that Pool
// allocates for CUDA, placed in one import of each segment per Device.

package gfxcuda

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// PoolBuffer returns a new Buffer over bytes [ptr, ptr+n) of a segment of
// p (a tensor PyTorch placed there, a view or slice of one), seen by d's
// Vulkan without a copy: Segment.Buffer of the segment Find finds. Errors
// wrap ErrNotInPool for memory outside p's segments.
func (d *Device) PoolBuffer(p *Pool, ptr cuda.DevicePtr, n uint64) (*Buffer, error) {
	s, off, err := p.Find(ptr, n)
	if err != nil {
		return nil, err
	}
	return s.Buffer(d, off, n)
}

// Buffer returns a new Buffer over bytes [off, off+n) of the segment, on d
// (a Device of the segment's GPU): its CUDA pointer is the segment's at
// off, and its Vulkan buffer is placed at off in the segment's Vulkan
// import, made on the first Buffer for d and shared by the later ones (one
// import per segment and Device). The Buffer holds the segment: it stays
// mapped after the pool's owner frees it, until the Buffer closes. Like
// NewBufferFromCUDA's, the Buffer starts as Vulkan's; order Vulkan work
// after CUDA work that wrote it with Device.AfterCUDA.
//
// Vulkan places a buffer only at offsets aligned as the device requires of
// storage buffers (VkMemoryRequirements.alignment, a multiple of
// minStorageBufferOffsetAlignment): other offsets are refused with an
// error wrapping vulkan.ErrPlacement.
func (s *Segment) Buffer(d *Device, off, n uint64) (*Buffer, error) {
	switch {
	case n == 0:
		return nil, errors.New("gfxcuda: a buffer of 0 bytes of a pool segment")
	case off >= s.size || n > s.size-off:
		return nil, fmt.Errorf("gfxcuda: bytes [%d, %d) outside a %d-byte pool segment", off, off+n, s.size)
	case s.pool.ctx != nil && d.ctx != nil && s.pool.ctx.Device().Ordinal() != d.ctx.Device().Ordinal():
		return nil, fmt.Errorf("gfxcuda: the pool's memory is on CUDA device %d, the Device on %d: %w",
			s.pool.ctx.Device().Ordinal(), d.ctx.Device().Ordinal(), ErrDifferentGPU)
	}
	if err := s.retain(); err != nil {
		return nil, fmt.Errorf("gfxcuda: the pool segment was freed: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fail := func(err error) (*Buffer, error) {
		return nil, errors.Join(err, s.release())
	}
	if err := d.live(); err != nil {
		return fail(err)
	}
	m, err := s.vulkanMemory(d)
	if err != nil {
		return fail(err)
	}
	vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: n, Memory: m, Offset: off})
	if err != nil {
		if errors.Is(err, vulkan.ErrPlacement) {
			err = fmt.Errorf("gfxcuda: a Vulkan buffer at offset %d of a pool segment: offsets must be aligned as storage buffers need on this device (minStorageBufferOffsetAlignment); tensors the pool allocates start aligned, slices may not: %w", off, err)
		}
		return fail(err)
	}
	b := &Buffer{s: state{d: d}, vk: vb, seg: s, segOff: off, ptr: s.ptr + cuda.DevicePtr(off), size: n}
	d.adopt(b, &b.s, guardBuffer(vb))
	return b, nil
}

// vulkanMemory returns the segment's import into d's Vulkan, making it on
// first use.
func (s *Segment) vulkanMemory(d *Device) (*vulkan.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if m := s.vk[d]; m != nil {
		return m, nil
	}
	fd, err := s.mem.ExportFD()
	if err != nil {
		return nil, fmt.Errorf("gfxcuda: exporting a pool segment: %w", err)
	}
	m, err := d.vk.ImportMemory(vulkan.ImportFD{FD: fd, Size: s.size}) // takes fd
	if err != nil {
		return nil, fmt.Errorf("gfxcuda: importing a pool segment into Vulkan: %w", err)
	}
	if s.vk == nil {
		s.vk = map[*Device]*vulkan.Memory{}
	}
	s.vk[d] = m
	return m, nil
}

// Imported reports whether the segment has been imported into d's Vulkan
// (by a Buffer on d).
func (s *Segment) Imported(d *Device) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vk[d] != nil
}
