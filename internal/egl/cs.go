package egl

/*
#include <stdlib.h>
#include "cs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// The compute-shader entry points (cs.c) of the pattern and the tensor
// converter, loaded once through eglGetProcAddress.
var (
	computeOnce sync.Once
	computeErr  error
)

func loadCompute() error {
	computeOnce.Do(func() {
		if err := Load(); err != nil {
			computeErr = err
			return
		}
		lib, err := dl.Open(Library())
		if err != nil {
			computeErr = err
			return
		}
		gpa, err := lib.Sym("eglGetProcAddress")
		if err != nil {
			computeErr = err
			return
		}
		if C.gfx_cs_load(gpa) != 0 {
			computeErr = errors.New("egl: the GL driver lacks compute shader entry points (GL 4.3)")
		}
	})
	return computeErr
}

// buildCompute compiles and links a compute program (what names it in
// errors) in the current context, after loading the entry points.
func buildCompute(what, source string) (C.GLuint, error) {
	if err := loadCompute(); err != nil {
		return 0, err
	}
	if err := currentGL(); err != nil {
		return 0, err
	}
	src := C.CString(source)
	defer C.free(unsafe.Pointer(src))
	const logn = 4096
	log := (*C.char)(C.calloc(logn, 1))
	defer C.free(unsafe.Pointer(log))
	p := C.gfx_cs_build(src, log, logn)
	if p == 0 {
		return 0, fmt.Errorf("egl: building the %s compute shader (needs GL 4.3): %s", what, C.GoString(log))
	}
	return p, nil
}

// uniform is the location of a program's uniform, -1 when it has none of
// that name (or the compiler removed it).
func uniform(p C.GLuint, name string) C.GLint {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return C.gfx_cs_uniform(p, cn)
}
