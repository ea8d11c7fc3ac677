package gl

import (
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// TestSourceView: a texture of "the renderer" (one this Context made) as a
// Source: described from GL, copied into a view in Vulkan memory
// (ToVulkan), every byte compared, twice (the view follows the texture);
// textures of unsupported formats and names that are no texture are
// refused with the object named.
func TestSourceView(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	for _, f := range []format.Format{format.RGBA8UNorm, format.RGBA16Float, format.RGBA32Float} {
		t.Run(f.String(), func(t *testing.T) {
			const w, h = 53, 29
			tex, err := c.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
			if err != nil {
				t.Fatal(err)
			}
			defer tex.Close()
			s, err := c.TextureSource(tex.Name())
			if err != nil {
				t.Fatal(err)
			}
			if s.Width() != w || s.Height() != h || s.Format() != f || s.Samples() != 0 {
				t.Fatalf("source %v: %dx%d %v samples %d", s, s.Width(), s.Height(), s.Format(), s.Samples())
			}
			v, err := s.NewView(d)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			got := make([]byte, tex.Bytes())
			for frame := range 2 {
				want := randomTexels(f, tex.Bytes(), uint64(f)*10+uint64(frame))
				if err := tex.Upload(want); err != nil {
					t.Fatal(err)
				}
				if err := v.ToVulkan(); err != nil {
					t.Fatal(err)
				}
				poison(got)
				if err := downloadImage(d, v.Texture().Vulkan, got); err != nil {
					t.Fatal(err)
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("frame %d: byte %d is %#x, want %#x", frame, i, got[i], want[i])
				}
			}
		})
	}
	ui, err := c.NewTexture(TextureOptions{Format: format.RGBA32UInt, Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer ui.Close()
	if _, err := c.TextureSource(ui.Name()); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("an integer texture: %v, want ErrUnsupportedFormat", err)
	}
	if _, err := c.TextureSource(99999); !errors.Is(err, ErrNotObject) {
		t.Errorf("texture 99999: %v, want ErrNotObject", err)
	}
	if _, err := c.RenderbufferSource(ui.Name()); !errors.Is(err, ErrNotObject) {
		t.Errorf("a texture as a renderbuffer: %v, want ErrNotObject", err)
	}
	if _, err := c.FramebufferSource(0, 0x8CE0); !errors.Is(err, ErrBadSource) {
		t.Errorf("the default framebuffer: %v, want ErrBadSource", err)
	}
}

// TestCUDADevice: the context's GPU as a CUDA ordinal and back as an EGL
// device index where CUDA is; without a driver, CUDA's no-driver error.
func TestCUDADevice(t *testing.T) {
	c := open(t, Options{})
	n, err := c.CUDADevice()
	if _, derr := cuda.DeviceCount(); derr != nil {
		if err == nil {
			t.Fatalf("CUDADevice without CUDA: %d, nil", n)
		}
		t.Skipf("no CUDA: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	i, err := EGLDeviceIndex(n)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := egl.Devices()
	if err != nil || i >= len(devs) {
		t.Fatalf("EGL device %d of %d (%v)", i, len(devs), err)
	}
	if _, err := EGLDeviceIndex(4096); err == nil {
		t.Error("EGLDeviceIndex(4096): no error")
	}
}

// TestSourceCopyTo: Source.CopyTo into a texture of the Context (the
// generic copy: attach, blit, detach), every byte compared.
func TestSourceCopyTo(t *testing.T) {
	c := open(t, Options{})
	const w, h = 31, 17
	src, err := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	want := randomTexels(format.RGBA8UNorm, src.Bytes(), 77)
	if err := src.Upload(want); err != nil {
		t.Fatal(err)
	}
	s, err := c.TextureSource(src.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyTo(dst); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, dst.Bytes())
	poison(got)
	if err := dst.Readback(got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("byte %d is %#x, want %#x", i, got[i], want[i])
	}
}
