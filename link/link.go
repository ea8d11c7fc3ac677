// Package link is the protocol of gfxcuda's links, frame rings whose two
// ends sit on different GPUs (the face's NCCLSender and NCCLReceiver):
// everything both ends do besides moving bytes — the rendezvous token, the
// control channel, credits, shutdown, a peer's death. The bytes move
// through a Transport (the face's is NCCL; tests plug in their own). It
// imports nothing of the face, which aliases its public names (LinkShape,
// LinkToken, …).
package link

// The link protocol: a frame ring whose producer and consumer sit on
// different GPUs, of one host or of several, with the frames moved by a
// transport (NCCL: the face's link_nccl.go). This file holds everything both ends do
// besides moving bytes: the rendezvous token, the control channel's
// messages, credits (back-pressure), shutdown and a peer's death. The
// transport is the Transport interface, so tests run this very code
// with a transport of theirs (the face's link_test.go: bytes over a socket between
// two processes, lavapipe Vulkan on both sides).
//
// Frames are numbered from 0; frame seq lives in slot seq % slots on both
// sides. Messages on the control channel (a reliable byte stream the user
// supplies: a Unix or TCP socket), each type(1) length(4, LE) payload:
//
//	hello   sender → receiver   the Token (text)
//	accept  receiver → sender   the receiver's GPU UUID (16)
//	reject  receiver → sender   the reason (text); both ends fail
//	batch   sender → receiver   first frame (8), count (4): the sender has
//	                            queued the sends of these frames
//	credit  receiver → sender   frames released so far (8): the sender may
//	                            send frame f once f < released + slots
//	close   either way          frames sent / received (8): no more batches
//	                            (sender) or receives (receiver); a sender
//	                            told of fewer frames received than it sent
//	                            aborts its transport (those sends cannot end)
//
// The receiver queues the receives of a batch only once told of it, so no
// receive ever waits for a frame that will not come; the sender queues the
// sends of frame f only with credit for it, so a receive never lands in a
// slot the receiver still uses. A control channel that ends without a
// close message means the peer died: the end that sees it aborts its
// transport (ending transfers that wait for the peer) and fails with
// ErrPeerGone.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// Errors of links.
var (
	// ErrPeerGone: the other end's process died or dropped the control
	// channel without closing the link.
	ErrPeerGone = errors.New("link: the peer is gone (its process ended or dropped the control channel)")
	// ErrClosed: the link was closed (by the peer, after its last
	// frame, or by this end).
	ErrClosed = errors.New("link: closed")
	// ErrRejected: the rendezvous failed; the message says why
	// (shapes that differ, a GPU this process cannot see, …).
	ErrRejected = errors.New("link: rendezvous refused")
)

// Shape is what each frame of a link holds: Width×Height texels of
// Format, or FrameSize raw bytes (Format 0).
type Shape struct {
	Width, Height uint32
	Format        format.Format
	// FrameSize is the bytes per frame: Width×Height×texel size when
	// Format is set (leave it 0 or equal), else required.
	FrameSize uint64
}

// Resolve fills FrameSize from the format and checks the shape.
func (s Shape) Resolve() (Shape, error) {
	if s.Format == 0 {
		if s.Width != 0 || s.Height != 0 {
			return s, fmt.Errorf("link: a %dx%d shape needs a Format", s.Width, s.Height)
		}
		if s.FrameSize == 0 {
			return s, errors.New("link: a shape needs a Format and a size, or a FrameSize")
		}
		return s, nil
	}
	size, bw, bh := s.Format.Block()
	if size == 0 || bw != 1 || bh != 1 {
		return s, fmt.Errorf("link: format %v is not a plain texel format", s.Format)
	}
	if s.Width == 0 || s.Height == 0 {
		return s, fmt.Errorf("link: a %dx%d frame is empty", s.Width, s.Height)
	}
	n := uint64(s.Width) * uint64(s.Height) * uint64(size)
	if s.FrameSize != 0 && s.FrameSize != n {
		return s, fmt.Errorf("link: FrameSize %d differs from %dx%d %v (%d bytes)", s.FrameSize, s.Width, s.Height, s.Format, n)
	}
	s.FrameSize = n
	return s, nil
}

