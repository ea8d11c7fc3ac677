package shmring

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The ring's few Linux system calls: the control block (a sealed memfd,
// mapped shared), descriptor duplication and the consumers' liveness
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

// closeFD closes fd and returns close's error.
func closeFD(fd int) error { return unix.Close(fd) }

// dupCloexec duplicates fd with close-on-exec set.
func dupCloexec(fd int) (int, error) {
	return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
}

// livenessPair is a connected pair of SOCK_SEQPACKET sockets: a ring's
// consumer keeps one end, the producer polls the other.
func livenessPair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
}
