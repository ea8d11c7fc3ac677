package cuda

import "golang.org/x/sys/unix"

// closeFD closes a descriptor this package was given or made.
func closeFD(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// dupFD duplicates fd, close-on-exec.
func dupFD(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) }

// fdsRefused is nil where file descriptors of external memory and
// semaphores exist (Linux).
func fdsRefused() error { return nil }
