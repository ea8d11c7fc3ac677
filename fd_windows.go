package gfxcuda

// closeFD does nothing on Windows: OPAQUE_FD exports and imports are
// refused there before any descriptor exists (docs/windows.md).
func closeFD(int) {}
