// Package gl gives headless OpenGL (on EGL) zero-copy access to CUDA and
// Vulkan memory.
//
// Open makes a context with no window system on the right GPU: on the EGL
// device platform it picks the EGL device that EGL_NV_device_cuda reports
// as the CUDA device, else the one whose UUID matches, and falls back to
// Mesa's surfaceless platform. It makes desktop OpenGL 4.5 core or OpenGL
// ES 3.2 contexts. GL contexts are bound to one OS thread: each Context
// owns a goroutine locked to its thread, and every method runs its GL
// calls there, so callers may use a Context from any goroutine. Adopt
// wraps the caller's own current context instead (a renderer's, EGL or
// GLX); its methods then run on the caller's thread and must be called
// where that context is current.
//
// GL objects — made here (NewBuffer, NewTexture), by the caller's renderer
// (WrapBuffer, WrapTexture) or over Vulkan memory (ImportBuffer,
// ImportImage, NewSharedBuffer, NewSharedTexture) — are registered with
// CUDA by Register, mapped in one call by Map, and copied with
// Resource.CopyTo/CopyFrom. A Ring hands frames from a GL renderer to CUDA
// in batches, through memory that GL and CUDA share, with one
// synchronization per batch instead of a map and unmap per frame.
package gl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// API selects desktop OpenGL or OpenGL ES.
type API = egl.API

// Client APIs.
const (
	OpenGL   = egl.OpenGL   // OpenGL 4.5 core
	OpenGLES = egl.OpenGLES // OpenGL ES 3.2
)

// Platform is an EGL platform without a window system.
type Platform = egl.Platform

// Platforms.
const (
	PlatformAuto        = egl.PlatformAuto        // device, then surfaceless
	PlatformDevice      = egl.PlatformDevice      // EGL_EXT_platform_device
	PlatformSurfaceless = egl.PlatformSurfaceless // EGL_MESA_platform_surfaceless
	// PlatformGLX is what Info reports for a context Adopt took from GLX
	// (an X11 window's or viewer's); Open does not accept it.
	PlatformGLX = egl.PlatformGLX
)

// Info describes a context: GL strings, platform, how its GPU was matched
// and which interop extensions it has.
type Info = egl.Info

var (
	// ErrNoEGL is wrapped by errors when libEGL cannot be loaded.
	ErrNoEGL = egl.ErrNoLibrary
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("gl: use of closed object")
	// ErrWrongGPU is returned by Open with Options.RequireMatch when no
	// EGL device could be matched to the requested GPU.
	ErrWrongGPU = errors.New("gl: the GL context is not on the requested GPU")
	// ErrNoCurrent is wrapped by Adopt's error when neither EGL nor GLX
	// has a context current on the calling thread.
	ErrNoCurrent = egl.ErrNoCurrent
	// ErrWrongThread is returned by an adopted Context's methods called
	// on a thread where the adopted context is not current.
	ErrWrongThread = egl.ErrWrongThread
	// ErrUnsupported is wrapped when the GL driver lacks an extension
	// (GL_EXT_memory_object_fd, GL_EXT_semaphore_fd) a call needs.
	ErrUnsupported = errors.New("gl: not supported by this GL driver")
)

// Options configure Open.
type Options struct {
	// API is OpenGL (4.5 core, the zero value) or OpenGLES (3.2).
	API API
	// Platform forces an EGL platform; the zero value tries the device
	// platform, then surfaceless.
	Platform Platform
	// CUDA, when set, is the CUDA context whose GPU the GL context should
	// run on (matched with EGL_NV_device_cuda, else by UUID), and the one
	// Register uses.
	CUDA *cuda.Context
	// DeviceUUID picks the GPU by UUID (a Vulkan deviceUUID or CUDA UUID)
	// when CUDA is nil.
	DeviceUUID *[16]byte
	// RequireMatch makes Open fail with ErrWrongGPU when the GPU asked for
	// (CUDA or DeviceUUID) could not be matched, instead of falling back to
	// the first context that works.
	RequireMatch bool
}

// Context is a GL context with its own OS thread (Open) or the caller's
// adopted context (Adopt). Its methods are safe for concurrent use.
type Context struct {
	e    *egl.Context
	cuda *cuda.Context
	soft bool // Mesa's software rasterizer (llvmpipe)

	// waited is set when GL was told to wait on the GPU for a semaphore
	// (a hand-off from CUDA or Vulkan) and no glFinish has passed since.
	// Host reads (Readback) then glFinish first: NVIDIA's GL serves
	// glGetBufferSubData without queuing it behind a pending
	// glWaitSemaphoreEXT, so the read could see the bytes from before the
	// other API's write. Touched only on the context's thread.
	waited bool

	mu     sync.Mutex
	closed bool
	kids   []closer // objects to close with the context, in creation order
	blit   *blitFBs // the framebuffers of Source copies (source.go), made on first use
	// The GL-side tensor conversion of views (View.WriteTensors): the
	// converter, made on first use, and GL buffers over the Vulkan buffers
	// written, the most recent last (at most maxImports).
	tconv   *TensorConverter
	imports []importedBuffer
}

