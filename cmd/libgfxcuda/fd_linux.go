package main

import (
	"C"
	"syscall"
)

// checkFD refuses what is not an open descriptor before an import takes it.
func checkFD(fd C.int) error {
	if fd < 0 {
		return errorf(stInvalid, "gfxcuda: file descriptor %d", fd)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(fd), &st); err != nil {
		return errorf(stInvalid, "gfxcuda: file descriptor %d is not open: %v", fd, err)
	}
	return nil
}
