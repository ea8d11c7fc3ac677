//go:build linux

package sharenet

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The pidfd door: sharing without any socket, between processes of one
// PID namespace (containers started with --pid container:NAME).
//
// pidfd_getfd(2) copies a descriptor out of another process, if the caller
// may ptrace it (PTRACE_MODE_ATTACH_REALCREDS: the same uid under Yama's
// ptrace_scope 0 or 1, or CAP_SYS_PTRACE). Such a caller can read and
// write the exporter's memory anyway, secret included: no protocol can
// keep it out, so the token's secret cannot gate pidfd_getfd itself, and
// exporters offer this path only when asked (RendezvousPidfd). What the
// door guarantees is that gfxcuda never hands a resource to a process that
// does not present the token's secret, exactly as the sockets do:
//
//   - the only descriptor the token names is the door: one page of
//     sealed shared memory (a memfd) holding no resource;
//   - an opener takes the door, checks its 16-byte identity against the
//     token's (so a reused pid cannot collect the secret), takes its lock,
//     writes its request (the same 32 bytes as on a socket: id and secret)
//     and its pid, and wakes the exporter (a futex);
//   - the exporter reads the opener's uid, gid and groups from
//     /proc/PID/status, pinned by a pidfd (checked alive after the read),
//     applies the same checks as on a socket (allow-list, constant-time
//     secret compare), logs refusals, and answers with a status and a
//     message; only on success does it create the resource's descriptors,
//     and it closes them as soon as the opener has copied them with
//     pidfd_getfd, or after 2 s;
//   - everything read from the door is bounded and checked: an opener can
//     garble only its own request. A lock held by an opener that died or
//     stalled is broken after 2 s.
//
// Layout (little-endian words, futexes on the state word):
//
//	0 magic "GFXD" | 4 version | 8 identity(16) | 24 lock: opener's pid or 0 | 28 state
//	32 unused(8) | 40 pid | 44 unused(12) | 56 request(32)
//	88 status | 92 nfds | 96 fds(8×4) | 128 message length | 132 message
const (
	doorMagic   = 0x44584647 // "GFXD"
	doorVersion = 1
	doorSize    = 4096
	dOffMagic   = 0
	dOffVersion = 4
	dOffID      = 8
	dOffLock    = 24
	dOffState   = 28
	dOffPid     = 40
	dOffReq     = 56
	dOffStatus  = 88
	dOffNFDs    = 92
	dOffFDs     = 96
	dOffMsgLen  = 128
	dOffMsg     = 132
	maxDoorMsg  = doorSize - dOffMsg

	dsIdle    = 0 // no request
	dsRequest = 1 // an opener wrote a request
	dsReply   = 2 // the exporter wrote its reply
	dsTaken   = 3 // the opener copied the descriptors
	dsClosed  = 4 // the exporter closed the door
)

// door is an exporter's pidfd door.
type door struct {
	fd   int
	mem  []byte
	id   [16]byte
	srv  *server
	quit atomic.Bool
	done chan struct{}
}

func (d *door) u32(off int) *uint32 { return (*uint32)(unsafe.Pointer(&d.mem[off])) }

// openDoor makes the door of s and starts serving it. Under Yama's
// ptrace_scope 1 it lets processes of this uid ptrace this one
// (PR_SET_PTRACER_ANY), which pidfd_getfd needs.
func openDoor(s *server) (*door, error) {
	if !procIsOurs() {
		return nil, errors.New("/proc is not this process's PID namespace's (a PID namespace made without remounting /proc: unshare --mount-proc): the door could not read its openers' credentials")
	}
	fd, err := unix.MemfdCreate("gfxcuda-door", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	if err := unix.Ftruncate(fd, doorSize); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// Openers map it: none may shrink it under us.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_SEAL); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sealing: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, doorSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mmap: %w", err)
	}
	d := &door{fd: fd, mem: mem, srv: s, done: make(chan struct{})}
	if _, err := rand.Read(d.id[:]); err != nil {
		unix.Munmap(mem)
		unix.Close(fd)
		return nil, err
	}
	le := binary.LittleEndian
	le.PutUint32(mem[dOffVersion:], doorVersion)
	copy(mem[dOffID:], d.id[:])
	atomic.StoreUint32(d.u32(dOffMagic), doorMagic)
	if ptraceScope() == 1 {
		unix.Prctl(unix.PR_SET_PTRACER, unix.PR_SET_PTRACER_ANY, 0, 0, 0)
	}
	s.wg.Add(1)
	go d.serve()
	return d, nil
}

// close stops serving, tells openers holding the door that it is closed,
// and unmaps it.
func (d *door) close() {
	d.quit.Store(true)
	FutexWake(d.u32(dOffState))
	<-d.done
	atomic.StoreUint32(d.u32(dOffMagic), 0)
	atomic.StoreUint32(d.u32(dOffState), dsClosed)
	FutexWake(d.u32(dOffState))
	unix.Munmap(d.mem)
	unix.Close(d.fd)
}

