package bench

import (
	"os"

	"golang.org/x/sys/unix"
)

// filePair returns a connected pair of Unix stream sockets as files.
func filePair() (*os.File, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "link-a"), os.NewFile(uintptr(fds[1]), "link-b"), nil
}
