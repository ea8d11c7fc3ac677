package gfxcuda

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// vulkanOnly opens the first Vulkan device (lavapipe in CI) with validation.
func vulkanOnly(t *testing.T) *vulkan.Device {
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	pds, err := inst.PhysicalDevices()
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vd.Close()
		if msgs := inst.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d validation errors, first: %s", len(msgs), msgs[0])
		}
		inst.Close()
	})
	return vd
}

// uploadImages makes one sampled image per host image, filled with its texels.
func uploadImages(t *testing.T, vd *vulkan.Device, ims []tensor.Image) []*vulkan.Image {
	t.Helper()
	var out []*vulkan.Image
	for _, im := range ims {
		img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(im.Format), Width: im.Width, Height: im.Height,
			Usage: vulkan.ImageSampled | vulkan.ImageTransferDst})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { img.Close() })
		st, err := vd.NewBuffer(vulkan.BufferOptions{Size: uint64(len(im.Pix)), Heap: vulkan.HeapUpload})
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Map()
		if err != nil {
			t.Fatal(err)
		}
		copy(m, im.Pix)
		if err := vd.Run(func(c *vulkan.Commands) error {
			c.TransitionImage(img, vulkan.LayoutTransferDst)
			c.CopyBufferToImage(img, st, vulkan.BufferImageCopy{})
			return c.Err()
		}); err != nil {
			t.Fatal(err)
		}
		st.Close()
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
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
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
		out, err := vd.NewBuffer(vulkan.BufferOptions{Size: per * uint64(len(tensor.Sources)), Heap: vulkan.HeapReadback})
		if err != nil {
			t.Fatal(err)
		}
		m, err := out.Map()
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = 0xCD
		}
		err = vd.Run(func(c *vulkan.Commands) error {
			for i, f := range tensor.Sources {
				if err := pass.RecordViews(c, imgs[f], out, uint64(i)*per); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if err := out.Invalidate(0, out.Size()); err != nil {
			t.Fatal(err)
		}
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
		out.Close()
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
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
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
	out, err := vd.NewBuffer(vulkan.BufferOptions{Size: off + n + 64, Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	m, _ := out.Map()
	for i := range m {
		m[i] = 0xCD
	}
	if err := vd.Run(func(c *vulkan.Commands) error { return pass.RecordViews(c, imgs, out, off) }); err != nil {
		t.Fatal(err)
	}
	out.Invalidate(0, out.Size())
	bad, first, err := tensor.Check(l, srcs, m[off:off+n])
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d elements wrong; first: %s", bad, first)
	}
	for i, b := range append(append([]byte{}, m[:off]...), m[off+n:]...) {
		if b != 0xCD {
			t.Fatalf("byte %d outside the tensor was written", i)
		}
	}
}

// TestVulkanConverterBadInput checks that layouts and sources the pass cannot handle are
// refused with an error naming what is wrong.
func TestVulkanConverterBadInput(t *testing.T) {
	vd := vulkanOnly(t)
	for _, c := range []struct {
		l    TensorLayout
		want string
	}{
		{TensorLayout{DType: format.Float32, Channels: 2}, "2 channels"},
		{TensorLayout{DType: format.Int16}, "int16"},
		{TensorLayout{}, "element type"},
	} {
		p, err := NewVulkanConverter(vd, c.l)
		if err == nil {
			p.Close()
			t.Errorf("%+v accepted", c.l)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to mention %q", c.l, err, c.want)
		}
	}
	pass, err := NewVulkanConverter(vd, TensorLayout{DType: format.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	defer pass.Close()
	mk := func(f format.Format, w, h uint32, u vulkan.ImageUsage) *vulkan.Image {
		img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(f), Width: w, Height: h, Usage: u})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { img.Close() })
		return img
	}
	buf, err := vd.NewBuffer(vulkan.BufferOptions{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	ok := mk(format.RGBA8UNorm, 8, 8, vulkan.ImageSampled)
	for _, c := range []struct {
		srcs []*vulkan.Image
		off  uint64
		want string
	}{
		{nil, 0, "no views"},
		{[]*vulkan.Image{mk(format.R8UNorm, 8, 8, vulkan.ImageSampled)}, 0, "r8_unorm"},
		{[]*vulkan.Image{mk(format.RGBA8UNorm, 6, 8, vulkan.ImageSampled)}, 0, "multiple of 4"},
		{[]*vulkan.Image{mk(format.RGBA8UNorm, 8, 8, vulkan.ImageStorage)}, 0, "sampled usage"},
		{[]*vulkan.Image{ok, mk(format.RGBA8UNorm, 8, 4, vulkan.ImageSampled)}, 0, "view 1 is 8x4"},
		{[]*vulkan.Image{ok}, 2, "offset 2"},
		{[]*vulkan.Image{ok}, 4096 - 100, "need 256 bytes"},
	} {
		err := vd.Run(func(cm *vulkan.Commands) error { return pass.RecordViews(cm, c.srcs, buf, c.off) })
		if err == nil || !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want ErrSource mentioning %q", err, c.want)
		}
	}
}
