package main

import "C"

// checkFD refuses every descriptor on Windows: file descriptors of other
// APIs' memory are Linux-only (Windows handles are not supported yet).
func checkFD(fd C.int) error {
	return errorf(stUnsupported, "gfxcuda: file descriptor %d: OPAQUE_FD imports are Linux-only; Windows handles are not supported yet (docs/windows.md)", fd)
}
