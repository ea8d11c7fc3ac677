package gfxcuda

import "syscall"

// closeFD closes a descriptor the face was given or made.
func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
