package gl

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPattern fills part of a buffer of random bytes with the pattern
// program and reads it back: the filled bytes are PatternBytes' frame of the
// seed, the rest is untouched, and another seed gives another frame. Bad
// sizes, another context's buffer and use after Close fail; a pattern left
// open is deleted by its context's Close.
func TestPattern(t *testing.T) {
	c := open(t, Options{})
	const size, fill = 1 << 20, 1<<20 - 4096
	b, err := c.NewBuffer(size)
	if err != nil {
		t.Fatal(err)
	}
	orig := make([]byte, size)
	for i := range orig {
		orig[i] = byte(rand.Uint32())
	}
	if err := b.Upload(0, orig); err != nil {
		t.Fatal(err)
	}
	p, err := c.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	got, want := make([]byte, size), make([]byte, fill)
	for _, seed := range []uint32{0, 1, 0xdeadbeef} {
		if err := p.Fill(b, fill, seed); err != nil {
			t.Fatal(err)
		}
		if err := b.Readback(0, got); err != nil {
			t.Fatal(err)
		}
		PatternBytes(want, seed)
		if i := firstDiff(got[:fill], want); i >= 0 {
			t.Fatalf("seed %#x: byte %d is %#x, want %#x", seed, i, got[i], want[i])
		}
		if i := firstDiff(got[fill:], orig[fill:]); i >= 0 {
			t.Fatalf("seed %#x: byte %d past the filled bytes changed", seed, fill+i)
		}
	}
	other := make([]byte, fill)
	PatternBytes(other, 2)
	if firstDiff(other, want) < 0 {
		t.Error("seeds 2 and 0xdeadbeef give the same frame")
	}
	for _, n := range []int{0, 6, size + 4} {
		if err := p.Fill(b, n, 1); err == nil {
			t.Errorf("Fill of %d bytes: no error", n)
		}
	}
	c2 := open(t, Options{})
	b2, err := c2.NewBuffer(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Fill(b2, 64, 1); err == nil {
		t.Error("Fill of another context's buffer: no error")
	}
	if _, err := c2.NewPattern(); err != nil { // left to c2's Close
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := p.Fill(b, fill, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Fill after Close: %v, want ErrClosed", err)
	}
}
