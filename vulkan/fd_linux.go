package vulkan

import "syscall"

// closeFD closes a file descriptor the caller handed over.
func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