// String is the shape as people read it ("1920x1080 rgba8_unorm frames",
// "4096-byte frames").
func (s Shape) String() string {
	if s.Format == 0 {
		return fmt.Sprintf("%d-byte frames", s.FrameSize)
	}
	return fmt.Sprintf("%dx%d %v frames", s.Width, s.Height, s.Format)
}

// Options configure a link's sender (NewNCCLSender); the receiver
// learns them from the token.
type Options struct {
	Shape Shape
	// Slots is the number of frames each end holds (default 3, at most
	// 64): the sender runs at most Slots frames ahead of the receiver's
	// releases. A batch holds at most Slots frames.
	Slots int
	// Receiver, when set, is the UUID of the GPU the receiver must use;
	// a receiver on another GPU refuses the link.
	Receiver *cuda.UUID
	// Timeout bounds each wait for the peer when the context has no
	// deadline: the rendezvous, a close (default 30 s).
	Timeout time.Duration
	// Token, when set, is the token the sender offers: one made ahead by
	// Device.NewLinkToken with the same Shape, Slots and Receiver, so it
	// can be handed to the receiver (printed, written to a file) before
	// the control channel exists. A token serves one link.
	Token Token
}

// Accept configures a link's receiver.
type Accept struct {
	// Expect, when set, is the shape the receiver wants; a token of
	// another shape is refused (both ends fail with ErrRejected).
	Expect *Shape
	// MaxSlots refuses tokens with more slots (0: 64).
	MaxSlots int
	// Timeout: as Options.Timeout.
	Timeout time.Duration
	// Token, when set, is the token this receiver was given: a sender
	// offering another one (another link: session, NCCL id, shape or
	// GPUs) is refused.
	Token Token
}

const (
	// TokenPrefix begins every link token.
	TokenPrefix  = "gfxlink1."
	linkProtocol = 1
	// MaxSlots is the most slots a link may have.
	MaxSlots       = 64
	linkTokenBytes = 4 + 8 + 128 + 4*3 + 8 + 4 + 16 + 16 + 4 // CRC included
	// DefaultTimeout bounds a link's waits when neither the context nor
	// the options give one.
	DefaultTimeout = 30 * time.Second
	linkMaxMsg     = 4096
)

// Token is the printable rendezvous of a link: the protocol version,
// the NCCL communicator's unique id, the frames' shape, the slot count and
// the GPUs. The sender writes it on the control channel; it carries a
// CRC-32 and parses strictly. It is as secret as the NCCL id it holds:
// whoever has it can join the communicator.
type Token string

// TokenData is a parsed Token.
type TokenData struct {
	Session  uint64 // random, names the link in messages
	NCCLID   [128]byte
	Shape    Shape
	Slots    uint32
	Sender   [16]byte // the sender's GPU (zero: not told)
	Receiver [16]byte // the GPU the receiver must use (zero: any)
}

// Encode is the token's text: TokenPrefix, then the sealed bytes.
func (t *TokenData) Encode() Token {
	le := binary.LittleEndian
	b := make([]byte, 0, linkTokenBytes)
	b = append(b, linkProtocol, 0, 0, 0)
	b = le.AppendUint64(b, t.Session)
	b = append(b, t.NCCLID[:]...)
	b = le.AppendUint32(b, t.Shape.Width)
	b = le.AppendUint32(b, t.Shape.Height)
	b = le.AppendUint32(b, uint32(t.Shape.Format))
	b = le.AppendUint64(b, t.Shape.FrameSize)
	b = le.AppendUint32(b, t.Slots)
	b = append(b, t.Sender[:]...)
	b = append(b, t.Receiver[:]...)
	return Token(sharenet.SealToken(TokenPrefix, b))
}

