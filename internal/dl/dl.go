// Package dl opens shared libraries at run time and looks up their symbols.
//
// gfxcuda links against no GPU library at build time: libcuda.so.1,
// libvulkan.so.1 and libEGL.so.1 are opened with dlopen when first needed, so
// the same binary runs on machines with and without each driver. On Windows
// the same functions use LoadLibraryEx and GetProcAddress (vulkan-1.dll,
// nvcuda.dll).
package dl

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrNotFound is wrapped by the errors Open returns when no library of the
// given names could be loaded.
var ErrNotFound = errors.New("shared library not found")

// Library is an opened shared library. Libraries stay open for the life of
// the process: GPU drivers do not support being unloaded and reloaded.
type Library struct {
	name   string
	handle handle // dlopen's handle; on Windows, the module
}

// NotFoundError is Open's error: none of Names could be loaded. It wraps
// ErrNotFound.
type NotFoundError struct {
	Names   []string // the names tried, in order
	Reasons []string // dlerror's message for each
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%v: %v: %v", ErrNotFound, e.Names, e.Reasons)
}

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Name is the file name the library was opened by.
func (l *Library) Name() string { return l.name }

// realPath is f absolute with its symbolic links resolved, or f made
// absolute when it cannot be resolved.
func realPath(f string) string {
	if r, err := filepath.EvalSymlinks(f); err == nil {
		f = r
	}
	if a, err := filepath.Abs(f); err == nil {
		f = a
	}
	return f
}
