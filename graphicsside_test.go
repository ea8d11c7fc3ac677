package gfxcuda

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/graphics"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// openGL opens a headless GL context (on cu's GPU when cu is not nil);
// skips without EGL (fails under GFXCUDA_REQUIRE_GL=1).
func openGL(t *testing.T, cu *cuda.Context) *gl.Context {
	t.Helper()
	if err := egl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
	c, err := gl.Open(gl.Options{CUDA: cu})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("gl.Context.Close: %v", err)
		}
	})
	return c
}

// glTexture is a new texture of c holding im's texels.
func glTexture(t *testing.T, c *gl.Context, im tensor.Image) *gl.Texture {
	t.Helper()
	tex, err := c.NewTexture(gl.TextureOptions{Format: im.Format, Width: int(im.Width), Height: int(im.Height)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tex.Close() })
	if err := tex.Upload(im.Pix); err != nil {
		t.Fatal(err)
	}
	return tex
}

// TestGraphicsSourceComputeView: a GL texture taken into the face
// (NewGraphicsSource over a gl.Source) reaches a compute device as a
// texture, every byte compared, two frames (the same texture both times);
// bad input is ErrGraphicsInput, use after Close ErrClosed. No CUDA: runs
// on llvmpipe and lavapipe too.
func TestGraphicsSourceComputeView(t *testing.T) {
	c := openGL(t, nil)
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-graphics-test"})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	pd := pds[0]
	for _, p := range pds {
		for _, u := range c.Info().DeviceUUIDs {
			if p.DeviceUUID == u {
				pd = p
			}
		}
	}
	vd, err := in.NewDevice(pd, vulkan.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer vd.Close()
	cd := compute.New(vd)
	defer cd.Close()

	rng := rand.New(rand.NewPCG(3, 41))
	const w, h = 29, 19
	im := tensortest.RandomImage(rng, format.RGBA8UNorm, w, h)
	tex := glTexture(t, c, im)
	src, err := c.TextureSource(tex.Name())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraphicsSource(src)
	if err != nil {
		t.Fatal(err)
	}
	var first *compute.Texture
	got := make([]byte, len(im.Pix))
	for frame := range 2 {
		if frame > 0 {
			im = tensortest.RandomImage(rng, format.RGBA8UNorm, w, h)
			if err := tex.Upload(im.Pix); err != nil {
				t.Fatal(err)
			}
		}
		ct, err := g.ComputeView(cd)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ct
		} else if ct != first {
			t.Error("ComputeView made a second texture for the same device")
		}
		for i := range got {
			got[i] = 0xA5
		}
		if err := ct.ReadbackInto(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != im.Pix[i] {
				t.Fatalf("frame %d: byte %d is %#x, want %#x", frame, i, got[i], im.Pix[i])
			}
		}
	}
	if _, err := g.ComputeView(nil); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("ComputeView(nil): %v, want ErrGraphicsInput", err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := g.ComputeView(cd); !errors.Is(err, ErrClosed) {
		t.Errorf("ComputeView after Close: %v, want ErrClosed", err)
	}
	if _, err := NewGraphicsSource(nil); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("NewGraphicsSource(nil): %v, want ErrGraphicsInput", err)
	}
}

// stubSource is a graphics.Source that can make no view: it stands in for
// a graphics API only to check the face's own argument checks, which run
// before any view is made.
type stubSource struct {
	w, h  int
	depth bool
}

func (s stubSource) String() string { return "stub source" }
func (s stubSource) Width() int     { return s.w }
func (s stubSource) Height() int    { return s.h }
func (s stubSource) Format() format.Format {
	if s.depth {
		return format.R32Float
	}
	return format.RGBA8UNorm
}
func (s stubSource) Depth() bool { return s.depth }
func (s stubSource) NewGraphicsView(*vulkan.Device, *cuda.Context) (graphics.View, error) {
	return nil, errors.New("stub source: no views")
}

