//go:build linux

package gl

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// TestContexts makes GL 4.5 core and GLES 3.2 contexts on the device and
// surfaceless platforms and round-trips a buffer and a texture of random
// bytes through each.
func TestContexts(t *testing.T) {
	for _, api := range []API{OpenGL, OpenGLES} {
		for _, p := range []Platform{PlatformDevice, PlatformSurfaceless} {
			t.Run(fmt.Sprintf("%v/%v", api, p), func(t *testing.T) {
				c := open(t, Options{API: api, Platform: p})
				in := c.Info()
				t.Logf("%v (DSA %v, memory objects %v, semaphores %v)", in, in.DSA, in.MemoryObject, in.SemaphoreFD)
				if in.Platform != p || in.API != api {
					t.Fatalf("platform %v API %v, want %v %v", in.Platform, in.API, p, api)
				}
				if api == OpenGLES != strings.HasPrefix(in.Version, "OpenGL ES") {
					t.Fatalf("GL_VERSION %q for %v", in.Version, api)
				}
				roundTrip(t, c, 1<<20+13, format.RGBA8UNorm, 67, 45)
			})
		}
	}
}

func roundTrip(t *testing.T, c *Context, size int, f format.Format, w, h int) {
	t.Helper()
	b, err := c.NewBuffer(size)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := randomTexels(format.RGBA8UInt, size, uint64(size))
	got := make([]byte, size)
	poison(got)
	if err := b.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	if err := b.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("buffer byte %d: got %#x, want %#x", i, got[i], want[i])
	}
	tex, err := c.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	want = randomTexels(f, tex.Bytes(), uint64(w*h))
	got = make([]byte, len(want))
	poison(got)
	if err := tex.Upload(want); err != nil {
		t.Fatal(err)
	}
	if err := tex.Readback(got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%v texture byte %d: got %#x, want %#x", f, i, got[i], want[i])
	}
}

// TestTextureFormats round-trips random texels through GL textures of
// several formats.
func TestTextureFormats(t *testing.T) {
	c := open(t, Options{})
	for _, f := range []format.Format{format.R8UNorm, format.RG8UNorm, format.RGBA8UNorm, format.BGRA8UNorm,
		format.R16UInt, format.RG16Float, format.RGBA16UNorm, format.R32Float, format.RGBA32UInt, format.RGBA32Float, format.RGB10A2UNorm} {
		t.Run(f.String(), func(t *testing.T) { roundTrip(t, c, 64, f, 33, 17) })
	}
}

// TestCopyBuffer: a GL copy between buffers lands every byte.
func TestCopyBuffer(t *testing.T) {
	c := open(t, Options{})
	a, err := c.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.NewBuffer(8192)
	if err != nil {
		t.Fatal(err)
	}
	src := randomTexels(format.R8UNorm, 4096, 5)
	if err := a.Upload(0, src); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFrom(a, 1000, 0, 4096); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4096)
	poison(got)
	if err := b.Readback(1000, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, src); i >= 0 {
		t.Fatalf("byte %d differs", i)
	}
	if err := b.CopyFrom(a, 8000, 0, 4096); err == nil {
		t.Fatal("copy past the end accepted")
	}
}

// TestAdopt adopts a context the "caller" made current on its own thread
// (here an egl.Context's thread), uses it there, and refuses other threads.
func TestAdopt(t *testing.T) {
	for _, api := range []API{OpenGL, OpenGLES} {
		t.Run(api.String(), func(t *testing.T) {
			if err := egl.Load(); err != nil {
				open(t, Options{}) // skips or fails as configured
			}
			own, err := egl.New(egl.Options{API: api, Platform: egl.PlatformSurfaceless})
			if err != nil {
				t.Skip(err)
			}
			defer own.Close()
			var c *Context
			err = own.Do(func() error {
				var err error
				if c, err = Adopt(nil); err != nil {
					return err
				}
				if !c.Info().Adopted || c.Info().API != api {
					return fmt.Errorf("info %+v", c.Info())
				}
				// Objects in the caller's context, on the caller's thread.
				b, err := c.NewBuffer(300)
				if err != nil {
					return err
				}
				want := randomTexels(format.R8UNorm, 300, 3)
				got := make([]byte, 300)
				if err := b.Upload(0, want); err != nil {
					return err
				}
				if err := b.Readback(0, got); err != nil {
					return err
				}
				if i := firstDiff(got, want); i >= 0 {
					return fmt.Errorf("byte %d differs", i)
				}
				// A buffer the caller's renderer made, by name.
				name, err := own.CreateBuffer(64, want[:64], egl.StaticDraw)
				if err != nil {
					return err
				}
				wb, err := c.WrapBuffer(uint32(name), 64)
				if err != nil {
					return err
				}
				if err := wb.Readback(0, got[:64]); err != nil {
					return err
				}
				if i := firstDiff(got[:64], want[:64]); i >= 0 {
					return fmt.Errorf("wrapped byte %d differs", i)
				}
				return wb.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
			// Another thread: the adopted context is not current there.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.NewBuffer(16); !errors.Is(err, ErrWrongThread) {
					t.Errorf("NewBuffer on another thread: %v, want ErrWrongThread", err)
				}
			}()
			wg.Wait()
			if err := own.Do(c.Close); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			// The caller's context still works after Close.
			if err := own.Do(own.Finish); err != nil {
				t.Fatalf("the adopted context was harmed: %v", err)
			}
		})
	}
}