// serve answers requests until close.
func (d *door) serve() {
	defer d.srv.wg.Done()
	defer close(d.done)
	state, lock := d.u32(dOffState), d.u32(dOffLock)
	var heldBy uint32
	var heldSince time.Time
	for !d.quit.Load() {
		switch atomic.LoadUint32(state) {
		case dsRequest:
			d.handle()
			heldBy = 0
			continue
		case dsIdle:
			// A lock taken by an opener that never posted its request
			// (it died, or stalls) is broken after ioTimeout.
			if l := atomic.LoadUint32(lock); l == 0 {
				heldBy = 0
			} else if l != heldBy {
				heldBy, heldSince = l, time.Now()
			} else if time.Since(heldSince) > ioTimeout {
				atomic.CompareAndSwapUint32(lock, l, 0)
				heldBy = 0
			}
			FutexWait(state, dsIdle, 100*time.Millisecond)
		default: // a reply or "taken" left by a garbling opener
			d.reset()
		}
	}
}

// reset clears the reply and frees the lock.
func (d *door) reset() {
	clear(d.mem[dOffPid:doorSize])
	atomic.StoreUint32(d.u32(dOffState), dsIdle)
	atomic.StoreUint32(d.u32(dOffLock), 0)
	FutexWake(d.u32(dOffState))
}

// handle answers the request in the door.
func (d *door) handle() {
	le := binary.LittleEndian
	pid := int(le.Uint32(d.mem[dOffPid:]))
	raw := make([]byte, reqLen)
	copy(raw, d.mem[dOffReq:dOffReq+reqLen])
	clear(d.mem[dOffReq : dOffReq+reqLen]) // the secret does not linger
	var st byte
	var msg []byte
	var fds []int
	pfd := -1
	p, err := doorPeer(pid)
	if err == nil {
		pfd = p.pidfd
		q, qerr := readRequest(bytes.NewReader(raw))
		if qerr != nil {
			d.srv.logRefusal(nil, p.Peer, qerr.Error())
			st, msg = stBadRequest, []byte(qerr.Error())
		} else {
			st, msg, fds = d.srv.answer(p.Peer, q)
		}
	} else {
		d.srv.logRefusal(nil, Peer{pid: pid, uid: -1, gid: -1, via: "pidfd door"}, err.Error())
		st, msg = stBadRequest, []byte(err.Error())
	}
	if len(msg) > maxDoorMsg {
		msg = msg[:maxDoorMsg]
	}
	le.PutUint32(d.mem[dOffStatus:], uint32(st))
	le.PutUint32(d.mem[dOffNFDs:], uint32(len(fds)))
	for i, fd := range fds {
		le.PutUint32(d.mem[dOffFDs+4*i:], uint32(fd))
	}
	le.PutUint32(d.mem[dOffMsgLen:], uint32(len(msg)))
	copy(d.mem[dOffMsg:], msg)
	atomic.StoreUint32(d.u32(dOffState), dsReply)
	FutexWake(d.u32(dOffState))
	// The descriptors stay in this process only until the opener has
	// copied them (or is gone, or ioTimeout has passed).
	deadline := time.Now().Add(ioTimeout)
	for atomic.LoadUint32(d.u32(dOffState)) == dsReply && time.Now().Before(deadline) && !d.quit.Load() {
		if pfd >= 0 && pidWatch(pid, pfd).Dead() {
			break
		}
		FutexWait(d.u32(dOffState), dsReply, 10*time.Millisecond)
	}
	CloseAll(fds)
	if pfd >= 0 {
		unix.Close(pfd)
	}
	d.reset()
}

// doorPeerInfo is an opener at the door and the pidfd that pins it.
type doorPeerInfo struct {
	Peer
	pidfd int
}

// doorPeer reads the credentials of process pid from /proc, pinned by a
// pidfd: the process checked alive after the read is the one read.
func doorPeer(pid int) (doorPeerInfo, error) {
	if pid <= 0 {
		return doorPeerInfo{}, fmt.Errorf("the request names pid %d", pid)
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return doorPeerInfo{}, fmt.Errorf("the requesting process %d: %w", pid, err)
	}
	p, err := procCreds(pid)
	if err == nil && pidWatch(pid, pfd).Dead() {
		err = fmt.Errorf("the requesting process %d exited", pid)
	}
	if err != nil {
		unix.Close(pfd)
		return doorPeerInfo{}, err
	}
	p.via = "pidfd door"
	return doorPeerInfo{Peer: p, pidfd: pfd}, nil
}

