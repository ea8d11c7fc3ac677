package share

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Errors callers can branch on (errors.Is).
var (
	// ErrWithdrawn: the exporter closed the resource (or its whole
	// process exited, or it closed every resource it shared).
	ErrWithdrawn = errors.New("share: the exporter has withdrawn this resource")
	// ErrRefused: the exporter refused the request (wrong secret, another
	// user, a malformed request).
	ErrRefused = errors.New("share: the exporter refused the request")
	// ErrDifferentGPU: the token's memory lives on another GPU than the
	// device asked to open it.
	ErrDifferentGPU = errors.New("share: the resource lives on a different GPU")
	// ErrWrongKind: the token shares another kind of resource.
	ErrWrongKind = errors.New("share: the token shares another kind of resource")
)

// Wire format. A client connects, sends one request of reqLen bytes and
// reads one reply; the server then closes the connection.
//
//	request: "GFXQ" version(1) op(1) 0 0 id(8, LE) secret(16)
//	reply:   "GFXR" status(1) nfds(1) len(2, LE) message(len) + nfds descriptors (SCM_RIGHTS)
const (
	reqLen      = 32
	wireVersion = 1
	opOpen      = 1
	replyHdr    = 8
	maxReplyMsg = 4096
	maxFDs      = 8
)

var (
	reqMagic   = [4]byte{'G', 'F', 'X', 'Q'}
	replyMagic = [4]byte{'G', 'F', 'X', 'R'}
)

// Reply statuses.
const (
	stOK = iota
	stBadRequest
	stUnknown
	stWithdrawn
	stSecret
	stUID
	stFailed
	stBusy
)

// Server limits: every connection gets ioTimeout for its whole exchange;
// at most maxConns are served at once (others are refused at once).
var (
	ioTimeout = 2 * time.Second
	maxConns  = 64
)

type request struct {
	id     uint64
	secret [16]byte
}

func (r request) encode() []byte {
	b := make([]byte, 0, reqLen)
	b = append(b, reqMagic[:]...)
	b = append(b, wireVersion, opOpen, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, r.id)
	return append(b, r.secret[:]...)
}

// readRequest reads exactly one request from r: never more than reqLen
// bytes, whatever the peer sends.
func readRequest(r io.Reader) (request, error) {
	var b [reqLen]byte
	if n, err := io.ReadFull(r, b[:]); err != nil {
		return request{}, fmt.Errorf("request of %d bytes, want %d: %v", n, reqLen, err)
	}
	if !bytes.Equal(b[:4], reqMagic[:]) {
		return request{}, errors.New("not a gfxcuda share request")
	}
	if b[4] != wireVersion {
		return request{}, fmt.Errorf("protocol version %d, this exporter speaks %d", b[4], wireVersion)
	}
	if b[5] != opOpen || b[6] != 0 || b[7] != 0 {
		return request{}, fmt.Errorf("unknown operation %d", b[5])
	}
	var q request
	q.id = binary.LittleEndian.Uint64(b[8:])
	copy(q.secret[:], b[16:])
	return q, nil
}

// peer is who asked.
type peer struct {
	pid, uid int
}

// entry is one exported resource.
type entry struct {
	secret [16]byte
	// open returns new descriptors for the peer (the server closes them
	// after sending) and extra bytes for the reply message.
	open func(p peer) (fds []int, extra []byte, err error)
}

// server is this process's one exporter: an abstract Unix socket, running
// while at least one resource is exported.
type server struct {
	ln      *net.UnixListener
	addr    string
	uid     int
	mu      sync.Mutex
	entries map[uint64]*entry
	gone    map[uint64][16]byte // withdrawn ids and their secrets, bounded
	order   []uint64
	conns   chan struct{}
	done    chan struct{}
}

const maxTombstones = 4096

var global struct {
	mu  sync.Mutex
	srv *server
}

// register adds e under a new random id, starting the server if needed,
// and returns the id and the server's address.
func register(e *entry) (uint64, string, error) {
	global.mu.Lock()
	defer global.mu.Unlock()
	if global.srv == nil {
		s, err := startServer()
		if err != nil {
			return 0, "", err
		}
		global.srv = s
	}
	s := global.srv
	var idb [8]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return 0, "", err
	}
	id := binary.LittleEndian.Uint64(idb[:])
	s.mu.Lock()
	s.entries[id] = e
	s.mu.Unlock()
	return id, s.addr, nil
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
	if _, ok := s.entries[id]; !ok {
		s.mu.Unlock()
		return
	}
	delete(s.entries, id)
	s.tomb(id, secret)
	empty := len(s.entries) == 0
	s.mu.Unlock()
	if empty {
		s.ln.Close()
		<-s.done
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

func startServer() (*server, error) {
	var rnd [16]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("gfxcuda/%d/%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	// A leading '@' makes Go bind in the abstract namespace: no file, no
	// permissions to get wrong, gone when the process exits.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("share: listening on an abstract Unix socket: %w", err)
	}
	s := &server{ln: ln, addr: name, uid: os.Getuid(), entries: map[uint64]*entry{},
		gone: map[uint64][16]byte{}, conns: make(chan struct{}, maxConns), done: make(chan struct{})}
	go s.accept()
	return s, nil
}

func (s *server) accept() {
	defer close(s.done)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := s.ln.AcceptUnix()
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
			s.serve(c)
		}()
	}
}

