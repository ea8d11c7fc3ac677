package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/link"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// NCCLSender is the producing end of a link: a frame ring whose consumer
// (an NCCLReceiver) is on another GPU, of this host or of another, with
// each batch of frames moved by ncclSend on the hand-off's CUDA stream.
// Its slots are CUDA allocations (cuMemCreate) imported into Vulkan
// (Device.NewBufferFromCUDA): render into them with Vulkan, and Send hands
// them to CUDA (the Device's semaphores order NCCL after the rendering),
// queues the sends, and hands them back to Vulkan after the sends (the
// next Vulkan work on them waits on the GPU). The protocol (token, credits,
// shutdown, a dead peer) is described in package link and docs/multi-gpu.md.
//
// Send, Close and the other methods may be called from any goroutine, one
// at a time.
type NCCLSender struct {
	d     *Device
	l     *link.Link
	ends  *ncclEnds
	token LinkToken
}

// NCCLReceiver is the consuming end of a link (see NCCLSender). Receive
// queues the receives of the next batch into its slots (CUDA allocations
// imported into Vulkan) and hands them back to Vulkan: read them with
// Vulkan (the Device's semaphores order the reads after NCCL), or hand
// them to CUDA with Device.ToCUDA. Release gives a batch's slots back to
// the sender, after the work reading them has been submitted.
type NCCLReceiver struct {
	d    *Device
	l    *link.Link
	ends *ncclEnds
}

// ncclEnds is one end's slots (CUDA memory imported into Vulkan) and the
// stream its transfers are queued on.
type ncclEnds struct {
	mu     sync.Mutex
	freed  bool
	d      *Device
	stream *cuda.Stream
	slots  []*Buffer
	size   uint64
	// staged is the sender's hand-off of the batch being sent: made with
	// its rendering before the batch is announced (so that a failed render
	// announces nothing), taken by the transport's send. Guarded by the
	// link's sendMu.
	staged *Access
}

// hand hands slots ss to CUDA on the end's stream after the Vulkan work
// record records (nil: none): one submission at most, no host wait
// (Device.handToCUDA).
func (e *ncclEnds) hand(ss []int, record func(*vulkan.Commands) error) (*Access, error) {
	return e.handOn(e.stream, ss, record)
}

// handOn is hand on stream s (nil: the Device's stream), for slot indices
// that come from the caller (checked).
func (e *ncclEnds) handOn(s *cuda.Stream, ss []int, record func(*vulkan.Commands) error) (*Access, error) {
	b := make([]*Buffer, len(ss))
	for i, sl := range ss {
		if sl < 0 || sl >= len(e.slots) {
			return nil, fmt.Errorf("link: ToCUDA: slot %d of %d", sl, len(e.slots))
		}
		b[i] = e.slots[sl]
	}
	return e.d.handToCUDA(s, record, b)
}

// take returns the staged hand-off of ss, or makes one.
func (e *ncclEnds) take(ss []int) (*Access, error) {
	if a := e.staged; a != nil {
		e.staged = nil
		return a, nil
	}
	return e.hand(ss, nil)
}

func (d *Device) newNCCLEnds(shape LinkShape, n int) (*ncclEnds, error) {
	e := &ncclEnds{d: d, size: shape.FrameSize}
	s, err := d.cs.newStream()
	if err != nil {
		return nil, err
	}
	e.stream = s
	for i := 0; i < n; i++ {
		b, err := d.NewBufferFromCUDA(shape.FrameSize)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("link: slot %d of %d: %w", i, n, err), e.free(context.Background()))
		}
		e.slots = append(e.slots, b)
	}
	return e, nil
}

// free waits (until ctx ends) for the stream, then frees the slots and the
// stream. When the wait fails the memory is left allocated (the GPU may
// still use it) and the error says so.
func (e *ncclEnds) free(ctx context.Context) error {
	var derr error
	if a := e.staged; a != nil { // staged, never sent: nothing queued uses it
		e.staged = nil
		derr = a.Done()
	}
	if err := e.waitStream(ctx); err != nil {
		return fmt.Errorf("link: the NCCL stream did not finish (%w): its %d slots stay allocated", err, len(e.slots))
	}
	var errs []error
	for _, b := range e.slots {
		errs = append(errs, b.Close())
	}
	errs = append(errs, e.d.cs.closeStream(e.stream), derr)
	return errors.Join(errs...)
}

