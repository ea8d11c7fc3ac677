package link

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// SocketPair returns a connected pair of Unix stream sockets: the control
// channel of a link whose two ends are in one process (a loopback).
func SocketPair() (net.Conn, net.Conn, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("link: socketpair: %w", err)
	}
	var cs [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "link control")
		c, err := net.FileConn(f) // dups fd
		f.Close()
		if err != nil {
			if i == 1 {
				cs[0].Close()
			} else {
				unix.Close(fds[1])
			}
			return nil, nil, fmt.Errorf("link: socketpair: %w", err)
		}
		cs[i] = c
	}
	return cs[0], cs[1], nil
}
