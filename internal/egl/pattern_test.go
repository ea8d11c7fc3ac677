package egl

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPattern fills buffers of random bytes with the compute pattern on the
// GPU (llvmpipe on the CPU machine) and compares every byte with
// PatternBytes, for several seeds and sizes, in one and two dispatch
// dimensions; bytes past the filled range must keep their values.
func TestPattern(t *testing.T) {
	c := newContext(t, Options{})
	defer func(v int) { patternMaxGroupsX = v }(patternMaxGroupsX)
	rng := rand.New(rand.NewPCG(5, 6))
	err := c.Do(func() error {
		p, err := NewPattern()
		if err != nil {
			return err
		}
		defer p.Delete()
		for _, tc := range []struct {
			size, fill, maxX int
			seed             uint32
		}{
			{1920 * 1080 * 4, 1920 * 1080 * 4, 65535, rng.Uint32()},
			{1920 * 1080 * 4, 1920 * 1080 * 4, 65535, rng.Uint32()},
			{4099 * 4, 4097 * 4, 3, rng.Uint32()}, // 2D dispatch, partial last group, tail untouched
			{4, 4, 65535, rng.Uint32()},
		} {
			patternMaxGroupsX = tc.maxX
			before := make([]byte, tc.size)
			for i := range before {
				before[i] = byte(rng.Uint32())
			}
			b, err := c.CreateBuffer(tc.size, before, DynamicDraw)
			if err != nil {
				return err
			}
			if err := p.Fill(b, tc.fill, tc.seed); err != nil {
				c.DeleteBuffer(b)
				return err
			}
			got := make([]byte, tc.size)
			err = c.GetBufferSubData(b, 0, got)
			c.DeleteBuffer(b)
			if err != nil {
				return err
			}
			want := append([]byte(nil), before...)
			PatternBytes(want[:tc.fill], tc.seed)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("size %d fill %d seed %#x: byte %d is %#x, want %#x", tc.size, tc.fill, tc.seed, i, got[i], want[i])
				}
			}
			other := make([]byte, 64)
			PatternBytes(other, tc.seed+1)
			if tc.fill >= 64 && string(other) == string(want[:64]) {
				t.Fatalf("seeds %#x and %#x give the same frame", tc.seed, tc.seed+1)
			}
		}
		if err := p.Fill(1, 6, 0); err == nil {
			t.Error("Fill of 6 bytes (not a multiple of 4) succeeded")
		}
		if err := p.Delete(); err != nil {
			return err
		}
		if err := p.Delete(); err != nil {
			t.Errorf("second Delete: %v", err)
		}
		if err := p.Fill(1, 4, 0); err == nil {
			t.Error("Fill after Delete succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Off the context's thread.
	if _, err := NewPattern(); !errors.Is(err, ErrWrongThread) {
		t.Errorf("NewPattern off the GL thread: %v, want ErrWrongThread", err)
	}
}
