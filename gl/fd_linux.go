package gl

import "syscall"

// closeFD closes a descriptor handed to this package.
func closeFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}