// peerCred returns the connected peer's credentials (SO_PEERCRED).
func peerCred(c *net.UnixConn) (peer, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return peer{}, err
	}
	if cerr != nil {
		return peer{}, cerr
	}
	return peer{pid: int(cred.Pid), uid: int(cred.Uid)}, nil
}

// serve answers one request. Nothing the peer does can make it block past
// ioTimeout, read more than reqLen bytes or keep a descriptor.
func (s *server) serve(c *net.UnixConn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(ioTimeout))
	p, err := peerCred(c)
	if err != nil {
		writeReply(c, stFailed, []byte("cannot read the peer's credentials: "+err.Error()), nil)
		return
	}
	if p.uid != s.uid {
		writeReply(c, stUID, fmt.Appendf(nil, "peer uid %d is not the exporter's uid %d: only the same user may open its resources", p.uid, s.uid), nil)
		return
	}
	q, err := readRequest(c)
	if err != nil {
		writeReply(c, stBadRequest, []byte(err.Error()), nil)
		return
	}
	s.mu.Lock()
	e := s.entries[q.id]
	tomb, dead := s.gone[q.id]
	s.mu.Unlock()
	if e == nil {
		if dead && subtle.ConstantTimeCompare(tomb[:], q.secret[:]) == 1 {
			writeReply(c, stWithdrawn, []byte("the exporter closed this resource"), nil)
			return
		}
		writeReply(c, stUnknown, []byte("no such resource here (wrong or stale token)"), nil)
		return
	}
	if subtle.ConstantTimeCompare(e.secret[:], q.secret[:]) != 1 {
		writeReply(c, stSecret, []byte("the token's secret does not match"), nil)
		return
	}
	fds, extra, err := e.open(p)
	if err != nil {
		closeAll(fds)
		st := byte(stFailed)
		if errors.Is(err, ErrWithdrawn) {
			st = stWithdrawn
		}
		writeReply(c, st, []byte(err.Error()), nil)
		return
	}
	writeReply(c, stOK, extra, fds)
	closeAll(fds)
}

func closeAll(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

func writeReply(c *net.UnixConn, status byte, msg []byte, fds []int) error {
	if len(msg) > maxReplyMsg {
		msg = msg[:maxReplyMsg]
	}
	b := make([]byte, 0, replyHdr+len(msg))
	b = append(b, replyMagic[:]...)
	b = append(b, status, byte(len(fds)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(msg)))
	b = append(b, msg...)
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	_, _, err := c.WriteMsgUnix(b, oob, nil)
	return err
}

// reply is what fetch got.
type reply struct {
	fds   []int
	extra []byte
	pid   int // the exporter's pid (SO_PEERCRED)
}

// fetch asks the exporter named by t for its resource's descriptors.
func fetch(ctx context.Context, t *token) (*reply, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	var d net.Dialer
	d.Deadline = deadline
	conn, err := d.DialContext(ctx, "unix", "@"+t.Addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w: no exporter listens on %q (it exited, or closed every resource it shared)", ErrWithdrawn, t.Addr)
		}
		return nil, fmt.Errorf("share: connecting to the exporter: %w", err)
	}
	c := conn.(*net.UnixConn)
	defer c.Close()
	c.SetDeadline(deadline)
	p, err := peerCred(c)
	if err != nil {
		return nil, fmt.Errorf("share: exporter's credentials: %w", err)
	}
	if p.uid != os.Getuid() {
		return nil, fmt.Errorf("%w: the process serving %q runs as uid %d, not ours (%d): not trusting it", ErrRefused, t.Addr, p.uid, os.Getuid())
	}
	if _, err := c.Write(request{id: t.ID, secret: t.Secret}.encode()); err != nil {
		return nil, fmt.Errorf("share: sending the request: %w", err)
	}
	r, err := readReply(c)
	if err != nil {
		return nil, err
	}
	r.pid = p.pid
	return r, nil
}

// readReply reads one reply and its descriptors; on error it closes every
// descriptor received.
func readReply(c *net.UnixConn) (*reply, error) {
	buf := make([]byte, replyHdr+maxReplyMsg)
	oob := make([]byte, unix.CmsgSpace(4*maxFDs))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
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
		closeAll(fds)
		return nil, e
	}
	if err != nil {
		return fail(fmt.Errorf("share: reading the exporter's reply: %w", err))
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return fail(fmt.Errorf("share: the exporter sent more than %d descriptors", maxFDs))
	}
	for n < replyHdr {
		m, err := c.Read(buf[n:replyHdr])
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
	if n < replyHdr+ml {
		if _, err := io.ReadFull(c, buf[n:replyHdr+ml]); err != nil {
			return fail(fmt.Errorf("share: truncated reply from the exporter: %w", err))
		}
	}
	msg := append([]byte(nil), buf[replyHdr:replyHdr+ml]...)
	switch status {
	case stOK:
	case stWithdrawn:
		return fail(fmt.Errorf("%w: %s", ErrWithdrawn, msg))
	case stUnknown:
		return fail(fmt.Errorf("%w: %s; the exporter may have closed it", ErrRefused, msg))
	default:
		return fail(fmt.Errorf("%w: %s", ErrRefused, msg))
	}
	if nfds != len(fds) {
		return fail(fmt.Errorf("share: the exporter announced %d descriptors and sent %d", nfds, len(fds)))
	}
	return &reply{fds: fds, extra: msg}, nil
}
