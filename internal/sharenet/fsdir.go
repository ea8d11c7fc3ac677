//go:build linux

package sharenet

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The filesystem socket's directory.
//
// Who may write in it decides who could swap an exporter's socket for
// their own, so an existing directory is used only when
//
//   - this user owns it and no other user can write in it (no group or
//     world write permission, unless the sticky bit is set, which keeps
//     others from removing or renaming our entries), or
//   - root owns it with the sticky bit set (like /tmp: an administrator's
//     shared directory, e.g. `install -d -m 1777 /dev/shm/gfxcuda`);
//
// and never through a symbolic link (Lstat, O_NOFOLLOW). A missing
// directory is created 0700: only this user can enter it. When an export
// lets other users in (AllowUIDs, AllowGIDs), the directory gets o+x and
// g+x (0711: others can reach a socket whose name they know, the random
// name the token holds, but cannot list, create or remove anything) and
// the socket 0666 (connecting needs write permission on it). Nothing is
// made world-writable: only the exporter creates files there. The server
// still checks every peer's credentials and the secret; the permissions
// are a first gate, not the only one. Openers check that the process
// serving the socket runs as the uid the token names, so a socket swapped
// in by someone else would not be trusted anyway.

// prepareDir makes sure dir exists and may be trusted (see above), giving
// it o+x and g+x when others must reach sockets in it.
func prepareDir(dir string, others bool) (dirInfo, error) {
	if !filepath.IsAbs(dir) {
		return dirInfo{}, fmt.Errorf("the socket directory %q is not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	euid := os.Geteuid()
	var st unix.Stat_t
	err := unix.Lstat(dir, &st)
	if errors.Is(err, unix.ENOENT) {
		if err := unix.Mkdir(dir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return dirInfo{}, fmt.Errorf("creating the socket directory %s: %w", dir, err)
		}
		err = unix.Lstat(dir, &st)
	}
	if err != nil {
		return dirInfo{}, fmt.Errorf("the socket directory %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		what := "not a directory"
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			what = "a symbolic link (not followed: point GFXCUDA_SHARE_DIR at the real directory)"
		}
		return dirInfo{}, fmt.Errorf("the socket directory %s is %s", dir, what)
	}
	mode := st.Mode & 0o7777
	sticky := mode&unix.S_ISVTX != 0
	switch {
	case int(st.Uid) == euid:
		if mode&0o022 != 0 && !sticky {
			return dirInfo{}, fmt.Errorf("the socket directory %s (mode %04o) is writable by other users without the sticky bit: they could replace its sockets; chmod 0700 %s (or 1777)", dir, mode, dir)
		}
	case st.Uid == 0 && sticky:
		// An administrator's shared directory.
	default:
		return dirInfo{}, fmt.Errorf("the socket directory %s belongs to uid %d (mode %04o): not to this user (uid %d), and not a root-owned directory with the sticky bit; use another directory (%s, --dir) or have root run: install -d -m 1777 %s",
			dir, st.Uid, mode, euid, EnvShareDir, dir)
	}
	if others && mode&0o011 != 0o011 {
		if int(st.Uid) != euid {
			return dirInfo{}, fmt.Errorf("the socket directory %s (mode %04o, owned by uid %d) does not let other users enter it, and this user cannot change that: chmod go+x %s", dir, mode, st.Uid, dir)
		}
		// Through a descriptor opened without following links: the
		// mode changes on the directory checked above.
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return dirInfo{}, fmt.Errorf("opening the socket directory %s: %w", dir, err)
		}
		var st2 unix.Stat_t
		err = unix.Fstat(fd, &st2)
		if err == nil && (st2.Dev != st.Dev || st2.Ino != st.Ino) {
			err = errors.New("it was replaced while being checked")
		}
		if err == nil {
			err = unix.Fchmod(fd, uint32(mode|0o011))
		}
		unix.Close(fd)
		if err != nil {
			return dirInfo{}, fmt.Errorf("letting other users enter the socket directory %s: %w", dir, err)
		}
	}
	return dirInfo{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// fsSocket is a server's socket in one directory.
type fsSocket struct {
	dir    string
	path   string
	info   dirInfo
	ln     *net.UnixListener
	loop   *acceptLoop // serves ln
	others bool        // mode 0666: other users may connect
	uses   int         // exports offering it: the socket goes with the last
}

// socketName is the file name of a server's socket: its random nonce.
func socketName(nonce [12]byte) string { return hex.EncodeToString(nonce[:]) + ".sock" }

// isSocketName reports whether name is one socketName could return.
func isSocketName(name string) bool {
	h, ok := strings.CutSuffix(name, ".sock")
	if !ok || len(h) != 24 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// cleaned records the directories whose stale sockets this process
// removed already (once per directory per process).
var cleaned sync.Map

// removeStale removes the sockets of this user in dir that no process
// listens on any more (an exporter that was killed cannot remove its
// own). Liveness is tested by connecting, which works across network and
// PID namespaces (a live exporter in another container answers); a server
// drops a connection that sends nothing without logging it.
func removeStale(dir string) {
	if _, done := cleaned.LoadOrStore(dir, true); done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	euid := uint32(os.Geteuid())
	n := 0
	budget := time.Now().Add(time.Second) // the server's start waits for this
	for _, e := range ents {
		if n >= 256 || time.Now().After(budget) || !isSocketName(e.Name()) {
			continue
		}
		n++
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK || st.Uid != euid {
			continue
		}
		d := net.Dialer{Timeout: 200 * time.Millisecond}
		c, err := d.DialContext(context.Background(), "unix", p)
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, unix.ECONNREFUSED) {
			// Unlink only the socket checked: same inode still.
			var st2 unix.Stat_t
			if unix.Lstat(p, &st2) == nil && st2.Ino == st.Ino && st2.Dev == st.Dev {
				unix.Unlink(p)
			}
		}
	}
}

// listenFS creates the server's socket in dir.
func listenFS(dir string, nonce [12]byte, others bool) (*fsSocket, error) {
	dir = filepath.Clean(dir)
	info, err := prepareDir(dir, others)
	if err != nil {
		return nil, err
	}
	removeStale(dir)
	path := filepath.Join(dir, socketName(nonce))
	if len(path) > maxPath {
		return nil, fmt.Errorf("the socket path %s is %d bytes, more than a Unix socket's %d: choose a shorter directory", path, len(path), maxPath)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	s := &fsSocket{dir: dir, path: path, info: info, ln: ln}
	if err := s.setMode(others); err != nil {
		ln.Close()
		return nil, err
	}
	return s, nil
}

// setMode gives the socket 0600, or 0666 when other users may connect.
// Widening is for good (until the server stops).
func (s *fsSocket) setMode(others bool) error {
	mode := uint32(0o600)
	if others || s.others {
		mode = 0o666
	}
	// Fchmodat does not follow a link in the last component (a socket
	// cannot be swapped in our directory: only we write there).
	if err := unix.Fchmodat(unix.AT_FDCWD, s.path, mode, 0); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", s.path, err)
	}
	s.others = s.others || others
	return nil
}

// widen lets other users reach the socket (directory o+x, socket 0666).
func (s *fsSocket) widen() error {
	if s.others {
		return nil
	}
	if _, err := prepareDir(s.dir, true); err != nil {
		return err
	}
	return s.setMode(true)
}
