package tensorconv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/lifetime"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"github.com/gfxcuda/gfxcuda/vulkan/vulkantest"
)

// vulkanOnly opens the first Vulkan device (lavapipe in CI) with validation.
func vulkanOnly(t *testing.T) *vulkan.Device { return vulkantest.Device(t) }

// uploadImages makes one sampled image per host image, filled with its texels.
func uploadImages(t *testing.T, vd *vulkan.Device, ims []tensor.Image, viewFormats ...uint32) []*vulkan.Image {
	t.Helper()
	var out []*vulkan.Image
	for _, im := range ims {
		img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(im.Format), Width: im.Width, Height: im.Height,
			Usage: vulkan.ImageSampled | vulkan.ImageTransferDst, ViewFormats: viewFormats})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { img.Close() })
		if err := img.Upload(vulkan.ImageRegion{Width: im.Width, Height: im.Height}, im.Pix); err != nil {
			t.Fatal(err)
		}
		out = append(out, img)
	}
	return out
}

// TestTensorPassAllLayouts converts random textures of every source format,
// three views at a time, into every layout (element type, NCHW/NHWC, 3 or 4
// channels, with and without mean/std, with and without flip) on a real
// Vulkan device, and checks every element against the Go reference.
func TestTensorPassAllLayouts(t *testing.T) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 2)
	const w, h, views = 20, 6, 3
	srcs := map[format.Format][]tensor.Image{}
	imgs := map[format.Format][]*vulkan.Image{}
	for _, f := range tensor.Sources {
		for v := 0; v < views; v++ {
			srcs[f] = append(srcs[f], tensortest.RandomImage(rng, f, w, h))
		}
		imgs[f] = uploadImages(t, vd, srcs[f])
	}
	for _, l := range tensortest.Layouts() {
		pass, err := NewVulkanConverter(vd, l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		per := l.Bytes(w, h) * views
		m := convertPoisoned(t, vd, per*uint64(len(tensor.Sources)), func(c *vulkan.Commands, out *vulkan.Buffer) error {
			for i, f := range tensor.Sources {
				if err := pass.RecordViews(c, imgs[f], out, uint64(i)*per); err != nil {
					return fmt.Errorf("%s: %w", l, err)
				}
			}
			return nil
		})
		for i, f := range tensor.Sources {
			bad, first, err := tensor.Check(l, srcs[f], m[uint64(i)*per:uint64(i+1)*per])
			if err != nil {
				t.Fatal(err)
			}
			if bad > 0 {
				in, _ := format.Lookup(f)
				t.Errorf("%s from %s: %d of %d elements wrong; first: %s", l, in.Name, bad, per/uint64(l.DType.Size()), first)
			}
		}
		pass.Close()
	}
}

// TestTensorPassManyViews converts more views than one dispatch takes into
// the middle of a buffer, and checks that the bytes around the tensor are
// untouched: a last dispatch of several views, and one of a single view
// (the one-view pipeline, at a base past the first dispatch's views).
func TestTensorPassManyViews(t *testing.T) {
	for _, views := range []int{MaxViewsPerDispatch + 3, MaxViewsPerDispatch + 1} {
		t.Run(fmt.Sprint(views), func(t *testing.T) { testManyViews(t, views) })
	}
}

func testManyViews(t *testing.T, views int) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 3)
	const w, h, off = 68, 5, 64
	var srcs []tensor.Image
	for v := 0; v < views; v++ {
		srcs = append(srcs, tensortest.RandomImage(rng, format.BGRA8UNorm, w, h))
	}
	imgs := uploadImages(t, vd, srcs)
	l := tensor.Layout{Planar: true, DType: format.Float16, Channels: 3, FlipY: true, Mean: [4]float32{0.5, 0.5, 0.5}, Std: [4]float32{0.5, 0.25, 2}}
	pass, err := NewVulkanConverter(vd, l)
	if err != nil {
		t.Fatal(err)
	}
	defer pass.Close()
	n := l.Bytes(w, h) * uint64(views)
	m := convertPoisoned(t, vd, off+n+64, func(c *vulkan.Commands, out *vulkan.Buffer) error {
		return pass.RecordViews(c, imgs, out, off)
	})
	checkPoisoned(t, l, srcs, m, off, n, fmt.Sprintf("%d views of %dx%d", views, w, h))
}

