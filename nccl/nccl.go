// Package nccl moves bytes between GPUs, of one host or of several, with
// NVIDIA's NCCL (libnccl.so.2): communicators, and stream-ordered
// point-to-point sends and receives of CUDA device memory.
//
// NCCL is loaded at run time like the CUDA driver: programs build and run
// without it, and only the calls of this package fail, with an error that
// says where NCCL was searched and how to install it (see Load). The
// library is searched in $GFXCUDA_NCCL_LIBRARY (alone, when set), then as
// libnccl.so.2 through the dynamic loader, then in the nvidia-nccl Python
// wheel's folder (site-packages/nvidia/nccl/lib) of the usual Python
// prefixes. NCCL 2.18.1 or newer is required.
//
// A communicator joins nranks processes (or GPUs): one of them makes a
// UniqueID (NewUniqueID), passes it to the others by any channel (its
// String is printable), and each calls NewComm with its rank. Send and
// Recv queue transfers on a cuda.Stream; a send and its receive must be
// issued in the same order on both sides, and a rank sending to itself
// must issue both inside one Group.
//
// The package uses only package cuda; it is usable without the rest of
// gfxcuda. The face's NCCL endpoints (gfxcuda.NewLinkSender, over package link/nccltransport) build frame
// rings on it.
package nccl

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	raw "github.com/gfxcuda/gfxcuda/internal/nccl"
)

// Errors of Load (wrapped, with what was searched and how to fix it).
var (
	ErrNotFound = raw.ErrNotFound // no NCCL library could be opened
	ErrTooOld   = raw.ErrTooOld   // NCCL older than MinVersion
	ErrSymbols  = raw.ErrSymbols  // the library opened is not NCCL
)

// ErrClosed is returned by calls on a Comm after Close or Abort.
var ErrClosed = errors.New("nccl: communicator closed")

// ErrRemote is matched (errors.Is) by an Error whose result is
// ncclRemoteError: a peer failed or went away.
var ErrRemote = errors.New("nccl: remote peer failed")

// MinVersion is the oldest NCCL accepted, in NCCL's version code
// (major*10000 + minor*100 + patch).
const MinVersion = raw.MinVersion

// EnvLibrary is the environment variable naming the NCCL library to use.
const EnvLibrary = raw.EnvLibrary

// Error is a failed NCCL call.
type Error struct {
	Op     string // the NCCL function
	Result int    // its ncclResult_t
	Text   string // ncclGetErrorString's text
}

func (e *Error) Error() string {
	return fmt.Sprintf("nccl: %s failed: %s (ncclResult_t %d)", e.Op, e.Text, e.Result)
}

// Is reports ErrRemote for ncclRemoteError.
func (e *Error) Is(target error) bool {
	return target == ErrRemote && raw.Result(e.Result) == raw.RemoteError
}

func check(op string, r raw.Result) error {
	if r == raw.Success {
		return nil
	}
	return &Error{Op: op, Result: int(r), Text: raw.ErrorString(r)}
}

// Load opens NCCL, checks its version and binds its entry points; it runs
// once per process, and every other call of this package calls it. Its
// error wraps ErrNotFound, ErrSymbols or ErrTooOld.
func Load() error {
	if err := raw.Load(); err != nil {
		return fmt.Errorf("nccl: %w", err)
	}
	return nil
}

// Version returns the loaded NCCL's version ("2.28.3") and the file it was
// loaded from.
func Version() (version, library string, err error) {
	if err := Load(); err != nil {
		return "", "", err
	}
	lib, v := raw.Library()
	return raw.VersionString(v), lib, nil
}

// UniqueID is the ncclUniqueId that names a communicator being set up: the
// address of its root's bootstrap socket and a random magic. Pass it to
// every rank; its String is printable.
type UniqueID [raw.UniqueIDSize]byte

// NewUniqueID makes a UniqueID (ncclGetUniqueId): this process's NCCL
// listens for the communicator's ranks on the address it names.
func NewUniqueID() (UniqueID, error) {
	if err := Load(); err != nil {
		return UniqueID{}, err
	}
	id, r := raw.GetUniqueID()
	return UniqueID(id), check("ncclGetUniqueId", r)
}

