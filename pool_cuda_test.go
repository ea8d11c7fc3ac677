//go:build linux

package gfxcuda

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/cu"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestPoolCUDA runs the pool on the GPU (it skips without one, fails with
// GFXCUDA_REQUIRE_CUDA=1): segments from cuMemCreate leave the caller's
// current context as it was; a Buffer at an offset of a segment sees the
// bytes CUDA wrote there (every byte, random) and CUDA sees Vulkan's
// writes; AfterCUDA orders Vulkan after a CUDA stream with no host wait; a
// segment the pool freed lives while a Buffer holds it.
func TestPoolCUDA(t *testing.T) {
	d := openDevice(t)
	c := d.CUDA()
	p := NewPool(c)
	defer func() { noErr(t, p.Close()) }()

	// The caller's context: none current, then the primary context.
	runtime.LockOSThread()
	before, r := cu.CtxGetCurrent()
	if r != cu.Success {
		t.Fatal(r)
	}
	ptr, err := p.Alloc(3 << 20)
	noErr(t, err)
	after, _ := cu.CtxGetCurrent()
	runtime.UnlockOSThread()
	if after != before {
		t.Errorf("Alloc changed the thread's current context")
	}
	noErr(t, c.Do(func() error {
		q, err := p.Alloc(1 << 20)
		if err != nil {
			return err
		}
		if !c.IsCurrent() {
			t.Error("Alloc left the caller's context not current")
		}
		err = p.Free(q)
		if !c.IsCurrent() {
			t.Error("Free left the caller's context not current")
		}
		return err
	}))
	g, err := c.Granularity()
	noErr(t, err)
	st := p.Stats()
	if st.Segments != 1 || st.Bytes%g != 0 || st.Bytes < 3<<20 {
		t.Fatalf("Stats %+v (granularity %d)", st, g)
	}
	size := int(st.Bytes)
	data := random(size)
	noErr(t, c.CopyHtoD(ptr, data))

	const off, n = 1 << 20, 512 << 10
	b, err := d.PoolBuffer(p, ptr+off, n)
	noErr(t, err)
	if b.Ptr() != ptr+off || b.Offset() != off || !b.FromCUDA() {
		t.Fatalf("Ptr %#x Offset %d FromCUDA %v", uint64(b.Ptr()), b.Offset(), b.FromCUDA())
	}
	got := poisoned(n)
	noErr(t, b.Vulkan().Readback(0, got))
	if !bytes.Equal(got, data[off:off+n]) {
		t.Fatal("Vulkan does not read the bytes CUDA wrote into the segment")
	}

	// CUDA writes on a stream of its own; AfterCUDA orders Vulkan's read.
	s, err := c.NewStream(cuda.StreamNonBlocking)
	noErr(t, err)
	defer s.Close()
	for i := range 64 { // queue enough that the read would race without the wait
		noErr(t, s.Memset8(ptr+off, uint8(i+1), n))
	}
	noErr(t, d.AfterCUDA(s, b))
	got = poisoned(n)
	noErr(t, b.Vulkan().Readback(0, got))
	if !bytes.Equal(got, bytes.Repeat([]byte{64}, n)) {
		t.Fatal("Vulkan's read after AfterCUDA did not see the stream's last write")
	}

	// Vulkan writes; CUDA reads after a hand-off.
	more := random(n)
	noErr(t, b.Vulkan().Upload(0, more))
	acc, err := d.ToCUDA(s, b)
	noErr(t, err)
	noErr(t, s.Synchronize())
	back := poisoned(n)
	noErr(t, c.CopyDtoH(back, b.Ptr()))
	noErr(t, acc.Done())
	if !bytes.Equal(back, more) {
		t.Fatal("CUDA does not read what Vulkan wrote through the pool buffer")
	}

	// Shared by a token: the opener maps the segment and finds the
	// buffer at its offset, in CUDA and in Vulkan.
	ex, err := Export(b)
	noErr(t, err)
	ob, err := d.OpenBuffer(ctx10(t), ex.Token())
	noErr(t, err)
	back = poisoned(n)
	noErr(t, c.CopyDtoH(back, ob.Ptr()))
	got = poisoned(n)
	noErr(t, ob.Vulkan().Readback(0, got))
	if ob.Ptr() == b.Ptr() || !bytes.Equal(back, more) || !bytes.Equal(got, more) {
		t.Fatal("a pool buffer opened by its token does not hold the buffer's bytes")
	}
	noErr(t, ob.Close())
	noErr(t, ex.Close())

	// Misaligned and outside.
	if _, err := d.PoolBuffer(p, ptr+off+4, 64); !errors.Is(err, vulkan.ErrPlacement) {
		t.Errorf("a misaligned buffer: %v, want vulkan.ErrPlacement", err)
	}
	if _, err := d.PoolBuffer(p, ptr-4096, 64); !errors.Is(err, ErrNotInPool) {
		t.Errorf("memory below the segment: %v, want ErrNotInPool", err)
	}

	// The pool frees the segment; the buffer keeps it mapped.
	noErr(t, p.Free(ptr))
	if st := p.Stats(); st.Held != 1 || st.Segments != 0 {
		t.Fatalf("Stats %+v after freeing a held segment", st)
	}
	back = poisoned(n)
	noErr(t, c.CopyDtoH(back, b.Ptr()))
	got = poisoned(n)
	noErr(t, b.Vulkan().Readback(0, got))
	if !bytes.Equal(back, more) || !bytes.Equal(got, more) {
		t.Fatal("a held segment lost its bytes after the pool freed it")
	}
	noErr(t, b.Close())
	if st := p.Stats(); st.Held != 0 {
		t.Fatalf("Stats %+v after the last buffer closed", st)
	}
}