// TestVulkanConverterBadInput checks that layouts and sources the pass cannot handle are
// refused with an error naming what is wrong.
func TestVulkanConverterBadInput(t *testing.T) {
	vd := vulkanOnly(t)
	for _, c := range []struct {
		l    tensor.Layout
		want string
	}{
		{tensor.Layout{DType: format.Float32, Channels: 2}, "2 channels"},
		{tensor.Layout{DType: format.Int16}, "int16"},
		{tensor.Layout{}, "element type"},
	} {
		p, err := NewVulkanConverter(vd, c.l)
		if err == nil {
			p.Close()
			t.Errorf("%+v accepted", c.l)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to mention %q", c.l, err, c.want)
		}
	}
	pass, buf := badInputPass(t, vd)
	ok := testImage(t, vd, format.RGBA8UNorm, 8, 8, vulkan.ImageSampled)
	for _, c := range []struct {
		srcs []*vulkan.Image
		off  uint64
		want string
	}{
		{nil, 0, "no views"},
		{[]*vulkan.Image{testImage(t, vd, format.R8UNorm, 8, 8, vulkan.ImageSampled)}, 0, "r8_unorm"},
		{[]*vulkan.Image{testImage(t, vd, format.RGBA8UNorm, 6, 8, vulkan.ImageSampled)}, 0, "multiple of 4"},
		{[]*vulkan.Image{testImage(t, vd, format.RGBA8UNorm, 8, 8, vulkan.ImageStorage)}, 0, "sampled usage"},
		{[]*vulkan.Image{ok, testImage(t, vd, format.RGBA8UNorm, 8, 4, vulkan.ImageSampled)}, 0, "view 1 is 8x4"},
		{[]*vulkan.Image{ok}, 2, "offset 2"},
		{[]*vulkan.Image{ok}, 4096 - 100, "need 256 bytes"},
	} {
		err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordViews(cm, c.srcs, buf, c.off) })
		if err == nil || !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want ErrSource mentioning %q", err, c.want)
		}
	}
}

// loggedRNG is a random source of a seed drawn now, logged so that a
// failure can be replayed, and stream.
func loggedRNG(t *testing.T, stream uint64) *rand.Rand {
	t.Helper()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// tilesTestCase is an atlas of the tiles tests: cols × rows tiles of w × h,
// n of them used, converted into each of layouts.
type tilesTestCase struct {
	cols, rows, n int
	w, h          uint32
	layouts       []tensor.Layout
}

// tilesTestCases: 3 x 5 tiles of 20 x 6 with 13 used, into every layout;
// 17 x 16 tiles of 20 x 7 with 257 used (with 3 workgroups, each step of
// the pass carries from a row's quads into the rows, from the rows into
// the views and from the tile columns into the rows), into three.
func tilesTestCases() []tilesTestCase {
	return []tilesTestCase{
		{3, 5, 13, 20, 6, tensortest.Layouts()},
		{17, 16, 257, 20, 7, []tensor.Layout{
			{DType: format.Uint8, Planar: true, Channels: 3, FlipY: true},
			{DType: format.Float32, Planar: true, Channels: 3, Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}},
			{DType: format.Float16, Planar: true, Channels: 4},
		}},
	}
}

// views returns the tiles of atlas that are views, cut out on the host.
func (tc tilesTestCase) views(atlas tensor.Image) []tensor.Image {
	var views []tensor.Image
	for v := 0; v < tc.n; v++ {
		views = append(views, tensortest.Tile(atlas, v%tc.cols, v/tc.cols, tc.w, tc.h))
	}
	return views
}

// convertPoisoned runs record into a readback buffer of size bytes, each
// 0xCD first, and returns a copy of its bytes afterwards.
func convertPoisoned(t *testing.T, vd *vulkan.Device, size uint64, record func(c *vulkan.Commands, out *vulkan.Buffer) error) []byte {
	t.Helper()
	out, err := vd.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	m, err := out.Map()
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = 0xCD
	}
	if err := vd.Run(func(c *vulkan.Commands) error { return record(c, out) }); err != nil {
		t.Fatal(err)
	}
	out.Invalidate(0, out.Size())
	return append([]byte{}, m...)
}

// checkPoisoned checks m, what convertPoisoned gave back: the n bytes
// from off hold the tensor of srcs under l (every element against the Go
// reference), and every byte around them is still 0xCD. what says which
// case failed.
func checkPoisoned(t *testing.T, l tensor.Layout, srcs []tensor.Image, m []byte, off, n uint64, what string) {
	t.Helper()
	bad, first, err := tensor.Check(l, srcs, m[off:off+n])
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%s: %d elements wrong; first: %s", what, bad, first)
	}
	for i, b := range append(append([]byte{}, m[:off]...), m[off+n:]...) {
		if b != 0xCD {
			t.Fatalf("%s: byte %d outside the tensor was written", what, i)
		}
	}
}

