//go:build linux

package sharenet

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDirTrust: the socket directory is created 0700, opened to others
// (0711) only when an export allows other users, and refused when a link,
// another user's, or writable by others without the sticky bit.
func TestDirTrust(t *testing.T) {
	base := t.TempDir()
	d := filepath.Join(base, "new")
	if _, err := prepareDir(d, false); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode()
	}
	if m := mode(d); m.Perm() != 0o700 || !m.IsDir() {
		t.Errorf("created %v, want a 0700 directory", m)
	}
	if _, err := prepareDir(d, true); err != nil {
		t.Fatal(err)
	}
	if m := mode(d); m.Perm() != 0o711 {
		t.Errorf("opened to others: %v, want 0711", m)
	}
	link := filepath.Join(base, "link")
	os.Symlink(d, link)
	if _, err := prepareDir(link, false); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v", err)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	unix.Chmod(open, 0o777)
	if _, err := prepareDir(open, false); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("world-writable: %v", err)
	}
	unix.Chmod(open, 0o1777) // sticky: others cannot remove our entries
	if _, err := prepareDir(open, false); err != nil {
		t.Errorf("ours with the sticky bit: %v", err)
	}
	if _, err := prepareDir("relative/dir", false); err == nil {
		t.Error("a relative path was accepted")
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 1000, 1000)
		if _, err := prepareDir(other, false); err == nil || !strings.Contains(err.Error(), "belongs to uid 1000") {
			t.Errorf("another user's: %v", err)
		}
	}
}

// TestFSSocketLifecycle: an export through the filesystem socket alone:
// the socket is 0600 in a 0700 directory, serves, goes with the last
// export; a stale socket (its exporter was killed) is removed by the next
// exporter, a live one is kept.
func TestFSSocketLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sock")
	if _, err := prepareDir(dir, false); err != nil {
		t.Fatal(err)
	}
	// A stale socket of this user: bound, its listener gone without
	// unlinking it. And a live one.
	var nonce [12]byte
	nonce[0] = 1
	stale := filepath.Join(dir, socketName(nonce))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	nonce[0] = 2
	live := filepath.Join(dir, socketName(nonce))
	ln2, err := net.ListenUnix("unix", &net.UnixAddr{Name: live, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	go func() {
		for {
			c, err := ln2.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ex := memfdExport(t, 12, 100, ExportOptions{Rendezvous: RendezvousFS, Dir: dir})
	if ex.Rendezvous() != RendezvousFS {
		t.Fatalf("offers %v", ex.Rendezvous())
	}
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there: %v", err)
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("the live socket was removed: %v", err)
	}
	tk, _ := parseToken(ex.Token())
	st, err := os.Lstat(tk.Path)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v (%v), want 0600", st.Mode(), err)
	}
	fds, _, err := Fetch(ctx10(t), ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFD(t, fds[0], 100), seededRandom(12, 100)) {
		t.Error("bytes differ")
	}
	CloseAll(fds)
	ex.Close()
	if _, err := os.Lstat(tk.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket outlived the last export offering it: %v", err)
	}
}