// ParseToken decodes and checks s. It never panics.
func ParseToken(s Token) (*TokenData, error) {
	str := strings.TrimSpace(string(s))
	if !strings.HasPrefix(str, TokenPrefix) {
		if strings.HasPrefix(str, "gfxlink") {
			return nil, fmt.Errorf("%w: link token of another protocol version (this build speaks %q)", sharenet.ErrBadToken, TokenPrefix)
		}
		return nil, fmt.Errorf("%w: a link token starts with %q", sharenet.ErrBadToken, TokenPrefix)
	}
	b, err := sharenet.UnsealToken(sharenet.ErrBadToken, str, TokenPrefix, linkTokenBytes, linkTokenBytes)
	if err != nil {
		return nil, err
	}
	if b[0] != linkProtocol || b[1] != 0 || b[2] != 0 || b[3] != 0 {
		return nil, fmt.Errorf("%w: link protocol %d with flags %#x (this build speaks %d, no flags)", sharenet.ErrBadToken, b[0], b[1:4], linkProtocol)
	}
	le := binary.LittleEndian
	t := &TokenData{}
	p := 4
	t.Session = le.Uint64(b[p:])
	p += 8
	p += copy(t.NCCLID[:], b[p:])
	t.Shape.Width, t.Shape.Height = le.Uint32(b[p:]), le.Uint32(b[p+4:])
	t.Shape.Format = format.Format(le.Uint32(b[p+8:]))
	p += 12
	t.Shape.FrameSize = le.Uint64(b[p:])
	p += 8
	t.Slots = le.Uint32(b[p:])
	p += 4
	p += copy(t.Sender[:], b[p:])
	copy(t.Receiver[:], b[p:])
	sh, err := t.Shape.Resolve()
	if err != nil || sh != t.Shape {
		return nil, fmt.Errorf("%w: inconsistent shape %+v", sharenet.ErrBadToken, t.Shape)
	}
	if t.Slots == 0 || t.Slots > MaxSlots {
		return nil, fmt.Errorf("%w: %d slots (1 to %d)", sharenet.ErrBadToken, t.Slots, MaxSlots)
	}
	return t, nil
}

// Info is what a Token says.
type Info struct {
	Shape Shape
	Slots int
	// Sender is the sender's GPU; Receiver the GPU the receiver must use
	// (nil: any).
	Sender   cuda.UUID
	Receiver *cuda.UUID
}

// Info parses the token, or returns sharenet.ErrBadToken (wrapped, with why).
func (s Token) Info() (Info, error) {
	t, err := ParseToken(s)
	if err != nil {
		return Info{}, err
	}
	in := Info{Shape: t.Shape, Slots: int(t.Slots), Sender: cuda.UUID(t.Sender)}
	if t.Receiver != ([16]byte{}) {
		u := cuda.UUID(t.Receiver)
		in.Receiver = &u
	}
	return in, nil
}

// Control messages.
const (
	msgHello  = 1
	msgAccept = 2
	msgReject = 3
	msgBatch  = 4
	msgCredit = 5
	msgClose  = 6
)

type linkMsg struct {
	typ byte
	b   []byte
}

func writeMsg(w io.Writer, typ byte, payload []byte) error {
	b := make([]byte, 5, 5+len(payload))
	b[0] = typ
	binary.LittleEndian.PutUint32(b[1:], uint32(len(payload)))
	_, err := w.Write(append(b, payload...))
	return err
}

// readMsg reads one message; it refuses unknown types and oversized ones.
func readMsg(r io.Reader) (linkMsg, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return linkMsg{}, err
	}
	n := binary.LittleEndian.Uint32(h[1:])
	if h[0] < msgHello || h[0] > msgClose || n > linkMaxMsg {
		return linkMsg{}, fmt.Errorf("link: bad control message (type %d, %d bytes): the peer does not speak this protocol", h[0], n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return linkMsg{}, err
	}
	return linkMsg{h[0], b}, nil
}

