// Package egl is gfxcuda's thin binding to EGL and OpenGL 4.5 core, for
// headless GL contexts on Linux.
//
// Nothing links against libEGL or libGL: Load opens libEGL.so.1 at run time
// (through internal/dl), core EGL entry points come from dlsym and
// extensions and every GL entry point from eglGetProcAddress. The Khronos
// headers (EGL/egl.h, EGL/eglext.h, GL/glcorearb.h) supply the types, with
// prototypes disabled.
//
// New creates a context with no window system: on EGL_EXT_platform_device
// (choosing the device whose UUID matches Options.DeviceUUID when one does,
// read from EGL_EXT_device_persistent_id or GL_EXT_memory_object), falling
// back to EGL_MESA_platform_surfaceless. GL contexts are bound to one OS
// thread, so every Context owns a goroutine locked to its own thread and
// Context.Do runs functions there; the GL methods of Context may only be
// called inside Do.
package egl

/*
#cgo CFLAGS: -Wall
#include "egl.h"
#include "fb.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// GL requested by New: 4.5 core (Mesa's llvmpipe has no 4.6 core context),
// or OpenGL ES 3.2.
const (
	GLMajor   = 4
	GLMinor   = 5
	GLESMajor = 3
	GLESMinor = 2
)

// API is the client API of a context.
type API int

const (
	// OpenGL is desktop OpenGL, core profile.
	OpenGL API = iota
	// OpenGLES is OpenGL ES 3.
	OpenGLES
)

func (a API) String() string {
	if a == OpenGLES {
		return fmt.Sprintf("OpenGL ES %d.%d", GLESMajor, GLESMinor)
	}
	return fmt.Sprintf("OpenGL %d.%d core", GLMajor, GLMinor)
}

// GL enums used with this package.
const (
	RGBA8        = C.GL_RGBA8
	RGBA         = C.GL_RGBA
	UnsignedByte = C.GL_UNSIGNED_BYTE
	Texture2D    = C.GL_TEXTURE_2D
	StaticDraw   = C.GL_STATIC_DRAW
	DynamicDraw  = C.GL_DYNAMIC_DRAW
	StreamCopy   = C.GL_STREAM_COPY
)

var (
	// ErrNoLibrary is wrapped by errors from Load when libEGL cannot be opened.
	ErrNoLibrary = errors.New("libEGL.so.1 not found")
	// ErrClosed is returned by Do and GL methods after Close.
	ErrClosed = errors.New("egl: context closed")
	// ErrWrongThread is returned by GL methods called outside Context.Do.
	ErrWrongThread = errors.New("egl: GL call outside Context.Do (GL contexts are bound to their thread)")
)

// core lists the EGL entry points looked up with dlsym, in the order of
// gfx_egl_load's table. eglGetPlatformDisplay (EGL 1.5) is optional.
var core = [C.GFX_EGL_NCORE]string{
	"eglGetProcAddress", "eglGetError", "eglQueryString", "eglInitialize", "eglTerminate",
	"eglBindAPI", "eglChooseConfig", "eglCreateContext", "eglDestroyContext", "eglMakeCurrent",
	"eglReleaseThread", "eglGetPlatformDisplay", "eglGetCurrentContext", "eglGetCurrentDisplay", "eglQueryContext",
}

var (
	loadOnce sync.Once
	loadErr  error
	libName  string
	opened   *dl.Library // libEGL, once dlopen found it
)

// Load opens libEGL.so.1 (or the file named by $GFXCUDA_LIBEGL) and
// resolves the EGL entry points. It runs once; later calls return the first
// result.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	if runtime.GOOS == "windows" && os.Getenv("GFXCUDA_LIBEGL") == "" {
		return fmt.Errorf("%w: OpenGL through EGL is not supported on Windows yet (docs/windows.md)", ErrNoLibrary)
	}
	names := []string{"libEGL.so.1", "libEGL.so"}
	if p := os.Getenv("GFXCUDA_LIBEGL"); p != "" {
		names = []string{p}
	}
	lib, err := dl.Open(names...)
	if err != nil {
		return fmt.Errorf("%w: install the EGL loader (Debian/Ubuntu: apt install libegl1; "+
			"for Mesa's software renderer also libegl-mesa0 libgl1-mesa-dri): %w", ErrNoLibrary, err)
	}
	libName, opened = lib.Name(), lib
	ptrs := (*[C.GFX_EGL_NCORE]unsafe.Pointer)(C.malloc(C.size_t(C.GFX_EGL_NCORE) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(ptrs))
	var missing []string
	for i, n := range core {
		p, err := lib.Sym(n)
		ptrs[i] = p
		if err != nil && i < C.GFX_EGL_NREQUIRED {
			missing = append(missing, n)
		}
	}
	if C.gfx_egl_load(&ptrs[0]) != 0 {
		return fmt.Errorf("%s lacks %s: it is not a usable EGL library; install libegl1 (libglvnd)", libName, strings.Join(missing, ", "))
	}
	return nil
}

// Library is the file name libEGL was opened as, once Load succeeded.
func Library() string { return libName }

// LibraryFile is the file libEGL was loaded from (dl.Library.Path), once
// Load opened it, even where Load then failed; "" before, or when it was
// not found.
func LibraryFile() string { return opened.Path() }

// Platform is an EGL platform that needs no window system.
type Platform int

const (
	// PlatformAuto tries the device platform, then surfaceless.
	PlatformAuto Platform = iota
	// PlatformDevice is EGL_EXT_platform_device.
	PlatformDevice
	// PlatformSurfaceless is EGL_MESA_platform_surfaceless.
	PlatformSurfaceless
	// PlatformGLX is what Info reports for a context Adopt took from GLX
	// (an X11 window's or viewer's; glx.go); New does not accept it.
	PlatformGLX
)

func (p Platform) String() string {
	switch p {
	case PlatformDevice:
		return "device (EGL_EXT_platform_device)"
	case PlatformSurfaceless:
		return "surfaceless (EGL_MESA_platform_surfaceless)"
	case PlatformGLX:
		return "GLX (the caller's X11 context)"
	}
	return "auto"
}

// Options configure New.
type Options struct {
	// DeviceUUID, when set, picks the EGL device (and so the GPU) with this
	// UUID — the Vulkan deviceUUID or CUDA device UUID — when one matches.
	// Info.UUIDMatched tells whether one did.
	DeviceUUID *[16]byte
	// CUDADevice, when set, picks the EGL device that EGL_NV_device_cuda
	// reports as this CUDA device ordinal; it is tried before DeviceUUID.
	CUDADevice *int
	// Platform forces one platform; the zero value tries both.
	Platform Platform
	// API is desktop OpenGL (4.5 core, the zero value) or OpenGL ES 3.2.
	API API
}

// Info describes a Context.
type Info struct {
	Vendor, Renderer, Version string // GL_VENDOR, GL_RENDERER, GL_VERSION
	Platform                  Platform
	EGLVersion                string // e.g. "1.5"
	EGLVendor                 string // EGL_VENDOR
	Device                    string // the EGL device's DRM file or extensions, on the device platform
	// DeviceUUIDs are the GL device UUIDs (GL_EXT_memory_object), or the
	// EGL device's UUID (EGL_EXT_device_persistent_id); empty when neither
	// is available.
	DeviceUUIDs [][16]byte
	UUIDMatched bool // Options.DeviceUUID or Options.CUDADevice was given and matched
	// MatchedBy says how the device was matched: "EGL_NV_device_cuda",
	// "EGL device UUID", "GL device UUID", or "" when it was not.
	MatchedBy string
	// CUDADevice is the CUDA ordinal EGL_NV_device_cuda reports for the
	// EGL device, or -1.
	CUDADevice int
	API        API
	// Adopted is set for a context adopted with Adopt (the caller's own).
	Adopted bool
	// MemoryObject reports GL_EXT_memory_object_fd (import of Vulkan memory).
	MemoryObject bool
	// SemaphoreFD reports GL_EXT_semaphore_fd (import of Vulkan semaphores).
	SemaphoreFD bool
	// TimelineSemaphore reports GL_NV_timeline_semaphore (timeline
	// semaphores shared with Vulkan and CUDA).
	TimelineSemaphore bool
	// DSA reports direct state access (GL 4.5); without it (GLES, older GL)
	// objects are made through binds that are saved and restored.
	DSA bool
}

func (i Info) String() string {
	if i.Platform == PlatformGLX {
		return fmt.Sprintf("%s, %s, GL %s on %s %s", i.Renderer, i.Vendor, i.Version, i.Platform, i.Device)
	}
	return fmt.Sprintf("%s, %s, GL %s, EGL %s on %s", i.Renderer, i.Vendor, i.Version, i.EGLVersion, i.Platform)
}

// Context is a headless GL 4.5 core context with its own OS thread.
type Context struct {
	info Info
	c    *C.gfx_egl_ctx // C memory
	dpy  C.uintptr_t
	tid  int // the context thread's id
	// adopted: the caller's context, used on whichever thread has it
	// current; no thread of our own.
	adopted bool

	jobs chan job
	exit chan struct{}

	mu     sync.RWMutex
	closed bool

	fbt *C.gfx_gl_fb // fb.go's entry points (C memory), loaded on first use
}

type job struct {
	f    func() error
	done chan result
}

type result struct {
	err    error
	panic  any
	panics bool
}

// displays counts the Contexts using each EGL display: eglTerminate ends
// every context on a display, so it is called when the last one closes.
var (
	displayMu   sync.Mutex
	displayRefs = map[C.uintptr_t]int{}
)

// eglError is an EGL error code.
type eglError int32

var eglErrorNames = map[eglError]string{
	0x3000: "EGL_SUCCESS", 0x3001: "EGL_NOT_INITIALIZED", 0x3002: "EGL_BAD_ACCESS", 0x3003: "EGL_BAD_ALLOC",
	0x3004: "EGL_BAD_ATTRIBUTE", 0x3005: "EGL_BAD_CONFIG", 0x3006: "EGL_BAD_CONTEXT",
	0x3007: "EGL_BAD_CURRENT_SURFACE", 0x3008: "EGL_BAD_DISPLAY", 0x3009: "EGL_BAD_MATCH",
	0x300A: "EGL_BAD_NATIVE_PIXMAP", 0x300B: "EGL_BAD_NATIVE_WINDOW", 0x300C: "EGL_BAD_PARAMETER",
	0x300D: "EGL_BAD_SURFACE", 0x300E: "EGL_CONTEXT_LOST",
}

func (e eglError) String() string {
	if n, ok := eglErrorNames[e]; ok {
		return n
	}
	return fmt.Sprintf("EGL error 0x%x", int32(e))
}

// GLError is a glGetError code.
type GLError uint32

func (e GLError) Error() string {
	switch e {
	case C.GL_INVALID_ENUM:
		return "GL_INVALID_ENUM"
	case C.GL_INVALID_VALUE:
		return "GL_INVALID_VALUE"
	case C.GL_INVALID_OPERATION:
		return "GL_INVALID_OPERATION"
	case C.GL_OUT_OF_MEMORY:
		return "GL_OUT_OF_MEMORY"
	case C.GL_INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION"
	}
	return fmt.Sprintf("GL error 0x%x", uint32(e))
}

func glErr(op string, e C.GLenum) error {
	if e == C.GL_NO_ERROR {
		return nil
	}
	return fmt.Errorf("%s: %w", op, GLError(e))
}

func hasExt(list, name string) bool {
	for _, e := range strings.Fields(list) {
		if e == name {
			return true
		}
	}
	return false
}

// hint is appended to errors when no display could be opened.
const hint = "on NVIDIA GPUs in containers, install libegl1 and point glvnd at the driver's EGL vendor file: " +
	"export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/egl_vendor.d/10_nvidia.json " +
	"(or where the driver installed it); for Mesa's software renderer install libegl-mesa0 libgl1-mesa-dri"

// New creates a headless GL 4.5 core context and its thread.
func New(o Options) (*Context, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	if o.Platform == PlatformGLX {
		return nil, errors.New("egl: New makes headless EGL contexts: PlatformGLX is only for contexts Adopt takes from GLX")
	}
	c := &Context{jobs: make(chan job), exit: make(chan struct{})}
	ready := make(chan error)
	go c.loop(o, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// loop is the context's goroutine: it owns its OS thread for its whole
// life and never unlocks it, so the thread ends with the goroutine and no
// EGL or GL thread state survives into other goroutines.
func (c *Context) loop(o Options, ready chan<- error) {
	runtime.LockOSThread()
	c.tid = threadID()
	if err := c.open(o); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for j := range c.jobs {
		j.done <- c.run(j.f)
	}
	c.destroy()
	close(c.exit)
}

func (c *Context) run(f func() error) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{panic: p, panics: true}
		}
	}()
	return result{err: f()}
}

// open runs on the context thread.
func (c *Context) open(o Options) error {
	if C.gfx_egl_has_platform_display() == 0 {
		return fmt.Errorf("egl: %s has neither eglGetPlatformDisplay nor eglGetPlatformDisplayEXT (EGL 1.5 or EGL_EXT_platform_base): install libegl1 (libglvnd)", libName)
	}
	client := C.GoString(C.gfx_egl_query_string(0, C.EGL_EXTENSIONS))
	var openers []func() error
	if o.Platform != PlatformSurfaceless {
		openers = append(openers, func() error { return c.openDevice(o, client) })
	}
	if o.Platform != PlatformDevice {
		openers = append(openers, func() error { return c.openSurfaceless(o, client) })
	}
	// The first context that works, unless a UUID is wanted: then the first
	// that matches it, or else the first that works.
	var errs []string
	fallback := -1
	for i, op := range openers {
		if err := op(); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if (o.DeviceUUID == nil && o.CUDADevice == nil) || c.info.UUIDMatched {
			return nil
		}
		if fallback < 0 {
			fallback = i
		}
		c.destroy()
	}
	if fallback >= 0 {
		return openers[fallback]()
	}
	return fmt.Errorf("egl: no headless %v context: %s; %s", o.API, strings.Join(errs, "; "), hint)
}

func (c *Context) openSurfaceless(o Options, client string) error {
	if !hasExt(client, "EGL_MESA_platform_surfaceless") {
		return errors.New("surfaceless platform: EGL_MESA_platform_surfaceless not offered (Mesa's EGL, libegl-mesa0, provides it)")
	}
	dpy := C.gfx_egl_display(C.EGL_PLATFORM_SURFACELESS_MESA, 0)
	if dpy == 0 {
		return fmt.Errorf("surfaceless platform: eglGetPlatformDisplay failed: %v", eglError(C.gfx_egl_get_error()))
	}
	if err := c.create(dpy, o.API, PlatformSurfaceless, ""); err != nil {
		return fmt.Errorf("surfaceless platform: %w", err)
	}
	c.matchUUID(o, nil)
	return nil
}

type device struct {
	h    C.uintptr_t
	desc string
	uuid *[16]byte // from EGL_EXT_device_persistent_id
	cuda int       // from EGL_NV_device_cuda, or -1
	exts string
}

// listDevices enumerates the EGL devices (EGL_EXT_device_enumeration).
func listDevices() []device {
	if C.gfx_egl_has_devices() == 0 {
		return nil
	}
	var hs [64]C.uintptr_t
	n := int(C.gfx_egl_devices(&hs[0], C.int(len(hs))))
	devs := make([]device, 0, max(n, 0))
	for _, h := range hs[:max(n, 0)] {
		d := device{h: h, cuda: -1}
		exts := C.GoString(C.gfx_egl_device_string(h, C.EGL_EXTENSIONS))
		d.exts = exts
		if hasExt(exts, "EGL_NV_device_cuda") {
			var ord C.int
			if C.gfx_egl_device_cuda(h, &ord) == 0 {
				d.cuda = int(ord)
			}
		}
		if hasExt(exts, "EGL_EXT_device_drm") {
			d.desc = C.GoString(C.gfx_egl_device_string(h, C.EGL_DRM_DEVICE_FILE_EXT))
		}
		if hasExt(exts, "EGL_MESA_device_software") {
			d.desc = "software"
		}
		if d.desc == "" {
			d.desc = exts
		}
		if hasExt(exts, "EGL_EXT_device_persistent_id") && C.gfx_egl_has_device_binary() != 0 {
			var u [16]byte
			if C.gfx_egl_device_uuid(h, (*C.uchar)(unsafe.Pointer(&u[0]))) == 0 {
				d.uuid = &u
			}
		}
		devs = append(devs, d)
	}
	return devs
}

// DeviceInfo describes an EGL device (EGL_EXT_device_enumeration).
type DeviceInfo struct {
	Description string    // DRM device file, "software", or its extensions
	Extensions  string    // EGL device extensions
	UUID        *[16]byte // EGL_EXT_device_persistent_id, or nil
	CUDADevice  int       // EGL_NV_device_cuda's CUDA ordinal, or -1
}

// Devices lists the EGL devices (none without EGL_EXT_device_enumeration).
func Devices() ([]DeviceInfo, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	var out []DeviceInfo
	for _, d := range listDevices() {
		out = append(out, DeviceInfo{Description: d.desc, Extensions: d.exts, UUID: d.uuid, CUDADevice: d.cuda})
	}
	return out, nil
}

// ClientExtensions returns EGL's client extensions (EGL_EXTENSIONS of
// EGL_NO_DISPLAY): the platforms on offer.
func ClientExtensions() (string, error) {
	if err := Load(); err != nil {
		return "", err
	}
	return C.GoString(C.gfx_egl_query_string(0, C.EGL_EXTENSIONS)), nil
}

func (c *Context) openDevice(o Options, client string) error {
	if !hasExt(client, "EGL_EXT_platform_device") || C.gfx_egl_has_devices() == 0 {
		return errors.New("device platform: EGL_EXT_platform_device not offered")
	}
	devs := listDevices()
	if len(devs) == 0 {
		return errors.New("device platform: eglQueryDevicesEXT found no EGL device")
	}
	// Devices whose CUDA ordinal or EGL UUID matches go first.
	if o.DeviceUUID != nil || o.CUDADevice != nil {
		var first, rest []device
		for _, d := range devs {
			if (o.CUDADevice != nil && d.cuda == *o.CUDADevice) || (o.DeviceUUID != nil && d.uuid != nil && *d.uuid == *o.DeviceUUID) {
				first = append(first, d)
			} else {
				rest = append(rest, d)
			}
		}
		devs = append(first, rest...)
	}
	var errs []string
	fallback := -1
	for i, d := range devs {
		dpy := C.gfx_egl_display(C.EGL_PLATFORM_DEVICE_EXT, d.h)
		if dpy == 0 {
			errs = append(errs, fmt.Sprintf("device %s: eglGetPlatformDisplay: %v", d.desc, eglError(C.gfx_egl_get_error())))
			continue
		}
		if err := c.create(dpy, o.API, PlatformDevice, d.desc); err != nil {
			errs = append(errs, fmt.Sprintf("device %s: %v", d.desc, err))
			continue
		}
		c.info.CUDADevice = d.cuda
		if c.matchUUID(o, d.uuid) || (o.DeviceUUID == nil && o.CUDADevice == nil) {
			return nil
		}
		// Not the wanted GPU: remember it, try the others.
		if fallback < 0 {
			fallback = i
		}
		c.destroy()
	}
	if fallback >= 0 {
		d := devs[fallback]
		dpy := C.gfx_egl_display(C.EGL_PLATFORM_DEVICE_EXT, d.h)
		if err := c.create(dpy, o.API, PlatformDevice, d.desc); err != nil {
			return fmt.Errorf("device %s: %w", d.desc, err)
		}
		c.info.CUDADevice = d.cuda
		c.matchUUID(o, d.uuid)
		return nil
	}
	return fmt.Errorf("device platform: %s", strings.Join(errs, "; "))
}

// matchUUID fills Info.DeviceUUIDs and UUIDMatched.
func (c *Context) matchUUID(o Options, eglUUID *[16]byte) bool {
	c.info.DeviceUUIDs = nil
	c.info.UUIDMatched = false
	c.info.MatchedBy = ""
	if o.CUDADevice != nil && c.info.CUDADevice == *o.CUDADevice {
		c.info.UUIDMatched = true
		c.info.MatchedBy = "EGL_NV_device_cuda"
	}
	if eglUUID != nil {
		c.info.DeviceUUIDs = append(c.info.DeviceUUIDs, *eglUUID)
	}
	if c.hasGLExt("GL_EXT_memory_object") {
		n := int(C.gfx_gl_get_integer(c.c, C.GL_NUM_DEVICE_UUIDS_EXT))
		for i := 0; i < n; i++ {
			var u [16]byte
			if C.gfx_gl_device_uuid(c.c, C.GLuint(i), (*C.uchar)(unsafe.Pointer(&u[0]))) == 0 {
				if eglUUID == nil || u != *eglUUID {
					c.info.DeviceUUIDs = append(c.info.DeviceUUIDs, u)
				}
			}
		}
		C.gfx_gl_clear_errors(c.c)
	}
	if o.DeviceUUID != nil && !c.info.UUIDMatched {
		for i, u := range c.info.DeviceUUIDs {
			if u == *o.DeviceUUID {
				c.info.UUIDMatched = true
				c.info.MatchedBy = "GL device UUID"
				if i == 0 && eglUUID != nil {
					c.info.MatchedBy = "EGL device UUID"
				}
				break
			}
		}
	}
	return c.info.UUIDMatched
}

func (c *Context) hasGLExt(name string) bool {
	n := int(C.gfx_gl_get_integer(c.c, C.GL_NUM_EXTENSIONS))
	for i := 0; i < n; i++ {
		if C.GoString(C.gfx_gl_get_stringi(c.c, C.GL_EXTENSIONS, C.GLuint(i))) == name {
			return true
		}
	}
	return false
}

var stageNames = map[C.int]string{
	C.GFX_EGL_STAGE_NO_SURFACELESS: "display lacks EGL_KHR_surfaceless_context",
	C.GFX_EGL_STAGE_BIND_API:       "eglBindAPI",
	C.GFX_EGL_STAGE_CONFIG:         "eglChooseConfig found no config for the API",
	C.GFX_EGL_STAGE_CONTEXT:        "eglCreateContext",
	C.GFX_EGL_STAGE_MAKE_CURRENT:   "eglMakeCurrent (no surface)",
	C.GFX_EGL_STAGE_GL_ENTRY:       "GL entry points missing from eglGetProcAddress",
	C.GFX_EGL_STAGE_NO_CURRENT:     "no EGL context is current on this thread",
}

// create initializes dpy, creates the context and makes it current on
// this thread; on failure it leaves nothing behind.
func (c *Context) create(dpy C.uintptr_t, api API, p Platform, desc string) error {
	var major, minor C.EGLint
	capi, vmaj, vmin := C.int(C.GFX_API_GL), GLMajor, GLMinor
	if api == OpenGLES {
		capi, vmaj, vmin = C.GFX_API_GLES, GLESMajor, GLESMinor
	}
	displayMu.Lock()
	defer displayMu.Unlock()
	if C.gfx_egl_initialize(dpy, &major, &minor) == 0 {
		return fmt.Errorf("eglInitialize: %v", eglError(C.gfx_egl_get_error()))
	}
	displayRefs[dpy]++
	cc := (*C.gfx_egl_ctx)(C.calloc(1, C.sizeof_gfx_egl_ctx))
	if st := C.gfx_egl_create(cc, dpy, capi, C.int(vmaj), C.int(vmin)); st != 0 {
		e := eglError(C.gfx_egl_get_error())
		C.free(unsafe.Pointer(cc))
		c.unrefDisplayLocked(dpy)
		msg := stageNames[st] + " (" + api.String() + ")"
		if st == C.GFX_EGL_STAGE_CONTEXT && e == 0x3009 {
			msg += fmt.Sprintf(": the driver offers no %v context", api)
		}
		return fmt.Errorf("%s: %v", msg, e)
	}
	c.c, c.dpy = cc, dpy
	c.fillInfo(p, fmt.Sprintf("%d.%d", major, minor), desc)
	return nil
}

// fillInfo reads the GL strings and extensions of the current context.
func (c *Context) fillInfo(p Platform, eglVersion, desc string) {
	cc, dpy := c.c, c.dpy
	c.info = Info{
		Vendor:     C.GoString(C.gfx_gl_get_string(cc, C.GL_VENDOR)),
		Renderer:   C.GoString(C.gfx_gl_get_string(cc, C.GL_RENDERER)),
		Version:    C.GoString(C.gfx_gl_get_string(cc, C.GL_VERSION)),
		Platform:   p,
		EGLVersion: eglVersion,
		Device:     desc,
		CUDADevice: -1,
		Adopted:    c.adopted,
	}
	if p != PlatformGLX { // a GLX context (glx.go) has no EGL display
		c.info.EGLVendor = C.GoString(C.gfx_egl_query_string(dpy, C.EGL_VENDOR))
	}
	if cc.es != 0 || strings.HasPrefix(c.info.Version, "OpenGL ES") {
		cc.es = 1
		c.info.API = OpenGLES
	}
	var maj, min int
	v := strings.TrimPrefix(c.info.Version, "OpenGL ES ")
	fmt.Sscanf(v, "%d.%d", &maj, &min)
	if cc.es == 0 && (maj > 4 || (maj == 4 && min >= 5) || c.hasGLExt("GL_ARB_direct_state_access")) {
		cc.dsa = 1
		c.info.DSA = true
	}
	c.info.MemoryObject = c.hasGLExt("GL_EXT_memory_object_fd")
	c.info.SemaphoreFD = c.hasGLExt("GL_EXT_semaphore_fd")
	c.info.TimelineSemaphore = c.info.SemaphoreFD && c.hasGLExt("GL_NV_timeline_semaphore")
	C.gfx_gl_clear_errors(cc)
}

// Adopt wraps the EGL context current on the calling thread (the caller's
// own, e.g. a renderer's), or, when none is (or EGL is missing), the GLX
// context current there (glx.go; Info().Platform is then PlatformGLX).
// Without either it returns an error wrapping ErrNoCurrent. The returned Context has no thread of its own:
// Do runs functions directly, and only on a thread where that context is
// current (else it returns ErrWrongThread). Close forgets the context and
// never destroys it. GL state changed by this package is saved and
// restored where it is not the package's own objects.
func Adopt() (*Context, error) {
	// No EGL, or no EGL context current on this thread: GLX's (glx.go).
	if err := Load(); err != nil {
		return adoptGLX(err.Error())
	} else if C.gfx_egl_has_current() == 0 {
		return adoptGLX(libName + " lacks eglGetCurrentContext")
	} else if C.gfx_egl_current() == 0 {
		return adoptGLX("eglGetCurrentContext returns none")
	}
	c := &Context{adopted: true, exit: make(chan struct{})}
	cc := (*C.gfx_egl_ctx)(C.calloc(1, C.sizeof_gfx_egl_ctx))
	if st := C.gfx_egl_adopt(cc); st != 0 {
		C.free(unsafe.Pointer(cc))
		return nil, fmt.Errorf("egl: Adopt: %s: make your context current on this thread first (eglMakeCurrent)", stageNames[st])
	}
	c.c = cc
	c.dpy = C.uintptr_t(uintptr(cc.dpy))
	c.fillInfo(PlatformAuto, "", "")
	c.info.EGLVersion = C.GoString(C.gfx_egl_query_string(c.dpy, C.EGL_VERSION))
	return c, nil
}

func (c *Context) unrefDisplayLocked(dpy C.uintptr_t) {
	displayRefs[dpy]--
	if displayRefs[dpy] <= 0 {
		delete(displayRefs, dpy)
		C.gfx_egl_terminate(dpy)
	}
}

// destroy runs on the context thread.
func (c *Context) destroy() {
	if c.c == nil {
		return
	}
	C.gfx_egl_destroy(c.c)
	C.free(unsafe.Pointer(c.c))
	c.c = nil
	c.freeFB()
	displayMu.Lock()
	c.unrefDisplayLocked(c.dpy)
	displayMu.Unlock()
	c.dpy = 0
}

// Info describes the context.
func (c *Context) Info() Info { return c.info }

// onThread reports whether the caller runs on the context's thread (for
// an adopted context: whether the context is current on the calling thread).
func (c *Context) onThread() bool {
	if c.adopted {
		c.mu.RLock()
		defer c.mu.RUnlock()
		return c.c != nil && c.isCurrent() // EGL's or GLX's current context (glx.go)
	}
	return threadID() == c.tid
}

// Do runs f on the context's thread with the context current, and returns
// its error. A panic in f is re-raised in the caller. Do may be called from
// inside f (it then runs the function directly). CUDA calls that need the
// GL context (cuGraphicsGL*) belong inside f.
func (c *Context) Do(f func() error) error {
	if c.adopted {
		c.mu.RLock()
		closed := c.closed
		c.mu.RUnlock()
		if closed {
			return ErrClosed
		}
		// The caller's thread must stay the one with the context current.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if !c.onThread() {
			return ErrWrongThread
		}
		return f()
	}
	if c.onThread() {
		if c.c == nil {
			return ErrClosed
		}
		return f()
	}
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return ErrClosed
	}
	done := make(chan result, 1)
	c.jobs <- job{f: f, done: done}
	c.mu.RUnlock()
	r := <-done
	if r.panics {
		panic(r.panic)
	}
	return r.err
}

// Close destroys the context, terminates the display when no other
// Context uses it, and ends the context's thread. It is idempotent; it must
// not be called from inside Do.
func (c *Context) Close() error {
	if c.adopted {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.closed {
			c.closed = true
			C.free(unsafe.Pointer(c.c))
			c.c = nil
			c.freeFB()
		}
		return nil
	}
	if c.onThread() {
		return errors.New("egl: Context.Close called inside Do")
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.jobs)
	c.mu.Unlock()
	<-c.exit
	return nil
}

func (c *Context) gl() error {
	if !c.onThread() {
		return ErrWrongThread
	}
	if c.c == nil {
		return ErrClosed
	}
	return nil
}

// Buffer and Texture are GL object names.
type (
	Buffer  uint32
	Texture uint32
)

// Error returns and clears the pending GL errors (the first one), or nil.
func (c *Context) Error() error {
	if err := c.gl(); err != nil {
		return err
	}
	if e := C.gfx_gl_clear_errors(c.c); e != C.GL_NO_ERROR {
		return GLError(e)
	}
	return nil
}

// Finish is glFinish.
func (c *Context) Finish() error {
	if err := c.gl(); err != nil {
		return err
	}
	C.gfx_gl_finish(c.c)
	return glErr("glFinish", C.gfx_gl_clear_errors(c.c))
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// CreateBuffer makes a buffer object of size bytes (glCreateBuffers +
// glNamedBufferData), filled with data when it is not nil (len(data) must
// then be size).
func (c *Context) CreateBuffer(size int, data []byte, usage uint32) (Buffer, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	if data != nil && len(data) != size {
		return 0, fmt.Errorf("egl: CreateBuffer: %d bytes of data for a %d-byte buffer", len(data), size)
	}
	var id C.GLuint
	e := C.gfx_gl_create_buffer(c.c, C.GLsizeiptr(size), ptr(data), C.GLenum(usage), &id)
	runtime.KeepAlive(data)
	if err := glErr(fmt.Sprintf("glCreateBuffers + glNamedBufferData(%d bytes)", size), e); err != nil {
		return 0, err
	}
	return Buffer(id), nil
}

// BufferSubData is glNamedBufferSubData.
func (c *Context) BufferSubData(b Buffer, offset int, data []byte) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_buffer_sub_data(c.c, C.GLuint(b), C.GLintptr(offset), C.GLsizeiptr(len(data)), ptr(data))
	runtime.KeepAlive(data)
	return glErr("glNamedBufferSubData", e)
}

// GetBufferSubData is glGetNamedBufferSubData.
func (c *Context) GetBufferSubData(b Buffer, offset int, data []byte) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_get_buffer_sub_data(c.c, C.GLuint(b), C.GLintptr(offset), C.GLsizeiptr(len(data)), ptr(data))
	runtime.KeepAlive(data)
	return glErr("glGetNamedBufferSubData", e)
}

// DeleteBuffer is glDeleteBuffers.
func (c *Context) DeleteBuffer(b Buffer) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glDeleteBuffers", C.gfx_gl_delete_buffer(c.c, C.GLuint(b)))
}

// CreateTexture2D makes an immutable 2D texture (glCreateTextures +
// glTextureStorage2D), e.g. CreateTexture2D(RGBA8, 1920, 1080, 1).
func (c *Context) CreateTexture2D(internalFormat uint32, width, height, levels int) (Texture, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	var id C.GLuint
	e := C.gfx_gl_create_texture_2d(c.c, C.GLsizei(levels), C.GLenum(internalFormat), C.GLsizei(width), C.GLsizei(height), &id)
	if err := glErr(fmt.Sprintf("glCreateTextures + glTextureStorage2D(0x%x, %dx%d)", internalFormat, width, height), e); err != nil {
		return 0, err
	}
	return Texture(id), nil
}

// TextureSubImage2D uploads a whole level (glTextureSubImage2D).
func (c *Context) TextureSubImage2D(t Texture, level, width, height int, format, typ uint32, data []byte) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_texture_sub_image_2d(c.c, C.GLuint(t), C.GLint(level), C.GLsizei(width), C.GLsizei(height), C.GLenum(format), C.GLenum(typ), ptr(data))
	runtime.KeepAlive(data)
	return glErr("glTextureSubImage2D", e)
}

// GetTextureImage reads a whole level back (glGetTextureImage). On OpenGL
// ES, use GetTextureImage2D (it reads through a framebuffer and needs the
// level's size).
func (c *Context) GetTextureImage(t Texture, level int, format, typ uint32, data []byte) error {
	return c.GetTextureImage2D(t, level, 0, 0, format, typ, data)
}

// GetTextureImage2D reads a whole w×h level back: glGetTextureImage, or
// on OpenGL ES glReadPixels through a framebuffer.
func (c *Context) GetTextureImage2D(t Texture, level, w, h int, format, typ uint32, data []byte) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_get_texture_image(c.c, C.GLuint(t), C.GLint(level), C.GLsizei(w), C.GLsizei(h), C.GLenum(format), C.GLenum(typ), C.GLsizei(len(data)), ptr(data))
	runtime.KeepAlive(data)
	return glErr("glGetTextureImage", e)
}

// DeleteTexture is glDeleteTextures.
func (c *Context) DeleteTexture(t Texture) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glDeleteTextures", C.gfx_gl_delete_texture(c.c, C.GLuint(t)))
}
