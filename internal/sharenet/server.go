//go:build linux

package sharenet

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// server is this process's one exporter: its resources, served on the
// abstract socket, filesystem sockets and the pidfd door its exports asked
// for, running while at least one resource is exported.
type server struct {
	nonce   [12]byte // names the sockets
	uid     int
	netns   uint64
	pidns   uint64
	abs     *acceptLoop // nil until an export asks for it
	absName string
	fs      map[string]*fsSocket // by directory
	door    *door
	doorUse int // exports offering the door: it closes with the last
	mu      sync.Mutex
	entries map[uint64]*entry
	gone    map[uint64][16]byte // withdrawn ids and their secrets, bounded
	order   []uint64
	conns   chan struct{}
	wg      sync.WaitGroup // accept loops and the door
	limit   rateLimit
}

const maxTombstones = 4096

// fsWarned holds the problems with the default socket directory already
// logged.
var fsWarned sync.Map

var global struct {
	mu  sync.Mutex
	srv *server
}

// logRefusal logs a refusal of p, through the entry's logger when known.
func (s *server) logRefusal(e *entry, p Peer, why string) {
	ok, suppressed := s.limit.allow()
	if !ok {
		return
	}
	logf := defaultLogf
	if e != nil && e.logf != nil {
		logf = e.logf
	}
	if suppressed > 0 {
		why += fmt.Sprintf(" (%d more refusals were not logged)", suppressed)
	}
	logf("gfxcuda share: refused %v: %s", p, why)
}

// register adds e under a new random id, starting the server and the
// rendezvous plan asks for if needed.
func register(e *entry, plan *exportPlan) (registered, error) {
	global.mu.Lock()
	defer global.mu.Unlock()
	started := false
	if global.srv == nil {
		s, err := newServer()
		if err != nil {
			return registered{}, err
		}
		global.srv, started = s, true
	}
	s := global.srv
	r, err := s.offer(plan, e)
	if err != nil {
		if started && len(s.entries) == 0 {
			s.stop()
			global.srv = nil
		}
		return registered{}, err
	}
	var idb [8]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return registered{}, err
	}
	r.id = binary.LittleEndian.Uint64(idb[:])
	s.mu.Lock()
	s.entries[r.id] = e
	s.mu.Unlock()
	return r, nil
}

// offer starts what plan asks for and returns where it is, recording in e
// what it uses. Called with global.mu held.
func (s *server) offer(plan *exportPlan, e *entry) (r registered, err error) {
	r = registered{uid: uint32(s.uid), netns: s.netns, pidns: s.pidns}
	defer func() {
		if err != nil {
			s.release(e)
		}
	}()
	logf := plan.logf
	if logf == nil {
		logf = defaultLogf
	}
	if plan.rv&RendezvousAbstract != 0 {
		if s.abs == nil {
			if err := s.listenAbstract(); err != nil {
				return r, err
			}
		}
		r.addr = s.absName
	}
	if plan.rv&RendezvousFS != 0 {
		fsock, err := s.listenFSDir(plan.dir, plan.others())
		switch {
		case err == nil:
			r.path, r.dir = fsock.path, fsock.info
			fsock.uses++
			e.fsDir = fsock.dir
		case plan.explicit&RendezvousFS != 0:
			return r, fmt.Errorf("share: the filesystem socket: %w", err)
		default:
			// The default directory, tried quietly: said once per
			// process and reason.
			msg := fmt.Sprintf("gfxcuda share: no filesystem socket (openers in other network namespaces will not reach this process): %v", err)
			if _, said := fsWarned.LoadOrStore(msg, true); !said {
				logf("%s", msg)
			}
		}
	}
	if plan.rv&RendezvousPidfd != 0 {
		if s.door == nil {
			d, err := openDoor(s)
			if err != nil {
				return r, fmt.Errorf("share: the pidfd door: %w", err)
			}
			s.door = d
		}
		r.pid, r.doorFD, r.doorID = uint32(os.Getpid()), uint32(s.door.fd), s.door.id
		s.doorUse++
		e.door = true
	}
	if r.addr == "" && r.path == "" && r.pid == 0 {
		return r, errors.New("share: no way for openers to reach this exporter (the rendezvous set is empty)")
	}
	return r, nil
}

