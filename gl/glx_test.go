//go:build linux

package gl

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/glxtest"
)

// TestAdoptGLX: Adopt takes a real GLX context (an X11 window's, on an
// Xvfb of the test's own), WrapTexture wraps a texture the "renderer" made
// with its own GL, and Readback gives every byte it uploaded; a texture
// made through the adopted Context is seen by the renderer's GL; other
// threads are refused; Close leaves the renderer's context current.
func TestAdoptGLX(t *testing.T) {
	display := glxtest.Xvfb(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := Adopt(nil); !errors.Is(err, ErrNoCurrent) || !strings.Contains(err.Error(), "glXMakeCurrent") {
		t.Fatalf("Adopt with no context current: %v", err)
	}
	own, err := glxtest.New(display, true)
	if errors.Is(err, glxtest.ErrNoHeaders) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()

	c, err := Adopt(nil)
	if err != nil {
		t.Fatal(err)
	}
	if in := c.Info(); in.Platform != PlatformGLX || !in.Adopted {
		t.Fatalf("Info %+v: want PlatformGLX, Adopted", in)
	} else {
		t.Log(in)
	}

	// The renderer's texture, by name.
	const w, h = 77, 31
	opts := TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h}
	want := randomTexels(format.RGBA8UNorm, w*h*4, 11)
	name, err := own.Texture(w, h, want)
	if err != nil {
		t.Fatal(err)
	}
	tex, err := c.WrapTexture(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	poison(got)
	if err := tex.Readback(got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("wrapped texture: byte %d is %#x, uploaded %#x", i, got[i], want[i])
	}

	// A texture of ours, read by the renderer's own GL.
	mine, err := c.NewTexture(opts)
	if err != nil {
		t.Fatal(err)
	}
	want2 := randomTexels(format.RGBA8UNorm, w*h*4, 12)
	if err := mine.Upload(want2); err != nil {
		t.Fatal(err)
	}
	poison(got)
	if err := own.ReadTexture(mine.Name(), got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want2); i >= 0 {
		t.Fatalf("our texture seen by the renderer: byte %d differs", i)
	}

	// Another thread: refused.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := tex.Readback(make([]byte, len(want))); !errors.Is(err, ErrWrongThread) {
			t.Errorf("Readback on another thread: %v, want ErrWrongThread", err)
		}
	}()
	wg.Wait()

	// Close leaves the renderer's context current and its texture as it
	// was.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !own.Current() {
		t.Fatal("Close released the renderer's GLX context")
	}
	poison(got)
	if err := own.ReadTexture(name, got); err != nil {
		t.Fatalf("the renderer's texture after Close: %v", err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("the renderer's texture after Close: byte %d differs", i)
	}
	if err := own.DeleteTexture(name); err != nil {
		t.Fatal(err)
	}
}
