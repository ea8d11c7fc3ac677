//go:build linux

package sharenet

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// wantUID is the uid the exporter of t must run as.
func wantUID(t *token) uint32 {
	if t.UID == anyUID {
		return uint32(os.Geteuid())
	}
	return t.UID
}

// fetch asks the exporter named by t for its resource's descriptors,
// trying the ways the token offers in order (abstract socket, filesystem
// socket, pidfd) until one reaches it. Its answer, success or refusal,
// ends the search; when no way reaches it, the *OpenError says why for
// each.
func fetch(ctx context.Context, t *token, o OpenOptions) (*reply, error) {
	want := o.Rendezvous
	if want == RendezvousAuto {
		if env := os.Getenv(EnvShareRendezvous); env != "" {
			if r, err := ParseRendezvous(env); err == nil {
				want = r
			}
		}
	}
	if want == RendezvousAuto {
		want = RendezvousAll
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	e := &OpenError{Kind: t.Kind}
	offered := t.rendezvous()
	for _, rv := range []Rendezvous{RendezvousAbstract, RendezvousFS, RendezvousPidfd} {
		if offered&rv == 0 {
			continue
		}
		if want&rv == 0 {
			e.Attempts = append(e.Attempts, Attempt{Rendezvous: rv, Address: address(t, rv), Reason: ReasonDisabled,
				Detail: "offered by the exporter, left out here", Fix: fmt.Sprintf("allow it (--rendezvous %v, %s)", want|rv, EnvShareRendezvous)})
			continue
		}
		var r *reply
		var as []Attempt
		switch rv {
		case RendezvousAbstract:
			r, as = tryAbstract(ctx, t)
		case RendezvousFS:
			r, as = tryFS(ctx, t, o.Dir)
		case RendezvousPidfd:
			r, as = tryPidfd(ctx, t)
		}
		if r != nil {
			return r, nil
		}
		e.Attempts = append(e.Attempts, as...)
		if last := as[len(as)-1]; last.Reason == ReasonRefused {
			return nil, e // the exporter's answer
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(e.Attempts) == 0 {
		e.Attempts = append(e.Attempts, Attempt{Reason: ReasonDisabled, Detail: fmt.Sprintf("the token offers %v, this opener allows %v", offered, want)})
	}
	return nil, e
}

func tryAbstract(ctx context.Context, t *token) (*reply, []Attempt) {
	a := Attempt{Rendezvous: RendezvousAbstract, Address: "@" + t.Addr}
	// The network namespace is compared only when the connection fails
	// (reading /proc/self/ns/net costs 6–20 µs, a third of a warm round
	// trip): in another namespace the name is not there, or is someone
	// else's socket, which the peer's credentials and the secret turn away
	// as they would any impostor.
	return dialAndAsk(ctx, t, "@"+t.Addr, a, func(err error) (Reason, string, string) {
		if ours := nsInode("net"); ours != 0 && t.NetNS != 0 && ours != t.NetNS {
			return ReasonNetNamespace,
				fmt.Sprintf("different network namespace (the exporter's is net:[%d], this process's net:[%d]); an abstract socket belongs to one", t.NetNS, ours),
				"run both in one network namespace (docker run --network container:EXPORTER, or the containers of one Kubernetes pod), " +
					"or have the exporter offer a filesystem socket in a directory both mount (gfxcuda share --dir DIR, " + EnvShareDir + "; docker run -v /dev/shm/gfxcuda:/dev/shm/gfxcuda for both)"
		}
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return ReasonExporterGone, "no exporter listens there: it exited, or closed every resource it shared", ""
		}
		return ReasonOther, "connecting: " + err.Error(), ""
	})
}

func tryFS(ctx context.Context, t *token, remap string) (*reply, []Attempt) {
	dir, name := filepath.Dir(t.Path), filepath.Base(t.Path)
	if remap != "" {
		r, a := tryFSPath(ctx, t, filepath.Join(remap, name), false)
		return r, []Attempt{a}
	}
	r, a := tryFSPath(ctx, t, t.Path, true)
	if r != nil || a.Reason != ReasonDirNotShared {
		return r, []Attempt{a}
	}
	// The exporter's directory is not here: SetExportDefaults' Dir or
	// GFXCUDA_SHARE_DIR may name where it is mounted.
	if env := fallbackDir(); env != "" && filepath.Clean(env) != dir {
		r, b := tryFSPath(ctx, t, filepath.Join(env, name), false)
		return r, []Attempt{a, b}
	}
	return nil, []Attempt{a}
}

// tryFSPath tries the socket at path; identify checks its directory
// against the token's (the exporter's own path).
func tryFSPath(ctx context.Context, t *token, path string, identify bool) (*reply, Attempt) {
	a := Attempt{Rendezvous: RendezvousFS, Address: path}
	dir := filepath.Dir(path)
	mount := fmt.Sprintf("mount the exporter's directory in this container (docker run -v HOSTDIR:%s for both containers, "+
		"or --ipc container:EXPORTER when it is under /dev/shm), or say where it is mounted here (gfxcuda open --dir DIR, OpenOptions.Dir, %s)", filepath.Dir(t.Path), EnvShareDir)
	euid, egid := os.Geteuid(), os.Getegid()
	perm := func(what string, err error) Attempt {
		a.Reason, a.Err = ReasonPermission, err
		a.Detail = fmt.Sprintf("uid %d may not %s (the exporter lets only its own uid in unless told otherwise)", euid, what)
		a.Fix = fmt.Sprintf("the exporter must allow this user: gfxcuda share --allow-uid %d or --allow-gid %d (ExportOptions.AllowUIDs, AllowGIDs), which opens its directory to other users (0711) and its socket (0666)", euid, egid)
		return a
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		switch {
		case errors.Is(err, unix.EACCES):
			return nil, perm("enter "+dir, err)
		case !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR):
			a.Reason, a.Err, a.Detail = ReasonOther, err, err.Error()
			return nil, a
		}
		var ds unix.Stat_t
		derr := unix.Stat(dir, &ds)
		switch {
		case derr != nil && errors.Is(derr, unix.EACCES):
			return nil, perm("enter "+dir, derr)
		case derr != nil:
			a.Reason, a.Err = ReasonDirNotShared, derr
			a.Detail = fmt.Sprintf("the directory %s does not exist in this process's mount namespace", dir)
			a.Fix = mount
		case identify && t.DirIno != 0 && (uint64(ds.Dev) != t.DirDev || ds.Ino != t.DirIno):
			a.Reason = ReasonDirNotShared
			a.Detail = fmt.Sprintf("%s here is not the exporter's directory (device:inode %d:%d here, %d:%d there): it is not shared with the exporter",
				dir, ds.Dev, ds.Ino, t.DirDev, t.DirIno)
			a.Fix = mount
		case identify:
			a.Reason = ReasonExporterGone
			a.Detail = "no such socket in the exporter's directory: the exporter closed every resource it shared, or exited"
		default:
			a.Reason = ReasonDirNotShared
			a.Detail = fmt.Sprintf("no such socket: %s is not the exporter's directory, or the exporter is gone", dir)
			a.Fix = mount
		}
		return nil, a
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		a.Reason, a.Detail = ReasonOther, "not a socket"
		return nil, a
	}
	r, as := dialAndAsk(ctx, t, path, a, func(err error) (Reason, string, string) {
		switch {
		case errors.Is(err, syscall.EACCES):
			p := perm("connect to "+path, err)
			return p.Reason, p.Detail, p.Fix
		case errors.Is(err, syscall.ECONNREFUSED):
			return ReasonExporterGone, "a socket is there but no process listens on it: the exporter died without removing it (the next exporter of its user removes it)", ""
		case errors.Is(err, syscall.ENOENT):
			return ReasonExporterGone, "the socket went away: the exporter closed every resource it shared", ""
		}
		return ReasonOther, "connecting: " + err.Error(), ""
	})
	if r != nil {
		return r, a
	}
	return nil, as[0]
}

func tryPidfd(ctx context.Context, t *token) (*reply, []Attempt) {
	a := Attempt{Rendezvous: RendezvousPidfd, Address: address(t, RendezvousPidfd)}
	r, err := doorFetch(ctx, t)
	if err == nil {
		return r, nil
	}
	var rf *refusal
	var de *doorError
	switch {
	case errors.As(err, &rf):
		a.Reason, a.Err, a.Detail = ReasonRefused, rf, rf.msg
	case errors.As(err, &de):
		a.Reason, a.Detail, a.Fix, a.Err = de.reason, de.detail, de.fix, de.err
	default:
		a.Reason, a.Detail, a.Err = ReasonOther, err.Error(), err
	}
	return nil, []Attempt{a}
}

// dialAndAsk connects to addr ("@name" for an abstract socket) and asks
// for t's resource. dialFailed says what a failed connect means.
//
// The exchange is one connect, one request and one reply: it runs on
// blocking system calls (socket timeouts bound them by ctx's deadline)
// rather than through Go's network poller, whose wake-ups and first use in
// a process cost more than the exchange itself (an open is a fraction of
// a millisecond). A cancellation of ctx is seen between the calls; the
// exporter ends every exchange within its 2-second limit.
func dialAndAsk(ctx context.Context, t *token, addr string, a Attempt, dialFailed func(error) (Reason, string, string)) (*reply, []Attempt) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	fd, err := dialUnix(ctx, addr, deadline)
	if err != nil {
		a.Reason, a.Detail, a.Fix = dialFailed(err)
		a.Err = err
		return nil, []Attempt{a}
	}
	defer unix.Close(fd)
	p, err := peerCredFD(fd)
	if err != nil {
		a.Reason, a.Err, a.Detail = ReasonOther, err, "reading the exporter's credentials: "+err.Error()
		return nil, []Attempt{a}
	}
	if uint32(p.uid) != wantUID(t) {
		a.Reason = ReasonUntrusted
		a.Detail = fmt.Sprintf("the process serving it runs as uid %d, not the exporter's uid %d: not trusting it", p.uid, wantUID(t))
		return nil, []Attempt{a}
	}
	s := blockingSocket{fd: fd, ctx: ctx, deadline: deadline}
	if err := s.writeAll(request{id: t.ID, secret: t.Secret}.encode()); err != nil {
		a.Reason, a.Err, a.Detail = ReasonOther, err, "sending the request: "+err.Error()
		return nil, []Attempt{a}
	}
	r, err := readReplyFrom(s.recvmsg, s.read)
	if err != nil {
		var rf *refusal
		if errors.As(err, &rf) {
			a.Reason, a.Err, a.Detail = ReasonRefused, rf, rf.msg
		} else {
			a.Reason, a.Err, a.Detail = ReasonOther, err, err.Error()
		}
		return nil, []Attempt{a}
	}
	r.pid = p.pid
	return r, nil
}

