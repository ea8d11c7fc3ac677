package gfxcuda

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
)

// readTensor reads n bytes of b from CUDA once the Device's stream has
// finished.
func readTensor(t *testing.T, d *Device, b *Buffer, n uint64) []byte {
	t.Helper()
	if err := d.Stream().Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := d.CUDA().CopyDtoH(got, b.Ptr()); err != nil {
		t.Fatal(err)
	}
	return got
}

// poisonBuffer fills b with 0xCD through CUDA.
func poisonBuffer(t *testing.T, d *Device, b *Buffer) {
	t.Helper()
	noErr(t, b.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.Memset8(p, 0xCD, b.Size()) }))
}

// TestToTensor converts random texels of every source format into every
// layout with both converters, into the middle of a poisoned shared buffer,
// and checks the tensor against the Go reference (tensor.Check) and the
// bytes around it. The Device needs CUDA: without a GPU it skips.
func TestToTensor(t *testing.T) {
	d := openDevice(t)
	needKernel(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 18))
	const w, h, pad = 36, 10, 256
	texs := map[format.Format]*Texture{}
	ims := map[format.Format]tensor.Image{}
	for _, f := range tensor.Sources {
		tex, err := d.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
		noErr(t, err)
		ims[f] = tensortest.RandomImage(rng, f, w, h)
		uploadImage(t, d, tex, ims[f].Pix)
		texs[f] = tex
	}
	for _, conv := range []Converter{ConverterCUDA, ConverterVulkan} {
		for _, l := range tensortest.Layouts() {
			n := l.Bytes(w, h)
			buf, err := d.NewBuffer(n + 2*pad)
			noErr(t, err)
			for _, f := range tensor.Sources {
				poisonBuffer(t, d, buf)
				if err := texs[f].ToTensor(buf, TensorOptions{Layout: l, Converter: conv, Offset: pad}); err != nil {
					t.Fatalf("%v %s from %s: %v", conv, l, f, err)
				}
				got := readTensor(t, d, buf, n+2*pad)
				for i, b := range append(got[:pad:pad], got[pad+n:]...) {
					if b != 0xCD {
						t.Fatalf("%v %s from %s: byte %d around the tensor written", conv, l, f, i)
					}
				}
				bad, first, err := tensor.Check(l, []tensor.Image{ims[f]}, got[pad:pad+n])
				noErr(t, err)
				if bad > 0 {
					t.Errorf("%v %s from %s: %d elements wrong; first: %s", conv, l, f, bad, first)
				}
				if bad, first, err := texs[f].CheckTensor(buf, TensorOptions{Layout: l, Offset: pad}); err != nil || bad > 0 {
					t.Errorf("%v %s from %s: CheckTensor: %d wrong (%s), %v", conv, l, f, bad, first, err)
				}
			}
			closeT(t, buf)
		}
	}
}

// TestToTensorErrors checks what ToTensor refuses.
func TestToTensorErrors(t *testing.T) {
	d := openDevice(t)
	needKernel(t)
	l := TensorLayout{Planar: true, DType: format.Float32, Channels: 3}
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 6, Height: 4})
	noErr(t, err)
	small, err := d.NewBuffer(8)
	noErr(t, err)
	if err := tex.ToTensor(small, TensorOptions{Layout: l}); !errors.Is(err, ErrSource) {
		t.Errorf("too small a buffer: %v, want ErrSource", err)
	}
	buf, err := d.NewTensorBuffer(l, 1, 6, 4)
	noErr(t, err)
	if err := tex.ToTensor(buf, TensorOptions{Layout: l, Converter: ConverterVulkan}); !errors.Is(err, ErrSource) {
		t.Errorf("Vulkan converter, width 6: %v, want ErrSource", err)
	}
	if err := tex.ToTensor(buf, TensorOptions{Layout: l, Offset: 2}); !errors.Is(err, ErrSource) {
		t.Errorf("offset 2: %v, want ErrSource", err)
	}
	if err := tex.ToTensor(nil, TensorOptions{Layout: l}); !errors.Is(err, ErrSource) {
		t.Errorf("nil buffer: %v, want ErrSource", err)
	}
	if err := tex.ToTensor(buf, TensorOptions{Layout: TensorLayout{DType: format.Float32, Channels: 2}}); err == nil {
		t.Error("2 channels: no error")
	}
	acc, err := d.ToCUDA(nil, buf)
	noErr(t, err)
	if err := tex.ToTensor(buf, TensorOptions{Layout: l}); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("buffer held by CUDA: %v, want ErrHeldByCUDA", err)
	}
	noErr(t, acc.Done())
	noErr(t, tex.ToTensor(buf, TensorOptions{Layout: l}))
	closeT(t, tex)
	if err := tex.ToTensor(buf, TensorOptions{Layout: l}); !errors.Is(err, ErrClosed) {
		t.Errorf("closed texture: %v, want ErrClosed", err)
	}
}