// Transport moves frames between the two ends' slots. Its calls come
// from one goroutine at a time.
type Transport interface {
	// Send queues the sending of the frames in slots, after the work this
	// end submitted on them so far, and before its next use of them.
	Send(ctx context.Context, slots []int) error
	// Recv queues the receiving of frames into slots: this end's next use
	// of them sees the frames.
	Recv(ctx context.Context, slots []int) error
	// Close waits (until ctx ends) for the transfers queued to finish,
	// then frees the transport; Abort frees it at once, ending transfers
	// that wait for a dead peer. Either is final; both are idempotent.
	Close(ctx context.Context) error
	Abort()
}

// Link is one end of a link, over its control channel and transport.
type Link struct {
	conn    net.Conn
	tok     *TokenData
	timeout time.Duration
	sender  bool

	wmu    sync.Mutex // writes on conn
	sendMu sync.Mutex // send calls, one at a time
	recvMu sync.Mutex // receive calls, one at a time

	mu         sync.Mutex
	tr         Transport
	changed    chan struct{} // closed and replaced when the state below changes
	sent       uint64        // sender: frames sent; receiver: frames received
	released   uint64        // frames the receiver released
	batches    []linkMsg     // receiver: batch messages not yet received
	peerClosed bool
	err        error // the link failed (ErrPeerGone, a protocol error)
	closed     bool
	readDone   chan struct{}
}

func newLink(conn net.Conn, tok *TokenData, timeout time.Duration, sender bool) *Link {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Link{conn: conn, tok: tok, timeout: timeout, sender: sender, changed: make(chan struct{}), readDone: make(chan struct{})}
}

// deadline is ctx's deadline, or now + timeout.
func (l *Link) deadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(l.timeout)
}

// handshakeRead reads one message before ctx's deadline (or timeout),
// failing early when ctx is cancelled.
func (l *Link) handshakeRead(ctx context.Context, what string) (linkMsg, error) {
	dl := l.deadline(ctx)
	l.conn.SetReadDeadline(dl)
	stop := context.AfterFunc(ctx, func() { l.conn.SetReadDeadline(time.Now()) })
	m, err := readMsg(l.conn)
	stop()
	l.conn.SetReadDeadline(time.Time{})
	if err == nil {
		return m, nil
	}
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return m, fmt.Errorf("link: waiting for the peer's %s: %w", what, ctx.Err())
	case errors.As(err, &ne) && ne.Timeout():
		return m, fmt.Errorf("link: the peer sent no %s by %s (is the other end of the control channel running?): %w",
			what, dl.Format(time.RFC3339), context.DeadlineExceeded)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return m, fmt.Errorf("link: waiting for the peer's %s: %w", what, ErrPeerGone)
	}
	return m, fmt.Errorf("link: waiting for the peer's %s: %w", what, err)
}

func (l *Link) write(typ byte, payload []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(l.timeout))
	err := writeMsg(l.conn, typ, payload)
	l.conn.SetWriteDeadline(time.Time{})
	if err != nil {
		return fmt.Errorf("link: writing to the control channel: %w (%w)", err, ErrPeerGone)
	}
	return nil
}

// dialSender runs the sender's half of the rendezvous: hello, then the
// receiver's accept or reject.
func (l *Link) dialSender(ctx context.Context) error {
	if err := l.write(msgHello, []byte(l.tok.Encode())); err != nil {
		return err
	}
	m, err := l.handshakeRead(ctx, "accept")
	if err != nil {
		return err
	}
	switch {
	case m.typ == msgReject:
		return fmt.Errorf("%w by the receiver: %s", ErrRejected, m.b)
	case m.typ != msgAccept || len(m.b) != 16:
		return fmt.Errorf("link: the peer answered the rendezvous with message %d: not a link receiver", m.typ)
	}
	return nil
}

