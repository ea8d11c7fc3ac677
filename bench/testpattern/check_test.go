package testpattern

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// TestChecker runs the Checker on a frame of the pattern written from Go
// (Texel): no texel wrong; then two texels broken, counted, the first
// found; against a wrong seed, every texel wrong, and Verify failing on
// either mistake and on a wrong-seed check that saw nothing. Needs CUDA
// (skips without, fails under GFXCUDA_REQUIRE_CUDA=1).
func TestChecker(t *testing.T) {
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA: %v", err)
	}
	dev, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	cx, err := dev.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	defer cx.Close()
	const w, h = 333, 77 // not a multiple of the grid
	const texels = w * h
	seed := Seed(12345)
	frame := make([]byte, 4*texels)
	for i := range uint32(texels) {
		binary.LittleEndian.PutUint32(frame[4*i:], Texel(i, seed))
	}
	mem, err := cx.Alloc(4 * texels)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := cx.CopyHtoD(mem.Ptr(), frame); err != nil {
		t.Fatal(err)
	}
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := NewChecker(cx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// A correct frame, and the checker seeing a wrong seed.
	if err := c.Check(s, mem.Ptr(), texels, seed); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckWrongSeed(s, mem.Ptr(), texels, seed); err != nil {
		t.Fatal(err)
	}
	n, err := c.Result(s)
	if err != nil {
		t.Fatal(err)
	}
	if n.Wrong != 0 || n.First != NoneWrong || n.WrongSeed+2 < texels {
		t.Fatalf("a correct frame: %+v, want nothing wrong, and %d wrong against a wrong seed", n, texels)
	}
	if err := c.Verify(s, 1); err != nil {
		t.Fatal(err)
	}

	// Two texels broken: counted, the first found.
	frame[4*5000] ^= 0x80
	frame[4*900+3] ^= 0x01
	if err := cx.CopyHtoD(mem.Ptr(), frame); err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(s, mem.Ptr(), texels, seed); err != nil {
		t.Fatal(err)
	}
	if n, err = c.Result(s); err != nil {
		t.Fatal(err)
	}
	if n.Wrong != 2 || n.First != 900 {
		t.Fatalf("two texels broken: %+v, want 2 wrong, the first at 900", n)
	}
	if err := c.Verify(s, 1); err == nil || !strings.Contains(err.Error(), "2 wrong texels over 1 frames") {
		t.Fatalf("Verify with two texels wrong: %v", err)
	}

	// A wrong-seed check that saw nothing wrong: the checker did not run.
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	c.selfTexels = texels // as if CheckWrongSeed had been queued
	if err := c.Verify(s, 0); err == nil || !strings.Contains(err.Error(), "did not run") {
		t.Fatalf("Verify after a wrong-seed check that counted nothing: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
