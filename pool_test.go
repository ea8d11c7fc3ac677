package gfxcuda

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cudapool"
	"github.com/gfxcuda/gfxcuda/cudapool/cudapooltest"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// fakePool returns a pool whose segments are cudapooltest.Segs (made-up
// addresses, 2 MiB granularity, gaps); mk, when set, gives each its
// Vulkan memory.
func fakePool(mk func(n uint64) *vulkan.Buffer) (*Pool, *[]*cudapooltest.Seg) {
	alloc, segs := cudapooltest.Allocator(mk)
	return cudapool.NewPoolOf(func(n uint64) (cudapool.Memory, error) { return alloc(n), nil }), segs
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
	p, segs := fakePool(cudapooltest.ExportableBuffers(t, d.vk))
	ptr, err := p.Alloc(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	seg := (*segs)[0]
	if seg.Vulkan().AllocationSize() != seg.Size() {
		t.Skipf("lavapipe rounds the %d-byte stand-in allocation to %d", seg.Size(), seg.Vulkan().AllocationSize())
	}
	data := make([]byte, seg.Size())
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	if err := seg.Vulkan().Upload(0, data); err != nil {
		t.Fatal(err)
	}
	f.auto(t)
	fdsBefore := countFDs(t)
	const off, n = 512 << 10, 100 << 10
	b, err := d.PoolBuffer(p, ptr+off, n)
	if err != nil {
		t.Fatal(err)
	}
	if b.Ptr() != ptr+off || b.Size() != n || b.Offset() != off || !b.FromCUDA() || b.Dedicated() || b.AllocationSize() != seg.Size() {
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
	if seg.FDs() != 1 {
		t.Errorf("the segment was exported %d times for two buffers, want 1", seg.FDs())
	}
	more := make([]byte, 4096)
	for i := range more {
		more[i] = byte(i*7 + 1)
	}
	if err := b2.Vulkan().Upload(0, more); err != nil {
		t.Fatal(err)
	}
	copy(data[off+n:], more)
	all := poisoned(int(seg.Size()))
	if err := seg.Vulkan().Readback(0, all); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "the segment after a pool buffer wrote", all, data)
	// Misaligned.
	if _, err := d.PoolBuffer(p, ptr+off+4, 64); !errors.Is(err, vulkan.ErrPlacement) {
		t.Errorf("a buffer at a misaligned offset: %v, want vulkan.ErrPlacement", err)
	}
	// Outside.
	if _, err := d.PoolBuffer(p, ptr+cuda.DevicePtr(seg.Size())-8, 64); !errors.Is(err, ErrNotInPool) {
		t.Errorf("a buffer past the segment: %v, want ErrNotInPool", err)
	}
	// Shared by a token: the opener places its buffer at the offset.
	ex, err := Export(b)
	if err != nil {
		t.Fatal(err)
	}
	if m := ex.Meta(); m.Offset != off || m.Size != n || !m.FromCUDA() || m.AllocationSize != seg.Size() {
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
	if seg.Closed() != 0 || p.Stats().Held != 1 {
		t.Fatalf("a freed segment a buffer holds: closed %d, Stats %+v", seg.Closed(), p.Stats())
	}
	if err := b2.Vulkan().Readback(0, got[:4096]); err != nil {
		t.Fatal(err)
	}
	mustEqualBytes(t, "a pool buffer after the pool freed its segment", got[:4096], more)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if seg.Closed() != 0 {
		t.Fatal("the segment closed while a buffer still held it")
	}
	if err := b2.Close(); err != nil {
		t.Fatal(err)
	}
	if seg.Closed() != 1 || p.Stats().Held != 0 {
		t.Fatalf("after the last buffer: closed %d, Stats %+v", seg.Closed(), p.Stats())
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
