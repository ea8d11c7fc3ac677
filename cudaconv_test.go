package gfxcuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda/cudatest"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
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

// TestBothSidesAgree converts the same shared textures on the Vulkan side
// (into a buffer CUDA sees) and on the CUDA side (reading the textures'
// CUDA arrays), and checks both against the Go reference. Needs a GPU
// shared by Vulkan and CUDA.
func TestBothSidesAgree(t *testing.T) {
	d, err := Open(Options{})
	if err != nil {
		if cudatest.Required() {
			t.Fatalf("GPU required: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	defer d.Close()
	needKernel(t)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 6))
	const w, h, views = 64, 32, 3
	for _, f := range tensor.Sources {
		var ims []tensor.Image
		var texs []*Texture
		var vks []*vulkan.Image
		var srcs []CUDASource
		for v := 0; v < views; v++ {
			im := tensortest.RandomImage(rng, f, w, h)
			tex, err := d.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
			if err != nil {
				t.Fatal(err)
			}
			defer tex.Close()
			tmp, err := d.CUDA().Alloc(uint64(len(im.Pix)))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.CUDA().CopyHtoD(tmp.Ptr(), im.Pix); err != nil {
				t.Fatal(err)
			}
			if err := tex.CopyFromSync(nil, tmp.Ptr(), 0); err != nil {
				t.Fatal(err)
			}
			tmp.Close()
			src, err := CUDATextureSource(tex, 0)
			if err != nil {
				t.Fatal(err)
			}
			ims, texs, vks, srcs = append(ims, im), append(texs, tex), append(vks, tex.Vulkan()), append(srcs, src)
		}
		l := tensor.Layout{Planar: true, DType: format.Float16, Channels: 3, FlipY: true,
			Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
		n := l.Bytes(w, h) * views
		vkOut, err := d.NewBuffer(n)
		if err != nil {
			t.Fatal(err)
		}
		defer vkOut.Close()
		pass, err := NewVulkanConverter(d.Vulkan(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer pass.Close()
		if err := d.Run(func(c *vulkan.Commands) error { return pass.RecordViews(c, vks, vkOut.Vulkan(), 0) }); err != nil {
			t.Fatal(err)
		}
		cuOut, err := d.CUDA().Alloc(2 * n) // the CUDA kernel's tensor, then a copy of the Vulkan pass's
		if err != nil {
			t.Fatal(err)
		}
		defer cuOut.Close()
		conv, err := NewCUDAConverter(d.CUDA(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer conv.Close()
		res := []Resource{vkOut}
		for _, tx := range texs {
			res = append(res, tx)
		}
		acc, err := d.ToCUDA(nil, res...)
		if err != nil {
			t.Fatal(err)
		}
		err = conv.Convert(acc.Stream(), cuOut.Ptr(), n, srcs...)
		if err == nil {
			err = acc.Stream().CopyDtoD(cuOut.Ptr().Add(n), vkOut.Ptr(), n)
		}
		if derr := acc.Done(); err == nil {
			err = derr
		}
		if err == nil {
			err = acc.Stream().Synchronize()
		}
		both := make([]byte, 2*n)
		if err == nil {
			err = d.CUDA().CopyDtoH(both, cuOut.Ptr())
		}
		if err != nil {
			t.Fatal(err)
		}
		cuBytes, vkBytes := both[:n], both[n:]
		for side, got := range map[string][]byte{"Vulkan pass": vkBytes, "CUDA kernel": cuBytes} {
			if bad, first, err := tensor.Check(l, ims, got); err != nil || bad > 0 {
				t.Errorf("%v %s: %d elements wrong (%v); first: %s", f, side, bad, err, first)
			}
		}
	}
}