// release gives back what e used: a filesystem socket or the door no
// export offers any more is closed (the socket file removed). Called with
// global.mu held.
func (s *server) release(e *entry) {
	if f := s.fs[e.fsDir]; f != nil && e.fsDir != "" {
		if f.uses--; f.uses <= 0 {
			f.loop.close() // stops its loop, removes the socket file
			delete(s.fs, e.fsDir)
		}
	}
	e.fsDir = ""
	if e.door && s.door != nil {
		if s.doorUse--; s.doorUse <= 0 {
			s.door.close()
			s.door = nil
		}
	}
	e.door = false
}

// unregister withdraws id; the server stops with its last resource.
func unregister(id uint64, secret [16]byte) {
	global.mu.Lock()
	defer global.mu.Unlock()
	s := global.srv
	if s == nil {
		return
	}
	s.mu.Lock()
	e, ok := s.entries[id]
	if !ok {
		s.mu.Unlock()
		return
	}
	delete(s.entries, id)
	s.tomb(id, secret)
	empty := len(s.entries) == 0
	s.mu.Unlock()
	s.release(e)
	if empty {
		s.stop()
		global.srv = nil
	}
}

func (s *server) tomb(id uint64, secret [16]byte) {
	s.gone[id] = secret
	s.order = append(s.order, id)
	if len(s.order) > maxTombstones {
		delete(s.gone, s.order[0])
		s.order = s.order[1:]
	}
}

func newServer() (*server, error) {
	s := &server{uid: os.Geteuid(), netns: nsInode("net"), pidns: nsInode("pid"), fs: map[string]*fsSocket{},
		entries: map[uint64]*entry{}, gone: map[uint64][16]byte{}, conns: make(chan struct{}, maxConns)}
	if _, err := rand.Read(s.nonce[:]); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *server) listenAbstract() error {
	name := "gfxcuda/" + hex.EncodeToString(s.nonce[:])
	// A leading '@' makes Go bind in the abstract namespace: no file, no
	// permissions to get wrong, gone when the process exits.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
	if err != nil {
		return fmt.Errorf("share: listening on an abstract Unix socket: %w", err)
	}
	l, err := s.serveListener(ln, "abstract socket @"+name)
	if err != nil {
		ln.Close()
		return err
	}
	s.abs, s.absName = l, name
	return nil
}

// listenFSDir returns the server's socket in dir, starting it if needed
// and letting other users reach it when others.
func (s *server) listenFSDir(dir string, others bool) (*fsSocket, error) {
	dir = filepath.Clean(dir)
	if f := s.fs[dir]; f != nil {
		if others {
			if err := f.widen(); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	f, err := listenFS(dir, s.nonce, others)
	if err != nil {
		return nil, err
	}
	if f.loop, err = s.serveListener(f.ln, "filesystem socket "+f.path); err != nil {
		f.ln.Close()
		return nil, err
	}
	s.fs[dir] = f
	return f, nil
}

// stop closes every listener (removing the filesystem sockets) and the
// door, and waits for the connections in progress. Called with global.mu
// held.
func (s *server) stop() {
	if s.abs != nil {
		s.abs.close()
	}
	for _, f := range s.fs {
		f.loop.close() // removes the socket file
	}
	if s.door != nil {
		s.door.close()
	}
	s.wg.Wait()
}

// accept serves ln through the network poller (serveNetpoll).
func (s *server) accept(ln *net.UnixListener, via string) {
	defer s.wg.Done()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and the like: back off instead of spinning.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case s.conns <- struct{}{}:
		default:
			c.SetDeadline(time.Now().Add(100 * time.Millisecond))
			writeReply(c, stBusy, []byte("exporter busy: too many connections at once; retry"), nil)
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-s.conns }()
			s.serve(c, via)
		}()
	}
}

// peerCred returns the connected peer's credentials (SO_PEERCRED, and its
// supplementary groups where the kernel tells them: SO_PEERGROUPS).
func peerCred(c *net.UnixConn) (Peer, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var p Peer
	var cerr error
	if err := rc.Control(func(fd uintptr) { p, cerr = peerCredFD(int(fd)) }); err != nil {
		return Peer{}, err
	}
	return p, cerr
}