// TestTensorPassTiles converts the tiles of random atlases (every source
// format; 3 x 5 tiles of 20 x 6 with 13 used, and 17 x 16 tiles of 20 x 7
// with 257 used) into every layout in the middle of a poisoned buffer, in
// one dispatch each, and checks every element against the Go reference of
// the tiles cut out on the host, and every byte around the tensor.
func TestTensorPassTiles(t *testing.T) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 4)
	for _, tc := range tilesTestCases() {
		// The default grid, then one of 3 workgroups whose invocations
		// loop over many texels each (257 views of 20x7: 12 steps each,
		// each step carrying from the row's quads into the rows, from the
		// rows into the views and from the tile columns into the rows).
		for _, groups := range []uint64{tilesMaxGroups, 3} {
			defer func(g uint64) { tilesMaxGroups = g }(tilesMaxGroups)
			tilesMaxGroups = groups
			for _, f := range tensor.Sources {
				atlas := tensortest.RandomImage(rng, f, tc.w*uint32(tc.cols), tc.h*uint32(tc.rows))
				img := uploadImages(t, vd, []tensor.Image{atlas})[0]
				views := tc.views(atlas)
				for _, l := range tc.layouts {
					pass, err := NewVulkanConverter(vd, l)
					if err != nil {
						t.Fatal(err)
					}
					const off = 36
					n := l.Bytes(tc.w, tc.h) * uint64(tc.n)
					m := convertPoisoned(t, vd, off+n+20, func(c *vulkan.Commands, out *vulkan.Buffer) error {
						return pass.RecordTiles(c, img, tc.cols, tc.rows, tc.n, out, off)
					})
					checkPoisoned(t, l, views, m, off, n, fmt.Sprintf("%v, %d of %dx%d tiles, %s, at most %d workgroups", f, tc.n, tc.cols, tc.rows, l, groups))
					pass.Close()
				}
			}
		}
	}
}

// TestTensorPassTilesFromBuffer: the tiles of random RGBA8 atlases held in
// buffers (3 x 5 tiles of 20 x 6 with 13 used; 17 x 16 tiles of 20 x 7
// with 257 used), every layout, the default grid and one of 3 workgroups
// whose invocations step through many texels, every element against the
// Go reference of the tiles cut out on the host (uint8 tensors with no
// mean or std byte for byte what RecordTiles makes of the same texels in
// an image), every byte around the tensor untouched.
func TestTensorPassTilesFromBuffer(t *testing.T) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 5)
	for _, tc := range tilesTestCases() {
		for _, groups := range []uint64{tilesMaxGroups, 3} {
			defer func(g uint64) { tilesMaxGroups = g }(tilesMaxGroups)
			tilesMaxGroups = groups
			W, H := tc.w*uint32(tc.cols), tc.h*uint32(tc.rows)
			atlas := tensortest.RandomImage(rng, format.RGBA8UNorm, W, H)
			src, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(len(atlas.Pix))})
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Upload(0, atlas.Pix); err != nil {
				t.Fatal(err)
			}
			img := uploadImages(t, vd, []tensor.Image{atlas})[0]
			for _, l := range tc.layouts {
				pass := convertFromBuffer(t, vd, src, img, tc, tc.views(atlas), l, 36, fmt.Sprintf("at most %d workgroups", groups))
				pass.Close()
			}
			src.Close()
		}
	}
	// What it refuses.
	pass, dst := badInputPass(t, vd)
	small, err := vd.NewBuffer(vulkan.BufferOptions{Size: 16 * 8 * 4})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	for _, c := range []struct {
		atlas         *vulkan.Buffer
		w, h          uint32
		cols, rows, n int
		want          string
	}{
		{small, 16, 9, 2, 3, 6, "needs 576 bytes"},
		{small, 16, 8, 3, 2, 4, "does not divide"},
		{small, 16, 8, 2, 2, 5, "want 1 to 4"},
		{small, 0, 8, 2, 2, 4, "a 0x8 atlas"},
		{nil, 16, 8, 2, 2, 4, "atlas buffer"},
	} {
		err := vd.Run(func(cm *vulkan.Commands) error {
			return pass.RecordTilesFromBuffer(cm, c.atlas, c.w, c.h, c.cols, c.rows, c.n, dst, 0)
		})
		if err == nil || !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%dx%d atlas, %d x %d tiles, %d views: got %v, want ErrSource mentioning %q", c.w, c.h, c.cols, c.rows, c.n, err, c.want)
		}
	}
	if err := pass.Close(); err != nil {
		t.Fatal(err)
	}
	if err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordTilesFromBuffer(cm, small, 16, 8, 2, 2, 4, dst, 0) }); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("RecordTilesFromBuffer after Close: %v, want ErrClosed", err)
	}
}