// dialUnix connects a blocking Unix stream socket to addr ("@name": an
// abstract socket), by deadline. The errors are the system calls' (errors.Is
// with syscall.ECONNREFUSED, ENOENT, EACCES).
func dialUnix(ctx context.Context, addr string, deadline time.Time) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	s := blockingSocket{fd: fd, ctx: ctx, deadline: deadline}
	err = s.retry(unix.SO_SNDTIMEO, func() error { return unix.Connect(fd, &unix.SockaddrUnix{Name: addr}) })
	if err != nil {
		unix.Close(fd)
		return -1, &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: addr, Net: "unix"}, Err: os.NewSyscallError("connect", err)}
	}
	return fd, nil
}

// blockingSocket runs blocking calls on a socket, each bounded by the time
// left to deadline (SO_RCVTIMEO, SO_SNDTIMEO) and retried when a signal
// interrupts it (the kernel does not restart socket calls that have a
// timeout).
type blockingSocket struct {
	fd       int
	ctx      context.Context
	deadline time.Time
}

// replySpin is how long an opener polls for the exporter's reply before
// blocking.
const replySpin = 200 * time.Microsecond

// errDeadline is a blocking call that ran past the deadline.
var errDeadline = fmt.Errorf("share: talking to the exporter: %w", os.ErrDeadlineExceeded)

