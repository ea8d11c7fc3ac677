//go:build linux

package vk

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char **names;
	size_t n, cap;
} gfx_names;

static int gfx_collect_object(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	gfx_names *v = data;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == 0) {
		return 0;
	}
	if (v->n == v->cap) {
		size_t c = v->cap ? 2 * v->cap : 64;
		char **p = realloc(v->names, c * sizeof *p);
		if (p == NULL) {
			return 1;
		}
		v->names = p;
		v->cap = c;
	}
	char *s = strdup(info->dlpi_name);
	if (s == NULL) {
		return 1;
	}
	v->names[v->n++] = s;
	return 0;
}

// gfx_loaded_objects lists the file names of the loaded shared objects;
// free each name and the array. dlopen is not called from the callback,
// which runs under the dynamic linker's lock.
static gfx_names gfx_loaded_objects(void) {
	gfx_names v = {0};
	dl_iterate_phdr(gfx_collect_object, &v);
	return v;
}

// gfx_pin marks an already loaded object as never to be unloaded.
static void gfx_pin(const char *name) {
	dlopen(name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

var (
	pinMu  sync.Mutex
	pinned = map[string]bool{}
)

// pinLoadedLibraries keeps every shared object loaded so far, the Vulkan
// drivers (ICDs) and layers the loader has just opened among them, loaded
// for the life of the process.
//
// The loader closes drivers and layers with the last instance and opens
// them again with the next. Drivers are not made to be reloaded: NVIDIA's
// libnvidia-tls takes static TLS that glibc does not give back on dlclose,
// so after some tens of instance create/destroy cycles the driver fails to
// load ("cannot allocate memory in static TLS block") and Vulkan reports no
// driver. Pinning also spares reloading the validation layer each time.
func pinLoadedLibraries() {
	names := loadedObjects()
	pinMu.Lock()
	defer pinMu.Unlock()
	var a arena
	defer a.free()
	for _, name := range names {
		if !pinned[name] {
			C.gfx_pin(a.cstr(name))
			pinned[name] = true
		}
	}
}

// loadedObjects lists the file names of the loaded shared objects.
func loadedObjects() []string {
	v := C.gfx_loaded_objects()
	if v.names == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(v.names))
	out := make([]string, v.n)
	for i, p := range unsafe.Slice(v.names, v.n) {
		out[i] = C.GoString(p)
		C.free(unsafe.Pointer(p))
	}
	return out
}
