package compute

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestCopyRegion: buffer → slice 1 of a 2D array texture → a 3D texture
// (through the staging buffer) → a buffer, with compushady's checks on the
// way (each refusal wraps ErrRange or ErrTexelSize).
func TestCopyRegion(t *testing.T) {
	d := openTest(t)
	const w, h = 4, 3
	src := newBuffer(t, d, HeapUpload, bytes.Repeat([]byte{1, 2, 3, 4}, w*h))
	arr, err := d.Texture2DArray(w, h, 2, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Close()
	vol, err := d.Texture3D(w, h, 2, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer vol.Close()
	out, err := d.Buffer(w*h*4, HeapReadback)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := d.CopyRegion(arr, src, CopyRegion{DstSlice: 1}); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyRegion(vol, arr, CopyRegion{SrcSlice: 1, DstZ: 1}); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyRegion(out, vol, CopyRegion{SrcZ: 1, Depth: 1}); err != nil {
		t.Fatal(err)
	}
	if got := readback(t, out); !bytes.Equal(got, bytes.Repeat([]byte{1, 2, 3, 4}, w*h)) {
		t.Fatalf("read back %v", got[:8])
	}
	r8, err := d.Texture2D(w, h, format.R8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer r8.Close()
	for _, c := range []struct {
		name     string
		dst, src Resource
		r        CopyRegion
		want     error
	}{
		{"slice 2 of 2", arr, src, CopyRegion{DstSlice: 2}, ErrRange},
		{"a size below the texels", arr, src, CopyRegion{Size: 4}, ErrRange},
		{"a region past the edge", out, arr, CopyRegion{SrcX: 1, Width: w}, ErrRange},
		{"a buffer too small", out, vol, CopyRegion{}, ErrRange},
		{"texels at the destination's edge", vol, arr, CopyRegion{DstX: 1}, ErrRange},
		{"texel sizes", r8, arr, CopyRegion{}, ErrTexelSize},
		{"buffer bytes past the end", out, src, CopyRegion{SrcOffset: 4}, nil},
		{"buffer bytes past the end", out, src, CopyRegion{SrcOffset: 4, Size: w * h * 4}, ErrRange},
	} {
		if err := d.CopyRegion(c.dst, c.src, c.r); !errors.Is(err, c.want) || (c.want != nil && err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
