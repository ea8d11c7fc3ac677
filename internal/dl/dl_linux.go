//go:build linux

package dl

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

static void *gfx_dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static const char *gfx_dlerror(void) { return dlerror(); }

// gfx_dl_file is the name the dynamic linker holds for the object of
// handle (its link map's l_name: the file found), NULL when unknown.
static const char *gfx_dl_file(void *handle) {
	struct link_map *m = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &m) != 0 || m == NULL) return NULL;
	return m->l_name;
}

// gfx_dl_self is the link map of the object holding this code: the
// executable (whose l_name is "") or the shared library it was linked into.
static struct link_map *gfx_dl_self(void) {
	Dl_info info;
	struct link_map *m = NULL;
	if (dladdr1((void *)gfx_dl_self, &info, (void **)&m, RTLD_DL_LINKMAP) == 0) return NULL;
	return m;
}

// gfx_dl_search writes into out (at most n) the directories dlopen called
// from this object searches, in order (RTLD_DI_SERINFO: DT_RPATH,
// LD_LIBRARY_PATH, DT_RUNPATH and the system directories; not the ld.so
// cache), and into system whether each is a system directory
// (LA_SER_DEFAULT); it returns how many there are, -1 when unknown. *buf
// is to be freed.
static int gfx_dl_search(const char **out, int *system, int n, void **buf) {
	struct link_map *self = gfx_dl_self();
	Dl_serinfo size, *si;
	*buf = NULL;
	if (self == NULL || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0) return -1;
	si = malloc(size.dls_size);
	if (si == NULL) return -1;
	*buf = si;
	if (dlinfo(self, RTLD_DI_SERINFOSIZE, si) != 0 || dlinfo(self, RTLD_DI_SERINFO, si) != 0) return -1;
	for (unsigned i = 0; i < si->dls_cnt && (int)i < n; i++) {
		out[i] = si->dls_serpath[i].dls_name;
		system[i] = (si->dls_serpath[i].dls_flags & LA_SER_DEFAULT) != 0;
	}
	return (int)si->dls_cnt;
}
*/
import "C"

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// handle is dlopen's handle.
type handle = unsafe.Pointer

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
	return nil, &NotFoundError{Names: names, Reasons: reasons}
}

// Path is the file the library was loaded from: the dynamic linker's name
// for it (RTLD_DI_LINKMAP) made absolute with symbolic links resolved, as
// /proc/self/maps shows it. It is Name when the linker does not say, and
// "" for a nil Library (none was opened). It costs tens of microseconds
// (dlinfo, then a stat of each symbolic link): ask when a report needs it,
// not while loading.
func (l *Library) Path() string {
	if l == nil {
		return ""
	}
	dlMu.Lock()
	f := C.gfx_dl_file(l.handle)
	dlMu.Unlock()
	if f == nil || C.GoString(f) == "" {
		return l.name
	}
	return realPath(C.GoString(f))
}

// Self is the shared library this code was linked into (such as
// libgfxcuda.so, loaded by Python), resolved as Path resolves; "" when the
// code is part of the executable.
func Self() string {
	m := C.gfx_dl_self()
	if m == nil || m.l_name == nil {
		return ""
	}
	name := C.GoString(m.l_name)
	if name == "" {
		return ""
	}
	if exe, err := os.Executable(); err == nil && realPath(exe) == realPath(name) {
		return ""
	}
	return realPath(name)
}

// SearchPath is where Open looks for a name without a slash, in order: the
// RPATH, LD_LIBRARY_PATH and RUNPATH directories of the code calling dlopen,
// the ld.so cache (/etc/ld.so.cache), then the system directories. The
// directories are dlinfo's RTLD_DI_SERINFO; the cache, which it leaves out,
// is put before the system directories that end the list (marked
// LA_SER_DEFAULT where glibc marks them: 2.36 does not, so else those of
// glibc's names for them).
func SearchPath() []string {
	var buf unsafe.Pointer
	out := make([]*C.char, 64)
	system := make([]C.int, len(out))
	dlMu.Lock()
	defer dlMu.Unlock()
	n := int(C.gfx_dl_search(&out[0], &system[0], C.int(len(out)), &buf))
	defer C.free(buf)
	if n < 0 {
		return []string{"/etc/ld.so.cache"}
	}
	n = min(n, len(out))
	var dirs []string
	marked := false
	for i, d := range out[:n] {
		dirs = append(dirs, C.GoString(d))
		marked = marked || system[i] != 0
	}
	at := n
	for at > 0 && (system[at-1] != 0 || !marked && isSystemDir(dirs[at-1])) {
		at--
	}
	return slices.Insert(dirs, at, "/etc/ld.so.cache")
}

// isSystemDir tells whether d is one of glibc's default library
// directories: /lib, /usr/lib, their 64/32/x32 forms, or a multiarch
// directory in one of them (/usr/lib/x86_64-linux-gnu).
func isSystemDir(d string) bool {
	d = strings.TrimPrefix(strings.TrimSuffix(d, "/"), "/usr")
	base, arch, _ := strings.Cut(d, "-linux-gnu")
	if base != d {
		i := strings.LastIndexByte(base, '/')
		if i < 0 || strings.Contains(arch, "/") {
			return false
		}
		d = base[:i]
	}
	switch d {
	case "/lib", "/lib64", "/lib32", "/libx32":
		return true
	}
	return false
}

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
