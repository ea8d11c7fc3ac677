// Package nccltransport is the link.Transport that moves a link's frames
// with NCCL (ncclSend and ncclRecv, in groups): the transport the face's
// LinkSender and LinkReceiver use by default (link.TransportNCCL). It
// knows an end's slots through the small Ends interface (the face's slots
// are CUDA memory imported into Vulkan, handed to CUDA per batch), and the
// communicator through Comm (*nccl.Comm; the CPU tests' fakes). It imports
// no package of the face.
package nccltransport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/link"
	"github.com/gfxcuda/gfxcuda/nccl"
)

// Handoff is a batch's slots handed to CUDA: queue the transfers on
// Stream, then Done hands them back.
type Handoff interface {
	Stream() *cuda.Stream
	Done() error
}

// Ends is one end's slots, as the transport uses them.
type Ends interface {
	// Take returns the hand-off the sender staged for slots ss with its
	// rendering, or makes one.
	Take(ss []int) (Handoff, error)
	// Hand hands slots ss to CUDA on the end's stream.
	Hand(ss []int) (Handoff, error)
	// Ptr is slot i's device pointer.
	Ptr(i int) cuda.DevicePtr
	// Size is each slot's size in bytes.
	Size() uint64
	// Wait waits on the host (until ctx ends) for the end's stream.
	Wait(ctx context.Context) error
}

// Comm is what the transport uses of an NCCL communicator: *nccl.Comm, or
// in the CPU tests a fake moving bytes on fake CUDA streams.
type Comm interface {
	Send(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error
	Recv(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error
	Group(f func() error) error
	AsyncError() error
	Abort() error
	// CloseContext frees the communicator, waiting at most until ctx ends.
	CloseContext(ctx context.Context) error
}

// Transport is the link.Transport of one end over an NCCL communicator.
type Transport struct {
	e    Ends
	comm Comm
	peer int
	// self, for a one-rank communicator (a loopback in one process): the
	// sender's transfers wait there until the receiver's recv, which
	// issues both in one group, as NCCL requires of a rank sending to
	// itself.
	self *Self
}

var _ link.Transport = (*Transport)(nil)

// New is the transport of end e over comm, to rank peer.
func New(e Ends, comm Comm, peer int) *Transport { return &Transport{e: e, comm: comm, peer: peer} }

// Self is the state the two ends of a loopback share: both on one rank of
// a one-rank communicator.
type Self struct {
	mu      sync.Mutex
	pending []Handoff // the sender's hand-offs of the batches not yet received
	slots   [][]int
	sender  Ends
	ends    int // open ends; the communicator is destroyed with the last
}

// NewLoopback returns the transports of a loopback's sender (on ends se)
// and receiver (on re) over comm, a one-rank communicator: each batch's
// sends and receives are issued together by the receiver, in one group.
func NewLoopback(se, re Ends, comm Comm) (sender, receiver *Transport) {
	self := &Self{sender: se, ends: 2}
	return &Transport{e: se, comm: comm, self: self}, &Transport{e: re, comm: comm, self: self}
}

// Send queues the sends of slots ss (link.Transport).
func (t *Transport) Send(ctx context.Context, ss []int) error {
	// A transfer NCCL failed earlier (a network error, a peer's abort)
	// fails the link here rather than queuing more on a broken
	// communicator.
	if err := t.comm.AsyncError(); err != nil {
		return err
	}
	acc, err := t.e.Take(ss)
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
			if err := t.comm.Send(acc.Stream(), t.e.Ptr(s), t.e.Size(), t.peer); err != nil {
				return err
			}
		}
		return nil
	})
	return errors.Join(err, acc.Done())
}

// Recv queues the receives into slots ss (link.Transport).
func (t *Transport) Recv(ctx context.Context, ss []int) error {
	var sacc Handoff
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
	acc, err := t.e.Hand(ss)
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
					if err := t.comm.Send(acc.Stream(), t.self.sender.Ptr(sss[i]), t.e.Size(), t.peer); err != nil {
						return err
					}
				}
				if err := t.comm.Recv(acc.Stream(), t.e.Ptr(s), t.e.Size(), t.peer); err != nil {
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

// Close waits for the end's transfers and frees the communicator (a
// loopback's with its last end) (link.Transport).
func (t *Transport) Close(ctx context.Context) error {
	if err := t.e.Wait(ctx); err != nil {
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

// Abort aborts the communicator (link.Transport).
func (t *Transport) Abort() { t.comm.Abort() }

// Connect joins, as rank (0: the sender, 1: the receiver), the two-rank
// communicator of token tok's NCCL id in CUDA context c, and returns end
// e's transport to the other rank.
func Connect(ctx context.Context, c *cuda.Context, tok *link.TokenData, e Ends, rank int) (link.Transport, error) {
	comm, err := Join(ctx, c, nccl.UniqueID(tok.NCCLID), 2, rank)
	if err != nil {
		return nil, err
	}
	return New(e, comm, 1-rank), nil
}

// Join joins the communicator of id (n ranks) as rank, in CUDA context c,
// giving up when ctx ends (nccl.NewCommContext).
func Join(ctx context.Context, c *cuda.Context, id nccl.UniqueID, n, rank int) (*nccl.Comm, error) {
	comm, err := nccl.NewCommContext(ctx, c, id, n, rank)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("link: the peer did not join the NCCL communicator: %w", ctx.Err())
	}
	return comm, err
}
