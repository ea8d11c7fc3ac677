//go:build linux

package egl

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/internal/glxtest"
)

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func poisonBytes(b []byte) {
	for i := range b {
		b[i] = 0xA5 ^ byte(i*7)
	}
}

// firstDiffAt is the index of the first differing byte, or -1.
func firstDiffAt(a, b []byte) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestAdoptGLX adopts a real GLX context (an X11 window's, on an Xvfb of
// the test's own), 4.5 core and glXCreateNewContext's default, and checks
// that Adopt reports GLX, GL works through it, other threads are refused,
// and Close leaves the caller's context current and working.
func TestAdoptGLX(t *testing.T) {
	noEGL := os.Getenv("GFXCUDA_EGL_GLX_CHILD") == "1"
	if noEGL {
		if err := Load(); !errors.Is(err, ErrNoLibrary) {
			t.Fatalf("child without libEGL: Load returned %v", err)
		}
	}
	display := glxtest.Xvfb(t)
	for _, core := range []bool{true, false} {
		name := "default context"
		if core {
			name = "4.5 core"
		}
		t.Run(name, func(t *testing.T) { testAdoptGLX(t, display, core) })
	}
}

func testAdoptGLX(t *testing.T, display string, core bool) {
	// The caller's thread: its context stays current here only.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	// Nothing current yet: the error names both APIs and the fix.
	if _, err := Adopt(); !errors.Is(err, ErrNoCurrent) || !strings.Contains(err.Error(), "eglMakeCurrent or glXMakeCurrent") {
		t.Fatalf("Adopt with no context current: %v", err)
	} else {
		t.Log(err)
	}

	own, err := glxtest.New(display, core)
	if errors.Is(err, glxtest.ErrNoHeaders) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if !own.Current() {
		t.Fatal("the test's GLX context is not current after glXMakeCurrent")
	}

	c, err := Adopt()
	if err != nil {
		t.Fatal(err)
	}
	in := c.Info()
	t.Logf("%v (DSA %v)", in, in.DSA)
	if in.Platform != PlatformGLX || !in.Adopted || !strings.Contains(in.Device, display) {
		t.Fatalf("Info %+v: want PlatformGLX, Adopted, Device naming %s", in, display)
	}
	if in.Renderer != own.String(glxtest.Renderer) || in.Version != own.String(glxtest.Version) {
		t.Fatalf("Info says %q %q, the context's own GL says %q %q", in.Renderer, in.Version,
			own.String(glxtest.Renderer), own.String(glxtest.Version))
	}
	if core && !in.DSA {
		t.Fatalf("a 4.5 core context without DSA: %+v", in)
	}
	if !c.onThread() {
		t.Fatal("onThread is false on the thread that has the context current")
	}

	// GL through the adopted context's table.
	const w, h = 123, 45
	want := randomBytes(w*h*4, 1)
	boundBefore := own.TextureBinding()
	err = c.Do(func() error {
		tex, err := c.CreateTexture2D(RGBA8, w, h, 1)
		if err != nil {
			return err
		}
		if err := c.TextureSubImage2D(tex, 0, w, h, RGBA, UnsignedByte, want); err != nil {
			return err
		}
		got := make([]byte, len(want))
		poisonBytes(got)
		if err := c.GetTextureImage2D(tex, 0, w, h, RGBA, UnsignedByte, got); err != nil {
			return err
		}
		if i := firstDiffAt(got, want); i >= 0 {
			return fmt.Errorf("texture byte %d: got %#x, want %#x", i, got[i], want[i])
		}
		// The same object seen by the caller's own GL: one context.
		poisonBytes(got)
		if err := own.ReadTexture(uint32(tex), got); err != nil {
			return err
		}
		if i := firstDiffAt(got, want); i >= 0 {
			return fmt.Errorf("the caller's glGetTexImage of our texture: byte %d differs", i)
		}
		if err := c.DeleteTexture(tex); err != nil {
			return err
		}
		// A texture the caller made, read through the adopted context.
		want2 := randomBytes(w*h*4, 2)
		name, err := own.Texture(w, h, want2)
		if err != nil {
			return err
		}
		poisonBytes(got)
		if err := c.GetTextureImage2D(Texture(name), 0, w, h, RGBA, UnsignedByte, got); err != nil {
			return err
		}
		if i := firstDiffAt(got, want2); i >= 0 {
			return fmt.Errorf("the caller's texture read through Adopt: byte %d differs", i)
		}
		if err := own.DeleteTexture(name); err != nil {
			return err
		}
		// A buffer round trip.
		data := randomBytes(4097, 3)
		b, err := c.CreateBuffer(len(data), data, StaticDraw)
		if err != nil {
			return err
		}
		back := make([]byte, len(data))
		poisonBytes(back)
		if err := c.GetBufferSubData(b, 0, back); err != nil {
			return err
		}
		if !bytes.Equal(back, data) {
			return errors.New("buffer read back differs")
		}
		if err := c.DeleteBuffer(b); err != nil {
			return err
		}
		return c.Error()
	})
	if err != nil {
		t.Fatal(err)
	}
	if b := own.TextureBinding(); b != boundBefore {
		t.Fatalf("GL_TEXTURE_BINDING_2D changed from %d to %d", boundBefore, b)
	}

	// Another thread: the context is not current there.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if c.onThread() {
			t.Error("onThread is true on a thread where the GLX context is not current")
		}
		if err := c.Error(); !errors.Is(err, ErrWrongThread) {
			t.Errorf("Error on another thread: %v, want ErrWrongThread", err)
		}
		if _, err := c.CreateTexture2D(RGBA8, 4, 4, 1); !errors.Is(err, ErrWrongThread) {
			t.Errorf("CreateTexture2D on another thread: %v, want ErrWrongThread", err)
		}
		ran := false
		if err := c.Do(func() error { ran = true; return nil }); !errors.Is(err, ErrWrongThread) || ran {
			t.Errorf("Do on another thread: %v (ran %v), want ErrWrongThread", err, ran)
		}
	}()
	wg.Wait()

	// Close forgets the context; the caller's stays current and works.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !own.Current() {
		t.Fatal("Close released the caller's GLX context")
	}
	if err := c.Do(func() error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close: %v, want ErrClosed", err)
	}
	want3 := randomBytes(w*h*4, 4)
	name, err := own.Texture(w, h, want3)
	if err != nil {
		t.Fatalf("the caller's context after Close: %v", err)
	}
	got := make([]byte, len(want3))
	poisonBytes(got)
	if err := own.ReadTexture(name, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiffAt(got, want3); i >= 0 {
		t.Fatalf("the caller's context after Close: byte %d differs", i)
	}
	if err := own.DeleteTexture(name); err != nil {
		t.Fatal(err)
	}

	// Released by its owner: nothing to adopt any more.
	if err := own.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := Adopt(); !errors.Is(err, ErrNoCurrent) {
		t.Fatalf("Adopt after glXMakeCurrent(None): %v, want ErrNoCurrent", err)
	}
}

// TestAdoptGLXWithoutEGL runs TestAdoptGLX in a process that cannot find
// libEGL: Adopt falls back to GLX all the same.
func TestAdoptGLXWithoutEGL(t *testing.T) {
	if os.Getenv("GFXCUDA_EGL_GLX_CHILD") == "1" {
		t.Skip("child")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skipf("no Xvfb (Debian: apt install xvfb): %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdoptGLX$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_EGL_GLX_CHILD=1", "GFXCUDA_LIBEGL=/nonexistent/libEGL.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestAdoptGLX") || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
