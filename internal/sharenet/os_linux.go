package sharenet

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// nsInode returns the inode of /proc/self/ns/KIND (0 when /proc cannot
// tell): two processes are in the same namespace when the inodes match.
func nsInode(kind string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/"+kind, &st); err != nil {
		return 0
	}
	return st.Ino
}

// dirUsable reports whether path is a directory this process may create
// sockets in.
func dirUsable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir() && unix.Access(path, unix.W_OK|unix.X_OK) == nil
}

// CloseAll closes the descriptors of fds that are not negative.
func CloseAll(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}
