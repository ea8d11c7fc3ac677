package egl

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// newContext creates a context, or skips t with a one-line reason when
// libEGL is missing (fails under GFXCUDA_REQUIRE_GL=1).
func newContext(t testing.TB, o Options) *Context {
	t.Helper()
	if err := Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestContext(t *testing.T) {
	for _, p := range []Platform{PlatformAuto, PlatformDevice, PlatformSurfaceless} {
		t.Run(p.String(), func(t *testing.T) {
			if err := Load(); err == nil && p == PlatformSurfaceless {
				// NVIDIA's EGL alone has no surfaceless platform.
				c, err := New(Options{Platform: p})
				if err != nil && strings.Contains(err.Error(), "not offered") {
					t.Skip(err)
				}
				if err == nil {
					c.Close()
				}
			}
			c := newContext(t, Options{Platform: p})
			in := c.Info()
			t.Logf("%v; device %q; UUIDs %x", in, in.Device, in.DeviceUUIDs)
			if in.Renderer == "" || in.Vendor == "" || in.Version == "" {
				t.Fatalf("empty GL strings: %+v", in)
			}
			if !strings.HasPrefix(in.Version, "4.") {
				t.Fatalf("GL_VERSION %q, want 4.5 or later core", in.Version)
			}
			if p != PlatformAuto && in.Platform != p {
				t.Fatalf("platform %v, want %v", in.Platform, p)
			}
			err := c.Do(func() error {
				if err := c.Error(); err != nil {
					return err
				}
				const n = 1 << 20
				data := make([]byte, n)
				r := rand.New(rand.NewPCG(1, 2))
				for i := range data {
					data[i] = byte(r.Uint32())
				}
				b, err := c.CreateBuffer(n, nil, DynamicDraw)
				if err != nil {
					return err
				}
				if err := c.BufferSubData(b, 0, data); err != nil {
					return err
				}
				got := make([]byte, n)
				if err := c.GetBufferSubData(b, 0, got); err != nil {
					return err
				}
				if !bytes.Equal(got, data) {
					t.Error("buffer read back differs")
				}
				tex, err := c.CreateTexture2D(RGBA8, 1920, 1080, 1)
				if err != nil {
					return err
				}
				img := make([]byte, 1920*1080*4)
				copy(img, data)
				if err := c.TextureSubImage2D(tex, 0, 1920, 1080, RGBA, UnsignedByte, img); err != nil {
					return err
				}
				back := make([]byte, len(img))
				if err := c.GetTextureImage(tex, 0, RGBA, UnsignedByte, back); err != nil {
					return err
				}
				if !bytes.Equal(back, img) {
					t.Error("texture read back differs")
				}
				if err := c.Finish(); err != nil {
					return err
				}
				if err := c.DeleteBuffer(b); err != nil {
					return err
				}
				if err := c.DeleteTexture(tex); err != nil {
					return err
				}
				// An invalid call is reported, then the error state is clean.
				if _, err := c.CreateTexture2D(RGBA8, 0, 0, 1); !errors.As(err, new(GLError)) {
					t.Errorf("zero-sized texture: got %v, want a GLError", err)
				}
				return c.Error()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestThreadRules(t *testing.T) {
	c := newContext(t, Options{})
	if _, err := c.CreateBuffer(16, nil, StaticDraw); !errors.Is(err, ErrWrongThread) {
		t.Fatalf("GL call outside Do: %v, want ErrWrongThread", err)
	}
	// Nested Do runs directly; concurrent Do calls are serialised.
	err := c.Do(func() error { return c.Do(func() error { return c.Finish() }) })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Do(func() error {
				b, err := c.CreateBuffer(4096, nil, StaticDraw)
				if err != nil {
					return err
				}
				return c.DeleteBuffer(b)
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("panic in Do: recovered %v, want boom", p)
			}
		}()
		c.Do(func() error { panic("boom") })
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := c.Do(func() error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close: %v, want ErrClosed", err)
	}
}

func TestUUIDMatch(t *testing.T) {
	var u *[16]byte
	for _, p := range []Platform{PlatformAuto, PlatformDevice, PlatformSurfaceless} {
		if err := Load(); err == nil {
			if c, err := New(Options{Platform: p}); err == nil {
				if in := c.Info(); len(in.DeviceUUIDs) > 0 {
					u = &in.DeviceUUIDs[0]
				}
				c.Close()
			}
		}
		if u != nil {
			break
		}
	}
	if u == nil {
		newContext(t, Options{})
		t.Skip("no platform reports a device UUID (no GL_EXT_memory_object, no EGL_EXT_device_persistent_id)")
	}
	c := newContext(t, Options{DeviceUUID: u})
	if !c.Info().UUIDMatched {
		t.Fatalf("UUID %x not matched: %+v", *u, c.Info())
	}
	t.Logf("UUID %x matched: %v", *u, c.Info())
	other := [16]byte{0xde, 0xad}
	c3 := newContext(t, Options{DeviceUUID: &other})
	if c3.Info().UUIDMatched {
		t.Fatal("a made-up UUID matched")
	}
}

func fdCount(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}

// TestCycles creates and destroys 200 contexts: file descriptors must not
// grow.
func TestCycles(t *testing.T) {
	c := newContext(t, Options{}) // warm up: libraries, caches
	c.Close()
	before := fdCount(t)
	n := 200
	if testing.Short() {
		n = 20
	}
	for i := 0; i < n; i++ {
		c, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Do(func() error {
			b, err := c.CreateBuffer(1<<16, nil, StaticDraw)
			if err != nil {
				return err
			}
			tex, err := c.CreateTexture2D(RGBA8, 64, 64, 1)
			if err != nil {
				return err
			}
			if err := c.Finish(); err != nil {
				return err
			}
			c.DeleteBuffer(b)
			return c.DeleteTexture(tex)
		}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c.Close()
	}
	if after := fdCount(t); after > before {
		t.Fatalf("file descriptors grew from %d to %d over %d contexts", before, after, n)
	}
}

// TestNoLibrary runs TestNoLibraryChild in a process that cannot find
// libEGL: the error must say what to install.
func TestNoLibrary(t *testing.T) {
	if os.Getenv("GFXCUDA_EGL_CHILD") == "1" {
		t.Skip("child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoLibraryChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_EGL_CHILD=1", "GFXCUDA_LIBEGL=/nonexistent/libEGL.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoLibraryChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestNoLibraryChild(t *testing.T) {
	if os.Getenv("GFXCUDA_EGL_CHILD") != "1" {
		t.Skip("run by TestNoLibrary")
	}
	_, err := New(Options{})
	if !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), "apt install libegl1") {
		t.Fatalf("New without libEGL: %v", err)
	}
	t.Log(err)
}

// TestDevices lists the EGL devices and client extensions.
func TestDevices(t *testing.T) {
	newContext(t, Options{}) // skips without EGL
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	exts, err := ClientExtensions()
	if err != nil {
		t.Fatal(err)
	}
	if hasExt(exts, "EGL_EXT_platform_device") && len(devs) == 0 {
		t.Fatal("device platform offered but no device listed")
	}
	for _, d := range devs {
		t.Logf("%s (CUDA %d, UUID %x)", d.Description, d.CUDADevice, d.UUID)
		if d.Extensions == "" {
			t.Errorf("device %q without extensions", d.Description)
		}
	}
}

// TestGLES makes an OpenGL ES 3.2 context and round-trips a buffer
// through the bind-based path.
func TestGLES(t *testing.T) {
	c := newContext(t, Options{API: OpenGLES})
	in := c.Info()
	if in.API != OpenGLES || in.DSA || !strings.HasPrefix(in.Version, "OpenGL ES 3") {
		t.Fatalf("%+v", in)
	}
	want := make([]byte, 1000)
	for i := range want {
		want[i] = byte(rand.Uint32())
	}
	got := make([]byte, len(want))
	err := c.Do(func() error {
		b, err := c.CreateBuffer(len(want), want, StaticDraw)
		if err != nil {
			return err
		}
		defer c.DeleteBuffer(b)
		return c.GetBufferSubData(b, 0, got)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("GLES buffer round trip differs")
	}
}
