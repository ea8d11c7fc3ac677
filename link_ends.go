package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/framebatch"
	"github.com/gfxcuda/gfxcuda/link"
	"github.com/gfxcuda/gfxcuda/link/nccltransport"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// LinkSender is the producing end of a link: a frame ring whose consumer
// (a LinkReceiver) is on another GPU, of this host or of another, with
// each batch of frames moved by the link's transport (LinkOptions.Transport;
// NCCL, the default and today the only one, queues an ncclSend of each
// frame on the hand-off's CUDA stream: package link/nccltransport).
// Its slots are CUDA allocations (cuMemCreate) imported into Vulkan
// (Device.NewBufferFromCUDA): render into them with Vulkan, and Send hands
// them to CUDA (the Device's semaphores order the transfers after the rendering),
// queues the sends, and hands them back to Vulkan after the sends (the
// next Vulkan work on them waits on the GPU). The protocol (token, credits,
// shutdown, a dead peer) is described in package link and docs/multi-gpu.md.
//
// Send, Close and the other methods may be called from any goroutine, one
// at a time.
type LinkSender struct {
	d     *Device
	l     *link.Link
	ends  *linkEnds
	token LinkToken
}

// LinkReceiver is the consuming end of a link (see LinkSender). Receive
// queues the receives of the next batch into its slots (CUDA allocations
// imported into Vulkan) and hands them back to Vulkan: read them with
// Vulkan (the Device's semaphores order the reads after the transfers), or
// hand them to CUDA with ToCUDA. Release gives a batch's slots back to the
// sender, after the work reading them has been submitted. Reader hands
// the frames out one by one in CUDA instead, as every ring's Reader does.
type LinkReceiver struct {
	d    *Device
	l    *link.Link
	ends *linkEnds
}