// waitStream waits on the host (until ctx ends) for the work queued on the
// end's stream.
func (e *ncclEnds) waitStream(ctx context.Context) error {
	return cuda.Poll(ctx, "the link's CUDA stream", func() (bool, error) { return e.d.cs.streamIdle(e.stream) })
}

// linkComm is what ncclTransport uses of an NCCL communicator: *nccl.Comm,
// or in the CPU tests a fake moving bytes on fake CUDA streams.
type linkComm interface {
	Send(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error
	Recv(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error
	Group(f func() error) error
	AsyncError() error
	Abort() error
	// CloseContext frees the communicator, waiting at most until ctx ends.
	CloseContext(ctx context.Context) error
}

// ncclTransport is the link.Transport of one end over an NCCL communicator.
type ncclTransport struct {
	e    *ncclEnds
	comm linkComm
	peer int
	// self, for a one-rank communicator (a loopback in one process): the
	// sender's transfers wait there until the receiver's recv, which
	// issues both in one group, as NCCL requires of a rank sending to
	// itself.
	self *ncclSelf
}

type ncclSelf struct {
	mu      sync.Mutex
	pending []*Access // the sender's hand-offs of the batches not yet received
	slots   [][]int
	sender  *ncclEnds
	ends    int // open ends; the communicator is destroyed with the last
}

func (t *ncclTransport) Send(ctx context.Context, ss []int) error {
	// A transfer NCCL failed earlier (a network error, a peer's abort)
	// fails the link here rather than queuing more on a broken
	// communicator.
	if err := t.comm.AsyncError(); err != nil {
		return err
	}
	acc, err := t.e.take(ss)
	if err != nil {
		return err
	}
	if t.self != nil {
		t.self.mu.Lock()
		t.self.pending = append(t.self.pending, acc)
		t.self.slots = append(t.self.slots, ss)
		t.self.mu.Unlock()
		return nil
	}
	err = t.comm.Group(func() error {
		for _, s := range ss {
			if err := t.comm.Send(acc.Stream(), t.e.slots[s].Ptr(), t.e.size, t.peer); err != nil {
				return err
			}
		}
		return nil
	})
	return errors.Join(err, acc.Done())
}

func (t *ncclTransport) Recv(ctx context.Context, ss []int) error {
	var sacc *Access
	var sss []int
	if t.self != nil {
		// The sender announces a batch before queuing it: wait for it.
		for sacc == nil {
			t.self.mu.Lock()
			if len(t.self.pending) > 0 {
				sacc, sss = t.self.pending[0], t.self.slots[0]
				t.self.pending, t.self.slots = t.self.pending[1:], t.self.slots[1:]
			}
			t.self.mu.Unlock()
			if sacc != nil {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("link: loopback: the sender announced a batch it did not queue: %w", ctx.Err())
			case <-time.After(100 * time.Microsecond):
			}
		}
		if len(sss) != len(ss) {
			return fmt.Errorf("link: loopback: a batch of %d frames received as %d", len(sss), len(ss))
		}
	}
	if err := t.comm.AsyncError(); err != nil {
		if sacc != nil {
			err = errors.Join(err, sacc.Done())
		}
		return err
	}
	acc, err := t.e.hand(ss, nil)
	if err != nil {
		if sacc != nil {
			err = errors.Join(err, sacc.Done())
		}
		return err
	}
	if sacc != nil {
		// The group runs on the receiver's stream, after both hand-offs;
		// the sender's stream waits for it before handing back its slots.
		err = acc.Stream().After(sacc.Stream())
	}
	if err == nil {
		err = t.comm.Group(func() error {
			for i, s := range ss {
				if sacc != nil {
					if err := t.comm.Send(acc.Stream(), t.self.sender.slots[sss[i]].Ptr(), t.e.size, t.peer); err != nil {
						return err
					}
				}
				if err := t.comm.Recv(acc.Stream(), t.e.slots[s].Ptr(), t.e.size, t.peer); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if sacc != nil {
		err = errors.Join(err, sacc.Stream().After(acc.Stream()), sacc.Done())
	}
	return errors.Join(err, acc.Done())
}

func (t *ncclTransport) Close(ctx context.Context) error {
	if err := t.e.waitStream(ctx); err != nil {
		return fmt.Errorf("waiting for the last NCCL transfers: %w", err)
	}
	if t.self != nil {
		t.self.mu.Lock()
		t.self.ends--
		last := t.self.ends == 0
		t.self.mu.Unlock()
		if !last {
			return nil
		}
	}
	return t.comm.CloseContext(ctx) // bounded: a peer rank that never closes holds ncclCommDestroy
}

func (t *ncclTransport) Abort() { t.comm.Abort() }

// joinComm joins the communicator as rank, giving up when ctx ends
// (nccl.NewCommContext).
func joinComm(ctx context.Context, c *cuda.Context, id nccl.UniqueID, n, rank int) (*nccl.Comm, error) {
	comm, err := nccl.NewCommContext(ctx, c, id, n, rank)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("link: the peer did not join the NCCL communicator: %w", ctx.Err())
	}
	return comm, err
}

// NewNCCLSender makes the sending end of a link on ctrl, a control channel
// to the receiver (a connected Unix or TCP socket, or any reliable byte
// stream): it allocates o.Slots slots, writes the rendezvous token on
// ctrl, waits for the receiver's answer and joins the NCCL communicator
// (rank 0 of 2) with it. Every wait for the peer ends with ctx, or after
// o.Timeout when ctx has no deadline. The link owns ctrl from now on
// (Close closes it, also when NewNCCLSender fails after the rendezvous
// began).
func (d *Device) NewNCCLSender(ctx context.Context, ctrl net.Conn, o LinkOptions) (*NCCLSender, error) {
	o, err := link.SenderOptions(o)
	if err != nil {
		return nil, err
	}
	var id nccl.UniqueID // a given token carries its own (link.OpenSender)
	if o.Token == "" {
		if id, err = nccl.NewUniqueID(); err != nil {
			return nil, err
		}
	}
	e, err := d.newNCCLEnds(o.Shape, o.Slots)
	if err != nil {
		return nil, err
	}
	l, err := link.OpenSender(ctx, ctrl, o, link.Setup{
		GPU: d.vk.Physical().DeviceUUID,
		ID:  id,
		Join: func(ctx context.Context, tok *link.TokenData) (link.Transport, error) {
			comm, err := joinComm(ctx, d.ctx, nccl.UniqueID(tok.NCCLID), 2, 0)
			if err != nil {
				return nil, err
			}
			return &ncclTransport{e: e, comm: comm, peer: 1}, nil
		},
	})
	if err != nil {
		ctrl.Close()
		return nil, errors.Join(err, e.free(context.Background()))
	}
	return &NCCLSender{d: d, l: l, ends: e, token: l.Tok().Encode()}, nil
}

// NewLinkToken makes the token a sender on d with options o will offer
// (pass it as o.Token to NewNCCLSender), ahead of the control channel:
// the NCCL communicator's unique id (NCCL is loaded here: its absence
// fails now, with nccl.ErrNotFound), a new session, o's shape, slots and
// receiver GPU, and d's GPU. Give it to the receiver (LinkAccept.Token)
// on a channel you trust; it serves one link.
func (d *Device) NewLinkToken(o LinkOptions) (LinkToken, error) {
	o, err := link.SenderOptions(o)
	if err != nil {
		return "", err
	}
	id, err := nccl.NewUniqueID()
	if err != nil {
		return "", err
	}
	return link.SenderToken(o, d.vk.Physical().DeviceUUID, id).Encode(), nil
}

// NewNCCLReceiver makes the receiving end of a link on ctrl: it reads the
// sender's token, checks it against a and this Device's GPU (refusing, on
// both ends, with ErrLinkRejected and the reason: another shape, more
// slots than allowed, a token for a GPU this process cannot see),
// allocates the slots and joins the NCCL communicator (rank 1 of 2). Waits
// end with ctx, or after a.Timeout when ctx has no deadline. The link owns
// ctrl from now on.
func (d *Device) NewNCCLReceiver(ctx context.Context, ctrl net.Conn, a LinkAccept) (*NCCLReceiver, error) {
	if err := nccl.Load(); err != nil {
		return nil, err
	}
	var e *ncclEnds
	l, err := link.OpenReceiver(ctx, ctrl, a, link.Setup{
		GPU: d.vk.Physical().DeviceUUID,
		Prepare: func(tok *link.TokenData) (err error) {
			e, err = d.newNCCLEnds(tok.Shape, int(tok.Slots))
			return err
		},
		Join: func(ctx context.Context, tok *link.TokenData) (link.Transport, error) {
			comm, err := joinComm(ctx, d.ctx, nccl.UniqueID(tok.NCCLID), 2, 1)
			if err != nil {
				return nil, err
			}
			return &ncclTransport{e: e, comm: comm, peer: 0}, nil
		},
	})
	if err != nil {
		ctrl.Close()
		if e != nil {
			err = errors.Join(err, e.free(context.Background()))
		}
		return nil, err
	}
	return &NCCLReceiver{d: d, l: l, ends: e}, nil
}

// NewNCCLLoopback makes both ends of a link in this process, on one GPU,
// over a one-rank NCCL communicator (each batch's sends and receives are
// issued in one NCCL group) and a socket pair for the control channel:
// the same protocol and hand-offs as two processes, to test a machine's
// NCCL and measure the transport with one GPU.
func (d *Device) NewNCCLLoopback(ctx context.Context, o LinkOptions) (*NCCLSender, *NCCLReceiver, error) {
	o, err := link.SenderOptions(o)
	if err != nil {
		return nil, nil, err
	}
	shape := o.Shape
	id, err := nccl.NewUniqueID()
	if err != nil {
		return nil, nil, err
	}
	a, b, err := socketPair()
	if err != nil {
		return nil, nil, err
	}
	se, err := d.newNCCLEnds(shape, o.Slots)
	if err != nil {
		a.Close()
		b.Close()
		return nil, nil, err
	}
	re, err := d.newNCCLEnds(shape, o.Slots)
	if err != nil {
		a.Close()
		b.Close()
		return nil, nil, errors.Join(err, se.free(context.Background()))
	}
	fail := func(err error) (*NCCLSender, *NCCLReceiver, error) {
		a.Close()
		b.Close()
		return nil, nil, errors.Join(err, se.free(context.Background()), re.free(context.Background()))
	}
	comm, err := joinComm(ctx, d.ctx, id, 1, 0)
	if err != nil {
		return fail(err)
	}
	self := &ncclSelf{sender: se, ends: 2}
	gpu := cuda.UUID(d.vk.Physical().DeviceUUID)
	type end struct {
		l   *link.Link
		err error
	}
	ch := make(chan end, 1)
	go func() {
		l, err := link.OpenReceiver(ctx, b, LinkAccept{Timeout: o.Timeout}, link.Setup{GPU: gpu,
			Join: func(context.Context, *link.TokenData) (link.Transport, error) {
				return &ncclTransport{e: re, comm: comm, peer: 0, self: self}, nil
			}})
		ch <- end{l, err}
	}()
	sl, serr := link.OpenSender(ctx, a, o, link.Setup{GPU: gpu, ID: id,
		Join: func(context.Context, *link.TokenData) (link.Transport, error) {
			return &ncclTransport{e: se, comm: comm, peer: 0, self: self}, nil
		}})
	r := <-ch
	if err := errors.Join(serr, r.err); err != nil {
		if sl != nil {
			sl.Close()
		}
		if r.l != nil {
			r.l.Close()
		}
		comm.Abort()
		return fail(err)
	}
	return &NCCLSender{d: d, l: sl, ends: se, token: sl.Tok().Encode()}, &NCCLReceiver{d: d, l: r.l, ends: re}, nil
}

// Token is the rendezvous token the sender wrote on the control channel.
func (s *NCCLSender) Token() LinkToken { return s.token }

// Slot returns slot i's buffer (CUDA memory imported into Vulkan).
func (s *NCCLSender) Slot(i int) *Buffer { return s.ends.slots[i] }

// Slots is the number of slots.
func (s *NCCLSender) Slots() int { return len(s.ends.slots) }

// Send sends the next n frames (1 ≤ n ≤ Slots) as one batch: it waits for
// the receiver to release their slots (until ctx ends), calls record once
// to record the Vulkan work that fills them (frame first+i goes to
// Slot(slots[i])), submits it together with the slots' hand-off to CUDA
// (one Vulkan submission, which waits on the GPU for the sends that last
// read those slots), and queues an ncclSend of each on the link's stream.
// It returns the number of frames sent so far. Nothing waits on the host
// but the credit. record only records into c (the Device's own batch: do
// not submit it); it runs without the Device's lock.
func (s *NCCLSender) Send(ctx context.Context, n int, record func(c *vulkan.Commands, first uint64, slots []int) error) (uint64, error) {
	return s.l.Send(ctx, n, func(first uint64, ss []int) error {
		// The rendering, the acquire of the slots (after the sends that
		// last read them, on the GPU) and their release to the link's
		// stream: one submission, no host wait.
		if a := s.ends.staged; a != nil {
			// Staged by a Send that failed before queuing its sends.
			s.ends.staged = nil
			if err := a.Done(); err != nil {
				return err
			}
		}
		var rec func(*vulkan.Commands) error
		if record != nil {
			rec = func(c *vulkan.Commands) error { return record(c, first, ss) }
		}
		acc, err := s.ends.hand(ss, rec)
		if err != nil {
			return err
		}
		s.ends.staged = acc
		return nil
	})
}

// Close tells the receiver that no more frames come, waits (until the
// link's Timeout) for the sends queued, frees the communicator, the slots
// and the control channel. After the receiver died it aborts the
// communicator instead. Idempotent.
func (s *NCCLSender) Close() error { return closeNCCLEnd(s.l, s.ends) }

// Slot returns slot i's buffer.
func (r *NCCLReceiver) Slot(i int) *Buffer { return r.ends.slots[i] }

// Slots is the number of slots.
func (r *NCCLReceiver) Slots() int { return len(r.ends.slots) }

// Shape is the frames' shape.
func (r *NCCLReceiver) Shape() LinkShape { return r.l.Tok().Shape }

// Receive waits (until ctx ends) for the sender's next batch and queues
// its receives; the slots are Vulkan's again when it returns, their next
// Vulkan use ordered after the transfers. It returns ErrLinkClosed
// (wrapped) after the sender's last batch, ErrLinkPeerGone when the
// sender died.
func (r *NCCLReceiver) Receive(ctx context.Context) (LinkBatch, error) { return r.l.Receive(ctx) }

// ToCUDA hands batch b's slots to CUDA on stream s (nil: the Device's
// stream) for CUDA work that reads them (a kernel, a copy into a tensor),
// as Device.ToCUDA of those slots does; but when no Vulkan work used them
// since Receive, it submits nothing to Vulkan: s waits on the GPU for the
// receives, with no round trip through the Vulkan queue (Device.ToCUDA's
// submission waits for all of CUDA's earlier work). Queue the work on
// Access.Stream, call Access.Done, then Release(b).
func (r *NCCLReceiver) ToCUDA(s *cuda.Stream, b LinkBatch) (*Access, error) {
	return r.ends.handOn(s, b.Slots, nil)
}

// Release gives batch b's slots back to the sender, which may then fill
// them: call it once the work reading them is submitted (Vulkan) or queued
// on a stream ordered before the next Receive's (CUDA). Batches are
// released in the order received.
func (r *NCCLReceiver) Release(b LinkBatch) error { return r.l.Release(b) }

// Close tells the sender that this end is done, waits (until the link's
// Timeout) for the receives queued, and frees everything. Idempotent.
func (r *NCCLReceiver) Close() error { return closeNCCLEnd(r.l, r.ends) }

func closeNCCLEnd(l *link.Link, e *ncclEnds) error {
	err := l.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.freed {
		return err
	}
	e.freed = true
	ctx, cancel := context.WithTimeout(context.Background(), l.Timeout())
	defer cancel()
	return errors.Join(err, e.free(ctx))
}