// convertFromBuffer converts tc's tiles of the atlas in src
// (RecordTilesFromBuffer) into a poisoned buffer at byte off and checks
// every element against the Go reference of views and every byte around
// the tensor; uint8 tensors with no mean or std must be byte for byte what
// RecordTiles makes of the same texels in img. It returns the converter,
// to be closed.
func convertFromBuffer(t *testing.T, vd *vulkan.Device, src *vulkan.Buffer, img *vulkan.Image, tc tilesTestCase, views []tensor.Image,
	l tensor.Layout, off uint64, what string) *VulkanConverter {
	t.Helper()
	pass, err := NewVulkanConverter(vd, l)
	if err != nil {
		t.Fatal(err)
	}
	W, H := tc.w*uint32(tc.cols), tc.h*uint32(tc.rows)
	n := l.Bytes(tc.w, tc.h) * uint64(tc.n)
	got := convertPoisoned(t, vd, off+n+20, func(c *vulkan.Commands, out *vulkan.Buffer) error {
		return pass.RecordTilesFromBuffer(c, src, W, H, tc.cols, tc.rows, tc.n, out, off)
	})
	fromImage := convertPoisoned(t, vd, off+n+20, func(c *vulkan.Commands, out *vulkan.Buffer) error {
		return pass.RecordTiles(c, img, tc.cols, tc.rows, tc.n, out, off)
	})
	checkPoisoned(t, l, views, got, off, n, fmt.Sprintf("%d of %dx%d tiles, %s, at byte %d, %s", tc.n, tc.cols, tc.rows, l, off, what))
	// Bytes alike where no float arithmetic rounds (the texture unit's
	// UNORM conversion and unpackUnorm4x8 may differ by an ulp, within
	// tensor.Check's tolerance).
	if l.DType == format.Uint8 && !l.Normalized() && !bytes.Equal(got, fromImage) {
		t.Errorf("%s at byte %d: the buffer atlas and the same texels in an image converted differently", l, off)
	}
	return pass
}

// bytesTilesTestCases: atlases whose tiles are a multiple of 16 texels
// wide (3 x 5 tiles of 16 x 6 with 13 used; 17 x 16 tiles of 32 x 7 with
// 257 used: rows not a multiple of 4), into every uint8 layout, flipped or
// not, and one with a mean (which the bytes passes do not take).
func bytesTilesTestCases() []tilesTestCase {
	var layouts []tensor.Layout
	for _, planar := range []bool{true, false} {
		for _, ch := range []int{3, 4} {
			for _, flip := range []bool{false, true} {
				layouts = append(layouts, tensor.Layout{DType: format.Uint8, Planar: planar, Channels: ch, FlipY: flip})
			}
		}
	}
	layouts = append(layouts, tensor.Layout{DType: format.Uint8, Planar: true, Channels: 3, Mean: [4]float32{0.25, 0.5, 0.125}})
	return []tilesTestCase{{3, 5, 13, 16, 6, layouts}, {17, 16, 257, 32, 7, layouts}}
}