const idPrefix = "ncclid."

// String is the UniqueID in printable form: "ncclid." and the 128 bytes in
// unpadded base64url.
func (id UniqueID) String() string {
	return idPrefix + base64.RawURLEncoding.EncodeToString(id[:])
}

// ParseUniqueID decodes what String printed, strictly.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	body, ok := strings.CutPrefix(strings.TrimSpace(s), idPrefix)
	if !ok {
		return id, fmt.Errorf("nccl: %q is not a UniqueID (it starts with %q)", truncate(s), idPrefix)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("nccl: damaged UniqueID (want %d bytes of base64url)", len(id))
	}
	copy(id[:], b)
	return id, nil
}

func truncate(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// Comm is an NCCL communicator: this process's rank among nranks. It is
// safe for concurrent use, but NCCL requires that transfers between two
// ranks be queued in the same order on both: queue them from one
// goroutine, or order them yourself.
type Comm struct {
	ctx          *cuda.Context
	nranks, rank int

	mu     sync.Mutex
	h      raw.Comm
	closed bool
}

// NewComm joins the communicator named by id as rank (0 ≤ rank < nranks)
// on ctx's device (ncclCommInitRank). It blocks until all nranks ranks have
// joined: NCCL offers no timeout, so make sure, before calling it, that the
// other ranks are alive and about to join (the face's endpoints do this
// with a handshake on their control channel). Close (or Abort) frees it.
func NewComm(ctx *cuda.Context, id UniqueID, nranks, rank int) (*Comm, error) {
	if ctx == nil {
		return nil, errors.New("nccl: NewComm with a nil cuda.Context")
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, fmt.Errorf("nccl: rank %d of %d ranks: want 0 ≤ rank < nranks", rank, nranks)
	}
	if err := Load(); err != nil {
		return nil, err
	}
	var h raw.Comm
	err := ctx.Do(func() error {
		var r raw.Result
		h, r = raw.CommInitRank(nranks, raw.UniqueID(id), rank)
		return check("ncclCommInitRank", r)
	})
	if err != nil {
		if h != 0 {
			raw.CommAbort(h)
		}
		return nil, fmt.Errorf("joining the NCCL communicator as rank %d of %d on %v: %w", rank, nranks, ctx, err)
	}
	return &Comm{ctx: ctx, nranks: nranks, rank: rank, h: h}, nil
}

// NewCommContext is NewComm that gives up when ctx ends, with an error
// wrapping ctx.Err(). NCCL's join cannot be cancelled: on giving up, the
// join goes on in a goroutine until the other ranks join (then the
// communicator is aborted) or the process ends.
func NewCommContext(ctx context.Context, c *cuda.Context, id UniqueID, nranks, rank int) (*Comm, error) {
	type res struct {
		c   *Comm
		err error
	}
	ch := make(chan res, 1)
	go func() {
		cm, err := NewComm(c, id, nranks, rank)
		ch <- res{cm, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Abort()
			}
		}()
		return nil, fmt.Errorf("nccl: the other ranks did not join the communicator: %w", ctx.Err())
	}
}

// Rank is this process's rank; Size the number of ranks.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Comm) Size() int { return c.nranks }

// Context is the CUDA context the communicator runs on.
func (c *Comm) Context() *cuda.Context { return c.ctx }

func (c *Comm) handle() (raw.Comm, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, ErrClosed
	}
	return c.h, nil
}

func (c *Comm) checkXfer(what string, s *cuda.Stream, n uint64, peer int) error {
	if s == nil {
		return fmt.Errorf("nccl: %s on a nil stream", what)
	}
	if n == 0 {
		return fmt.Errorf("nccl: %s of 0 bytes", what)
	}
	if peer < 0 || peer >= c.nranks {
		return fmt.Errorf("nccl: %s with peer %d of %d ranks", what, peer, c.nranks)
	}
	if sd, cd := s.Context().Device().Ordinal(), c.ctx.Device().Ordinal(); sd != cd {
		return fmt.Errorf("nccl: %s on a stream of CUDA device %d, but the communicator is on device %d", what, sd, cd)
	}
	return nil
}

