package gfxcuda

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ErrNotInPool is wrapped by the errors of Pool.Find and Device.PoolBuffer
// for memory that no live segment of the pool holds.
var ErrNotInPool = errors.New("gfxcuda: the memory is not in a segment of this pool")

// Pool allocates CUDA memory in segments for another allocator (PyTorch's
// pluggable allocator: the C library's gfxcuda_torch_alloc and
// gfxcuda_torch_free call Alloc and Free) and finds, for any range inside
// it, its segment and offset, so that Vulkan sees memory the other
// allocator placed there without a copy (Device.PoolBuffer).
//
// Segments are cuda.ShareableMemory (cuMemCreate with POSIX descriptors,
// sizes rounded up to the device's granularity, mapped read-write for the
// device). Alloc and Free make no Vulkan call. A segment lives while its
// owner has not freed it or while a buffer made from it (PoolBuffer,
// Segment.Buffer) is open: Free only drops the owner's reference, and the
// last reference unmaps it (after the context's queued work, as cudaFree
// does). Other processes that opened an export keep the memory itself.
//
// A Pool is safe for concurrent use.
type Pool struct {
	alloc func(n uint64) (segMemory, error)
	ctx   *cuda.Context // nil for a pool with a test allocator

	mu     sync.Mutex
	live   []*Segment // not freed by the owner, sorted by address
	held   int        // freed by the owner, kept by buffers
	closed bool
}

// segMemory is a segment's allocation: *cuda.ShareableMemory, or a test's
// stand-in.
type segMemory interface {
	Ptr() cuda.DevicePtr
	Size() uint64
	ExportFD() (int, error)
	Close() error
}

// NewPool returns an empty pool of ctx's device. Close it when done; a
// pool used by PyTorch lives as long as the process.
func NewPool(ctx *cuda.Context) *Pool {
	return &Pool{ctx: ctx, alloc: func(n uint64) (segMemory, error) { return ctx.AllocShareable(n) }}
}

// Segment is one allocation of a Pool.
type Segment struct {
	pool *Pool
	mem  segMemory
	ptr  cuda.DevicePtr
	size uint64 // the allocation's size

	mu      sync.Mutex
	refs    int                        // the owner's (until Free) and one per open buffer
	counted bool                       // freed while buffers held it: in Pool.held
	vk      map[*Device]*vulkan.Memory // its import into each Device's Vulkan, made once
	closed  bool
}

// PoolStats count a pool's segments.
type PoolStats struct {
	// Segments and Bytes are the segments the owner has not freed and
	// their allocation sizes.
	Segments int
	Bytes    uint64
	// Held counts segments the owner freed that buffers still hold.
	Held int
}

// Alloc allocates a segment of at least n bytes (rounded up to the
// device's granularity) and returns its address.
func (p *Pool) Alloc(n uint64) (cuda.DevicePtr, error) {
	if n == 0 {
		return 0, errors.New("gfxcuda: Pool.Alloc of 0 bytes")
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	m, err := p.alloc(n)
	if err != nil {
		return 0, fmt.Errorf("gfxcuda: a pool segment of %d bytes: %w", n, err)
	}
	s := &Segment{pool: p, mem: m, ptr: m.Ptr(), size: m.Size(), refs: 1}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, errors.Join(ErrClosed, m.Close())
	}
	i := sort.Search(len(p.live), func(i int) bool { return p.live[i].ptr >= s.ptr })
	p.live = append(p.live, nil)
	copy(p.live[i+1:], p.live[i:])
	p.live[i] = s
	p.mu.Unlock()
	return s.ptr, nil
}

// Free drops the owner's reference to the segment at ptr (an address Alloc
// returned): it is unmapped now, or when the last buffer made from it
// closes.
func (p *Pool) Free(ptr cuda.DevicePtr) error {
	p.mu.Lock()
	i := sort.Search(len(p.live), func(i int) bool { return p.live[i].ptr >= ptr })
	if i == len(p.live) || p.live[i].ptr != ptr {
		p.mu.Unlock()
		return fmt.Errorf("gfxcuda: Pool.Free(%#x): not an address Alloc returned: %w", uint64(ptr), ErrNotInPool)
	}
	s := p.live[i]
	p.live = append(p.live[:i], p.live[i+1:]...)
	p.mu.Unlock()
	return s.drop()
}

// Find returns the live segment that holds bytes [ptr, ptr+n) and their
// offset in it; n 0 asks for the byte at ptr. The error wraps ErrNotInPool
// when no segment of the pool holds them all.
func (p *Pool) Find(ptr cuda.DevicePtr, n uint64) (*Segment, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The last segment that starts at or below ptr.
	i := sort.Search(len(p.live), func(i int) bool { return p.live[i].ptr > ptr }) - 1
	if i < 0 {
		return nil, 0, fmt.Errorf("gfxcuda: %#x: %w", uint64(ptr), ErrNotInPool)
	}
	s := p.live[i]
	off := uint64(ptr - s.ptr)
	switch {
	case off >= s.size:
		return nil, 0, fmt.Errorf("gfxcuda: %#x: %w", uint64(ptr), ErrNotInPool)
	case n > s.size-off:
		return nil, 0, fmt.Errorf("gfxcuda: bytes [%#x, %#x) run past the end of their segment [%#x, %#x): %w",
			uint64(ptr), uint64(ptr)+n, uint64(s.ptr), uint64(s.ptr)+s.size, ErrNotInPool)
	}
	return s, off, nil
}

// Stats counts the pool's segments.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := PoolStats{Segments: len(p.live), Held: p.held}
	for _, s := range p.live {
		st.Bytes += s.size
	}
	return st
}

// Close frees every segment the owner has not freed (buffers made from
// them keep theirs until they close); Alloc fails afterwards. Idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	live := p.live
	p.live = nil
	p.mu.Unlock()
	var err error
	for _, s := range live {
		err = errors.Join(err, s.drop())
	}
	return err
}

// Ptr returns the segment's CUDA address.
func (s *Segment) Ptr() cuda.DevicePtr { return s.ptr }

// Size returns the segment's allocation size.
func (s *Segment) Size() uint64 { return s.size }

// retain takes a reference for a buffer; it fails once the segment is
// unmapped.
func (s *Segment) retain() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.refs++
	return nil
}

// release drops a reference and unmaps the segment with the last.
func (s *Segment) release() error {
	s.mu.Lock()
	s.refs--
	if s.refs > 0 {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	vks, counted := s.vk, s.counted
	s.vk = nil
	s.mu.Unlock()
	if counted {
		s.pool.mu.Lock()
		s.pool.held--
		s.pool.mu.Unlock()
	}
	var err error
	for _, m := range vks {
		err = errors.Join(err, m.Close())
	}
	if c := s.pool.ctx; c != nil {
		// As cudaFree: cuMemUnmap does not wait, and work still queued on
		// the segment (torch frees a block its streams may still use)
		// would fault.
		err = errors.Join(err, c.Synchronize())
	}
	return errors.Join(err, s.mem.Close())
}

// drop ends the owner's reference (Free, Close).
func (s *Segment) drop() error {
	s.mu.Lock()
	s.counted = s.refs > 1
	counted := s.counted
	s.mu.Unlock()
	if counted {
		s.pool.mu.Lock()
		s.pool.held++
		s.pool.mu.Unlock()
	}
	return s.release()
}