func (s blockingSocket) retry(opt int, call func() error) error {
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		left := time.Until(s.deadline)
		if left <= 0 {
			return errDeadline
		}
		tv := unix.NsecToTimeval(max(left, time.Millisecond).Nanoseconds())
		if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, opt, &tv); err != nil {
			return err
		}
		err := call()
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINPROGRESS):
			return errDeadline
		}
		return err
	}
}

func (s blockingSocket) writeAll(b []byte) error {
	for len(b) > 0 {
		var n int
		err := s.retry(unix.SO_SNDTIMEO, func() (err error) {
			n, err = unix.SendmsgN(s.fd, b, nil, nil, unix.MSG_NOSIGNAL)
			return err
		})
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func (s blockingSocket) recvmsg(b, oob []byte) (n, oobn, flags int, err error) {
	// The exporter answers within about 100 µs: polling for that
	// long saves the wake-up of a thread blocked in the kernel, which
	// costs as much again. A bounded, one-time cost per open.
	for t0 := time.Now(); time.Since(t0) < replySpin; {
		n, oobn, flags, _, err = unix.Recvmsg(s.fd, b, oob, unix.MSG_CMSG_CLOEXEC|unix.MSG_DONTWAIT)
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
			return n, oobn, flags, err
		}
	}
	err = s.retry(unix.SO_RCVTIMEO, func() (err error) {
		n, oobn, flags, _, err = unix.Recvmsg(s.fd, b, oob, unix.MSG_CMSG_CLOEXEC)
		return err
	})
	return n, oobn, flags, err
}

func (s blockingSocket) read(b []byte) (n int, err error) {
	err = s.retry(unix.SO_RCVTIMEO, func() (err error) {
		n, err = unix.Read(s.fd, b)
		return err
	})
	if err == nil && n == 0 && len(b) > 0 {
		err = io.EOF
	}
	return n, err
}

// readReply reads one reply and its descriptors from c; on error it
// closes every descriptor received. A refusal is a *refusal.
func readReply(c *net.UnixConn) (*reply, error) {
	return readReplyFrom(func(b, oob []byte) (int, int, int, error) {
		n, oobn, flags, _, err := c.ReadMsgUnix(b, oob)
		return n, oobn, flags, err
	}, c.Read)
}

// readReplyFrom reads one reply and its descriptors with recvmsg (the
// first part and the descriptors) and read (the rest); on error it closes
// every descriptor received. A refusal is a *refusal.
func readReplyFrom(recvmsg func(b, oob []byte) (n, oobn, flags int, err error), read func([]byte) (int, error)) (*reply, error) {
	buf := make([]byte, replyHdr+maxReplyMsg)
	oob := make([]byte, unix.CmsgSpace(4*maxFDs))
	n, oobn, flags, err := recvmsg(buf, oob)
	var fds []int
	if oobn > 0 {
		msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		if perr == nil {
			for _, m := range msgs {
				if got, err := unix.ParseUnixRights(&m); err == nil {
					fds = append(fds, got...)
				}
			}
		}
	}
	fail := func(e error) (*reply, error) {
		CloseAll(fds)
		return nil, e
	}
	if err != nil {
		return fail(fmt.Errorf("share: reading the exporter's reply: %w", err))
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return fail(fmt.Errorf("share: the exporter sent more than %d descriptors", maxFDs))
	}
	for n < replyHdr {
		m, err := read(buf[n:replyHdr])
		if err != nil {
			return fail(fmt.Errorf("share: truncated reply from the exporter: %w", err))
		}
		n += m
	}
	if !bytes.Equal(buf[:4], replyMagic[:]) {
		return fail(errors.New("share: the exporter's reply is not a gfxcuda reply"))
	}
	status, nfds, ml := buf[4], int(buf[5]), int(binary.LittleEndian.Uint16(buf[6:]))
	if ml > maxReplyMsg {
		return fail(fmt.Errorf("share: reply message of %d bytes", ml))
	}
	for n < replyHdr+ml {
		m, err := read(buf[n : replyHdr+ml])
		if err != nil {
			return fail(fmt.Errorf("share: truncated reply from the exporter: %w", err))
		}
		n += m
	}
	msg := append([]byte(nil), buf[replyHdr:replyHdr+ml]...)
	if status != stOK {
		return fail(&refusal{status: status, msg: string(msg)})
	}
	if nfds != len(fds) {
		return fail(fmt.Errorf("share: the exporter announced %d descriptors and sent %d", nfds, len(fds)))
	}
	return &reply{fds: fds, extra: msg}, nil
}
