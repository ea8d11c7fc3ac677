package main

import (
	"errors"
	"testing"
)

func live(h uint64) bool {
	handles.Lock()
	defer handles.Unlock()
	_, ok := handles.m[h]
	return ok
}

// TestAddCopiesDeps: the dependency list may be the caller's C memory,
// reused or freed after the call (gfxcuda_to_cuda's handle array); the
// table must keep its own copy, or the last release drops whatever the
// memory holds by then (the "0 is not a live handle" of to_vulkan).
func TestAddCopiesDeps(t *testing.T) {
	closed := map[string]int{}
	closer := func(name string) func() error {
		return func() error { closed[name]++; return nil }
	}
	a, err := add("a", closer("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := add("b", closer("b"))
	if err != nil {
		t.Fatal(err)
	}
	list := []uint64{a, b}
	acc, err := add("access", closer("access"), list...)
	if err != nil {
		t.Fatal(err)
	}
	list[0], list[1] = 0, 0xdeadbeef // the caller's memory changes
	// The caller drops its own references first; the access keeps both alive.
	for _, h := range []uint64{a, b} {
		if err := release(h); err != nil {
			t.Fatal(err)
		}
		if !live(h) {
			t.Fatalf("handle %d closed while the hand-off holds it", h)
		}
	}
	if err := release(acc); err != nil {
		t.Fatalf("release of the hand-off: %v", err)
	}
	for _, h := range []uint64{a, b, acc} {
		if live(h) {
			t.Errorf("handle %d still live", h)
		}
	}
	if closed["a"] != 1 || closed["b"] != 1 || closed["access"] != 1 {
		t.Errorf("closes: %v; want each exactly once", closed)
	}
	var se *statusError
	if err := release(acc); !errors.As(err, &se) || se.code != stBadHandle {
		t.Errorf("second release: %v; want a bad-handle error", err)
	}
	if closed["access"] != 1 {
		t.Errorf("second release closed again: %v", closed)
	}
}

// TestReleaseMissingDep: a dependency gone early is reported, and the
// other dependencies are still released.
func TestReleaseMissingDep(t *testing.T) {
	a, _ := add("a", nil)
	b, _ := add("b", nil)
	c, err := add("c", nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	release(a)
	release(b)
	// Simulate the bookkeeping bug: a vanishes behind the table's back.
	handles.Lock()
	delete(handles.m, a)
	handles.Unlock()
	err = release(c)
	var se *statusError
	if !errors.As(err, &se) || se.code != stInternal {
		t.Fatalf("release: %v; want an internal error", err)
	}
	if live(b) || live(c) {
		t.Errorf("b or c still live")
	}
}
