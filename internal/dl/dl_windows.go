package dl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// handle is a loaded module.
type handle = windows.Handle

var dlMu sync.Mutex // one loader call at a time, as on Linux

// Open loads the first of names that LoadLibraryEx can load. A name without
// a path is searched for as LoadLibrary searches (the executable's
// directory, the system directories, the current directory, then PATH); a
// name with one is loaded from there, its dependencies searched for next to
// it first (LOAD_WITH_ALTERED_SEARCH_PATH).
func Open(names ...string) (*Library, error) {
	dlMu.Lock()
	defer dlMu.Unlock()
	var reasons []string
	for _, n := range names {
		file, flags := n, uintptr(0)
		if strings.ContainsAny(n, `/\`) {
			// The flag wants an absolute path (relative: undefined).
			if a, err := filepath.Abs(n); err == nil {
				file, flags = a, windows.LOAD_WITH_ALTERED_SEARCH_PATH
			}
		}
		h, err := windows.LoadLibraryEx(file, 0, flags)
		if err == nil {
			return &Library{name: n, handle: h}, nil
		}
		reasons = append(reasons, err.Error())
	}
	return nil, &NotFoundError{Names: names, Reasons: reasons}
}

// Path is the file the library was loaded from (GetModuleFileName), made
// absolute with symbolic links resolved; Name when Windows does not say, ""
// for a nil Library.
func (l *Library) Path() string {
	if l == nil {
		return ""
	}
	f := moduleFile(l.handle)
	if f == "" {
		return l.name
	}
	return realPath(f)
}

// moduleFile is the file of a loaded module, "" when unknown.
func moduleFile(h windows.Handle) string {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetModuleFileName(h, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}

// Self is the DLL this code was linked into (such as gfxcuda.dll, loaded by
// Python), resolved as Path resolves; "" when the code is part of the
// executable.
func Self() string {
	f := Self
	pc := **(**uintptr)(unsafe.Pointer(&f))
	var mod windows.Handle
	err := windows.GetModuleHandleEx(windows.GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS|windows.GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
		*(**uint16)(unsafe.Pointer(&pc)), &mod) // FROM_ADDRESS takes an address, not a string
	if err != nil {
		return ""
	}
	var exe windows.Handle
	if windows.GetModuleHandleEx(windows.GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, nil, &exe) == nil && exe == mod {
		return ""
	}
	name := moduleFile(mod)
	if name == "" {
		return ""
	}
	return realPath(name)
}

// SearchPath is where Open looks for a name without a path, in order (the
// standard search order of LoadLibrary with safe DLL search mode): the
// executable's directory, the system directory, the Windows directory, the
// current directory, then the directories of PATH.
func SearchPath() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if d, err := windows.GetSystemDirectory(); err == nil {
		dirs = append(dirs, d)
	}
	if d, err := windows.GetWindowsDirectory(); err == nil {
		dirs = append(dirs, d)
	}
	if d, err := os.Getwd(); err == nil {
		dirs = append(dirs, d)
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Sym returns the address of symbol name (GetProcAddress), or an error if it
// is absent.
func (l *Library) Sym(name string) (unsafe.Pointer, error) {
	p, err := windows.GetProcAddress(l.handle, name)
	if err != nil || p == 0 {
		return nil, fmt.Errorf("%s: symbol %s not found: %w", l.name, name, err)
	}
	// p is a procedure's address in a module that stays loaded, no Go memory.
	return *(*unsafe.Pointer)(unsafe.Pointer(&p)), nil
}
