package vk

/*
#include <stdlib.h>
#include <string.h>
*/
import "C"

import "unsafe"

// arena hands out zeroed C memory for the structures a call passes to
// Vulkan, and frees all of it at once. The cgo pointer rules forbid passing
// Go memory that holds pointers to C, so every structure with a pNext or
// another pointer field is built here.
//
// Memory comes from C.malloc, which never returns nil: like the Go runtime,
// it ends the process when memory is exhausted.
type arena struct {
	ptrs []unsafe.Pointer
}

func (a *arena) bytes(n uintptr) unsafe.Pointer {
	if n == 0 {
		n = 1
	}
	p := C.malloc(C.size_t(n))
	C.memset(p, 0, C.size_t(n))
	a.ptrs = append(a.ptrs, p)
	return p
}

// free releases everything the arena handed out. The arena may be reused.
func (a *arena) free() {
	for _, p := range a.ptrs {
		C.free(p)
	}
	a.ptrs = nil
}

// cstr copies s into C memory as a NUL-terminated string.
func (a *arena) cstr(s string) *C.char {
	p := a.bytes(uintptr(len(s)) + 1)
	copy(unsafe.Slice((*byte)(p), len(s)), s)
	return (*C.char)(p)
}

// cstrs copies ss into a C array of C strings; nil if ss is empty.
func (a *arena) cstrs(ss []string) **C.char {
	if len(ss) == 0 {
		return nil
	}
	arr := allocN[*C.char](a, len(ss))
	for i, s := range ss {
		arr[i] = a.cstr(s)
	}
	return &arr[0]
}

// alloc returns a zeroed T in C memory.
func alloc[T any](a *arena) *T {
	var zero T
	return (*T)(a.bytes(unsafe.Sizeof(zero)))
}

// allocN returns n zeroed Ts in C memory.
func allocN[T any](a *arena, n int) []T {
	var zero T
	p := a.bytes(unsafe.Sizeof(zero) * uintptr(n))
	return unsafe.Slice((*T)(p), n)
}
