package cudapool

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cudapool/cudapooltest"
	"github.com/gfxcuda/gfxcuda/internal/lifetime"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"github.com/gfxcuda/gfxcuda/vulkan/vulkantest"
)

// fakePool returns a pool whose segments are cudapooltest.Segs (made-up
// addresses, 2 MiB granularity, gaps); mk, when set, gives each its
// Vulkan memory.
func fakePool(mk func(n uint64) *vulkan.Buffer) (*Pool, *[]*cudapooltest.Seg) {
	alloc, segs := cudapooltest.Allocator(mk)
	return NewPoolOf(func(n uint64) (Memory, error) { return alloc(n), nil }), segs
}

// TestPoolRegistry checks the pool's lookup of (pointer, length) to
// (segment, offset) over hundreds of segments, its refusals of memory
// outside them, and that each segment is closed exactly once, when the
// owner frees it.
func TestPoolRegistry(t *testing.T) {
	p, segs := fakePool(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var ptrs []cuda.DevicePtr
	for range 300 {
		ptr, err := p.Alloc(1 + rng.Uint64N(9<<20))
		if err != nil {
			t.Fatal(err)
		}
		ptrs = append(ptrs, ptr)
	}
	if st := p.Stats(); st.Segments != 300 || st.Held != 0 {
		t.Fatalf("Stats %+v after 300 allocations", st)
	}
	check := func(live map[*cudapooltest.Seg]bool) {
		t.Helper()
		for _, s := range *segs {
			for range 5 {
				off := rng.Uint64N(s.Size())
				n := rng.Uint64N(s.Size() - off + 1)
				seg, got, err := p.Find(s.Ptr()+cuda.DevicePtr(off), n)
				if !live[s] {
					if !errors.Is(err, ErrNotInPool) {
						t.Fatalf("Find in a freed segment: %v, want ErrNotInPool", err)
					}
					continue
				}
				if err != nil || seg.mem != s || got != off {
					t.Fatalf("Find(%#x, %d) = segment at %#x, offset %d, %v; want %#x, %d", uint64(s.Ptr())+off, n, uint64(seg.Ptr()), got, err, uint64(s.Ptr()), off)
				}
			}
			if live[s] {
				if _, _, err := p.Find(s.Ptr()+cuda.DevicePtr(s.Size())-8, 9); !errors.Is(err, ErrNotInPool) {
					t.Fatalf("a range past a segment's end: %v, want ErrNotInPool", err)
				}
				if _, _, err := p.Find(s.Ptr()+cuda.DevicePtr(s.Size()), 1); !errors.Is(err, ErrNotInPool) {
					t.Fatalf("the byte after a segment (a gap): %v, want ErrNotInPool", err)
				}
			}
		}
		if _, _, err := p.Find(1, 1); !errors.Is(err, ErrNotInPool) {
			t.Fatalf("Find below every segment: %v", err)
		}
	}
	live := map[*cudapooltest.Seg]bool{}
	for _, s := range *segs {
		live[s] = true
	}
	check(live)
	// Free half, in random order.
	rng.Shuffle(len(ptrs), func(i, j int) { ptrs[i], ptrs[j] = ptrs[j], ptrs[i] })
	for _, ptr := range ptrs[:150] {
		if err := p.Free(ptr); err != nil {
			t.Fatal(err)
		}
		for _, s := range *segs {
			if s.Ptr() == ptr {
				live[s] = false
			}
		}
	}
	check(live)
	if err := p.Free(ptrs[0]); !errors.Is(err, ErrNotInPool) {
		t.Errorf("a second Free: %v, want ErrNotInPool", err)
	}
	if err := p.Free(ptrs[200] + 512); !errors.Is(err, ErrNotInPool) {
		t.Errorf("Free inside a segment: %v, want ErrNotInPool", err)
	}
	for _, s := range *segs {
		want := 0
		if !live[s] {
			want = 1
		}
		if s.Closed() != want {
			t.Fatalf("segment closed %d times, want %d", s.Closed(), want)
		}
	}
	if st := p.Stats(); st.Segments != 150 {
		t.Errorf("Stats %+v after freeing 150", st)
	}
	// A reference held (as a buffer holds one) keeps a freed segment.
	seg, _, err := p.Find(ptrs[160], 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := seg.Retain(); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(ptrs[160]); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Held != 1 || st.Segments != 149 || seg.mem.(*cudapooltest.Seg).Closed() != 0 {
		t.Fatalf("after freeing a held segment: Stats %+v, closed %d", st, seg.mem.(*cudapooltest.Seg).Closed())
	}
	if err := seg.Release(); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Held != 0 || seg.mem.(*cudapooltest.Seg).Closed() != 1 {
		t.Fatalf("after the last reference: Stats %+v, closed %d", st, seg.mem.(*cudapooltest.Seg).Closed())
	}
	if err := seg.Retain(); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("retain of an unmapped segment: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range *segs {
		if s.Closed() != 1 {
			t.Fatalf("after Pool.Close a segment was closed %d times", s.Closed())
		}
	}
	if _, err := p.Alloc(10); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("Alloc after Close: %v", err)
	}
	if _, err := p.Alloc(0); err == nil {
		t.Error("Alloc(0) succeeded")
	}
}

// TestPoolConcurrent allocates, finds and frees from many goroutines (run
// with -race).
func TestPoolConcurrent(t *testing.T) {
	p, segs := fakePool(nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 500 {
				ptr, err := p.Alloc(1 + rng.Uint64N(3<<20))
				if err != nil {
					t.Error(err)
					return
				}
				if s, off, err := p.Find(ptr+100, 8); err != nil || s.Ptr() != ptr || off != 100 {
					t.Errorf("Find: %v", err)
					return
				}
				if err := p.Free(ptr); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if st := p.Stats(); st.Segments != 0 || st.Held != 0 {
		t.Errorf("Stats %+v after every Free", st)
	}
	for _, s := range *segs {
		if s.Closed() != 1 {
			t.Fatalf("a segment closed %d times", s.Closed())
		}
	}
}

// TestSegmentVulkanMemory: a segment is imported into a Vulkan device once,
// whoever asks, and the import goes with the segment's last reference.
func TestSegmentVulkanMemory(t *testing.T) {
	vd := vulkantest.Device(t)
	if !vd.Physical().CanExportOpaqueFD() || !vd.Physical().CanImportOpaqueFD() || vd.Physical().Type != vulkan.DeviceTypeCPU {
		t.Skipf("%s: the stand-in segment is for lavapipe", vd.Physical().Name)
	}
	p, segs := fakePool(cudapooltest.ExportableBuffers(t, vd))
	ptr, err := p.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	seg, _, err := p.Find(ptr, 1)
	if err != nil {
		t.Fatal(err)
	}
	if seg.Imported(vd) || seg.Context() != nil {
		t.Fatalf("a fresh segment: imported %v, context %v", seg.Imported(vd), seg.Context())
	}
	m1, err := seg.VulkanMemory(vd)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := seg.VulkanMemory(vd)
	if err != nil || m1 != m2 || (*segs)[0].FDs() != 1 || !seg.Imported(vd) {
		t.Fatalf("second VulkanMemory: %v, same %v, %d exports", err, m1 == m2, (*segs)[0].FDs())
	}
	placed, err := vd.NewBuffer(vulkan.BufferOptions{Size: 4096, Memory: m1})
	if err != nil {
		t.Fatalf("a buffer placed in the import: %v", err)
	}
	placed.Close()
	if err := p.Free(ptr); err != nil {
		t.Fatal(err)
	}
	if b, err := vd.NewBuffer(vulkan.BufferOptions{Size: 4096, Memory: m1}); err == nil {
		b.Close()
		t.Fatal("the import outlived the segment's last reference")
	}
	if _, err := seg.VulkanMemory(vd); !errors.Is(err, lifetime.ErrClosed) {
		t.Fatalf("VulkanMemory of an unmapped segment: %v", err)
	}
	if seg.Imported(vd) {
		t.Fatal("an unmapped segment is still imported")
	}
}
