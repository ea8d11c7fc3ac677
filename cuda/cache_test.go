//go:build linux

package cuda

import (
	"testing"
)

// TestCache: a block given back while a stream it was named with is
// blocked (cuStreamWaitValue32 on a flag) is not handed out again — Get
// allocates another; once the stream passes, Get hands the block out
// again (the same address); blocks of another size are not reused; over
// the limit Put frees the oldest idle block (not one a stream still uses;
// then the new block is freed), and a block larger than the limit; Close
// frees the idle blocks and releases the context (a use after Close is an
// error).
func TestCache(t *testing.T) {
	ctx := needCUDA(t)
	k, err := ctx.NewCache(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	s, release := blockedStream(t, ctx)
	a, err := k.Get(n)
	if err != nil {
		t.Fatal(err)
	}
	pa := a.Ptr()
	if err := s.Memset32(pa, 7, n/4); err != nil { // queued behind the wait: "the consumer still uses it"
		t.Fatal(err)
	}
	if err := k.Put(a, s.Handle()); err != nil {
		t.Fatal(err)
	}
	b, err := k.Get(n)
	if err != nil {
		t.Fatal(err)
	}
	if b.Ptr() == pa {
		t.Fatal("Get handed out a block whose stream had not passed")
	}
	if st := k.Stats(); st.Busy != 1 || st.Hits != 0 || st.Misses != 2 {
		t.Errorf("stats while blocked: %+v", st)
	}
	release()
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	c, err := k.Get(n)
	if err != nil {
		t.Fatal(err)
	}
	if c.Ptr() != pa {
		t.Errorf("after the stream passed, Get gave %#x, want the idle block %#x", c.Ptr(), pa)
	}
	if d, err := k.Get(2 * n); err != nil {
		t.Fatal(err)
	} else {
		if d.Ptr() == b.Ptr() {
			t.Error("a block of another size was reused")
		}
		if err := k.Put(d); err != nil { // 2 MiB idle
			t.Fatal(err)
		}
	}
	if err := k.Put(b); err != nil { // 3 MiB idle: at the limit (d then b)
		t.Fatal(err)
	}
	if err := ctx.Synchronize(); err != nil { // every idle block's events passed
		t.Fatal(err)
	}
	if err := k.Put(c); err != nil { // over the limit: the oldest idle block (d, 2 MiB) goes
		t.Fatal(err)
	}
	if st := k.Stats(); st.Evicted != 1 || st.Freed != 0 || st.IdleBytes != 2<<20 || st.Hits != 1 {
		t.Errorf("stats after an eviction: %+v", st)
	}
	// The newest sizes stay: b and c (1 MiB each) are handed out again.
	for i := 0; i < 2; i++ {
		e, err := k.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		if e.Ptr() != b.Ptr() && e.Ptr() != c.Ptr() {
			t.Errorf("Get %d after the eviction gave %#x, want b %#x or c %#x", i, e.Ptr(), b.Ptr(), c.Ptr())
		}
		defer func() { _ = k.Put(e) }()
	}
	// An idle block a stream still uses is not chosen for eviction. (The
	// choice is checked directly: freeing anything, cuMemFree, waits for the
	// whole device, the blocked stream included, and holds the context
	// while it does, so the stream could not be released.)
	s2, release2 := blockedStream(t, ctx)
	f, err := k.Get(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Put(f, s2.Handle()); err != nil { // 3 MiB idle, busy
		t.Fatal(err)
	}
	before := k.Stats()
	k.mu.Lock()
	chosen := k.evictLocked(1)
	k.mu.Unlock()
	if st := k.Stats(); len(chosen) != 0 || st.Evicted != before.Evicted || st.IdleBytes != 3<<20 {
		t.Errorf("a busy idle block was chosen for eviction: %d chosen, %+v (before %+v)", len(chosen), st, before)
	}
	release2()
	if err := s2.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(); err != nil {
		t.Fatal(err)
	}
	// Once its streams passed, it is evicted for a newer block.
	g, err := k.Get(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Put(g); err != nil {
		t.Fatal(err)
	}
	if st := k.Stats(); st.Evicted != before.Evicted+1 || st.Freed != before.Freed || st.IdleBytes != n {
		t.Errorf("the passed block was not evicted for the newer one: %+v (before %+v)", st, before)
	}
	// A block larger than the limit is freed at once.
	h, err := k.Get(4 << 20)
	if err != nil {
		t.Fatal(err)
	}
	before = k.Stats()
	if err := k.Put(h); err != nil {
		t.Fatal(err)
	}
	if st := k.Stats(); st.Freed != before.Freed+1 || st.Evicted != before.Evicted {
		t.Errorf("a block over the limit: %+v (before %+v)", st, before)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if err := k.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := k.Get(n); err == nil {
		t.Error("Get after Close succeeded")
	}
}
