package gfxcuda

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// closeFD closes a descriptor the face was given or made.
func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}

// dupCloexec duplicates fd with close-on-exec set.
func dupCloexec(fd int) (int, error) {
	n, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("interop: duplicating file descriptor %d: %w", fd, err)
	}
	return n, nil
}
