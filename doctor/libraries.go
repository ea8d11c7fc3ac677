package doctor

import (
	"errors"
	"runtime"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/cu"
	"github.com/gfxcuda/gfxcuda/internal/dl"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// LoadedLibrary is a shared library gfxcuda loads at run time, and the file
// it was loaded from or where it was looked for.
type LoadedLibrary struct {
	// Name is the library's name: libvulkan.so.1, libcuda.so.1,
	// libEGL.so.1, or gfxcuda's own library (libgfxcuda.so) when the
	// checks run inside it (python -m gfxcuda doctor).
	Name string `json:"name"`
	// For says what it gives: "Vulkan", "CUDA", "OpenGL", "gfxcuda".
	For string `json:"for"`
	// Path is the file loaded, absolute with symbolic links resolved (the
	// file /proc/self/maps shows); "" when it was not found.
	Path string `json:"path"`
	// LookedFor and LookedIn say, when it was not found, the names tried
	// (with $GFXCUDA_LIBCUDA or $GFXCUDA_LIBEGL set, that file) and where
	// the dynamic linker looked for a name without a slash, in order.
	LookedFor []string `json:"looked_for,omitempty"`
	LookedIn  []string `json:"looked_in,omitempty"`
	// Error is why it was not loaded, from dlerror, when that is not that
	// there was no such file.
	Error string `json:"error,omitempty"`
}

// Found is true when the library was loaded.
func (l LoadedLibrary) Found() bool { return l.Path != "" }

// Detail is the library as the text report shows it: the file it was loaded
// from, or "not found" and where it was looked for.
func (l LoadedLibrary) Detail() string {
	if l.Found() {
		return l.Path
	}
	s := "not found"
	var names, paths []string
	for _, n := range l.LookedFor {
		if strings.Contains(n, "/") {
			paths = append(paths, n)
		} else {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		s += ": looked for " + strings.Join(names, ", ") + " in " + strings.Join(l.LookedIn, ", ")
	}
	if len(paths) > 0 {
		if len(names) > 0 {
			s += "; and for "
		} else {
			s += ": looked for "
		}
		s += strings.Join(paths, ", ")
	}
	if l.Error != "" {
		s += " (" + l.Error + ")"
	}
	return s
}

// ProbeLibraries loads the libraries gfxcuda opens at run time (Vulkan's
// loader, CUDA's driver library and EGL; each once per process, as their
// first use does) and says which file each came from, or where it was
// looked for; with them gfxcuda's own library when this code runs inside
// one (libgfxcuda.so).
func ProbeLibraries() []LoadedLibrary {
	_, vkErr := vk.Load()
	cuErr := cu.Load()
	eglErr := egl.Load()
	cuName, eglName := "libcuda.so.1", "libEGL.so.1"
	if runtime.GOOS == "windows" {
		cuName, eglName = "nvcuda.dll", "EGL (not on Windows yet)"
	}
	out := []LoadedLibrary{
		loaded(vk.LoaderName, "Vulkan", vk.LoaderFile(), vkErr),
		loaded(cuName, "CUDA", cu.LibraryFile(), cuErr),
		loaded(eglName, "OpenGL", egl.LibraryFile(), eglErr),
	}
	if self := dl.Self(); self != "" {
		name := self[strings.LastIndex(self, "/")+1:]
		out = append(out, LoadedLibrary{Name: name, For: "gfxcuda", Path: self})
	}
	return out
}

// loaded describes one library from its file ("" when none was opened) and
// its Load's error.
func loaded(name, what, file string, err error) LoadedLibrary {
	l := LoadedLibrary{Name: name, For: what, Path: file}
	var nf *dl.NotFoundError
	if file != "" || !errors.As(err, &nf) {
		if file == "" && err != nil {
			l.Error = err.Error()
		}
		return l
	}
	l.LookedFor = nf.Names
	for _, n := range nf.Names {
		if !strings.Contains(n, "/") {
			l.LookedIn = dl.SearchPath()
			break
		}
	}
	var why []string
	for _, r := range nf.Reasons {
		if !strings.HasSuffix(r, "No such file or directory") {
			why = append(why, r)
		}
	}
	l.Error = strings.Join(why, "; ")
	return l
}
