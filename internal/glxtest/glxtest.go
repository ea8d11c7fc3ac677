//go:build linux

// Package glxtest gives tests a real GLX context: an Xvfb server of their
// own (Xvfb), and a GLX context on an X11 window of it (New), made with
// the caller's thread locked, as a renderer's window or viewer would.
// libX11 and libGLX are opened at run time; the X11 and GLX headers supply
// the types (without them New fails, saying so, and tests skip). For
// tests only.
package glxtest

/*
#cgo CFLAGS: -Wall
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "glxtest.h"
*/
import "C"

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// GL strings for Context.String.
const (
	Vendor   = 0x1F00
	Renderer = 0x1F01
	Version  = 0x1F02
)

// Xvfb starts an Xvfb server on a free display (Xvfb picks it: -displayfd),
// waits for its socket, and returns its name (":N"); the server is killed
// when t ends. -noreset: the server would otherwise reset, refusing
// connections for a moment, each time its last client disconnects. It skips t, saying why, when Xvfb is not installed.
func Xvfb(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skipf("no Xvfb (Debian: apt install xvfb): %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-displayfd", "3", "-screen", "0", "256x256x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	// The display number, written when the server is ready.
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	var n string
	select {
	case n = <-num:
	case err := <-exited:
		t.Fatalf("Xvfb exited before it was ready (%v): %s", err, stderr.String())
	case <-time.After(30 * time.Second):
		stop()
		t.Fatalf("Xvfb did not report a display in 30 s: %s", stderr.String())
	}
	if _, err := strconv.Atoi(n); err != nil {
		stop()
		t.Fatalf("Xvfb -displayfd wrote %q, not a display number: %s", n, stderr.String())
	}
	t.Cleanup(stop)
	sock := filepath.Join("/tmp/.X11-unix", "X"+n)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Xvfb :%s: no socket %s after 10 s: %s", n, sock, stderr.String())
		}
	}
	return ":" + n
}

// ErrNoHeaders is returned by New when the package was built without the
// X11 and GLX headers.
var ErrNoHeaders = errors.New("glxtest: built without X11/GLX headers (install libgl-dev libx11-dev)")

// Context is a GLX context on a window of its own.
type Context struct {
	p *C.glxt
}

// New opens display, makes a 64×64 window and a GLX context on it
// (OpenGL 4.5 core when core is set, else glXCreateNewContext's default)
// and makes it current on the calling thread, which the caller must have
// locked (runtime.LockOSThread).
func New(display string, core bool) (*Context, error) {
	if C.glxt_available() == 0 {
		return nil, ErrNoHeaders
	}
	d := C.CString(display)
	defer C.free(unsafe.Pointer(d))
	var buf [512]C.char
	cc := C.int(0)
	if core {
		cc = 1
	}
	p := C.glxt_new(d, cc, 64, 64, &buf[0], C.int(len(buf)))
	if p == nil {
		return nil, fmt.Errorf("glxtest: %s", C.GoString(&buf[0]))
	}
	return &Context{p: p}, nil
}

// MakeCurrent makes the context current on the calling thread.
func (c *Context) MakeCurrent() error {
	if C.glxt_make_current(c.p, 1) != 0 {
		return errors.New("glxtest: glXMakeCurrent failed")
	}
	return nil
}

// Release makes no context current on the calling thread.
func (c *Context) Release() error {
	if C.glxt_make_current(c.p, 0) != 0 {
		return errors.New("glxtest: glXMakeCurrent(None) failed")
	}
	return nil
}

// Current reports whether the context is current on the calling thread
// (glXGetCurrentContext).
func (c *Context) Current() bool { return C.glxt_is_current(c.p) != 0 }

// Handle is the GLXContext.
func (c *Context) Handle() uintptr { return uintptr(C.glxt_handle(c.p)) }

// String is glGetString(name) (Vendor, Renderer, Version).
func (c *Context) String(name uint32) string { return C.GoString(C.glxt_string(c.p, C.uint(name))) }

// Texture makes a w×h RGBA8 texture holding rgba, with the context's own
// GL (glTexImage2D), as a renderer would; it returns its name.
func (c *Context) Texture(w, h int, rgba []byte) (uint32, error) {
	if len(rgba) != w*h*4 {
		return 0, fmt.Errorf("glxtest: %d bytes for a %dx%d RGBA8 texture", len(rgba), w, h)
	}
	var e C.uint
	id := C.glxt_texture(c.p, C.int(w), C.int(h), unsafe.Pointer(&rgba[0]), &e)
	if id == 0 {
		return 0, fmt.Errorf("glxtest: glTexImage2D: GL error 0x%x", uint(e))
	}
	return uint32(id), nil
}

// ReadTexture reads level 0 of an RGBA8 texture into out (glGetTexImage).
func (c *Context) ReadTexture(name uint32, out []byte) error {
	if e := C.glxt_read_texture(c.p, C.uint(name), unsafe.Pointer(&out[0])); e != 0 {
		return fmt.Errorf("glxtest: glGetTexImage(%d): GL error 0x%x", name, uint(e))
	}
	return nil
}

// DeleteTexture is glDeleteTextures.
func (c *Context) DeleteTexture(name uint32) error {
	if e := C.glxt_delete_texture(c.p, C.uint(name)); e != 0 {
		return fmt.Errorf("glxtest: glDeleteTextures(%d): GL error 0x%x", name, uint(e))
	}
	return nil
}

// TextureBinding is GL_TEXTURE_BINDING_2D.
func (c *Context) TextureBinding() uint32 { return uint32(C.glxt_binding(c.p)) }

// Close releases the context from the calling thread when current there,
// destroys it, its window and the display connection.
func (c *Context) Close() {
	if c.p != nil {
		C.glxt_destroy(c.p)
		c.p = nil
	}
}