// acceptReceiver runs the receiver's half: it reads the hello, checks the
// token against a and the receiver's GPU, and answers.
func acceptReceiver(ctx context.Context, conn net.Conn, a Accept, gpu cuda.UUID) (*Link, error) {
	l := newLink(conn, nil, a.Timeout, false)
	m, err := l.handshakeRead(ctx, "hello")
	if err != nil {
		return nil, err
	}
	if m.typ != msgHello {
		return nil, fmt.Errorf("link: the peer opened with message %d: not a link sender", m.typ)
	}
	tok, err := ParseToken(Token(m.b))
	if err != nil {
		l.write(msgReject, []byte(err.Error()))
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	reason := ""
	if a.Token != "" {
		want, err := ParseToken(a.Token)
		if err != nil {
			return nil, fmt.Errorf("link: the receiver's token: %w", err)
		}
		if *want != *tok {
			reason = "the sender offers another link than the token this receiver was given (a token serves one link: use the one this sender printed)"
		}
	}
	max := a.MaxSlots
	if max <= 0 || max > MaxSlots {
		max = MaxSlots
	}
	if reason == "" && a.Expect != nil {
		want, err := a.Expect.Resolve()
		if err != nil {
			return nil, err
		}
		if want != tok.Shape {
			reason = fmt.Sprintf("the sender sends %v, the receiver expects %v", tok.Shape, want)
		}
	}
	if reason == "" && int(tok.Slots) > max {
		reason = fmt.Sprintf("the sender asks for %d slots, the receiver allows %d", tok.Slots, max)
	}
	if reason == "" && tok.Receiver != ([16]byte{}) && tok.Receiver != gpu {
		reason = fmt.Sprintf("the token is for GPU %v, which this receiver cannot see (it runs on GPU %v; check CUDA_VISIBLE_DEVICES and the receiver's device)",
			cuda.UUID(tok.Receiver), gpu)
	}
	if reason != "" {
		l.write(msgReject, []byte(reason))
		return nil, fmt.Errorf("%w: %s", ErrRejected, reason)
	}
	l.tok = tok
	return l, nil
}

// accept sends the receiver's accept (after its transport is ready to be
// joined).
func (l *Link) accept(gpu cuda.UUID) error { return l.write(msgAccept, gpu[:]) }

// start runs the link with transport tr: a goroutine reads the control
// channel from now on.
func (l *Link) start(tr Transport) {
	l.mu.Lock()
	l.tr = tr
	l.mu.Unlock()
	go l.read()
}

// notify wakes the waiters; called with mu held.
func (l *Link) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// read handles the peer's messages until the control channel ends.
func (l *Link) read() {
	defer close(l.readDone)
	for {
		m, err := readMsg(l.conn)
		l.mu.Lock()
		if err != nil {
			if !l.peerClosed && !l.closed && l.err == nil {
				l.err = ErrPeerGone
				if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					l.err = fmt.Errorf("%w (%v)", ErrPeerGone, err)
				}
				l.tr.Abort()
			}
			l.notify()
			l.mu.Unlock()
			return
		}
		if perr := l.handle(m); perr != nil && l.err == nil {
			l.err = perr
			l.tr.Abort()
			l.conn.Close()
		}
		l.notify()
		l.mu.Unlock()
	}
}

// handle applies one message; called with mu held.
func (l *Link) handle(m linkMsg) error {
	le := binary.LittleEndian
	switch {
	case m.typ == msgClose:
		l.peerClosed = true
		// A receiver that closed before receiving every frame sent never
		// will: end the sends waiting for it.
		if l.sender && len(m.b) == 8 && binary.LittleEndian.Uint64(m.b) < l.sent {
			l.tr.Abort()
		}
	case l.sender && m.typ == msgCredit && len(m.b) == 8:
		r := le.Uint64(m.b)
		if r < l.released || r > l.sent {
			return fmt.Errorf("link: the receiver released %d frames of %d sent (after %d): protocol error", r, l.sent, l.released)
		}
		l.released = r
	case !l.sender && m.typ == msgBatch && len(m.b) == 12:
		l.batches = append(l.batches, m)
	default:
		return fmt.Errorf("link: unexpected control message %d of %d bytes: protocol error", m.typ, len(m.b))
	}
	return nil
}

// wait blocks until cond (called with mu held) is true, the link fails or
// closes, or ctx ends.
func (l *Link) wait(ctx context.Context, what string, cond func() bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.closed:
			return ErrClosed
		case cond():
			return nil
		case l.err != nil:
			return l.err
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			l.mu.Lock()
			return fmt.Errorf("link: waiting for %s: %w", what, ctx.Err())
		}
		l.mu.Lock()
	}
}