// TestClosed: everything fails cleanly after Close, which is idempotent.
func TestClosed(t *testing.T) {
	c := open(t, Options{})
	b, err := c.NewBuffer(16)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Upload(0, make([]byte, 16)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Upload after Close: %v", err)
	}
	if _, err := c.NewBuffer(16); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewBuffer after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSemaphoreUnsupported: where the driver has no GL_EXT_semaphore_fd
// (llvmpipe), importing fails with ErrUnsupported and the fd is closed
// (not leaked).
func TestSemaphoreUnsupported(t *testing.T) {
	c := open(t, Options{})
	if c.SemaphoresSupported() {
		t.Skipf("%s has GL_EXT_semaphore_fd", c.Info().Renderer)
	}
	before := fdCount(t)
	for i := 0; i < 100; i++ {
		fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ImportSemaphoreFD(fd); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("ImportSemaphoreFD: %v, want ErrUnsupported", err)
		}
	}
	if after := fdCount(t); after != before {
		t.Fatalf("%d fds leaked", after-before)
	}
}

// TestMatchGPU: Open finds the GL device by the Vulkan device's UUID (Mesa
// reports lavapipe's UUID for llvmpipe too), and RequireMatch refuses a GPU
// that is not there.
func TestMatchGPU(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	u := d.Physical().DeviceUUID
	for _, p := range []Platform{PlatformDevice, PlatformSurfaceless} {
		t.Run(p.String(), func(t *testing.T) {
			m := open(t, Options{DeviceUUID: &u, RequireMatch: true, Platform: p})
			if in := m.Info(); !in.UUIDMatched || in.MatchedBy == "" {
				t.Fatalf("not matched to %x: %+v", u, in)
			}
		})
	}
	bogus := [16]byte{1, 2, 3}
	if _, err := Open(Options{DeviceUUID: &bogus, RequireMatch: true}); !errors.Is(err, ErrWrongGPU) {
		t.Fatalf("Open on a missing GPU: %v, want ErrWrongGPU", err)
	} else {
		t.Log(err)
	}
	m := open(t, Options{DeviceUUID: &bogus}) // falls back to a working context
	if m.Info().UUIDMatched {
		t.Fatal("matched a bogus UUID")
	}
}

// TestCopyFromTexture: a texture's texels packed into a buffer on the GPU,
// every byte compared, on GL and GLES.
func TestCopyFromTexture(t *testing.T) {
	for _, api := range []API{OpenGL, OpenGLES} {
		t.Run(api.String(), func(t *testing.T) {
			c := open(t, Options{API: api})
			tex, err := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 123, Height: 45})
			if err != nil {
				t.Fatal(err)
			}
			want := randomTexels(format.RGBA8UNorm, tex.Bytes(), 9)
			if err := tex.Upload(want); err != nil {
				t.Fatal(err)
			}
			b, err := c.NewBuffer(tex.Bytes() + 100)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.CopyFromTexture(tex, 100); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, tex.Bytes())
			poison(got)
			if err := b.Readback(100, got); err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("byte %d differs", i)
			}
			if err := b.CopyFromTexture(tex, 200); err == nil {
				t.Fatal("copy past the buffer's end accepted")
			}
		})
	}
}
