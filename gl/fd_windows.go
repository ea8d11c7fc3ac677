package gl

// closeFD does nothing on Windows: GL (through EGL) is not loaded there
// yet, so no descriptor reaches this package.
func closeFD(int) {}
