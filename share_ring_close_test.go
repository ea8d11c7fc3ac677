package gfxcuda

import (
	"bytes"
	"errors"
	"testing"
)

// TestRingLastFramesBeforeClose: a producer that publishes its last batch
// and closes the ring while a consumer is between its scan of the slots
// and its look at the closed flag (as `gfxcuda share` may, closing right
// after its last Produce) loses none of it: the consumer gets every frame,
// then ErrSharedRingClosed. The hook makes the race happen every time.
func TestRingLastFramesBeforeClose(t *testing.T) {
	const slots = 3
	var exs []*Shared
	for i := 0; i < slots; i++ {
		exs = append(exs, memfdExport(t, uint64(100+i), 64))
	}
	r, c := ringWithConsumer(t, SharedRingOptions{Slots: exs, UserBytes: 16})
	// The producer's last batch: every slot acquired, none published yet.
	var batch []int
	for i := 0; i < slots; i++ {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, s)
	}
	var perr error
	testHookScanned = func() {
		testHookScanned = nil
		for _, s := range batch {
			if _, err := r.Publish(s, seededRandom(r.NextSeq(), 16), 0); err != nil {
				perr = err
			}
		}
		perr = errors.Join(perr, r.Close())
	}
	defer func() { testHookScanned = nil }()
	for seq := uint64(1); seq <= slots; seq++ {
		f, err := c.Next(ctx10(t))
		if err != nil {
			t.Fatalf("frame %d of the batch published before Close: %v", seq, err)
		}
		if f.Seq != seq || !bytes.Equal(f.User, seededRandom(seq, 16)) {
			t.Fatalf("frame %d: got sequence %d, metadata %x", seq, f.Seq, f.User)
		}
		if err := c.Release(f); err != nil {
			t.Fatal(err)
		}
	}
	if perr != nil {
		t.Fatal(perr)
	}
	if _, err := c.Next(ctx10(t)); !errors.Is(err, ErrSharedRingClosed) {
		t.Fatalf("after the last frame: %v, want ErrRingClosed", err)
	}
}
