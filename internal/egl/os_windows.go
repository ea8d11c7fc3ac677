package egl

import "golang.org/x/sys/windows"

// threadID is the calling OS thread's id.
func threadID() int { return int(windows.GetCurrentThreadId()) }

// closeFD does nothing on Windows: no EGL or GL file descriptor exists
// there (EGL itself is not loaded on Windows yet).
func closeFD(int) {}