// Send sends the next n frames: it waits for credit, calls fill with the
// first frame's number and the slots to fill, tells the receiver, and
// queues the transfers. It returns the number of frames sent so far.
func (l *Link) Send(ctx context.Context, n int, fill func(first uint64, slots []int) error) (uint64, error) {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	slots := uint64(l.tok.Slots)
	if n < 1 || uint64(n) > slots {
		return 0, fmt.Errorf("link: a batch of %d frames (1 to %d, the slot count)", n, slots)
	}
	l.mu.Lock()
	first, peerClosed := l.sent, l.peerClosed
	l.mu.Unlock()
	if peerClosed {
		return first, fmt.Errorf("link: the receiver closed the link: %w", ErrClosed)
	}
	need := first + uint64(n)
	err := l.wait(ctx, "the receiver's credit", func() bool { return need <= l.released+slots || l.peerClosed })
	if err == nil && l.peerClosedNow() {
		err = fmt.Errorf("link: the receiver closed the link: %w", ErrClosed)
	}
	if err != nil {
		return first, err
	}
	ss := make([]int, n)
	for i := range ss {
		ss[i] = int((first + uint64(i)) % slots)
	}
	if fill != nil {
		if err := fill(first, ss); err != nil {
			return first, err
		}
	}
	// Counted as sent once announced: the receiver may take and release
	// them before the transfer call returns.
	l.mu.Lock()
	l.sent = need
	l.mu.Unlock()
	b := binary.LittleEndian.AppendUint64(nil, first)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	if err := l.write(msgBatch, b); err != nil {
		if l.peerFinished() {
			return first, fmt.Errorf("link: the receiver closed the link: %w", ErrClosed)
		}
		l.fail(err)
		return first, err
	}
	if err := l.transfer(ctx, ss, true); err != nil {
		return first, err
	}
	return need, nil
}

func (l *Link) peerClosedNow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peerClosed
}

// transfer runs the transport's send or recv, mapping a failure after the
// peer's death to ErrPeerGone.
func (l *Link) transfer(ctx context.Context, ss []int, send bool) error {
	l.mu.Lock()
	tr, err := l.tr, l.err
	l.mu.Unlock()
	if err != nil {
		return err
	}
	if send {
		err = tr.Send(ctx, ss)
	} else {
		err = tr.Recv(ctx, ss)
	}
	if err != nil {
		l.mu.Lock()
		lerr := l.err
		l.mu.Unlock()
		if lerr != nil {
			return fmt.Errorf("%w (the transfer failed: %v)", lerr, err)
		}
		// The transport failed first: wait briefly for the control
		// channel to tell whether the peer died or closed.
		closed := l.peerFinished()
		l.mu.Lock()
		lerr = l.err
		l.mu.Unlock()
		switch {
		case lerr != nil:
			return fmt.Errorf("%w (the transfer failed: %v)", lerr, err)
		case closed:
			l.fail(ErrClosed)
			return fmt.Errorf("link: the peer closed the link during a transfer (%v): %w", err, ErrClosed)
		}
		l.fail(err)
		return fmt.Errorf("link: transfer: %w", err)
	}
	return nil
}

// peerFinished reports whether the peer closed the link (its close
// message read), waiting up to a second for the control channel to end
// when this end's write or transfer failed.
func (l *Link) peerFinished() bool {
	select {
	case <-l.readDone:
	case <-time.After(time.Second):
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peerClosed
}

// fail marks the link failed with err and aborts the transport.
func (l *Link) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
		l.notify()
	}
	if l.tr != nil {
		l.tr.Abort()
	}
}

// Batch is a batch of frames a receiver got: frames First to
// First+len(Slots)-1, in Slots.
type Batch struct {
	First uint64
	Slots []int
}

