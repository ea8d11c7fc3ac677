package gfxcuda

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// fakeSeg stands in for a segment's CUDA allocation, to test the pool's
// bookkeeping on the CPU: addresses are numbers, ExportFD hands out a
// descriptor of vk when there is one (an exportable lavapipe buffer whose
// memory plays the segment's), and Close is counted.
type fakeSeg struct {
	ptr    cuda.DevicePtr
	size   uint64
	vk     *vulkan.Buffer
	mu     sync.Mutex
	closes int
	fds    int
}

func (m *fakeSeg) Ptr() cuda.DevicePtr { return m.ptr }
func (m *fakeSeg) Size() uint64        { return m.size }
func (m *fakeSeg) ExportFD() (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closes > 0 {
		return -1, cuda.ErrClosed
	}
	if m.vk == nil {
		return -1, errors.New("fakeSeg: no memory to export")
	}
	m.fds++
	return m.vk.ExportFD()
}
func (m *fakeSeg) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closes++
	return nil
}
func (m *fakeSeg) closed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closes
}

// fakePool returns a pool whose segments are fakeSegs at addresses with
// gaps between them, rounded to a 2 MiB granularity like CUDA's; mk, when
// set, gives each its Vulkan memory.
func fakePool(mk func(n uint64) *vulkan.Buffer) (*Pool, *[]*fakeSeg) {
	const g = 2 << 20
	var mu sync.Mutex
	var segs []*fakeSeg
	next := cuda.DevicePtr(0x7f0000000000)
	p := &Pool{alloc: func(n uint64) (segMemory, error) {
		size := (n + g - 1) / g * g
		mu.Lock()
		defer mu.Unlock()
		s := &fakeSeg{ptr: next, size: size}
		if mk != nil {
			s.vk = mk(size)
		}
		// Addresses not in order of allocation: every other segment goes
		// below the previous ones.
		if len(segs)%2 == 1 {
			s.ptr = 0x100000000000 - cuda.DevicePtr(len(segs))*4*g
		} else {
			next += cuda.DevicePtr(size + g) // a gap
		}
		segs = append(segs, s)
		return s, nil
	}}
	return p, &segs
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
	check := func(live map[*fakeSeg]bool) {
		t.Helper()
		for _, s := range *segs {
			for range 5 {
				off := rng.Uint64N(s.size)
				n := rng.Uint64N(s.size - off + 1)
				seg, got, err := p.Find(s.ptr+cuda.DevicePtr(off), n)
				if !live[s] {
					if !errors.Is(err, ErrNotInPool) {
						t.Fatalf("Find in a freed segment: %v, want ErrNotInPool", err)
					}
					continue
				}
				if err != nil || seg.mem != s || got != off {
					t.Fatalf("Find(%#x, %d) = segment at %#x, offset %d, %v; want %#x, %d", uint64(s.ptr)+off, n, uint64(seg.Ptr()), got, err, uint64(s.ptr), off)
				}
			}
			if live[s] {
				if _, _, err := p.Find(s.ptr+cuda.DevicePtr(s.size)-8, 9); !errors.Is(err, ErrNotInPool) {
					t.Fatalf("a range past a segment's end: %v, want ErrNotInPool", err)
				}
				if _, _, err := p.Find(s.ptr+cuda.DevicePtr(s.size), 1); !errors.Is(err, ErrNotInPool) {
					t.Fatalf("the byte after a segment (a gap): %v, want ErrNotInPool", err)
				}
			}
		}
		if _, _, err := p.Find(1, 1); !errors.Is(err, ErrNotInPool) {
			t.Fatalf("Find below every segment: %v", err)
		}
	}
	live := map[*fakeSeg]bool{}
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
			if s.ptr == ptr {
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
		if s.closed() != want {
			t.Fatalf("segment closed %d times, want %d", s.closed(), want)
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
	if err := seg.retain(); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(ptrs[160]); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Held != 1 || st.Segments != 149 || seg.mem.(*fakeSeg).closed() != 0 {
		t.Fatalf("after freeing a held segment: Stats %+v, closed %d", st, seg.mem.(*fakeSeg).closed())
	}
	if err := seg.release(); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Held != 0 || seg.mem.(*fakeSeg).closed() != 1 {
		t.Fatalf("after the last reference: Stats %+v, closed %d", st, seg.mem.(*fakeSeg).closed())
	}
	if err := seg.retain(); !errors.Is(err, ErrClosed) {
		t.Errorf("retain of an unmapped segment: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range *segs {
		if s.closed() != 1 {
			t.Fatalf("after Pool.Close a segment was closed %d times", s.closed())
		}
	}
	if _, err := p.Alloc(10); !errors.Is(err, ErrClosed) {
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
		if s.closed() != 1 {
			t.Fatalf("a segment closed %d times", s.closed())
		}
	}
}

// TestPoolBufferCPU makes Buffers over parts of pool segments with a real
// Vulkan (lavapipe; CUDA is fake, the segment's memory is an exportable
// Vulkan allocation): one Vulkan import per segment, each Buffer reads the
// segment's bytes at its offset and its writes land there, misaligned
// offsets are refused naming the alignment, a segment freed by the pool
// lives while a Buffer holds it, and AfterCUDA makes the next Vulkan
// submission acquire the Buffer.
func TestPoolBufferCPU(t *testing.T) {
	d, f := fakeDevice(t)
	if !d.vk.Physical().CanExportOpaqueFD() || !d.vk.Physical().CanImportOpaqueFD() {
		t.Skipf("%s cannot export and import OPAQUE_FD memory", d.vk.Physical().Name)
	}
	if d.vk.Physical().Type != vulkan.DeviceTypeCPU {
		// The stand-in imports a dedicated Vulkan export whole, which a GPU
		// driver may refuse; there TestPoolCUDA runs the real thing.
		t.Skipf("%s: the stand-in segment is for lavapipe (TestPoolCUDA runs on GPUs)", d.vk.Physical().Name)
	}
	var srcs []*vulkan.Buffer
	p, segs := fakePool(func(n uint64) *vulkan.Buffer {
		vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: n, Exportable: true})
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, vb)
		return vb
	})
	defer func() {
		for _, vb := range srcs {
			vb.Close()
		}
	}()
	ptr, err := p.Alloc(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	seg := (*segs)[0]
	if seg.vk.AllocationSize() != seg.size {
		t.Skipf("lavapipe rounds the %d-byte stand-in allocation to %d", seg.size, seg.vk.AllocationSize())
	}
	data := make([]byte, seg.size)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	if err := seg.vk.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	f.auto(t)
	fdsBefore := countFDs(t)
	const off, n = 512 << 10, 100 << 10
	b, err := d.PoolBuffer(p, ptr+off, n)
	if err != nil {
		t.Fatal(err)
	}
	if b.Ptr() != ptr+off || b.Size() != n || b.Offset() != off || !b.FromCUDA() || b.Dedicated() || b.AllocationSize() != seg.size {
		t.Errorf("Ptr %#x Size %d Offset %d FromCUDA %v Dedicated %v AllocationSize %d", uint64(b.Ptr()), b.Size(), b.Offset(), b.FromCUDA(), b.Dedicated(), b.AllocationSize())
	}
	got := poisoned(n)
	if err := b.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "a pool buffer", got, data[off:off+n])
	// A second buffer in the same segment shares the import.
	b2, err := d.PoolBuffer(p, ptr+off+n, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if seg.fds != 1 {
		t.Errorf("the segment was exported %d times for two buffers, want 1", seg.fds)
	}
	more := make([]byte, 4096)
	for i := range more {
		more[i] = byte(i*7 + 1)
	}
	if err := b2.Vulkan().Upload(0, more); err != nil {
		t.Fatal(err)
	}
	copy(data[off+n:], more)
	all := poisoned(int(seg.size))
	if err := seg.vk.Readback(0, all); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "the segment after a pool buffer wrote", all, data)
	// Misaligned.
	if _, err := d.PoolBuffer(p, ptr+off+4, 64); !errors.Is(err, vulkan.ErrPlacement) {
		t.Errorf("a buffer at a misaligned offset: %v, want vulkan.ErrPlacement", err)
	}
	// Outside.
	if _, err := d.PoolBuffer(p, ptr+cuda.DevicePtr(seg.size)-8, 64); !errors.Is(err, ErrNotInPool) {
		t.Errorf("a buffer past the segment: %v, want ErrNotInPool", err)
	}
	// Shared by a token: the opener places its buffer at the offset.
	ex, err := Export(b)
	if err != nil {
		t.Fatal(err)
	}
	if m := ex.Meta(); m.Offset != off || m.Size != n || !m.FromCUDA() || m.AllocationSize != seg.size {
		t.Errorf("exported Meta %+v", m)
	}
	ob, err := OpenVulkanBuffer(context.Background(), d.vk, ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	got = poisoned(n)
	if err := ob.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "a pool buffer opened by its token", got, data[off:off+n])
	ob.Close()
	ex.Close()
	// AfterCUDA: the next submission acquires it.
	if err := d.AfterCUDA(nil, b); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, returning, true)
	if err := d.Run(func(c *vulkan.Commands) error { c.FillBuffer(b.Vulkan(), 0, 4, 0x01020304); return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByVulkan, false)
	acc, err := d.ToCUDA(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AfterCUDA(nil, b); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("AfterCUDA while CUDA holds it: %v, want ErrHeldByCUDA", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	// Many short-lived buffers ordered after CUDA, with no Vulkan work in
	// between, do not pile up in the Device's pending list.
	for range 200 {
		v, err := d.PoolBuffer(p, ptr+off, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.AfterCUDA(nil, v); err != nil {
			t.Fatal(err)
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	pending := len(d.pending)
	d.mu.Unlock()
	if pending > 2 {
		t.Errorf("%d resources pending after 200 closed buffers", pending)
	}
	// Lifetime: the pool frees the segment; the buffers keep it.
	if err := p.Free(ptr); err != nil {
		t.Fatal(err)
	}
	if seg.closed() != 0 || p.Stats().Held != 1 {
		t.Fatalf("a freed segment a buffer holds: closed %d, Stats %+v", seg.closed(), p.Stats())
	}
	if err := b2.Vulkan().Readback(0, got[:4096]); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "a pool buffer after the pool freed its segment", got[:4096], more)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if seg.closed() != 0 {
		t.Fatal("the segment closed while a buffer still held it")
	}
	if err := b2.Close(); err != nil {
		t.Fatal(err)
	}
	if seg.closed() != 1 || p.Stats().Held != 0 {
		t.Fatalf("after the last buffer: closed %d, Stats %+v", seg.closed(), p.Stats())
	}
	if err := b2.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := countFDs(t); n > fdsBefore {
		t.Errorf("%d descriptors open after the buffers closed, %d before", n, fdsBefore)
	}
}

func mustEqualBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: byte %d is %#x, want %#x", what, i, got[i], want[i])
		}
	}
}
