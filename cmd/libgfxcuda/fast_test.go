package main

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBufferPool: gfxcuda_buffer_create reuses a released small buffer
// (its table entry, under a new handle), never one something still holds;
// its errors are gfxcuda_buffer_new's, as minus the status; a device's
// pooled buffers go with it.
func TestBufferPool(t *testing.T) {
	dev, st := cDeviceOpen(-1)
	if st != 0 {
		t.Skipf("no Vulkan device: %s", lastError())
	}
	defer release(dev)
	obj := func(h uint64) any {
		handles.Lock()
		defer handles.Unlock()
		return handles.m[h].obj
	}
	h1 := cBufferCreate(dev, 256, 1, 0, 0)
	if h1 <= 0 {
		t.Fatalf("gfxcuda_buffer_create: %d %s", h1, lastError())
	}
	b1 := obj(uint64(h1))
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	if err := b1.(*buffer).Upload(data); err != nil {
		t.Fatal(err)
	}
	if err := release(uint64(h1)); err != nil {
		t.Fatal(err)
	}
	if live(uint64(h1)) {
		t.Fatal("a released handle is still in the table")
	}
	// Same key: the pooled buffer, as a new handle, bytes kept.
	h2 := cBufferCreate(dev, 256, 1, 0, 0)
	if h2 <= 0 || h2 == h1 {
		t.Fatalf("second create: %d (first %d)", h2, h1)
	}
	if obj(uint64(h2)) != b1 {
		t.Fatal("the released buffer was not reused")
	}
	got := make([]byte, 256)
	if err := b1.(*buffer).ReadbackInto(got); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("pooled buffer's bytes: %v", err)
	}
	// Another key (heap, size, stride): a buffer of its own.
	for _, k := range []struct {
		size   uint64
		heap   int
		stride uint32
	}{{256, 0, 0}, {512, 1, 0}, {256, 1, 4}} {
		h := cBufferCreate(dev, k.size, k.heap, k.stride, 0)
		if h <= 0 || obj(uint64(h)) == b1 {
			t.Fatalf("%+v: %d, or the pooled buffer of another key", k, h)
		}
		release(uint64(h))
	}
	// Held by another reference (a pipeline, an export): not pooled
	// until that goes too.
	if err := retain(uint64(h2)); err != nil {
		t.Fatal(err)
	}
	release(uint64(h2))
	h3 := cBufferCreate(dev, 256, 1, 0, 0)
	if obj(uint64(h3)) == b1 {
		t.Fatal("a buffer something still holds was handed out again")
	}
	release(uint64(h2)) // the last reference: back to the pool
	// Errors: gfxcuda_buffer_new's statuses, negated.
	if h := cBufferCreate(dev, 0, 0, 0, 0); h != -stInvalid {
		t.Errorf("size 0: %d, want %d", h, -stInvalid)
	}
	if h := cBufferCreate(dev, 16, 7, 0, 0); h != -stInvalid {
		t.Errorf("heap 7: %d, want %d", h, -stInvalid)
	}
	if h := cBufferCreate(1<<62, 16, 0, 0, 0); h != -stBadHandle {
		t.Errorf("no device: %d, want %d", h, -stBadHandle)
	}
	// A buffer of the pool outlives nothing: releasing the device with
	// buffers pooled leaves no handle behind, and a new device's buffers
	// never come from the old one's pool.
	release(uint64(h3))
	dev2, st := cDeviceOpen(-1)
	if st != 0 {
		t.Fatal(lastError())
	}
	h4 := cBufferCreate(dev2, 256, 1, 0, 0)
	if h4 <= 0 || obj(uint64(h4)) == b1 {
		t.Fatalf("another device's create: %d, or the first device's pooled buffer", h4)
	}
	release(uint64(h4))
	if err := release(dev2); err != nil {
		t.Fatal(err)
	}
	if live(dev2) {
		t.Fatal("the device stayed in the table with its buffers pooled")
	}
	if h := cBufferCreate(dev2, 256, 1, 0, 0); h != -stBadHandle {
		t.Errorf("create on a released device: %d, want %d", h, -stBadHandle)
	}
}

