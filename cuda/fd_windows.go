package cuda

import "fmt"

// errNoFDs is what an OPAQUE_FD import or export returns on Windows.
var errNoFDs = fmt.Errorf("cuda: file descriptors (OPAQUE_FD) are Linux-only; Windows handles (OPAQUE_WIN32) are not supported yet (docs/windows.md): %w", ErrorNotSupported)

// closeFD does nothing on Windows: no OPAQUE_FD descriptor is ever made
// there, and a HANDLE is no int to close.
func closeFD(int) {}

// dupFD refuses on Windows.
func dupFD(int) (int, error) { return -1, errNoFDs }

// fdsRefused says why OPAQUE_FD imports and exports cannot be made here.
func fdsRefused() error { return errNoFDs }
