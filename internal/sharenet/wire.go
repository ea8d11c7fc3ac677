package sharenet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Errors callers can branch on (errors.Is).
var (
	// ErrWithdrawn: the exporter closed the resource (or its whole
	// process exited, or it closed every resource it shared).
	ErrWithdrawn = errors.New("share: the exporter has withdrawn this resource")
	// ErrRefused: the exporter refused the request (wrong secret, a user
	// it does not allow, a malformed request), or the process serving the
	// token is not the exporter it names.
	ErrRefused = errors.New("share: the exporter refused the request")
	// ErrUnreachable: no way the token offers reaches its exporter from
	// this process (another network or PID namespace, a directory not
	// shared, permissions); the *OpenError says why for each and what to
	// set.
	ErrUnreachable = errors.New("share: the exporter cannot be reached from this process")
	// ErrResourceOnOtherGPU: the token's memory lives on another GPU than the
	// device asked to open it.
	ErrResourceOnOtherGPU = errors.New("share: the resource lives on a different GPU")
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

// errEmptyRequest: the peer closed without sending a byte (a liveness
// probe, not a request).
var errEmptyRequest = errors.New("no request (the peer sent nothing)")

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
		if n == 0 && errors.Is(err, io.EOF) {
			return request{}, errEmptyRequest
		}
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

// entry is one exported resource.
type entry struct {
	secret [16]byte
	kind   Kind
	uids   []int // besides the exporter's own uid
	gids   []int
	logf   func(format string, args ...any)
	fsDir  string // the filesystem socket's directory it is offered on ("": none)
	door   bool   // offered through the pidfd door
	// open returns new descriptors for the peer (the server closes them
	// after sending) and extra bytes for the reply message.
	open func(p Peer) (fds []int, extra []byte, err error)
}

// allows reports whether p may open the entry of an exporter running as
// uid: the same uid, or a uid or group the entry allows.
func (e *entry) allows(p Peer, uid int) bool {
	if p.uid == uid || slices.Contains(e.uids, p.uid) {
		return true
	}
	if slices.Contains(e.gids, p.gid) {
		return true
	}
	for _, g := range p.groups {
		if slices.Contains(e.gids, g) {
			return true
		}
	}
	return false
}

// notAllowed is the refusal a peer the entry does not allow gets: what is
// allowed and what to set.
func (e *entry) notAllowed(p Peer, uid int) string {
	allowed := fmt.Sprintf("the exporter (uid %d) allows uids %v", uid, append([]int{uid}, e.uids...))
	if len(e.gids) > 0 {
		allowed += fmt.Sprintf(" and gids %v", e.gids)
	}
	return fmt.Sprintf("uid %d (gid %d) is not allowed: %s; add it with --allow-uid %d (gfxcuda.ExportOptions.AllowUIDs) or its group with --allow-gid %d",
		p.uid, p.gid, allowed, p.uid, p.gid)
}