// TestIntEntryPoints: gfxcuda_buffer_create_int and gfxcuda_release_int
// (Python's ctypes calls them without converting each argument) do what
// gfxcuda_buffer_create and gfxcuda_release do, the pool included, and
// refuse a negative argument (a C int where the others take unsigned
// ones) as an invalid argument, naming it.
func TestIntEntryPoints(t *testing.T) {
	dev, st := cDeviceOpen(-1)
	if st != 0 {
		t.Skipf("no Vulkan device: %s", lastError())
	}
	defer release(dev)
	h1 := cBufferCreateInt(int(dev), 1000, 1, 0, 0)
	if h1 <= 0 {
		t.Fatalf("gfxcuda_buffer_create_int: %d %s", h1, lastError())
	}
	handles.Lock()
	b1 := handles.m[uint64(h1)].obj
	handles.Unlock()
	if b, ok := b1.(*buffer); !ok || b.Size() != 1000 {
		t.Fatalf("handle %d is a %T, not a buffer of 1000 bytes", h1, b1)
	}
	if st := cReleaseInt(int(h1)); st != 0 || live(uint64(h1)) {
		t.Fatalf("gfxcuda_release_int: %d %s (live %v)", st, lastError(), live(uint64(h1)))
	}
	if st := cReleaseInt(int(h1)); st != stBadHandle {
		t.Errorf("a second release: %d, want %d", st, stBadHandle)
	}
	// The pool: the released buffer again, under a new handle.
	h2 := cBufferCreateInt(int(dev), 1000, 1, 0, 0)
	handles.Lock()
	b2 := handles.m[uint64(h2)].obj
	handles.Unlock()
	if h2 <= 0 || b2 != b1 {
		t.Errorf("create after release: %d, pooled buffer reused %v", h2, b2 == b1)
	}
	cReleaseInt(int(h2))
	for _, a := range [][5]int{{-1, 16, 0, 0, 0}, {int(dev), -16, 0, 0, 0}, {int(dev), 16, 0, -4, 0}, {int(dev), 16, 0, 0, -1}} {
		if h := cBufferCreateInt(a[0], a[1], a[2], a[3], a[4]); h != -stInvalid || !strings.Contains(lastError(), "negative") {
			t.Errorf("%v: %d %q, want %d naming the negative argument", a, h, lastError(), -stInvalid)
		}
	}
	if h := cBufferCreateInt(int(dev), 16, 7, 0, 0); h != -stInvalid {
		t.Errorf("heap 7: %d, want %d", h, -stInvalid)
	}
	if st := cReleaseInt(-5); st != stInvalid {
		t.Errorf("release of -5: %d, want %d", st, stInvalid)
	}
}

