package egl

/*
#cgo linux LDFLAGS: -ldl
#include "glx.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// GLX: Adopt takes the caller's current GLX context (an X11 window's, a
// viewer's) when no EGL context is current on the thread. Nothing links
// against libGLX or libGL. The GLX library is found at run time: the file
// named by $GFXCUDA_LIBGLX (opened when the process has not loaded it),
// then glvnd's libGLX.so.0 and libGL.so.1, each only when the process has
// already loaded it (dlopen with RTLD_NOLOAD): a GLX context can only be
// current through a library its owner loaded. The first library whose
// glXGetCurrentContext returns a context is the one used; GL entry points
// come from its glXGetProcAddressARB, and Do, the GL methods and
// onThread compare its glXGetCurrentContext with the adopted context.

// ErrNoCurrent is wrapped by Adopt's error when neither EGL nor GLX has a
// context current on the calling thread.
var ErrNoCurrent = errors.New("no EGL or GLX context is current on this thread")

// glxLib is a GLX library Adopt asks for the current GLX context.
type glxLib struct {
	name   string
	slot   int  // its slot in glx.c's table, which keeps it for the process's life
	noload bool // only when the process has loaded it already
}

// glxLibs lists the GLX libraries in the order they are asked.
func glxLibs() []glxLib {
	libs := []glxLib{{"libGLX.so.0", 1, true}, {"libGL.so.1", 2, true}}
	if p := os.Getenv("GFXCUDA_LIBGLX"); p != "" {
		libs = append([]glxLib{{p, 0, false}}, libs...)
	}
	return libs
}

// glxMu guards the slots of glx.c's table while they are opened.
var glxMu sync.Mutex

// adoptGLX adopts the GLX context current on the calling thread; eglWhy
// says why EGL had none, for the error when GLX has none either.
func adoptGLX(eglWhy string) (*Context, error) {
	glxMu.Lock()
	defer glxMu.Unlock()
	var why []string
	for _, l := range glxLibs() {
		slot := l.slot
		name := C.CString(l.name)
		var cerr *C.char
		noload := C.int(0)
		if l.noload {
			noload = 1
		}
		st := C.gfx_glx_open(C.int(slot), name, noload, &cerr)
		C.free(unsafe.Pointer(name))
		switch {
		case st == 1 && l.noload:
			why = append(why, l.name+" is not loaded in this process")
			continue
		case st == 1:
			why = append(why, fmt.Sprintf("%s cannot be opened: %s", l.name, C.GoString(cerr)))
			continue
		case st != 0:
			why = append(why, l.name+" lacks glXGetCurrentContext, glXGetCurrentDisplay or glXGetProcAddressARB")
			continue
		}
		if C.gfx_glx_current(C.int(slot)) == 0 {
			why = append(why, l.name+"'s glXGetCurrentContext returns none")
			continue
		}
		cc := (*C.gfx_egl_ctx)(C.calloc(1, C.sizeof_gfx_egl_ctx))
		if st := C.gfx_glx_adopt(cc, C.int(slot)); st != 0 {
			C.free(unsafe.Pointer(cc))
			if st == C.GFX_EGL_STAGE_NO_CURRENT {
				why = append(why, l.name+"'s glXGetCurrentContext returns none")
				continue
			}
			return nil, fmt.Errorf("egl: Adopt: the GLX context current on this thread (through %s): "+
				"GL entry points missing from glXGetProcAddressARB", l.name)
		}
		c := &Context{adopted: true, exit: make(chan struct{}), c: cc}
		desc := ""
		if d := C.gfx_glx_display_name(cc); d != nil {
			desc = "X display " + C.GoString(d)
		}
		c.fillInfo(PlatformGLX, "", desc)
		return c, nil
	}
	return nil, fmt.Errorf("egl: Adopt: %w (EGL: %s; GLX: %s): make your context current on this thread first (eglMakeCurrent or glXMakeCurrent)",
		ErrNoCurrent, eglWhy, strings.Join(why, "; "))
}

// isCurrent reports whether the adopted context (EGL or GLX) is current on
// the calling thread.
func (c *Context) isCurrent() bool { return C.gfx_ctx_is_current(c.c) != 0 }
