package shaderc

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <shaderc/shaderc.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// includeState is what the include callbacks find behind their user data.
type includeState struct {
	fn IncludeFunc
}

// newIncludeResult allocates a shaderc_include_result and its strings in C
// memory; gfxShadercRelease frees them.
func newIncludeResult(name string, content []byte) *C.shaderc_include_result {
	r := (*C.shaderc_include_result)(C.calloc(1, C.size_t(unsafe.Sizeof(C.shaderc_include_result{}))))
	r.source_name = (*C.char)(C.CBytes([]byte(name)))
	r.source_name_length = C.size_t(len(name))
	r.content = (*C.char)(C.CBytes(content))
	r.content_length = C.size_t(len(content))
	return r
}

//export gfxShadercResolve
func gfxShadercResolve(handle C.uintptr_t, requested *C.char, typ C.int, requesting *C.char, depth C.size_t) unsafe.Pointer {
	st := cgo.Handle(handle).Value().(*includeState)
	t := IncludeRelative
	if typ == C.shaderc_include_type_standard {
		t = IncludeStandard
	}
	name, content, err := st.fn(C.GoString(requested), t, C.GoString(requesting), int(depth))
	if err != nil {
		// An empty source name tells shaderc the inclusion failed; the
		// content is then the error message.
		return unsafe.Pointer(newIncludeResult("", []byte(err.Error())))
	}
	if name == "" {
		name = C.GoString(requested)
	}
	return unsafe.Pointer(newIncludeResult(name, content))
}

//export gfxShadercRelease
func gfxShadercRelease(handle C.uintptr_t, result *C.shaderc_include_result) {
	if result == nil {
		return
	}
	C.free(unsafe.Pointer(result.source_name))
	C.free(unsafe.Pointer(result.content))
	C.free(unsafe.Pointer(result))
}
