package vulkan

import (
	"os"
	"syscall"
	"testing"
)

// fdOpen tells whether fd is an open file descriptor.
func fdOpen(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil
}

// devNullFD is a new descriptor of /dev/null, which the caller owns.
func devNullFD(t testing.TB) int {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return fd
}