// Receive waits for the sender's next batch and queues its receives.
func (l *Link) Receive(ctx context.Context) (Batch, error) {
	l.recvMu.Lock()
	defer l.recvMu.Unlock()
	err := l.wait(ctx, "the sender's next batch", func() bool { return len(l.batches) > 0 || l.peerClosed })
	if err != nil {
		return Batch{}, err
	}
	l.mu.Lock()
	if len(l.batches) == 0 {
		l.mu.Unlock()
		return Batch{}, fmt.Errorf("link: the sender closed the link after %d frames: %w", l.sent, ErrClosed)
	}
	m := l.batches[0]
	l.batches = l.batches[1:]
	first, n := binary.LittleEndian.Uint64(m.b), uint64(binary.LittleEndian.Uint32(m.b[8:]))
	slots := uint64(l.tok.Slots)
	var perr error
	if first != l.sent || n == 0 || n > slots || first+n > l.released+slots {
		perr = fmt.Errorf("link: the sender announced frames %d to %d after %d received, %d released, %d slots: protocol error",
			first, first+n-1, l.sent, l.released, slots)
	}
	l.mu.Unlock()
	if perr != nil {
		l.fail(perr)
		return Batch{}, perr
	}
	b := Batch{First: first, Slots: make([]int, n)}
	for i := range b.Slots {
		b.Slots[i] = int((first + uint64(i)) % slots)
	}
	if err := l.transfer(ctx, b.Slots, false); err != nil {
		return Batch{}, err
	}
	l.mu.Lock()
	l.sent = first + n
	l.mu.Unlock()
	return b, nil
}

// Release gives a received batch's slots back: the sender may fill them
// with new frames. Batches are released in the order received.
func (l *Link) Release(b Batch) error {
	l.mu.Lock()
	n := uint64(len(b.Slots))
	err := l.err
	switch {
	case l.closed:
		err = ErrClosed
	case err != nil:
	case b.First != l.released || n == 0 || b.First+n > l.sent:
		err = fmt.Errorf("link: release of frames %d to %d, but frames from %d to %d are held: release batches in the order received",
			b.First, b.First+n-1, l.released, int64(l.sent)-1)
	default:
		l.released += n
	}
	r := l.released
	// Credits are written in order: under wmu, taken before mu is let go.
	if err == nil {
		l.wmu.Lock()
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	l.conn.SetWriteDeadline(time.Now().Add(l.timeout))
	err = writeMsg(l.conn, msgCredit, binary.LittleEndian.AppendUint64(nil, r))
	l.conn.SetWriteDeadline(time.Time{})
	l.wmu.Unlock()
	if err != nil && !l.peerFinished() {
		// A sender that closed after its last frame needs no credit.
		return fmt.Errorf("link: writing to the control channel: %w (%w)", err, ErrPeerGone)
	}
	return nil
}

// Close ends the link: it wakes the waiting calls (they return
// ErrClosed), waits for the transfers being queued, tells the peer,
// waits (bounded) for the queued transfers, and frees the transport; after
// a failure it aborts. Idempotent.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.notify()
	l.mu.Unlock()
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	l.recvMu.Lock()
	defer l.recvMu.Unlock()
	l.mu.Lock()
	tr, failed, peerClosed := l.tr, l.err != nil, l.peerClosed
	l.mu.Unlock()
	var err error
	if !failed {
		l.mu.Lock()
		n := l.sent
		l.mu.Unlock()
		if werr := l.write(msgClose, binary.LittleEndian.AppendUint64(nil, n)); werr != nil && !peerClosed {
			err = werr
		}
	}
	if tr != nil {
		if failed || err != nil {
			tr.Abort()
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
			if cerr := tr.Close(ctx); cerr != nil {
				tr.Abort()
				err = fmt.Errorf("link: close: %w", cerr)
			}
			cancel()
		}
	}
	l.conn.Close()
	if tr != nil {
		<-l.readDone
	}
	return err
}