// TestBatchEntryPoints: gfxcuda_buffer_create_n makes n small buffers;
// gfxcuda_buffer_recycle_n keeps the ones whose caller's reference is the
// last and releases the others (here: one a second reference retains),
// zeroing their slots; gfxcuda_release_n releases every handle, reporting
// the first failure; bad arrays are invalid arguments.
func TestBatchEntryPoints(t *testing.T) {
	dev, st := cDeviceOpen(-1)
	if st != 0 {
		t.Skipf("no Vulkan device: %s", lastError())
	}
	defer release(dev)
	hs := make([]int64, 8)
	if n := cBufferCreateN(dev, 256, 0, hs); n != 8 {
		t.Fatalf("gfxcuda_buffer_create_n: %d %s", n, lastError())
	}
	seen := map[int64]bool{}
	for _, h := range hs {
		if h <= 0 || seen[h] || !live(uint64(h)) {
			t.Fatalf("handles %v: not 8 distinct live handles", hs)
		}
		seen[h] = true
	}
	shared := hs[3]
	if err := retain(uint64(shared)); err != nil { // another user (as a pipeline would)
		t.Fatal(err)
	}
	objs := map[int64]any{}
	handles.Lock()
	for _, h := range hs {
		objs[h] = handles.m[uint64(h)].obj
	}
	handles.Unlock()
	in := append([]int64(nil), hs...)
	if n := cRecycleN(hs); n != 7 {
		t.Fatalf("gfxcuda_buffer_recycle_n: kept %d, want 7 (%s)", n, lastError())
	}
	for i, h := range hs {
		switch {
		case in[i] == shared:
			if h != 0 || !live(uint64(shared)) {
				t.Errorf("the retained buffer: slot %d, live %v; want 0 and still live (its other reference)", h, live(uint64(shared)))
			}
		case h != in[i] || !live(uint64(h)):
			t.Errorf("slot %d: %d (live %v), want %d kept", i, h, live(uint64(h)), in[i])
		default:
			handles.Lock()
			same := handles.m[uint64(h)].obj == objs[h]
			handles.Unlock()
			if !same {
				t.Errorf("handle %d kept but no longer the same buffer", h)
			}
		}
	}
	if err := release(uint64(shared)); err != nil || live(uint64(shared)) {
		t.Fatalf("the other reference: %v, live %v", err, live(uint64(shared)))
	}
	kept := []int64{}
	for _, h := range hs {
		if h != 0 {
			kept = append(kept, h)
		}
	}
	if st := cReleaseN(kept); st != 0 {
		t.Fatalf("gfxcuda_release_n: %d %s", st, lastError())
	}
	for _, h := range kept {
		if live(uint64(h)) {
			t.Errorf("handle %d live after gfxcuda_release_n", h)
		}
	}
	// A handle that is gone: reported, the others still released.
	two := make([]int64, 2)
	if n := cBufferCreateN(dev, 64, 1, two); n != 2 {
		t.Fatalf("gfxcuda_buffer_create_n: %d %s", n, lastError())
	}
	if st := cReleaseN([]int64{kept[0], two[0], two[1]}); st != stBadHandle {
		t.Errorf("gfxcuda_release_n with a gone handle: %d, want %d", st, stBadHandle)
	}
	if live(uint64(two[0])) || live(uint64(two[1])) {
		t.Error("the live handles after the gone one were not released")
	}
	if n := cRecycleN([]int64{kept[1]}); n != -stBadHandle {
		t.Errorf("gfxcuda_buffer_recycle_n of a gone handle: %d, want %d", n, -stBadHandle)
	}
	// Bad arrays and sizes.
	if n := cBufferCreateN(dev, 64, 0, nil); n != -stInvalid {
		t.Errorf("gfxcuda_buffer_create_n(n=0): %d, want %d", n, -stInvalid)
	}
	if n := cBufferCreateN(dev, 64, 9, make([]int64, 3)); n != -stInvalid {
		t.Errorf("gfxcuda_buffer_create_n(heap 9): %d, want %d", n, -stInvalid)
	}
	if st := cReleaseN(nil); st != 0 {
		t.Errorf("gfxcuda_release_n of nothing: %d", st)
	}
	if n := cRecycleN(nil); n != 0 {
		t.Errorf("gfxcuda_buffer_recycle_n of nothing: %d", n)
	}
	if st := cReleaseN([]int64{0}); st != stInvalid {
		t.Errorf("gfxcuda_release_n([0]): %d, want %d", st, stInvalid)
	}
	neg := []int64{-5}
	if n := cRecycleN(neg); n != -stInvalid || neg[0] != 0 {
		t.Errorf("gfxcuda_buffer_recycle_n([-5]): %d, slot %d; want %d and the slot zeroed (never kept)", n, neg[0], -stInvalid)
	}
}