// TestGraphicsToTensorsChecks: what GraphicsToTensors refuses before it
// touches a view or CUDA, each with ErrGraphicsInput: no stream or
// sources, a null destination, a source twice, sources of different
// sizes, depth with a layout other than plain float32, a destination too
// small.
func TestGraphicsToTensorsChecks(t *testing.T) {
	d := &Device{}
	s := &cuda.Stream{}
	a, _ := NewGraphicsSource(stubSource{w: 8, h: 4})
	b, _ := NewGraphicsSource(stubSource{w: 9, h: 4})
	z, _ := NewGraphicsSource(stubSource{w: 8, h: 4, depth: true})
	u8 := tensor.Layout{DType: format.Uint8}
	f32 := tensor.Layout{DType: format.Float32, Channels: 4}
	cases := []struct {
		name string
		err  error
	}{
		{"no stream", GraphicsToTensors(d, nil, 64, 1<<20, u8, a)},
		{"no sources", GraphicsToTensors(d, s, 64, 1<<20, u8)},
		{"null destination", GraphicsToTensors(d, s, 0, 1<<20, u8, a)},
		{"twice", GraphicsToTensors(d, s, 64, 1<<20, u8, a, a)},
		{"sizes differ", GraphicsToTensors(d, s, 64, 1<<20, u8, a, b)},
		{"depth as uint8", GraphicsToTensors(d, s, 64, 1<<20, u8, z)},
		{"depth with mean", GraphicsToTensors(d, s, 64, 1<<20, tensor.Layout{DType: format.Float32, Mean: [4]float32{0.5}}, z)},
		{"too small", GraphicsToTensors(d, s, 64, 8*4*4-1, u8, a)},
		{"depth too small", GraphicsToTensors(d, s, 64, 8*4*4-1, f32, z)},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrGraphicsInput) {
			t.Errorf("%s: %v, want ErrGraphicsInput", c.name, c.err)
		}
	}
	if n := z.TensorBytes(u8); n != 8*4*4 {
		t.Errorf("depth TensorBytes %d, want %d", n, 8*4*4)
	}
	if n := a.TensorBytes(tensor.Layout{DType: format.Float32, Channels: 3}); n != 8*4*3*4 {
		t.Errorf("TensorBytes %d, want %d", n, 8*4*3*4)
	}
}

// TestGraphicsToTensorsCUDA: GL textures of a context on the Device's GPU
// through the face into one CUDA tensor, for every layout (dtype, NCHW or
// NHWC, channels, mean/std, flip), every element checked against the Go
// reference; two frames (views made once); a destination poisoned first.
func TestGraphicsToTensorsCUDA(t *testing.T) {
	testGraphicsToTensorsCUDA(t)
}

func testGraphicsToTensorsCUDA(t *testing.T) {
	d := openDevice(t)
	c := openGL(t, d.CUDA())
	s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(9, 77))
	const w, h, n = 37, 21, 3
	for _, f := range []format.Format{format.RGBA8UNorm, format.RGBA16Float, format.RGBA32Float} {
		ims := make([]tensor.Image, n)
		texs := make([]*gl.Texture, n)
		gs := make([]*GraphicsSource, n)
		for i := range gs {
			ims[i] = tensortest.RandomImage(rng, f, w, h)
			texs[i] = glTexture(t, c, ims[i])
			src, err := c.TextureSource(texs[i].Name())
			if err != nil {
				t.Fatal(err)
			}
			if gs[i], err = NewGraphicsSource(src); err != nil {
				t.Fatal(err)
			}
			defer gs[i].Close()
		}
		for _, l := range tensortest.Layouts() {
			size := gs[0].TensorBytes(l) * n
			mem, err := d.CUDA().Alloc(size)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.CUDA().Memset8(mem.Ptr(), 0xCD, size); err != nil {
				t.Fatal(err)
			}
			if err := GraphicsToTensors(d, s, mem.Ptr(), size, l, gs...); err != nil {
				t.Fatalf("%v %s: %v", f, l, err)
			}
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, size)
			if err := d.CUDA().CopyDtoH(got, mem.Ptr()); err != nil {
				t.Fatal(err)
			}
			mem.Close()
			bad, first, err := tensor.Check(l, ims, got)
			if err != nil {
				t.Fatal(err)
			}
			if bad > 0 {
				t.Fatalf("%v %s: %d elements wrong; first: %s", f, l, bad, first)
			}
		}
		// The next frame in the same views.
		ims[1] = tensortest.RandomImage(rng, f, w, h)
		if err := texs[1].Upload(ims[1].Pix); err != nil {
			t.Fatal(err)
		}
		l := tensor.Layout{DType: format.Float32, Planar: true, FlipY: true}
		mem, err := d.CUDA().Alloc(gs[1].TensorBytes(l))
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		if err := gs[1].ToTensor(d, s, mem.Ptr(), gs[1].TensorBytes(l), l); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, gs[1].TensorBytes(l))
		if err := d.CUDA().CopyDtoH(got, mem.Ptr()); err != nil {
			t.Fatal(err)
		}
		if bad, first, err := tensor.Check(l, ims[1:2], got); err != nil || bad > 0 {
			t.Fatalf("%v, second frame: %d wrong (%s), %v", f, bad, first, err)
		}
	}
}