// procIsOurs reports whether /proc shows this process's PID namespace
// (/proc/self is our pid), so that /proc/PID is the process pidfd_open
// gives for PID.
func procIsOurs() bool {
	l, err := os.Readlink("/proc/self")
	return err == nil && l == strconv.Itoa(os.Getpid())
}

// procCreds reads a process's effective uid and gid and its groups from
// /proc/PID/status.
func procCreds(pid int) (Peer, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Peer{}, err
	}
	defer f.Close()
	p := Peer{pid: pid, uid: -1, gid: -1}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		switch k {
		case "Uid", "Gid":
			if len(f) < 2 { // real, effective, saved, filesystem
				continue
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				continue
			}
			if k == "Uid" {
				p.uid = n
			} else {
				p.gid = n
			}
		case "Groups":
			for _, g := range f {
				if n, err := strconv.Atoi(g); err == nil {
					p.groups = append(p.groups, n)
				}
			}
		}
	}
	if p.uid < 0 || p.gid < 0 {
		return Peer{}, fmt.Errorf("no credentials in /proc/%d/status", pid)
	}
	return p, nil
}

// doorError is a failure at the door before the exporter answered: why
// the pidfd path did not work.
type doorError struct {
	reason Reason
	detail string
	fix    string
	err    error
}

func (e *doorError) Error() string { return e.detail }
func (e *doorError) Unwrap() error { return e.err }

// doorFetch asks the exporter of t through its door. A refusal comes back
// as a *refusal; failures to reach the door as a *doorError.
func doorFetch(ctx context.Context, t *token) (*reply, error) {
	pid := int(t.PID)
	if ours := nsInode("pid"); ours != 0 && t.PIDNS != 0 && ours != t.PIDNS {
		return nil, &doorError{reason: ReasonPIDNamespace,
			detail: fmt.Sprintf("different PID namespace (the exporter's is pid:[%d], this process's pid:[%d]): its pid %d names another process here, or none", t.PIDNS, ours, pid),
			fix:    "share the exporter's PID namespace (docker run --pid container:EXPORTER, or --pid host; Kubernetes: shareProcessNamespace: true), or use a socket rendezvous"}
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		switch {
		case errors.Is(err, unix.ESRCH):
			return nil, &doorError{reason: ReasonExporterGone, detail: fmt.Sprintf("no process %d: the exporter exited", pid), err: err}
		case errors.Is(err, unix.ENOSYS):
			return nil, &doorError{reason: ReasonUnsupported, detail: "this kernel has no pidfd_open (Linux 5.3 or later)", fix: "use a socket rendezvous", err: err}
		}
		return nil, &doorError{reason: ReasonOther, detail: fmt.Sprintf("pidfd_open(%d): %v", pid, err), err: err}
	}
	defer unix.Close(pfd)
	dfd, err := unix.PidfdGetfd(pfd, int(t.DoorFD), 0)
	if err != nil {
		switch {
		case errors.Is(err, unix.EPERM):
			return nil, ptraceDenied(t, err)
		case errors.Is(err, unix.EBADF):
			return nil, &doorError{reason: ReasonExporterGone,
				detail: fmt.Sprintf("process %d has no descriptor %d: the exporter closed every resource it shared (or exited, and the pid is another process's now)", pid, t.DoorFD), err: err}
		case errors.Is(err, unix.ENOSYS):
			return nil, &doorError{reason: ReasonUnsupported, detail: "this kernel has no pidfd_getfd (Linux 5.6 or later)", fix: "use a socket rendezvous", err: err}
		}
		return nil, &doorError{reason: ReasonOther, detail: fmt.Sprintf("pidfd_getfd(%d, %d): %v", pid, t.DoorFD, err), err: err}
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstat(dfd, &st); err != nil || st.Size != doorSize || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, notTheExporter(t)
	}
	mem, err := unix.Mmap(dfd, 0, doorSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, notTheExporter(t)
	}
	defer unix.Munmap(mem)
	d := &door{mem: mem}
	le := binary.LittleEndian
	if atomic.LoadUint32(d.u32(dOffMagic)) != doorMagic || le.Uint32(mem[dOffVersion:]) != doorVersion ||
		!bytes.Equal(mem[dOffID:dOffID+16], t.Door[:]) {
		return nil, notTheExporter(t)
	}
	// The exporter runs as the uid the token names (or ours, format 1).
	if ec, err := procCreds(pid); err == nil && procIsOurs() && uint32(ec.uid) != wantUID(t) {
		return nil, &doorError{reason: ReasonUntrusted,
			detail: fmt.Sprintf("process %d runs as uid %d, not the exporter's uid %d: not trusting it", pid, ec.uid, wantUID(t))}
	}
	watchExp := pidWatch(pid, pfd)
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	expired := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return context.DeadlineExceeded
		}
		return nil
	}
	// Take the lock.
	me := uint32(os.Getpid())
	lock, state := d.u32(dOffLock), d.u32(dOffState)
	for wait := 50 * time.Microsecond; !atomic.CompareAndSwapUint32(lock, 0, me); wait = min(2*wait, 5*time.Millisecond) {
		if err := expired(); err != nil {
			return nil, &doorError{reason: ReasonBusy, detail: fmt.Sprintf("the exporter's door stayed busy: %v", err), err: err}
		}
		if watchExp.Dead() || atomic.LoadUint32(state) == dsClosed {
			return nil, &doorError{reason: ReasonExporterGone, detail: fmt.Sprintf("process %d exited or closed every resource it shared", pid)}
		}
		time.Sleep(wait)
	}
	unlock := func() { atomic.CompareAndSwapUint32(lock, me, 0) }
	switch atomic.LoadUint32(state) {
	case dsIdle:
	case dsClosed:
		return nil, &doorError{reason: ReasonExporterGone, detail: "the exporter closed every resource it shared"}
	default:
		unlock()
		return nil, &doorError{reason: ReasonBusy, detail: "the exporter's door is in use (retry)"}
	}
	le.PutUint32(mem[dOffPid:], me)
	copy(mem[dOffReq:], request{id: t.ID, secret: t.Secret}.encode())
	atomic.StoreUint32(state, dsRequest)
	FutexWake(state)
	for atomic.LoadUint32(state) != dsReply {
		if err := expired(); err != nil {
			clear(mem[dOffReq : dOffReq+reqLen])
			return nil, &doorError{reason: ReasonOther, detail: fmt.Sprintf("no answer at the exporter's door: %v", err), err: err}
		}
		if watchExp.Dead() || atomic.LoadUint32(state) == dsClosed {
			return nil, &doorError{reason: ReasonExporterGone, detail: fmt.Sprintf("process %d exited or closed every resource it shared", pid)}
		}
		FutexWait(state, dsRequest, 10*time.Millisecond)
	}
	status := byte(min(le.Uint32(mem[dOffStatus:]), 255))
	nfds := int(le.Uint32(mem[dOffNFDs:]))
	ml := min(int(le.Uint32(mem[dOffMsgLen:])), maxDoorMsg)
	msg := append([]byte(nil), mem[dOffMsg:dOffMsg+ml]...)
	var fds []int
	var gerr error
	if status == stOK {
		if nfds > maxFDs {
			gerr = fmt.Errorf("the exporter announced %d descriptors", nfds)
		}
		for i := 0; i < nfds && gerr == nil; i++ {
			fd, err := unix.PidfdGetfd(pfd, int(int32(le.Uint32(mem[dOffFDs+4*i:]))), 0)
			if err != nil {
				gerr = fmt.Errorf("copying the exporter's descriptor: %w", err)
				break
			}
			fds = append(fds, fd)
		}
	}
	atomic.StoreUint32(state, dsTaken)
	FutexWake(state)
	if gerr != nil {
		CloseAll(fds)
		return nil, &doorError{reason: ReasonOther, detail: gerr.Error(), err: gerr}
	}
	if status != stOK {
		return nil, &refusal{status: status, msg: string(msg)}
	}
	return &reply{fds: fds, extra: msg, pid: pid}, nil
}