// NewSession returns a random session number.
func NewSession() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Setup is what an end's transport provides to the shared setup:
// the GPU it runs on and how to join the peer once the rendezvous is
// agreed (NCCL: join the communicator; tests: their own transport).
type Setup struct {
	GPU cuda.UUID
	// ID is the transport's rendezvous id, carried in the token (the
	// sender's NCCL unique id); a sender given Options.Token takes
	// the token's instead.
	ID [128]byte
	// Prepare, on the receiver, allocates its side for the agreed token
	// before it accepts (nil: nothing to do).
	Prepare func(tok *TokenData) error
	// Join returns the transport once both ends agreed.
	Join func(ctx context.Context, tok *TokenData) (Transport, error)
}

// SenderOptions checks o and fills its defaults.
func SenderOptions(o Options) (Options, error) {
	shape, err := o.Shape.Resolve()
	if err != nil {
		return o, err
	}
	o.Shape = shape
	if o.Slots == 0 {
		o.Slots = 3
	}
	if o.Slots < 1 || o.Slots > MaxSlots {
		return o, fmt.Errorf("link: %d slots (1 to %d)", o.Slots, MaxSlots)
	}
	return o, nil
}

// SenderToken is the token a sender with options o (checked) offers
// from GPU gpu with transport id id, in a new session.
func SenderToken(o Options, gpu cuda.UUID, id [128]byte) *TokenData {
	tok := &TokenData{Session: NewSession(), NCCLID: id, Shape: o.Shape, Slots: uint32(o.Slots), Sender: gpu}
	if o.Receiver != nil {
		tok.Receiver = *o.Receiver
	}
	return tok
}

// OpenSender runs the sender's setup on ctrl: token, rendezvous, join.
// The waits end with ctx or after o.Timeout.
func OpenSender(ctx context.Context, ctrl net.Conn, o Options, s Setup) (*Link, error) {
	tok := SenderToken(o, s.GPU, s.ID)
	if o.Token != "" {
		given, err := ParseToken(o.Token)
		if err != nil {
			return nil, fmt.Errorf("link: Options.Token: %w", err)
		}
		// The token made ahead names the session and the transport's id;
		// the rest must be what these options would offer.
		tok.Session, tok.NCCLID = given.Session, given.NCCLID
		if *given != *tok {
			return nil, fmt.Errorf("link: Options.Token is for another link (%v, %d slots, sender GPU %v) than these options (%v, %d slots, this GPU %v): make it with NewLinkToken from the same options",
				given.Shape, given.Slots, cuda.UUID(given.Sender), tok.Shape, tok.Slots, cuda.UUID(tok.Sender))
		}
	}
	l := newLink(ctrl, tok, o.Timeout, true)
	wctx, cancel := l.waitContext(ctx)
	defer cancel()
	if err := l.dialSender(wctx); err != nil {
		return nil, err
	}
	tr, err := s.Join(wctx, tok)
	if err != nil {
		return nil, err
	}
	l.start(tr)
	return l, nil
}

// OpenReceiver runs the receiver's setup on ctrl: read and check the
// token, prepare, accept, join.
func OpenReceiver(ctx context.Context, ctrl net.Conn, a Accept, s Setup) (*Link, error) {
	wctx, cancel := newLink(ctrl, nil, a.Timeout, false).waitContext(ctx)
	defer cancel()
	l, err := acceptReceiver(wctx, ctrl, a, s.GPU)
	if err != nil {
		return nil, err
	}
	if s.Prepare != nil {
		if err := s.Prepare(l.tok); err != nil {
			l.write(msgReject, []byte("the receiver could not set up: "+err.Error()))
			return nil, err
		}
	}
	if err := l.accept(s.GPU); err != nil {
		return nil, err
	}
	tr, err := s.Join(wctx, l.tok)
	if err != nil {
		return nil, err
	}
	l.start(tr)
	return l, nil
}

// waitContext is ctx, bounded by the link's timeout when it has no
// deadline.
func (l *Link) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, l.timeout)
}

// Tok is the token the two ends agreed on (the sender's, as the receiver
// checked it).
func (l *Link) Tok() *TokenData { return l.tok }

// Timeout is how long the link's waits last when their context has no
// deadline (Options.Timeout or Accept.Timeout, or DefaultTimeout).
func (l *Link) Timeout() time.Duration { return l.timeout }
