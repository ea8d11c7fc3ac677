// Package dl opens shared libraries at run time and looks up their symbols.
//
// gfxcuda links against no GPU library at build time: libcuda.so.1,
// libvulkan.so.1 and libEGL.so.1 are opened with dlopen when first needed, so
// the same binary runs on machines with and without each driver.
package dl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

static void *gfx_dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static const char *gfx_dlerror(void) { return dlerror(); }
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// ErrNotFound is wrapped by the errors Open returns when no library of the
// given names could be loaded.
var ErrNotFound = errors.New("shared library not found")

// Library is an opened shared library. Libraries stay open for the life of
// the process: GPU drivers do not support being unloaded and reloaded.
type Library struct {
	name   string
	handle unsafe.Pointer
}

var dlMu sync.Mutex // dlerror is process-global state

// Open loads the first of names that dlopen can load.
func Open(names ...string) (*Library, error) {
	dlMu.Lock()
	defer dlMu.Unlock()
	var reasons []string
	for _, n := range names {
		cn := C.CString(n)
		h := C.gfx_dlopen(cn)
		C.free(unsafe.Pointer(cn))
		if h != nil {
			return &Library{name: n, handle: h}, nil
		}
		reasons = append(reasons, C.GoString(C.gfx_dlerror()))
	}
	return nil, fmt.Errorf("%w: %v: %v", ErrNotFound, names, reasons)
}

// Name is the file name the library was opened by.
func (l *Library) Name() string { return l.name }

// Sym returns the address of symbol name, or an error if it is absent.
func (l *Library) Sym(name string) (unsafe.Pointer, error) {
	dlMu.Lock()
	defer dlMu.Unlock()
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	C.gfx_dlerror()
	p := C.dlsym(l.handle, cn)
	if p == nil {
		return nil, fmt.Errorf("%s: symbol %s not found", l.name, name)
	}
	return p, nil
}