// TestPoolCUDAWorkInFlight frees segments and closes pool buffers while
// CUDA work on them is still queued, hundreds of times (slangpy #929: an
// interop buffer freed during an async memset made the next import fail
// with CUDA_ERROR_ILLEGAL_ADDRESS); the context stays usable and nothing
// leaks (descriptors, device memory).
func TestPoolCUDAWorkInFlight(t *testing.T) {
	d := openDevice(t)
	c := d.CUDA()
	p := NewPool(c)
	defer func() { noErr(t, p.Close()) }()
	s, err := c.NewStream(cuda.StreamNonBlocking)
	noErr(t, err)
	defer s.Close()
	cycle := func(i int) {
		ptr, err := p.Alloc(8 << 20)
		noErr(t, err)
		b, err := d.PoolBuffer(p, ptr+4096, 1<<20)
		noErr(t, err)
		for k := range 16 {
			noErr(t, s.Memset8(ptr, uint8(i+k), 8<<20))
		}
		if i%2 == 0 {
			noErr(t, b.Close())
			noErr(t, p.Free(ptr)) // unmapped with the memsets queued
		} else {
			noErr(t, p.Free(ptr))
			noErr(t, b.Close()) // the last reference, with the memsets queued
		}
	}
	for i := range 20 {
		cycle(i)
	}
	noErr(t, c.Synchronize())
	free0, _, err := c.MemInfo()
	noErr(t, err)
	fd0 := fdTargets(t)
	for i := range 500 {
		cycle(i)
	}
	noErr(t, s.Synchronize())
	noErr(t, c.Synchronize())
	free1, _, err := c.MemInfo()
	noErr(t, err)
	if extra := newFDs(t, fd0); len(extra) > 0 {
		t.Errorf("%d descriptors opened over 500 cycles and still open: %v", len(extra), extra)
	}
	if free1+(16<<20) < free0 {
		t.Errorf("free device memory %d → %d after 500 cycles", free0, free1)
	}
	// A fresh allocation and work on it.
	ptr, err := p.Alloc(1 << 20)
	noErr(t, err)
	data := random(1 << 20)
	noErr(t, c.CopyHtoD(ptr, data))
	got := poisoned(1 << 20)
	noErr(t, c.CopyDtoH(got, ptr))
	if !bytes.Equal(got, data) {
		t.Fatal("a fresh segment after the releases does not hold its bytes")
	}
	noErr(t, p.Free(ptr))
}
