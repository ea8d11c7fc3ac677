package vk

/*
#include <stdlib.h>
*/
import "C"

import (
	"sync"
	"unsafe"
)

// arena hands out zeroed C memory for the structures a call passes to
// Vulkan, and frees all of it at once. The cgo pointer rules forbid passing
// Go memory that holds pointers to C, so every structure with a pNext or
// another pointer field is built here.
//
// The first arenaBlock bytes come from a block of C memory that arenas
// reuse (a free list), zeroed here in Go: a call's structures cost no cgo
// call to allocate or free (a malloc, a memset and a free each were a cgo
// call, several per Vulkan call: most of the host time of creating a small
// buffer). What does not fit comes from C.calloc.
//
// C memory allocation never returns nil: like the Go runtime, it ends the
// process when memory is exhausted.
type arena struct {
	blk  unsafe.Pointer // a block from arenaBlocks, or nil
	used uintptr        // bytes of blk handed out
	ptrs []unsafe.Pointer
}

// arenaBlock is the size of a reused block: more than any one call's
// structures but those of long lists (descriptor writes, copy regions).
const arenaBlock = 4096

// arenaBlocks are the idle blocks, at most arenaKeep of them (one per
// concurrent call in flight; more are freed).
var arenaBlocks struct {
	sync.Mutex
	free []unsafe.Pointer
}

const arenaKeep = 64

func (a *arena) bytes(n uintptr) unsafe.Pointer {
	if n == 0 {
		n = 1
	}
	n = (n + 15) &^ 15 // malloc's alignment, kept for each structure
	if a.blk == nil && n <= arenaBlock {
		arenaBlocks.Lock()
		if k := len(arenaBlocks.free); k > 0 {
			a.blk = arenaBlocks.free[k-1]
			arenaBlocks.free = arenaBlocks.free[:k-1]
		}
		arenaBlocks.Unlock()
		if a.blk == nil {
			a.blk = C.malloc(arenaBlock)
		}
		a.used = 0
	}
	if a.blk != nil && a.used+n <= arenaBlock {
		p := unsafe.Add(a.blk, a.used)
		a.used += n
		clear(unsafe.Slice((*byte)(p), n))
		return p
	}
	p := C.calloc(1, C.size_t(n))
	a.ptrs = append(a.ptrs, p)
	return p
}

// free releases everything the arena handed out. The arena may be reused.
func (a *arena) free() {
	for _, p := range a.ptrs {
		C.free(p)
	}
	a.ptrs = nil
	if blk := a.blk; blk != nil {
		a.blk, a.used = nil, 0
		arenaBlocks.Lock()
		if len(arenaBlocks.free) < arenaKeep {
			arenaBlocks.free = append(arenaBlocks.free, blk)
			blk = nil
		}
		arenaBlocks.Unlock()
		if blk != nil {
			C.free(blk)
		}
	}
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
