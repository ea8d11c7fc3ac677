package gfxcuda

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// The face's few Linux system calls: the shared ring's control block (a
// sealed memfd, mapped), descriptor duplication, the liveness and control
// socket pairs. shm_windows.go refuses each.

// newControlBlock makes a sealed memfd of size bytes, mapped shared.
func newControlBlock(size int) (int, []byte, error) {
	fd, err := unix.MemfdCreate("gfxcuda-ring", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return -1, nil, fmt.Errorf("memfd: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	// Consumers map it too: seal its size so none can make the producer
	// fault by shrinking it.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_SEAL); err != nil {
		unix.Close(fd)
		return -1, nil, fmt.Errorf("sealing: %w", err)
	}
	mem, err := mapShared(fd, size)
	if err != nil {
		unix.Close(fd)
		return -1, nil, fmt.Errorf("mmap: %w", err)
	}
	return fd, mem, nil
}

// mapShared maps size bytes of fd, read-write, shared.
func mapShared(fd, size int) ([]byte, error) {
	return unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

// unmapShared unmaps what mapShared mapped.
func unmapShared(mem []byte) error { return unix.Munmap(mem) }

// fileSize is the size of the file fd.
func fileSize(fd int) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	return int(st.Size), nil
}

// closeFDErr closes fd and returns close's error.
func closeFDErr(fd int) error { return unix.Close(fd) }

// livenessPair is a connected pair of SOCK_SEQPACKET sockets: a ring's
// consumer keeps one end, the producer polls the other.
func livenessPair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
}

// dupCloexec duplicates fd with close-on-exec set.
func dupCloexec(fd int) (int, error) {
	n, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("interop: duplicating file descriptor %d: %w", fd, err)
	}
	return n, nil
}

// socketPair returns a connected pair of Unix stream sockets.
func socketPair() (net.Conn, net.Conn, error) {
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