// Send queues, on s, the sending of n bytes at p to rank peer (ncclSend).
// The bytes must stay untouched until the work queued on s reaches this
// point; the send completes only when peer receives.
func (c *Comm) Send(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error {
	if err := c.checkXfer("Send", s, n, peer); err != nil {
		return err
	}
	h, err := c.handle()
	if err != nil {
		return err
	}
	return c.ctx.Do(func() error { return check("ncclSend", raw.Send(uint64(p), n, peer, h, s.Handle())) })
}

// Recv queues, on s, the receiving of n bytes from rank peer into p
// (ncclRecv).
func (c *Comm) Recv(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error {
	if err := c.checkXfer("Recv", s, n, peer); err != nil {
		return err
	}
	h, err := c.handle()
	if err != nil {
		return err
	}
	return c.ctx.Do(func() error { return check("ncclRecv", raw.Recv(uint64(p), n, peer, h, s.Handle())) })
}

// Group runs f between ncclGroupStart and ncclGroupEnd on one locked OS
// thread (NCCL's groups are per thread), with the communicator's context
// current: the Sends and Recvs f queues are launched together, which is
// required for a rank sending to itself and lets several transfers
// overlap. f must queue transfers only from its own goroutine. The group
// is ended even when f fails (its transfers already queued are launched).
func (c *Comm) Group(f func() error) error {
	if _, err := c.handle(); err != nil {
		return err
	}
	return c.ctx.Do(func() error {
		if err := check("ncclGroupStart", raw.GroupStart()); err != nil {
			return err
		}
		ferr := f()
		return errors.Join(ferr, check("ncclGroupEnd", raw.GroupEnd()))
	})
}

// AsyncError returns the communicator's asynchronous error
// (ncclCommGetAsyncError): nil while it is healthy, an *Error once a
// transfer failed (ErrRemote when a peer did).
func (c *Comm) AsyncError() error {
	h, err := c.handle()
	if err != nil {
		return err
	}
	e, r := raw.CommGetAsyncError(h)
	if err := check("ncclCommGetAsyncError", r); err != nil {
		return err
	}
	if e == raw.InProgress {
		return nil
	}
	return check("asynchronous operation", e)
}

// Abort frees the communicator at once (ncclCommAbort), ending transfers
// that wait for a peer: use it when a peer died. The streams' queued work
// that used the communicator is undefined afterwards. Abort and Close are
// idempotent; after either, calls return ErrClosed.
func (c *Comm) Abort() error { return c.end("ncclCommAbort", raw.CommAbort) }

// CloseTimeout bounds Close: how long it waits for ncclCommDestroy.
const CloseTimeout = 30 * time.Second

// Close frees the communicator after its queued transfers (ncclCommDestroy
// waits for them on the host: when a peer may be gone, use Abort). With
// more than one rank, ncclCommDestroy also waits until the other ranks
// destroy theirs (seen with NCCL 2.28 on two GPUs): close every rank's
// communicator before waiting for another rank's process to end, or
// Abort when a peer may never close. Close waits at most CloseTimeout
// (CloseContext takes a context instead); past it, it returns an error and
// ncclCommDestroy goes on in the background, holding a thread, until the
// other ranks close or the process ends.
func (c *Comm) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	return c.CloseContext(ctx)
}

// CloseContext is Close, waiting for ncclCommDestroy until ctx ends; the
// error then wraps ctx's (context.DeadlineExceeded or Canceled).
func (c *Comm) CloseContext(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- c.end("ncclCommDestroy", raw.CommDestroy) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("nccl: ncclCommDestroy has not returned (%w): it waits for the other ranks to destroy their communicators, and goes on in the background until they do or this process ends; close every rank, or Abort where a peer may never close", ctx.Err())
	}
}

func (c *Comm) end(op string, f func(raw.Comm) raw.Result) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	h := c.h
	c.h = 0
	c.mu.Unlock()
	return c.ctx.Do(func() error { return check(op, f(h)) })
}