// peerCredFD is peerCred of a socket descriptor.
func peerCredFD(fd int) (Peer, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return Peer{}, err
	}
	return Peer{pid: int(cred.Pid), uid: int(cred.Uid), gid: int(cred.Gid), groups: peerGroups(fd)}, nil
}

// peerGroups returns the peer's supplementary groups (SO_PEERGROUPS,
// Linux 4.13), or nil.
func peerGroups(fd int) []int {
	var buf [256]uint32
	n := uint32(len(buf) * 4)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return nil
	}
	var out []int
	for _, g := range buf[:min(int(n)/4, len(buf))] {
		out = append(out, int(g))
	}
	return out
}

// serve answers one request. Nothing the peer does can make it block past
// ioTimeout, read more than reqLen bytes or keep a descriptor.
func (s *server) serve(c *net.UnixConn, via string) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(ioTimeout))
	p, err := peerCred(c)
	if err != nil {
		writeReply(c, stFailed, []byte("cannot read the peer's credentials: "+err.Error()), nil)
		return
	}
	p.via = via
	q, err := readRequest(c)
	if err != nil {
		if !errors.Is(err, errEmptyRequest) { // else a liveness probe (removeStale): not logged
			s.logRefusal(nil, p, err.Error())
		}
		writeReply(c, stBadRequest, []byte(err.Error()), nil)
		return
	}
	st, msg, fds := s.answer(p, q)
	writeReply(c, st, msg, fds)
	CloseAll(fds)
}

// answer decides a request from p, through any rendezvous: the status,
// the message (the reason of a refusal, or the entry's extra bytes) and
// the descriptors to send (the caller closes them after sending).
// Refusals are logged with the peer's credentials.
func (s *server) answer(p Peer, q request) (byte, []byte, []int) {
	s.mu.Lock()
	e := s.entries[q.id]
	tomb, dead := s.gone[q.id]
	s.mu.Unlock()
	if e == nil {
		if dead && subtle.ConstantTimeCompare(tomb[:], q.secret[:]) == 1 {
			s.logRefusal(nil, p, fmt.Sprintf("resource %016x was withdrawn", q.id))
			return stWithdrawn, []byte("the exporter closed this resource"), nil
		}
		s.logRefusal(nil, p, fmt.Sprintf("no resource %016x (a wrong or stale token)", q.id))
		return stUnknown, []byte("no such resource here (wrong or stale token)"), nil
	}
	if !e.allows(p, s.uid) {
		why := e.notAllowed(p, s.uid)
		s.logRefusal(e, p, why)
		return stUID, []byte(why), nil
	}
	if subtle.ConstantTimeCompare(e.secret[:], q.secret[:]) != 1 {
		s.logRefusal(e, p, fmt.Sprintf("wrong secret for %v %016x (a forged token)", e.kind, q.id))
		return stSecret, []byte("the token's secret does not match"), nil
	}
	fds, extra, err := e.open(p)
	if err != nil {
		CloseAll(fds)
		st := byte(stFailed)
		if errors.Is(err, ErrWithdrawn) {
			st = stWithdrawn
		}
		s.logRefusal(e, p, err.Error())
		return st, []byte(err.Error()), nil
	}
	if len(fds) > maxFDs {
		CloseAll(fds)
		return stFailed, []byte("too many descriptors"), nil
	}
	return stOK, extra, fds
}

// encodeReply is a reply's bytes (the descriptors travel beside them).
func encodeReply(status byte, msg []byte, fds []int) []byte {
	if len(msg) > maxReplyMsg {
		msg = msg[:maxReplyMsg]
	}
	b := make([]byte, 0, replyHdr+len(msg))
	b = append(b, replyMagic[:]...)
	b = append(b, status, byte(len(fds)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(msg)))
	return append(b, msg...)
}

func writeReply(c *net.UnixConn, status byte, msg []byte, fds []int) error {
	b := encodeReply(status, msg, fds)
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	_, _, err := c.WriteMsgUnix(b, oob, nil)
	return err
}
