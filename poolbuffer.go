// Buffers over a Pool's segments: the Vulkan side of the memory that
// package cudapool allocates for CUDA, placed in one import of each segment
// per Vulkan device. The pool itself is cudapool's; the face re-exports its
// names.

package gfxcuda

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cudapool"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Pool allocates CUDA memory in segments for another allocator (PyTorch's
// pluggable allocator) and finds the segment of any range inside it
// (cudapool.Pool); PoolBuffer makes Vulkan see memory placed there.
type Pool = cudapool.Pool

// Segment is one allocation of a Pool (cudapool.Segment).
type Segment = cudapool.Segment

// PoolStats count a pool's segments (cudapool.Stats).
type PoolStats = cudapool.Stats

// ErrNotInPool is wrapped by the errors of Pool.Find and Device.PoolBuffer
// for memory that no live segment of the pool holds.
var ErrNotInPool = cudapool.ErrNotInPool

// NewPool returns an empty pool of ctx's device (cudapool.NewPool). Close
// it when done; a pool used by PyTorch lives as long as the process.
func NewPool(ctx *cuda.Context) *Pool { return cudapool.NewPool(ctx) }

// PoolBuffer returns a new Buffer over bytes [ptr, ptr+n) of a segment of
// p (a tensor PyTorch placed there, a view or slice of one), seen by d's
// Vulkan without a copy: SegmentBuffer of the segment Find finds. Errors
// wrap ErrNotInPool for memory outside p's segments.
func (d *Device) PoolBuffer(p *Pool, ptr cuda.DevicePtr, n uint64) (*Buffer, error) {
	s, off, err := p.Find(ptr, n)
	if err != nil {
		return nil, err
	}
	return d.SegmentBuffer(s, off, n)
}

// SegmentBuffer returns a new Buffer over bytes [off, off+n) of segment s,
// on d (a Device of the segment's GPU): its CUDA pointer is the segment's at
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
func (d *Device) SegmentBuffer(s *Segment, off, n uint64) (*Buffer, error) {
	sc := s.Context()
	switch {
	case n == 0:
		return nil, errors.New("gfxcuda: a buffer of 0 bytes of a pool segment")
	case off >= s.Size() || n > s.Size()-off:
		return nil, fmt.Errorf("gfxcuda: bytes [%d, %d) outside a %d-byte pool segment", off, off+n, s.Size())
	case sc != nil && d.ctx != nil && sc.Device().Ordinal() != d.ctx.Device().Ordinal():
		return nil, fmt.Errorf("gfxcuda: the pool's memory is on CUDA device %d, the Device on %d: %w",
			sc.Device().Ordinal(), d.ctx.Device().Ordinal(), ErrDifferentGPU)
	}
	if err := s.Retain(); err != nil {
		return nil, fmt.Errorf("gfxcuda: the pool segment was freed: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fail := func(err error) (*Buffer, error) {
		return nil, errors.Join(err, s.Release())
	}
	if err := d.live(); err != nil {
		return fail(err)
	}
	m, err := s.VulkanMemory(d.vk)
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
	b := &Buffer{s: state{d: d}, vk: vb, seg: s, segOff: off, ptr: s.Ptr() + cuda.DevicePtr(off), size: n}
	d.adopt(b, &b.s, guardBuffer(vb))
	return b, nil
}