// TestTensorPassTilesFromBufferBytes: uint8 tensors with no mean or std
// from a buffer atlas whose tiles are a multiple of 16 texels wide (3 x 5
// tiles of 16 x 6 with 13 used; 17 x 16 tiles of 32 x 7 with 257 used),
// every uint8 layout, flipped or not: at a byte offset that is a multiple
// of 16 the bytes pass converts them (16 texels an invocation), at another
// offset, or with a mean, the general pass; each with the default grid and
// one of 3 workgroups stepping through many texels, every element against
// the Go reference, every byte around the tensor untouched, the same
// bytes as from an image.
func TestTensorPassTilesFromBufferBytes(t *testing.T) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 6)
	for _, tc := range bytesTilesTestCases() {
		W, H := tc.w*uint32(tc.cols), tc.h*uint32(tc.rows)
		atlas := tensortest.RandomImage(rng, format.RGBA8UNorm, W, H)
		src, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(len(atlas.Pix))})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if err := src.Upload(0, atlas.Pix); err != nil {
			t.Fatal(err)
		}
		img := uploadImages(t, vd, []tensor.Image{atlas})[0]
		for _, groups := range []uint64{bytesMaxGroups, 3} {
			defer func(g uint64) { bytesMaxGroups = g }(bytesMaxGroups)
			bytesMaxGroups = groups
			for _, l := range tc.layouts {
				for _, off := range []uint64{48, 36} {
					pass := convertFromBuffer(t, vd, src, img, tc, tc.views(atlas), l, off, fmt.Sprintf("at most %d workgroups of the bytes pass", groups))
					if bytesPass := off%16 == 0 && !l.Normalized(); (pass.tiledBytes != nil) != bytesPass || (pass.tiledBuf != nil) == bytesPass {
						t.Errorf("%s at byte %d: the bytes pass ran: %v, want %v", l, off, pass.tiledBytes != nil, bytesPass)
					}
					pass.Close()
				}
			}
		}
	}
}

// TestTensorPassTilesBytesFromImage: uint8 tensors with no mean or std
// from atlas images whose tiles are a multiple of 16 texels wide (3 x 5
// tiles of 16 x 6 with 13 used; 17 x 16 tiles of 32 x 7 with 257 used),
// every uint8 layout, flipped or not: from a UNORM8 image (RGBA8, BGRA8)
// at a byte offset that is a multiple of 16 the image bytes pass converts
// them (16 texels an invocation, rows 4 at a time, the last band of a
// 6- or 7-row tile partly idle); at another offset, with a mean, or from
// RGBA16F, the general pass; each with the default grid and one of 3
// workgroups stepping through many texels, every element against the Go
// reference (exact for UNORM8 with no mean), every byte around the tensor
// untouched, and byte for byte what the bytes pass makes of the same
// texels in a buffer.
func TestTensorPassTilesBytesFromImage(t *testing.T) {
	vd := vulkanOnly(t)
	rng := loggedRNG(t, 7)
	for _, tc := range bytesTilesTestCases() {
		W, H := tc.w*uint32(tc.cols), tc.h*uint32(tc.rows)
		for _, src := range []struct {
			f     format.Format
			views []uint32 // ViewFormats: R32_UINT makes an RGBA8 atlas take the words pass
		}{
			{format.RGBA8UNorm, nil}, {format.RGBA8UNorm, []uint32{uint32(format.R32UInt)}},
			{format.BGRA8UNorm, nil}, {format.BGRA8UNorm, []uint32{uint32(format.R32UInt)}}, {format.RGBA16Float, nil},
		} {
			f := src.f
			atlas := tensortest.RandomImage(rng, f, W, H)
			img := uploadImages(t, vd, []tensor.Image{atlas}, src.views...)[0]
			unorm8 := f != format.RGBA16Float
			var buf *vulkan.Buffer
			if unorm8 { // the same texels, red first, for the buffer's bytes pass
				rgba := append([]byte{}, atlas.Pix...)
				if f == format.BGRA8UNorm {
					for i := 0; i < len(rgba); i += 4 {
						rgba[i], rgba[i+2] = rgba[i+2], rgba[i]
					}
				}
				b, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(len(rgba))})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				if err := b.Upload(0, rgba); err != nil {
					t.Fatal(err)
				}
				buf = b
			}
			views := tc.views(atlas)
			for _, groups := range []uint64{0, 3} { // 0: the passes' own caps
				defer func(g, h, k uint64) { imageBytesMaxGroups, tilesMaxGroups, imageGatherMaxGroups = g, h, k }(imageBytesMaxGroups, tilesMaxGroups, imageGatherMaxGroups)
				if groups > 0 {
					imageBytesMaxGroups, tilesMaxGroups, imageGatherMaxGroups = groups, groups, groups
				}
				for _, l := range tc.layouts {
					for _, off := range []uint64{48, 36} {
						what := fmt.Sprintf("%v (view formats %v), %d of %dx%d tiles, %s, at byte %d, at most %d workgroups (0: the passes' own caps)", f, src.views, tc.n, tc.cols, tc.rows, l, off, groups)
						pass, err := NewVulkanConverter(vd, l)
						if err != nil {
							t.Fatal(err)
						}
						n := l.Bytes(tc.w, tc.h) * uint64(tc.n)
						got := convertPoisoned(t, vd, off+n+20, func(c *vulkan.Commands, out *vulkan.Buffer) error {
							return pass.RecordTiles(c, img, tc.cols, tc.rows, tc.n, out, off)
						})
						checkPoisoned(t, l, views, got, off, n, what)
						bytesPass := unorm8 && off%16 == 0 && !l.Normalized()
						wordsPass := bytesPass && f == format.RGBA8UNorm && src.views != nil
						gather := wordsPass && tc.h%2 == 0 // two rows an invocation
						ran := [4]bool{pass.tiled != nil, pass.tiledImgBytes != nil, pass.tiledImgWords != nil, pass.tiledImgGather != nil}
						if want := [4]bool{!bytesPass, bytesPass && !wordsPass, wordsPass && !gather, gather}; ran != want {
							t.Errorf("%s: the general, bytes, words and gather passes ran: %v, want %v", what, ran, want)
						}
						if bytesPass {
							fromBuf := convertPoisoned(t, vd, off+n+20, func(c *vulkan.Commands, out *vulkan.Buffer) error {
								return pass.RecordTilesFromBuffer(c, buf, W, H, tc.cols, tc.rows, tc.n, out, off)
							})
							if !bytes.Equal(got, fromBuf) {
								t.Errorf("%s: the image and the same texels in a buffer converted differently", what)
							}
						}
						pass.Close()
					}
				}
			}
		}
	}
}