func notTheExporter(t *token) error {
	return &doorError{reason: ReasonExporterGone,
		detail: fmt.Sprintf("descriptor %d of process %d is not the exporter's door: the exporter exited and its pid was reused", t.DoorFD, t.PID)}
}

// ptraceDenied explains a pidfd_getfd refused for lack of ptrace rights.
func ptraceDenied(t *token, err error) error {
	scope := ptraceScope()
	euid := os.Geteuid()
	detail := fmt.Sprintf("no ptrace rights over the exporter (pid %d, uid %d) as uid %d, which pidfd_getfd needs; %s",
		t.PID, wantUID(t), euid, ptraceScopeWords(scope))
	var fix string
	switch {
	case wantUID(t) != uint32(euid):
		fix = fmt.Sprintf("run the opener as the exporter's uid %d (docker run --user %d), or give it CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE); "+
			"other users are better served by a socket: --rendezvous fs with --allow-uid %d", wantUID(t), wantUID(t), euid)
	case scope >= 3:
		fix = "ptrace is off on this machine (kernel.yama.ptrace_scope=3): use a socket rendezvous (--rendezvous fs)"
	case scope == 2:
		fix = "give the opener CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE), or set kernel.yama.ptrace_scope=1"
	default:
		fix = "give the opener CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE; a seccomp or LSM profile may also deny ptrace: --security-opt seccomp=unconfined to check)"
	}
	return &doorError{reason: ReasonPtrace, detail: detail, fix: fix, err: err}
}
