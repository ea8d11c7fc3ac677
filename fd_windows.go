package gfxcuda

import "fmt"

// closeFD does nothing on Windows: OPAQUE_FD exports and imports are
// refused there before any descriptor exists (docs/windows.md).
func closeFD(int) {}

// dupCloexec refuses on Windows: ImportBuffer and ImportTexture take
// Linux file descriptors, and Windows handles are not supported yet.
func dupCloexec(fd int) (int, error) {
	return -1, fmt.Errorf("interop: importing file descriptor %d: file descriptors are Linux-only; Windows handles are not supported yet (docs/windows.md): %w", fd, ErrUnsupported)
}