// TestTensorPassTilesBadInput: atlases and tile counts RecordTiles cannot
// convert are refused with an error naming what is wrong.
func TestTensorPassTilesBadInput(t *testing.T) {
	vd := vulkanOnly(t)
	pass, buf := badInputPass(t, vd)
	atlas := testImage(t, vd, format.RGBA8UNorm, 16, 8, vulkan.ImageSampled) // 2 x 2 tiles of 8 x 4
	for _, c := range []struct {
		img           *vulkan.Image
		cols, rows, n int
		off           uint64
		want          string
	}{
		{atlas, 3, 2, 4, 0, "does not divide"},
		{atlas, 2, 3, 4, 0, "does not divide"},
		{atlas, 0, 2, 1, 0, "at least one column"},
		{atlas, 2, 2, 0, 0, "want 1 to 4"},
		{atlas, 2, 2, 5, 0, "want 1 to 4"},
		{atlas, 8, 2, 8, 0, "multiple of 4"},
		{atlas, 2, 2, 4, 2, "offset 2"},
		{atlas, 2, 2, 4, 4096 - 100, "need 512 bytes"},
		{testImage(t, vd, format.R8UNorm, 16, 8, vulkan.ImageSampled), 2, 2, 4, 0, "r8_unorm"},
		{testImage(t, vd, format.RGBA8UNorm, 16, 8, vulkan.ImageStorage), 2, 2, 4, 0, "sampled usage"},
		{nil, 2, 2, 4, 0, "atlas image"},
	} {
		err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordTiles(cm, c.img, c.cols, c.rows, c.n, buf, c.off) })
		if err == nil || !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d x %d tiles, %d views, offset %d: got %v, want ErrSource mentioning %q", c.cols, c.rows, c.n, c.off, err, c.want)
		}
	}
	// Closed: both Record calls fail, a second Close is nothing.
	ok := testImage(t, vd, format.RGBA8UNorm, 8, 8, vulkan.ImageSampled)
	if err := pass.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pass.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordTiles(cm, atlas, 2, 2, 4, buf, 0) }); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("RecordTiles after Close: %v, want ErrClosed", err)
	}
	if err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordViews(cm, []*vulkan.Image{ok}, buf, 0) }); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("RecordViews after Close: %v, want ErrClosed", err)
	}
}

// badInputPass returns the bad-input tests' uint8 converter and a
// 4096-byte destination buffer on vd, both closed at the test's end.
func badInputPass(t *testing.T, vd *vulkan.Device) (*VulkanConverter, *vulkan.Buffer) {
	t.Helper()
	pass, err := NewVulkanConverter(vd, tensor.Layout{DType: format.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pass.Close() })
	buf, err := vd.NewBuffer(vulkan.BufferOptions{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { buf.Close() })
	return pass, buf
}

// testImage makes a w×h image of format f with usage u, closed at the
// test's end.
func testImage(t *testing.T, vd *vulkan.Device, f format.Format, w, h uint32, u vulkan.ImageUsage) *vulkan.Image {
	t.Helper()
	img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(f), Width: w, Height: h, Usage: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { img.Close() })
	return img
}
