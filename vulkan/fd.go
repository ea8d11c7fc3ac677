package vulkan

import (
	"fmt"
	"runtime"
)

// fdUnsupported is the error of an OPAQUE_FD export or import (what) that
// this device cannot do because missing says what is missing. On Windows it
// says instead that file descriptors are Linux-only and that Windows
// handles are not supported yet.
func (d *Device) fdUnsupported(what, missing string) error {
	if runtime.GOOS == "windows" {
		return fmt.Errorf("%s: %s: not supported on Windows yet (file descriptors are Linux-only; "+
			"Windows handles, OPAQUE_WIN32, are planned: see docs/windows.md): %w", d.pd.Name, what, ErrUnsupported)
	}
	return fmt.Errorf("%s: %s: %s: %w", d.pd.Name, what, missing, ErrUnsupported)
}
