//go:build linux

package sharenet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ProbeRendezvous checks each way to reach an exporter on this machine,
// without exporting anything or creating a directory: abstract sockets
// (and this network namespace), the filesystem socket's default directory
// (DefaultShareDir: present, trusted, writable), pidfd_getfd (the kernel, and
// Yama's ptrace_scope).
func ProbeRendezvous() []RendezvousCheck {
	return []RendezvousCheck{probeAbstract(), probeFS(DefaultShareDir()), probePidfd()}
}

func probeAbstract() RendezvousCheck {
	c := RendezvousCheck{Rendezvous: RendezvousAbstract}
	var rnd [8]byte
	rand.Read(rnd[:])
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@gfxcuda/probe-" + hex.EncodeToString(rnd[:]), Net: "unix"})
	if err != nil {
		c.Detail = fmt.Sprintf("cannot listen on an abstract Unix socket: %v", err)
		c.Fix = "use the filesystem socket (gfxcuda share --rendezvous fs)"
		return c
	}
	ln.Close()
	c.OK = true
	c.Detail = fmt.Sprintf("works; reaches processes of this network namespace (net:[%d]): the same host, or containers started with --network container:NAME or --network host", nsInode("net"))
	return c
}

// probeFS tells whether exporters could put their socket in dir.
func probeFS(dir string) RendezvousCheck {
	c := RendezvousCheck{Rendezvous: RendezvousFS}
	var st unix.Stat_t
	err := unix.Lstat(dir, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		parent := filepath.Dir(dir)
		if unix.Access(parent, unix.W_OK|unix.X_OK) != nil {
			c.Detail = fmt.Sprintf("%s does not exist and this user cannot create it in %s", dir, parent)
			c.Fix = fmt.Sprintf("set %s to a directory this user owns, or have root run: install -d -m 1777 %s", EnvShareDir, dir)
			return c
		}
		c.OK = true
		c.Detail = fmt.Sprintf("%s will be created (0700; 0711 when other users are allowed) by the first export; another container reaches it when it mounts it (docker run -v %s:%s) or shares /dev/shm (--ipc container:NAME)", dir, dir, dir)
		return c
	case err != nil:
		c.Detail = fmt.Sprintf("%s: %v", dir, err)
		c.Fix = fmt.Sprintf("set %s to a directory this user can use", EnvShareDir)
		return c
	}
	mode := st.Mode & 0o7777
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		c.Detail = fmt.Sprintf("%s is not a directory (links are not followed)", dir)
	case int(st.Uid) == os.Geteuid() && mode&0o022 != 0 && mode&unix.S_ISVTX == 0:
		c.Detail = fmt.Sprintf("%s (mode %04o) is writable by other users without the sticky bit: not trusted", dir, mode)
	case int(st.Uid) != os.Geteuid() && (st.Uid != 0 || mode&unix.S_ISVTX == 0):
		c.Detail = fmt.Sprintf("%s belongs to uid %d (mode %04o): not this user's, nor a root-owned directory with the sticky bit: not trusted", dir, st.Uid, mode)
	case unix.Access(dir, unix.W_OK|unix.X_OK) != nil:
		c.Detail = fmt.Sprintf("this user cannot create sockets in %s (mode %04o)", dir, mode)
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%s (mode %04o, uid %d) is usable; another container reaches it when it mounts it (docker run -v %s:%s) or shares /dev/shm (--ipc container:NAME)", dir, mode, st.Uid, dir, dir)
		return c
	}
	c.Fix = fmt.Sprintf("set %s (or gfxcuda share --dir) to a directory this user owns, or have root run: install -d -m 1777 %s", EnvShareDir, dir)
	return c
}

func probePidfd() RendezvousCheck {
	c := RendezvousCheck{Rendezvous: RendezvousPidfd}
	scope := ptraceScope()
	pfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		c.Detail = fmt.Sprintf("pidfd_open: %v (Linux 5.3 or later)", err)
		c.Fix = "use a socket rendezvous"
		return c
	}
	defer unix.Close(pfd)
	fd, err := unix.PidfdGetfd(pfd, pfd, 0)
	if err != nil {
		c.Detail = fmt.Sprintf("pidfd_getfd: %v (Linux 5.6 or later; a seccomp profile may deny it)", err)
		c.Fix = "use a socket rendezvous; in Docker, a seccomp profile allowing pidfd_getfd (--security-opt seccomp=unconfined to check)"
		return c
	}
	unix.Close(fd)
	c.OK = scope < 3
	c.Detail = fmt.Sprintf("pidfd_getfd works; exporters offer it when asked (--rendezvous pidfd), to processes of this PID namespace (pid:[%d]) with ptrace rights over them: %s",
		nsInode("pid"), ptraceScopeWords(scope))
	switch {
	case scope >= 3:
		c.Fix = "ptrace is off (kernel.yama.ptrace_scope=3): use a socket rendezvous"
	case scope == 2:
		c.Fix = "openers need CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE)"
	default:
		c.Fix = "share the PID namespace (docker run --pid container:NAME) and run as the exporter's uid"
	}
	return c
}
