package egl

import "syscall"

// threadID is the calling OS thread's id.
func threadID() int { return syscall.Gettid() }

// closeFD closes a descriptor handed to this package.
func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
