package tensorconv

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cuda/cudatest"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/lifetime"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
)

// needKernel skips (or fails under GFXCUDA_REQUIRE_CUDA=1) when the
// embedded PTX predates the conversion kernel.
func needKernel(t *testing.T) {
	t.Helper()
	if !HasCUDAConverterKernel() {
		if cudatest.Required() {
			t.Fatal(ErrNoCUDAConverterKernel)
		}
		t.Skip(ErrNoCUDAConverterKernel)
	}
}

// needCUDAContext returns CUDA's primary context on device 0, or skips with a
// one-line reason when there is no CUDA driver.
func needCUDAContext(t *testing.T) *cuda.Context {
	t.Helper()
	cudatest.Init(t)
	needKernel(t)
	return cudatest.Context(t)
}

// upload makes a CUDA array (layers > 0: layered, one image per layer)
// holding ims, with surface access.
func upload(t *testing.T, ctx *cuda.Context, s *cuda.Stream, ims []tensor.Image, layered bool) (*cuda.Array, []CUDASource) {
	t.Helper()
	im0 := ims[0]
	af, _ := cudaLayout(im0.Format)
	d := cuda.ArrayDesc{Width: uint64(im0.Width), Height: uint64(im0.Height), Format: af, Channels: 4, Surface: true}
	if layered {
		d.Layers = uint64(len(ims))
	}
	var arrs []*cuda.Array
	var srcs []CUDASource
	for i, im := range ims {
		if !layered || i == 0 {
			a, err := ctx.NewArray(d)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			arrs = append(arrs, a)
		}
		a := arrs[len(arrs)-1]
		layer := uint64(0)
		if layered {
			layer = uint64(i)
		}
		tmp, err := ctx.Alloc(uint64(len(im.Pix)))
		if err != nil {
			t.Fatal(err)
		}
		if err := ctx.CopyHtoD(tmp.Ptr(), im.Pix); err != nil {
			t.Fatal(err)
		}
		if err := s.CopyToArray(cuda.ArrayCopy{Array: a, Ptr: tmp.Ptr(), Layer: layer}); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		tmp.Close()
		src, err := CUDAArraySource(a, im.Format, uint32(layer))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	return arrs[0], srcs
}

// convert runs c over srcs into poisoned device memory and returns the
// tensor's bytes, checking that nothing around it was written.
func convert(t *testing.T, ctx *cuda.Context, s *cuda.Stream, c *CUDAConverter, srcs []CUDASource, n uint64) []byte {
	t.Helper()
	const pad = 256
	mem, err := ctx.Alloc(n + 2*pad)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := ctx.Memset8(mem.Ptr(), 0xCD, n+2*pad); err != nil {
		t.Fatal(err)
	}
	if err := c.Convert(s, mem.Ptr().Add(pad), n, srcs...); err != nil {
		t.Fatalf("%s: %v", c.Layout(), err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, n+2*pad)
	if err := ctx.CopyDtoH(out, mem.Ptr()); err != nil {
		t.Fatal(err)
	}
	for i, b := range append(append([]byte{}, out[:pad]...), out[pad+n:]...) {
		if b != 0xCD {
			t.Fatalf("%s: byte %d outside the tensor was written", c.Layout(), i)
		}
	}
	return out[pad : pad+n]
}

// TestConvertAllLayouts converts random CUDA arrays of every source format,
// three views at a time (separate arrays, and the layers of one layered
// array), into every layout, checking every element against the Go
// reference. Needs CUDA (runs on the GPU machine).
func TestConvertAllLayouts(t *testing.T) {
	ctx := needCUDAContext(t)
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := loggedRNG(t, 4)
	const w, h, views = 37, 19, 3 // odd sizes: partial blocks
	type set struct {
		ims  []tensor.Image
		srcs []CUDASource
		name string
	}
	var sets []set
	for _, f := range tensor.Sources {
		for _, layered := range []bool{false, true} {
			var ims []tensor.Image
			for v := 0; v < views; v++ {
				ims = append(ims, tensortest.RandomImage(rng, f, w, h))
			}
			_, srcs := upload(t, ctx, s, ims, layered)
			in, _ := format.Lookup(f)
			name := in.Name
			if layered {
				name += " layered"
			}
			sets = append(sets, set{ims, srcs, name})
		}
	}
	for _, l := range tensortest.Layouts() {
		c, err := NewCUDAConverter(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sets {
			got := convert(t, ctx, s, c, st.srcs, c.Bytes(views, w, h))
			bad, first, err := tensor.Check(l, st.ims, got)
			if err != nil {
				t.Fatal(err)
			}
			if bad > 0 {
				t.Errorf("%s from %s: %d elements wrong; first: %s", l, st.name, bad, first)
			}
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestConvertManyViews converts more views than one launch takes.
func TestConvertManyViews(t *testing.T) {
	ctx := needCUDAContext(t)
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 5))
	var ims []tensor.Image
	for v := 0; v < MaxViewsPerLaunch*2+1; v++ {
		ims = append(ims, tensortest.RandomImage(rng, format.RGBA16Float, 64, 9))
	}
	_, srcs := upload(t, ctx, s, ims, false)
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3, FlipY: true, Mean: [4]float32{0.1, 0.2, 0.3}, Std: [4]float32{2, 3, 4}}
	c, err := NewCUDAConverter(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := convert(t, ctx, s, c, srcs, c.Bytes(len(srcs), 64, 9))
	if bad, first, err := tensor.Check(l, ims, got); err != nil || bad > 0 {
		t.Errorf("%d elements wrong (%v); first: %s", bad, err, first)
	}
}

// TestCUDAConverterBadInput checks that what the kernel cannot use is refused with an
// error naming it, before anything is launched.
func TestCUDAConverterBadInput(t *testing.T) {
	ctx := needCUDAContext(t)
	if _, err := NewCUDAConverter(ctx, tensor.Layout{DType: format.Int32}); err == nil || !strings.Contains(err.Error(), "int32") {
		t.Errorf("int32 layout: %v", err)
	}
	c, err := NewCUDAConverter(ctx, tensor.Layout{DType: format.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plain, err := ctx.NewArray(cuda.ArrayDesc{Width: 8, Height: 8, Format: cuda.FormatUint8, Channels: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := CUDAArraySource(plain, format.RGBA8UNorm, 0); !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "SURFACE_LDST") {
		t.Errorf("array without surface access: %v", err)
	}
	if _, err := CUDAArraySource(plain, format.RGBA16Float, 0); !errors.Is(err, ErrSource) {
		t.Errorf("format mismatch: %v", err)
	}
	good := CUDASource{Surface: 1, Format: format.RGBA8UNorm, Width: 8, Height: 8}
	for _, cs := range []struct {
		views []CUDASource
		size  uint64
		want  string
	}{
		{nil, 1 << 20, "no views"},
		{[]CUDASource{good}, 255, "need 256 bytes"},
		{[]CUDASource{good, {Surface: 1, Format: format.RGBA8UNorm, Width: 8, Height: 4}}, 1 << 20, "view 1 is 8x4"},
		{[]CUDASource{{Surface: 1, Format: format.R8UNorm, Width: 8, Height: 8}}, 1 << 20, "r8_unorm"},
		{[]CUDASource{{Format: format.RGBA8UNorm, Width: 8, Height: 8}}, 1 << 20, "no surface"},
	} {
		err := c.Convert(nil, 0x1000, cs.size, cs.views...)
		if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("got %v, want ErrSource mentioning %q", err, cs.want)
		}
	}
	c.Close()
	if err := c.Convert(nil, 0x1000, 1<<20, good); !errors.Is(err, lifetime.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
