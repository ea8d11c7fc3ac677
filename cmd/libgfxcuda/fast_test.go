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