// linkEnds is one end's slots (CUDA memory imported into Vulkan) and the
// stream its transfers are queued on.
type linkEnds struct {
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
func (e *linkEnds) hand(ss []int, record func(*vulkan.Commands) error) (*Access, error) {
	return e.handOn(e.stream, ss, record)
}

// handOn is hand on stream s (nil: the Device's stream), for slot indices
// that come from the caller (checked).
func (e *linkEnds) handOn(s *cuda.Stream, ss []int, record func(*vulkan.Commands) error) (*Access, error) {
	b := make([]*Buffer, len(ss))
	for i, sl := range ss {
		if sl < 0 || sl >= len(e.slots) {
			return nil, fmt.Errorf("link: ToCUDA: slot %d of %d", sl, len(e.slots))
		}
		b[i] = e.slots[sl]
	}
	return e.d.handToCUDA(s, record, b)
}

// Take returns the staged hand-off of ss, or makes one
// (nccltransport.Ends).
func (e *linkEnds) Take(ss []int) (nccltransport.Handoff, error) {
	if a := e.staged; a != nil {
		e.staged = nil
		return a, nil
	}
	return e.Hand(ss)
}

// Hand hands slots ss to CUDA on the end's stream (nccltransport.Ends).
func (e *linkEnds) Hand(ss []int) (nccltransport.Handoff, error) {
	a, err := e.hand(ss, nil)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Ptr is slot i's device pointer; Size each slot's size
// (nccltransport.Ends).
func (e *linkEnds) Ptr(i int) cuda.DevicePtr { return e.slots[i].Ptr() }
func (e *linkEnds) Size() uint64             { return e.size }

func (d *Device) newLinkEnds(shape LinkShape, n int) (*linkEnds, error) {
	e := &linkEnds{d: d, size: shape.FrameSize}
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
func (e *linkEnds) free(ctx context.Context) error {
	var derr error
	if a := e.staged; a != nil { // staged, never sent: nothing queued uses it
		e.staged = nil
		derr = a.Done()
	}
	if err := e.Wait(ctx); err != nil {
		return fmt.Errorf("link: the NCCL stream did not finish (%w): its %d slots stay allocated", err, len(e.slots))
	}
	var errs []error
	for _, b := range e.slots {
		errs = append(errs, b.Close())
	}
	errs = append(errs, e.d.cs.closeStream(e.stream), derr)
	return errors.Join(errs...)
}

// Wait waits on the host (until ctx ends) for the work queued on the
// end's stream (nccltransport.Ends).
func (e *linkEnds) Wait(ctx context.Context) error {
	return cuda.Poll(ctx, "the link's CUDA stream", func() (bool, error) { return e.d.cs.streamIdle(e.stream) })
}

// NewLinkSender makes the sending end of a link on ctrl, a control channel
// to the receiver (a connected Unix or TCP socket, or any reliable byte
// stream): it allocates o.Slots slots, writes the rendezvous token on
// ctrl, waits for the receiver's answer and joins the NCCL communicator
// (rank 0 of 2) with it. Every wait for the peer ends with ctx, or after
// o.Timeout when ctx has no deadline. The link owns ctrl from now on
// (Close closes it, also when NewLinkSender fails after the rendezvous
// began).
func (d *Device) NewLinkSender(ctx context.Context, ctrl net.Conn, o LinkOptions) (*LinkSender, error) {
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
	e, err := d.newLinkEnds(o.Shape, o.Slots)
	if err != nil {
		return nil, err
	}
	l, err := link.OpenSender(ctx, ctrl, o, link.Setup{
		GPU: d.vk.Physical().DeviceUUID,
		ID:  id,
		Join: func(ctx context.Context, tok *link.TokenData) (link.Transport, error) {
			return nccltransport.Connect(ctx, d.ctx, tok, e, 0)
		},
	})
	if err != nil {
		ctrl.Close()
		return nil, errors.Join(err, e.free(context.Background()))
	}
	return &LinkSender{d: d, l: l, ends: e, token: l.Tok().Encode()}, nil
}

// NewLinkToken makes the token a sender on d with options o will offer
// (pass it as o.Token to NewLinkSender), ahead of the control channel:
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

// NewLinkReceiver makes the receiving end of a link on ctrl: it reads the
// sender's token, checks it against a and this Device's GPU (refusing, on
// both ends, with ErrLinkRejected and the reason: another shape, more
// slots than allowed, a token for a GPU this process cannot see),
// allocates the slots and joins the NCCL communicator (rank 1 of 2). Waits
// end with ctx, or after a.Timeout when ctx has no deadline. The link owns
// ctrl from now on.
func (d *Device) NewLinkReceiver(ctx context.Context, ctrl net.Conn, a LinkAccept) (*LinkReceiver, error) {
	if _, err := link.CheckTransport(a.Transport); err != nil {
		return nil, err
	}
	if err := nccl.Load(); err != nil {
		return nil, err
	}
	var e *linkEnds
	l, err := link.OpenReceiver(ctx, ctrl, a, link.Setup{
		GPU: d.vk.Physical().DeviceUUID,
		Prepare: func(tok *link.TokenData) (err error) {
			e, err = d.newLinkEnds(tok.Shape, int(tok.Slots))
			return err
		},
		Join: func(ctx context.Context, tok *link.TokenData) (link.Transport, error) {
			return nccltransport.Connect(ctx, d.ctx, tok, e, 1)
		},
	})
	if err != nil {
		ctrl.Close()
		if e != nil {
			err = errors.Join(err, e.free(context.Background()))
		}
		return nil, err
	}
	return &LinkReceiver{d: d, l: l, ends: e}, nil
}

// NewLinkLoopback makes both ends of a link in this process, on one GPU,
// over o.Transport (NCCL: a one-rank communicator, each batch's sends and
// receives issued in one NCCL group) and a socket pair for the control
// channel: the same protocol and hand-offs as two processes, to test a
// machine's transport and measure it with one GPU.
func (d *Device) NewLinkLoopback(ctx context.Context, o LinkOptions) (*LinkSender, *LinkReceiver, error) {
	o, err := link.SenderOptions(o)
	if err != nil {
		return nil, nil, err
	}
	shape := o.Shape
	id, err := nccl.NewUniqueID()
	if err != nil {
		return nil, nil, err
	}
	a, b, err := link.SocketPair()
	if err != nil {
		return nil, nil, err
	}
	se, err := d.newLinkEnds(shape, o.Slots)
	if err != nil {
		a.Close()
		b.Close()
		return nil, nil, err
	}
	re, err := d.newLinkEnds(shape, o.Slots)
	if err != nil {
		a.Close()
		b.Close()
		return nil, nil, errors.Join(err, se.free(context.Background()))
	}
	fail := func(err error) (*LinkSender, *LinkReceiver, error) {
		a.Close()
		b.Close()
		return nil, nil, errors.Join(err, se.free(context.Background()), re.free(context.Background()))
	}
	comm, err := nccltransport.Join(ctx, d.ctx, id, 1, 0)
	if err != nil {
		return fail(err)
	}
	st, rt := nccltransport.NewLoopback(se, re, comm)
	gpu := cuda.UUID(d.vk.Physical().DeviceUUID)
	type end struct {
		l   *link.Link
		err error
	}
	ch := make(chan end, 1)
	go func() {
		l, err := link.OpenReceiver(ctx, b, LinkAccept{Timeout: o.Timeout}, link.Setup{GPU: gpu,
			Join: func(context.Context, *link.TokenData) (link.Transport, error) {
				return rt, nil
			}})
		ch <- end{l, err}
	}()
	sl, serr := link.OpenSender(ctx, a, o, link.Setup{GPU: gpu, ID: id,
		Join: func(context.Context, *link.TokenData) (link.Transport, error) {
			return st, nil
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
	return &LinkSender{d: d, l: sl, ends: se, token: sl.Tok().Encode()}, &LinkReceiver{d: d, l: r.l, ends: re}, nil
}

// Token is the rendezvous token the sender wrote on the control channel.
func (s *LinkSender) Token() LinkToken { return s.token }

// Slot returns slot i's buffer (CUDA memory imported into Vulkan).
func (s *LinkSender) Slot(i int) *Buffer { return s.ends.slots[i] }

// Slots is the number of slots.
func (s *LinkSender) Slots() int { return len(s.ends.slots) }

// Send sends the next n frames (1 ≤ n ≤ Slots) as one batch: it waits for
// the receiver to release their slots (until ctx ends), calls record once
// to record the Vulkan work that fills them (frame first+i goes to
// Slot(slots[i])), submits it together with the slots' hand-off to CUDA
// (one Vulkan submission, which waits on the GPU for the sends that last
// read those slots), and queues an ncclSend of each on the link's stream.
// It returns the number of frames sent so far. Nothing waits on the host
// but the credit. record only records into c (the Device's own batch: do
// not submit it); it runs without the Device's lock.
func (s *LinkSender) Send(ctx context.Context, n int, record func(c *vulkan.Commands, first uint64, slots []int) error) (uint64, error) {
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
func (s *LinkSender) Close() error { return closeLinkEnd(s.l, s.ends) }

// Slot returns slot i's buffer.
func (r *LinkReceiver) Slot(i int) *Buffer { return r.ends.slots[i] }

// Slots is the number of slots.
func (r *LinkReceiver) Slots() int { return len(r.ends.slots) }

// Shape is the frames' shape.
func (r *LinkReceiver) Shape() LinkShape { return r.l.Tok().Shape }

// Receive waits (until ctx ends) for the sender's next batch and queues
// its receives; the slots are Vulkan's again when it returns, their next
// Vulkan use ordered after the transfers. It returns ErrLinkClosed
// (wrapped) after the sender's last batch, ErrLinkPeerGone when the
// sender died.
func (r *LinkReceiver) Receive(ctx context.Context) (LinkBatch, error) { return r.l.Receive(ctx) }

// ToCUDA hands batch b's slots to CUDA on stream s (nil: the Device's
// stream) for CUDA work that reads them (a kernel, a copy into a tensor),
// as Device.ToCUDA of those slots does; but when no Vulkan work used them
// since Receive, it submits nothing to Vulkan: s waits on the GPU for the
// receives, with no round trip through the Vulkan queue (Device.ToCUDA's
// submission waits for all of CUDA's earlier work). Queue the work on
// Access.Stream, call Access.Done, then Release(b).
func (r *LinkReceiver) ToCUDA(s *cuda.Stream, b LinkBatch) (*Access, error) {
	return r.ends.handOn(s, b.Slots, nil)
}

// Release gives batch b's slots back to the sender, which may then fill
// them: call it once the work reading them is submitted (Vulkan) or queued
// on a stream ordered before the next Receive's (CUDA). Batches are
// released in the order received.
func (r *LinkReceiver) Release(b LinkBatch) error { return r.l.Release(b) }

// Reader returns a Reader that hands out the frames of the batches
// received one by one: Next receives a batch when the last one's frames
// were all handed out and released (ErrFramesHeld while some are not),
// hands its slots to CUDA on Next's stream (ToCUDA; nil: the Device's
// stream) and returns its frames in turn (Seq: the frame's number + 1;
// another stream given to Next is ordered after the first one). Ptr is
// the frame's slot. Once each frame of a batch is released, after the work
// queued on the release streams, the batch goes back to Vulkan and to the
// sender (Access.Done, Release). After the sender's last frame Next
// returns ErrLinkClosed. Close ends the reader, not the link.
func (r *LinkReceiver) Reader() Reader {
	return batchReader("LinkReceiver.Reader", r.d, r.Slots(), r.ends.Ptr, func(ctx context.Context, s *cuda.Stream) (*framebatch.Batch[*cuda.Stream], error) {
		b, err := r.Receive(ctx)
		if err != nil {
			return nil, err
		}
		acc, err := r.ToCUDA(s, b)
		if err != nil {
			return nil, errors.Join(err, r.Release(b))
		}
		return &framebatch.Batch[*cuda.Stream]{Slots: b.Slots, Seq: b.First + 1, On: acc.Stream(), Wait: true, Done: func() error {
			if err := acc.Done(); err != nil {
				return err
			}
			return r.Release(b)
		}}, nil
	})
}

// Close tells the sender that this end is done, waits (until the link's
// Timeout) for the receives queued, and frees everything. Idempotent.
func (r *LinkReceiver) Close() error { return closeLinkEnd(r.l, r.ends) }

func closeLinkEnd(l *link.Link, e *linkEnds) error {
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

// NCCLSender is LinkSender.
//
// Deprecated: use LinkSender (NCCL is LinkOptions.Transport's default).
type NCCLSender = LinkSender

// NCCLReceiver is LinkReceiver.
//
// Deprecated: use LinkReceiver.
type NCCLReceiver = LinkReceiver

// NewNCCLSender is NewLinkSender.
//
// Deprecated: use NewLinkSender.
func (d *Device) NewNCCLSender(ctx context.Context, ctrl net.Conn, o LinkOptions) (*LinkSender, error) {
	return d.NewLinkSender(ctx, ctrl, o)
}

// NewNCCLReceiver is NewLinkReceiver.
//
// Deprecated: use NewLinkReceiver.
func (d *Device) NewNCCLReceiver(ctx context.Context, ctrl net.Conn, a LinkAccept) (*LinkReceiver, error) {
	return d.NewLinkReceiver(ctx, ctrl, a)
}

// NewNCCLLoopback is NewLinkLoopback.
//
// Deprecated: use NewLinkLoopback.
func (d *Device) NewNCCLLoopback(ctx context.Context, o LinkOptions) (*LinkSender, *LinkReceiver, error) {
	return d.NewLinkLoopback(ctx, o)
}
