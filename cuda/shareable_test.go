//go:build linux

package cuda

import (
	"errors"
	"syscall"
	"testing"
)

// TestShareableExportsOnce: ExportFD exports the allocation once and hands
// out duplicates of that descriptor (one open file: same device and
// inode), each the caller's to close; Close ends the exports.
func TestShareableExportsOnce(t *testing.T) {
	ctx := needCUDA(t)
	m, err := ctx.AllocShareable(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	var st [2]syscall.Stat_t
	var fds [2]int
	for i := range fds {
		if fds[i], err = m.ExportFD(); err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fds[i])
		if err := syscall.Fstat(fds[i], &st[i]); err != nil {
			t.Fatal(err)
		}
	}
	if fds[0] == fds[1] || st[0].Dev != st[1].Dev || st[0].Ino != st[1].Ino {
		t.Errorf("exports: descriptors %d and %d, files %d:%d and %d:%d", fds[0], fds[1], st[0].Dev, st[0].Ino, st[1].Dev, st[1].Ino)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if fd, err := m.ExportFD(); !errors.Is(err, ErrClosed) {
		t.Errorf("ExportFD after Close: %d, %v", fd, err)
		syscall.Close(fd)
	}
}
