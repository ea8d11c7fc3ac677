package scene

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"github.com/gfxcuda/gfxcuda/vulkan/vulkantest"
)

func image(t *testing.T, vd *vulkan.Device, w, h uint32, fill []byte) *vulkan.Image {
	t.Helper()
	img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: w, Height: h,
		Usage: vulkan.ImageStorage | vulkan.ImageTransferSrc | vulkan.ImageTransferDst})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { img.Close() })
	if fill != nil {
		if err := img.Upload(vulkan.ImageRegion{Width: w, Height: h}, fill); err != nil {
			t.Fatal(err)
		}
	}
	return img
}

func read(t *testing.T, vd *vulkan.Device, img *vulkan.Image) []byte {
	t.Helper()
	o := img.Options()
	b, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(o.Width * o.Height * 4), Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := vd.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(img, vulkan.LayoutTransferSrc)
		c.CopyImageToBuffer(b, img, vulkan.BufferImageCopy{})
		return c.Err()
	}); err != nil {
		t.Fatal(err)
	}
	m, _ := b.Map()
	b.Invalidate(0, b.Size())
	return append([]byte(nil), m...)
}

// tile cuts tile (col, row) of w×h out of an RGBA8 atlas of width aw.
func tile(atlas []byte, aw, col, row, w, h int) []byte {
	out := make([]byte, 0, w*h*4)
	for y := 0; y < h; y++ {
		i := ((row*h+y)*aw + col*w) * 4
		out = append(out, atlas[i:i+w*4]...)
	}
	return out
}

// tilesSetup returns a Vulkan device, a Renderer on it (closed at the
// test's end) and W × H RGBA8 texels of random bytes (seeded).
func tilesSetup(t *testing.T, seed uint64, W, H int) (*vulkan.Device, *Renderer, []byte) {
	t.Helper()
	vd := vulkantest.Device(t)
	r, err := New(vd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	rng := rand.New(rand.NewPCG(seed, seed+4))
	fill := make([]byte, W*H*4)
	for i := range fill {
		fill[i] = byte(rng.Uint32())
	}
	return vd, r, fill
}

// TestRecordTiles renders 5 environments (each its own scene time and
// camera, numbered from 3) into an atlas of 3 x 2 tiles of 16 x 12 filled
// with random bytes first, and each environment alone into an image of its
// own: every tile equals its environment's own image byte for byte, the
// sixth tile keeps its random bytes, environments differ from each other,
// and Record draws what one environment with no steps draws.
func TestRecordTiles(t *testing.T) {
	const cols, rows, n, w, h = 3, 2, 5, 16, 12
	vd, r, fill := tilesSetup(t, 7, cols*w, rows*h)
	atlas := image(t, vd, cols*w, rows*h, fill)
	envs := Envs{Time: 0.7, Camera: 0.4, TimeStep: 0.37, CameraStep: 2 * math.Pi / n, First: 3}
	if err := vd.Run(func(c *vulkan.Commands) error { return r.RecordTiles(c, atlas, cols, rows, n, envs) }); err != nil {
		t.Fatal(err)
	}
	got := read(t, vd, atlas)
	var views [][]byte
	for e := 0; e < n; e++ {
		img := image(t, vd, w, h, nil)
		one := envs
		one.First = envs.First + uint32(e)
		if err := vd.Run(func(c *vulkan.Commands) error { return r.RecordTiles(c, img, 1, 1, 1, one) }); err != nil {
			t.Fatal(err)
		}
		want := read(t, vd, img)
		if g := tile(got, cols*w, e%cols, e/cols, w, h); !bytes.Equal(g, want) {
			t.Errorf("tile %d differs from environment %d drawn alone", e, envs.First+uint32(e))
		}
		for i, v := range views {
			if bytes.Equal(v, want) {
				t.Errorf("environments %d and %d look the same", i, e)
			}
		}
		views = append(views, want)
	}
	if g, w0 := tile(got, cols*w, 2, 1, w, h), tile(fill, cols*w, 2, 1, w, h); !bytes.Equal(g, w0) {
		t.Error("the unused sixth tile was written")
	}
	// Record: one environment, no steps.
	a, b := image(t, vd, w, h, nil), image(t, vd, w, h, nil)
	if err := vd.Run(func(c *vulkan.Commands) error {
		r.Record(c, a, 1.25, 0.9)
		return r.RecordTiles(c, b, 1, 1, 1, Envs{Time: 1.25, Camera: 0.9})
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, vd, a), read(t, vd, b)) {
		t.Error("Record and a one-environment RecordTiles differ")
	}
	for _, bad := range []struct{ cols, rows, n int }{{0, 2, 1}, {5, 2, 5}, {3, 5, 5}, {3, 2, 0}, {3, 2, 7}} {
		err := vd.Run(func(c *vulkan.Commands) error { return r.RecordTiles(c, atlas, bad.cols, bad.rows, bad.n, envs) })
		if err == nil {
			t.Errorf("%d x %d tiles, %d environments: accepted", bad.cols, bad.rows, bad.n)
		}
	}
}

// TestRecordTilesToBuffer: the same environments drawn into a buffer atlas
// and into an image atlas give the same texels (each byte within one of
// the image's, random bytes in both first), the unused tile untouched;
// atlases that do not divide or a buffer too small are refused.
func TestRecordTilesToBuffer(t *testing.T) {
	const cols, rows, n, w, h = 3, 2, 5, 16, 12
	vd, r, fill := tilesSetup(t, 8, cols*w, rows*h)
	atlas := image(t, vd, cols*w, rows*h, fill)
	buf, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(len(fill))})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	if err := buf.Upload(0, fill); err != nil {
		t.Fatal(err)
	}
	envs := Envs{Time: 1.1, Camera: 0.2, TimeStep: 0.41, CameraStep: 2 * math.Pi / n, First: 2}
	if err := vd.Run(func(c *vulkan.Commands) error {
		if err := r.RecordTiles(c, atlas, cols, rows, n, envs); err != nil {
			return err
		}
		return r.RecordTilesToBuffer(c, buf, cols*w, rows*h, cols, rows, n, envs)
	}); err != nil {
		t.Fatal(err)
	}
	want := read(t, vd, atlas)
	got := make([]byte, len(fill))
	if err := buf.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	// packUnorm4x8 and the image's UNORM store may round a tie apart.
	for i := range got {
		if d := int(got[i]) - int(want[i]); d < -1 || d > 1 {
			t.Fatalf("byte %d: the buffer atlas has %d, the image atlas %d", i, got[i], want[i])
		}
	}
	if bytes.Equal(got, fill) {
		t.Error("nothing was drawn")
	}
	if g, f := tile(got, cols*w, 2, 1, w, h), tile(fill, cols*w, 2, 1, w, h); !bytes.Equal(g, f) {
		t.Error("the unused sixth tile was written")
	}
	for _, bad := range []struct {
		w, h          uint32
		cols, rows, n int
	}{{cols * w, rows * h, 5, 2, 5}, {cols * w, rows * h, 3, 2, 7}, {cols * w, rows*h + 2, 3, 2, 5}, {cols * w * 2, rows * h * 2, 3, 2, 5}} {
		err := vd.Run(func(c *vulkan.Commands) error {
			return r.RecordTilesToBuffer(c, buf, bad.w, bad.h, bad.cols, bad.rows, bad.n, envs)
		})
		if err == nil {
			t.Errorf("%dx%d atlas, %d x %d tiles, %d environments: accepted", bad.w, bad.h, bad.cols, bad.rows, bad.n)
		}
	}
}