// importedBuffer is a GL buffer over a Vulkan buffer's memory.
type importedBuffer struct {
	vb *vulkan.Buffer
	gb *Buffer
}

type closer interface{ close() error }

// Open creates a headless GL context.
func Open(o Options) (*Context, error) {
	eo := egl.Options{Platform: o.Platform, API: o.API, DeviceUUID: o.DeviceUUID}
	want := o.DeviceUUID != nil
	if o.CUDA != nil {
		dev := o.CUDA.Device()
		ord := dev.Ordinal()
		eo.CUDADevice = &ord
		u, err := dev.UUID()
		if err != nil {
			return nil, fmt.Errorf("gl: reading the CUDA device's UUID: %w", err)
		}
		uu := [16]byte(u)
		eo.DeviceUUID = &uu
		want = true
	}
	e, err := egl.New(eo)
	if err != nil {
		return nil, fmt.Errorf("gl: %w", err)
	}
	if want && o.RequireMatch && !e.Info().UUIDMatched {
		in := e.Info()
		e.Close()
		return nil, fmt.Errorf("%w: %s has no EGL_NV_device_cuda or UUID that matches (GL UUIDs %x); on NVIDIA machines "+
			"make NVIDIA's EGL visible: export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/egl_vendor.d/10_nvidia.json "+
			"(run `gfxcuda doctor`)", ErrWrongGPU, in, in.DeviceUUIDs)
	}
	return newContext(e, o.CUDA), nil
}

// Adopt wraps the EGL context current on the calling thread: the caller's
// own, e.g. a renderer's; when no EGL context is current there (or EGL is
// missing), the GLX context current there (a window's, a viewer's:
// Info().Platform is then PlatformGLX), found through the libGLX.so.0 or
// libGL.so.1 the process has loaded. With neither it returns an error
// wrapping ErrNoCurrent. cudaCtx (may be nil) is used by Register. The
// Context has no thread of its own; its methods run their GL calls
// directly and return ErrWrongThread on a thread where that context is not
// current. Close (call it where the context is current) deletes the
// objects made through this Context and never destroys the caller's
// context. Bindings the package changes on an
// adopted context (buffer, texture and framebuffer bindings, pixel store)
// are restored.
func Adopt(cudaCtx *cuda.Context) (*Context, error) {
	e, err := egl.Adopt()
	if err != nil {
		return nil, fmt.Errorf("gl: %w", err)
	}
	return newContext(e, cudaCtx), nil
}

func newContext(e *egl.Context, c *cuda.Context) *Context {
	in := e.Info()
	return &Context{e: e, cuda: c, soft: strings.Contains(strings.ToLower(in.Renderer), "llvmpipe") ||
		strings.Contains(strings.ToLower(in.Renderer), "softpipe")}
}

// Info describes the context.
func (c *Context) Info() Info { return c.e.Info() }

// CUDA is the CUDA context given to Open or Adopt, or nil.
func (c *Context) CUDA() *cuda.Context { return c.cuda }

// Do runs f on the context's thread with the context current (for an
// adopted context: on the calling thread, which must have it current), for
// the caller's own GL calls (through its GL loader) and for CUDA–GL calls.
// Do may be called from inside f.
func (c *Context) Do(f func() error) error {
	if err := c.live(); err != nil {
		return err
	}
	return c.e.Do(f)
}

// Finish waits for the GL commands issued so far (glFinish).
func (c *Context) Finish() error {
	return c.do(func(e *egl.Context) error {
		c.waited = false
		return e.Finish()
	})
}

// settle runs on the context's thread before a host read: after a GPU-side
// semaphore wait it waits (glFinish) for GL to pass it, so that the read
// sees what the signalling API wrote.
func (c *Context) settle(e *egl.Context) error {
	if !c.waited {
		return nil
	}
	if err := e.Finish(); err != nil {
		return err
	}
	c.waited = false
	return nil
}

// do runs f with the raw context on its thread.
func (c *Context) do(f func(e *egl.Context) error) error {
	if err := c.live(); err != nil {
		return err
	}
	err := c.e.Do(func() error { return f(c.e) })
	if errors.Is(err, egl.ErrClosed) {
		return ErrClosed
	}
	return err
}

func (c *Context) live() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	return nil
}

func (c *Context) add(k closer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.kids = append(c.kids, k)
	return nil
}

func (c *Context) remove(k closer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.kids, k); i >= 0 {
		c.kids = slices.Delete(c.kids, i, i+1)
	}
}

// Close closes every ring, registration, buffer and texture made through
// the context (newest first), then the context and its thread (an adopted
// context is left to its owner). It is idempotent.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	kids := c.kids
	c.kids = nil
	c.mu.Unlock()
	var first error
	for i := len(kids) - 1; i >= 0; i-- {
		first = errors.Join(first, kids[i].close())
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return errors.Join(first, c.e.Close())
}
