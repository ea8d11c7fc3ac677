package compute

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestCopy: Copy's rules (gfxcuda_copy's): a byte range between buffers,
// every slice of a region between a buffer and a texture without a size
// rule, whole textures of the same extent; slices other than 0 are
// ErrUnsupported, regions outside their resources ErrRange.
func TestCopy(t *testing.T) {
	d := openTest(t)
	const w, h = 4, 3
	pattern := make([]byte, w*h*4)
	for i := range pattern {
		pattern[i] = byte(i)
	}
	src := newBuffer(t, d, HeapUpload, pattern)
	defer src.Close()
	tex, err := d.Texture2D(w, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	tex2, err := d.Texture2D(w, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer tex2.Close()
	out, err := d.Buffer(w*h*4, HeapReadback)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// A Size that does not cover the texels is not Copy's concern.
	if err := d.Copy(tex, src, CopyRegion{Size: 4}); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(tex2, tex, CopyRegion{SrcX: 3}); err != nil { // the region is not used
		t.Fatal(err)
	}
	if err := d.Copy(out, tex2, CopyRegion{}); err != nil {
		t.Fatal(err)
	}
	if got := readback(t, out); !bytes.Equal(got, pattern) {
		t.Fatalf("texture round trip read back %v, want %v", got[:8], pattern[:8])
	}
	// Buffer → buffer: 8 bytes from 4 to 0.
	if err := d.Copy(out, src, CopyRegion{SrcOffset: 4, Size: 8}); err != nil {
		t.Fatal(err)
	}
	if got := readback(t, out); !bytes.Equal(got[:8], pattern[4:12]) || !bytes.Equal(got[8:], pattern[8:]) {
		t.Fatalf("buffer copy read back %v", got[:12])
	}
	small, err := d.Texture2D(w-1, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	for _, c := range []struct {
		name     string
		dst, src Resource
		r        CopyRegion
		want     error
	}{
		{"slice 1", tex, src, CopyRegion{DstSlice: 1}, ErrUnsupported},
		{"buffer bytes past the end", out, src, CopyRegion{SrcOffset: 4, Size: w * h * 4}, ErrRange},
		{"a region past the edge", out, tex, CopyRegion{SrcX: 1, Width: w}, ErrRange},
		{"a buffer too small", tex, src, CopyRegion{SrcOffset: 4}, ErrRange},
		{"textures of different extents", small, tex, CopyRegion{}, ErrRange},
	} {
		if err := d.Copy(c.dst, c.src, c.r); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
