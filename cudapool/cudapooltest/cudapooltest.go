// Package cudapooltest gives tests of CUDA segment pools (package
// cudapool's own and the face's) segments that stand in for CUDA
// allocations, to test a pool's bookkeeping on the CPU. It does not import
// cudapool, so that cudapool's internal tests can use it: callers wrap
// Allocator's function in cudapool.NewPoolOf.
package cudapooltest

import (
	"errors"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Seg stands in for a segment's CUDA allocation: its address is a number,
// ExportFD hands out a descriptor of its Vulkan buffer when it has one (an
// exportable lavapipe buffer whose memory plays the segment's), and Close
// and ExportFD are counted. It has the methods of cudapool.Memory.
type Seg struct {
	ptr    cuda.DevicePtr
	size   uint64
	vk     *vulkan.Buffer
	mu     sync.Mutex
	closes int
	fds    int
}

// Ptr returns the segment's (made-up) address.
func (m *Seg) Ptr() cuda.DevicePtr { return m.ptr }

// Size returns the segment's size.
func (m *Seg) Size() uint64 { return m.size }

// Vulkan returns the buffer that plays the segment's memory, or nil.
func (m *Seg) Vulkan() *vulkan.Buffer { return m.vk }

// ExportFD exports the Vulkan buffer's memory (an error without one, or
// after Close) and counts the export.
func (m *Seg) ExportFD() (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closes > 0 {
		return -1, cuda.ErrClosed
	}
	if m.vk == nil {
		return -1, errors.New("cudapooltest: no memory to export")
	}
	m.fds++
	return m.vk.ExportFD()
}

// Close counts the call; the Vulkan buffer is its maker's to close.
func (m *Seg) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closes++
	return nil
}

// Closed returns how many times Close was called.
func (m *Seg) Closed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closes
}

// FDs returns how many times ExportFD exported the memory.
func (m *Seg) FDs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fds
}

// Allocator returns a function making Segs of at least n bytes, rounded to
// a 2 MiB granularity like CUDA's, at addresses with gaps between them and
// not in order of allocation (every other one below the previous ones),
// and the list of the Segs made so far. mk, when set, gives each its
// Vulkan memory. The function is safe for concurrent use.
func Allocator(mk func(n uint64) *vulkan.Buffer) (alloc func(n uint64) *Seg, segs *[]*Seg) {
	const g = 2 << 20
	var mu sync.Mutex
	var list []*Seg
	next := cuda.DevicePtr(0x7f0000000000)
	return func(n uint64) *Seg {
		size := (n + g - 1) / g * g
		mu.Lock()
		defer mu.Unlock()
		s := &Seg{ptr: next, size: size}
		if mk != nil {
			s.vk = mk(size)
		}
		if len(list)%2 == 1 {
			s.ptr = 0x100000000000 - cuda.DevicePtr(len(list))*4*g
		} else {
			next += cuda.DevicePtr(size + g) // a gap
		}
		list = append(list, s)
		return s
	}, &list
}

// ExportableBuffers returns a function for Allocator's mk: each call makes
// an exportable Vulkan buffer of n bytes on vd (lavapipe's memory playing a
// segment's), closed at the test's end.
func ExportableBuffers(t testing.TB, vd *vulkan.Device) func(n uint64) *vulkan.Buffer {
	return func(n uint64) *vulkan.Buffer {
		vb, err := vd.NewBuffer(vulkan.BufferOptions{Size: n, Exportable: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { vb.Close() })
		return vb
	}
}
