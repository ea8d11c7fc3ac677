package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/nccl"
)

// NCCLSteps is the number of figures NCCL measures.
const NCCLSteps = 2

const (
	ncclW, ncclH, ncclSlots, ncclBatch = 1920, 1080, 16, 8
	ncclBare                           = "bare ncclSend/ncclRecv of the same bytes (one rank, groups of 8)"
)

// NCCL measures frames moved by the NCCL link (gfxcuda.NewLinkLoopback: a
// one-rank communicator on this GPU, the link protocol, the Vulkan↔CUDA
// hand-offs of both ends' slots) beside bare ncclSend/ncclRecv of the same
// bytes between two CUDA allocations, run alternately in the same
// repetitions. One GPU: NCCL copies within it; across GPUs and hosts the
// transfer itself dominates, and the link's overhead per batch is what
// this measures.
func (s *Suite) NCCL() error {
	const g = "NCCL link, 1080p RGBA8 frames (one GPU, one-rank communicator)"
	if err := nccl.Load(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	shape := gfxcuda.LinkShape{Width: ncclW, Height: ncclH, Format: format.RGBA8UNorm}
	snd, rcv, err := s.D.NewLinkLoopback(ctx, gfxcuda.LinkOptions{Shape: shape, Slots: ncclSlots})
	if err != nil {
		return err
	}
	defer rcv.Close()
	defer snd.Close()
	frame := uint64(ncclW * ncclH * 4)
	for i := 0; i < ncclSlots; i++ {
		if err := randomFill(s.D.CUDA(), snd.Slot(i).Ptr(), frame); err != nil {
			return err
		}
	}
	bare, err := newBareNCCL(s.D.CUDA(), frame)
	if err != nil {
		return err
	}
	defer bare.close()
	frames := s.ncclFrames()
	bytes := frames * int(frame)
	base := func() (float64, error) {
		d, err := bare.run(frames)
		return gbps(bytes, d), err
	}
	link := func() (float64, error) {
		t0 := time.Now()
		for n := 0; n < frames; n += ncclBatch {
			if _, err := snd.Send(ctx, ncclBatch, nil); err != nil {
				return 0, err
			}
			b, err := rcv.Receive(ctx)
			if err != nil {
				return 0, err
			}
			if err := rcv.Release(b); err != nil {
				return 0, err
			}
		}
		// The last batch's slots: handing them to CUDA waits for the
		// transfers on the GPU; the stream then tells when they ended.
		st := bare.stream
		res := make([]gfxcuda.Resource, ncclSlots)
		for i := range res {
			res[i] = rcv.Slot(i)
		}
		acc, err := s.D.ToCUDA(st, res...)
		if err != nil {
			return 0, err
		}
		if err := acc.Done(); err != nil {
			return 0, err
		}
		if err := st.Wait(ctx); err != nil {
			return 0, err
		}
		return gbps(bytes, time.Since(t0)), nil
	}
	if err := s.figure(g, ncclBare, "GB/s", base, nil); err != nil {
		return err
	}
	return s.paired(g, fmt.Sprintf("link: LinkSender → LinkReceiver, %d slots, batches of %d (hand-offs, credits)", ncclSlots, ncclBatch),
		"GB/s", ncclBare, base, link, 0)
}

// bareNCCL sends frames between two CUDA allocations with a one-rank
// communicator, nothing else.
type bareNCCL struct {
	comm     *nccl.Comm
	stream   *cuda.Stream
	src, dst *cuda.DeviceMemory
	frame    uint64
}

func newBareNCCL(cx *cuda.Context, frame uint64) (*bareNCCL, error) {
	id, err := nccl.NewUniqueID()
	if err != nil {
		return nil, err
	}
	b := &bareNCCL{frame: frame}
	if b.comm, err = nccl.NewComm(cx, id, 1, 0); err != nil {
		return nil, err
	}
	if b.stream, err = cx.NewStream(cuda.StreamNonBlocking); err != nil {
		b.close()
		return nil, err
	}
	if b.src, err = cx.Alloc(frame * ncclSlots); err != nil {
		b.close()
		return nil, err
	}
	if b.dst, err = cx.Alloc(frame * ncclSlots); err != nil {
		b.close()
		return nil, err
	}
	if err := randomFill(cx, b.src.Ptr(), frame*ncclSlots); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bareNCCL) run(frames int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t0 := time.Now()
	err := bareGroups(ctx, b.comm, b.stream, frames, b.frame, func(off uint64) error {
		if err := b.comm.Send(b.stream, b.src.Ptr().Add(off), b.frame, 0); err != nil {
			return err
		}
		return b.comm.Recv(b.stream, b.dst.Ptr().Add(off), b.frame, 0)
	})
	if err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// bareGroups queues the bare transfers of frames frames of frame bytes, in
// NCCL groups of ncclBatch, frame n at offset (n mod ncclSlots)×frame (op
// queues one on st), and waits for st (bounded by ctx).
func bareGroups(ctx context.Context, comm *nccl.Comm, st *cuda.Stream, frames int, frame uint64, op func(off uint64) error) error {
	for n := 0; n < frames; n += ncclBatch {
		err := comm.Group(func() error {
			for i := 0; i < ncclBatch; i++ {
				if err := op(uint64((n+i)%ncclSlots) * frame); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return st.Wait(ctx)
}

func (b *bareNCCL) close() {
	// A benchmark's clean-up: its figures are taken; errors here change none.
	if b.stream != nil {
		b.stream.Close()
	}
	for _, m := range []*cuda.DeviceMemory{b.src, b.dst} {
		if m != nil {
			m.Close()
		}
	}
	if b.comm != nil {
		b.comm.Close()
	}
}

// NCCLTwoRanksSteps is the number of figures NCCLTwoRanks measures.
const NCCLTwoRanksSteps = 1

// NCCLPeerStart starts the other process of the two-rank figure (gfxcuda's
// hidden command, which calls NCCLPeer) with ctrl and bare as its
// descriptors 3 and 4, on the CUDA GPU with UUID gpu; wait waits for it to
// end.
type NCCLPeerStart func(ctrl, bare *os.File, gpu cuda.UUID, frames, reps int) (wait func() error, err error)

const ncclTwoRanksGroup = "NCCL link, 1080p RGBA8 frames, one rank per GPU"

// NCCLTwoRanks measures the link with one rank per GPU: the LinkSender on
// this Suite's GPU, the LinkReceiver on another GPU in another process
// (start), the control channel a Unix socket; beside bare
// ncclSend/ncclRecv of the same bytes between the same two ranks (a second
// communicator), alternately in the same repetitions (link, then bare).
// The receiver releases each batch at once; no Vulkan work renders the
// frames (the link's overhead, not the renderer's). With fewer than two
// CUDA GPUs it records the figure as not measured.
func (s *Suite) NCCLTwoRanks(start NCCLPeerStart) error {
	name := fmt.Sprintf("link: LinkSender (GPU 0) → LinkReceiver (GPU 1, another process), %d slots, batches of %d", ncclSlots, ncclBatch)
	const bareName = "bare ncclSend/ncclRecv of the same bytes between the same two ranks (groups of 8)"
	if err := nccl.Load(); err != nil {
		return err
	}
	if s.Progress != nil {
		s.Progress.Step(ncclTwoRanksGroup + ": " + name)
	}
	other, peer, seen, err := otherGPU(cuda.UUID(s.D.Vulkan().Physical().DeviceUUID))
	if err != nil {
		return err
	}
	if other == nil {
		s.add(Figure{Group: ncclTwoRanksGroup, Name: name, Unit: "GB/s",
			Note: fmt.Sprintf("not measured: needs 2 CUDA GPUs, %d visible", seen)})
		return nil
	}
	frames := s.ncclFrames()
	reps := s.O.Reps + 1 // the first is a warm-up
	c1, c2, err := filePair()
	if err != nil {
		return err
	}
	b1, b2, err := filePair()
	if err != nil {
		c1.Close()
		return err
	}
	wait, err := start(c2, b2, peer, frames, reps)
	c2.Close()
	b2.Close()
	if err != nil {
		c1.Close()
		b1.Close()
		return err
	}
	vals, ratios, err := s.twoRanks(c1, b1, peer, frames, reps)
	b1.Close()
	if werr := wait(); err == nil && werr != nil {
		err = fmt.Errorf("the receiving process: %w", werr)
	}
	if err != nil {
		return fmt.Errorf("%s / %s: %w", ncclTwoRanksGroup, name, err)
	}
	m, sp := Summary(vals)
	r, _ := Summary(ratios)
	s.add(Figure{Group: ncclTwoRanksGroup, Name: name, Value: m, Unit: "GB/s", Reps: len(vals), Spread: sp,
		Against: bareName, Ratio: r, Target: 0.8, Paired: true,
		Note: "ratio: median of per-repetition ratios, the bare transfers run after the link's in each repetition"})
	return nil
}

// twoRanks is the sending side of NCCLTwoRanks: it returns the link's
// GB/s and the ratios link/bare of the repetitions after the first.
func (s *Suite) twoRanks(ctrl, bare *os.File, peer cuda.UUID, frames, reps int) (vals, ratios []float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cc, err := net.FileConn(ctrl)
	ctrl.Close()
	if err != nil {
		return nil, nil, err
	}
	bc, err := net.FileConn(bare)
	if err != nil {
		cc.Close()
		return nil, nil, err
	}
	defer bc.Close()
	shape := gfxcuda.LinkShape{Width: ncclW, Height: ncclH, Format: format.RGBA8UNorm}
	snd, err := s.D.NewLinkSender(ctx, cc, gfxcuda.LinkOptions{Shape: shape, Slots: ncclSlots, Receiver: &peer, Timeout: time.Minute})
	if err != nil {
		return nil, nil, err
	}
	defer snd.Close()
	frame := uint64(ncclW * ncclH * 4)
	for i := 0; i < ncclSlots; i++ {
		if err := randomFill(s.D.CUDA(), snd.Slot(i).Ptr(), frame); err != nil {
			return nil, nil, err
		}
	}
	id, err := nccl.NewUniqueID()
	if err != nil {
		return nil, nil, err
	}
	if _, err := bc.Write(id[:]); err != nil {
		return nil, nil, err
	}
	cx := s.D.CUDA()
	comm, err := joinBare(ctx, cx, id, 0)
	if err != nil {
		return nil, nil, err
	}
	defer comm.Close()
	src, err := cx.Alloc(frame * ncclSlots)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	if err := randomFill(cx, src.Ptr(), frame*ncclSlots); err != nil {
		return nil, nil, err
	}
	st, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	// ready waits for the peer's byte saying it waits for the next phase.
	ready := func() error {
		var b [1]byte
		bc.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := io.ReadFull(bc, b[:])
		return err
	}
	for r := 0; r < reps; r++ {
		if err := ready(); err != nil {
			return nil, nil, fmt.Errorf("the receiver: %w", err)
		}
		t0 := time.Now()
		for n := 0; n < frames; n += ncclBatch {
			if _, err := snd.Send(ctx, ncclBatch, nil); err != nil {
				return nil, nil, err
			}
		}
		// The receiver says when every frame has arrived (its stream
		// passed the last receive).
		if err := ready(); err != nil {
			return nil, nil, fmt.Errorf("the receiver: %w", err)
		}
		link := time.Since(t0)
		t0 = time.Now()
		err := bareGroups(ctx, comm, st, frames, frame, func(off uint64) error {
			return comm.Send(st, src.Ptr().Add(off), frame, 1)
		})
		if err != nil {
			return nil, nil, err
		}
		b := time.Since(t0)
		if r > 0 {
			vals = append(vals, gbps(frames*int(frame), link))
			ratios = append(ratios, b.Seconds()/link.Seconds())
		}
	}
	return vals, ratios, snd.Close()
}

// NCCLPeer is the receiving process of NCCLTwoRanks (gfxcuda's hidden
// command): on the GPU with UUID gpu, an LinkReceiver on ctrl and the bare
// receives of a communicator whose id comes on bare, in the order the
// sender measures them; it writes one byte on bare before each phase and
// after each link phase.
func NCCLPeer(ctrl, bare *os.File, gpu cuda.UUID, frames, reps int) error {
	d, err := gfxcuda.Open(gfxcuda.Options{UUID: &gpu})
	if err != nil {
		return err
	}
	defer d.Close()
	if err := nccl.Load(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cc, err := net.FileConn(ctrl)
	if err != nil {
		return err
	}
	bc, err := net.FileConn(bare)
	if err != nil {
		cc.Close()
		return err
	}
	defer bc.Close()
	shape := gfxcuda.LinkShape{Width: ncclW, Height: ncclH, Format: format.RGBA8UNorm}
	rcv, err := d.NewLinkReceiver(ctx, cc, gfxcuda.LinkAccept{Expect: &shape, Timeout: time.Minute})
	if err != nil {
		return err
	}
	defer rcv.Close()
	var id nccl.UniqueID
	bc.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.ReadFull(bc, id[:]); err != nil {
		return fmt.Errorf("reading the bare communicator's id: %w", err)
	}
	cx := d.CUDA()
	comm, err := joinBare(ctx, cx, id, 1)
	if err != nil {
		return err
	}
	defer comm.Close()
	frame := uint64(ncclW * ncclH * 4)
	dst, err := cx.Alloc(frame * ncclSlots)
	if err != nil {
		return err
	}
	defer dst.Close()
	st, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return err
	}
	defer st.Close()
	say := func() error {
		bc.SetWriteDeadline(time.Now().Add(time.Minute))
		_, err := bc.Write([]byte{1})
		return err
	}
	for r := 0; r < reps; r++ {
		if err := say(); err != nil {
			return err
		}
		for n := 0; n < frames; {
			b, err := rcv.Receive(ctx)
			if err != nil {
				return err
			}
			n += len(b.Slots)
			if n >= frames {
				// The last batch: st waits (on the GPU, no Vulkan
				// submission) for its receives, the host for st.
				acc, err := rcv.ToCUDA(st, b)
				if err != nil {
					return err
				}
				if err := acc.Done(); err != nil {
					return err
				}
				if err := st.Wait(ctx); err != nil {
					return err
				}
			}
			if err := rcv.Release(b); err != nil {
				return err
			}
		}
		if err := say(); err != nil {
			return err
		}
		err := bareGroups(ctx, comm, st, frames, frame, func(off uint64) error {
			return comm.Recv(st, dst.Ptr().Add(off), frame, 0)
		})
		if err != nil {
			return err
		}
	}
	if _, err := rcv.Receive(ctx); !errors.Is(err, gfxcuda.ErrLinkClosed) {
		return fmt.Errorf("after the last frame: %v, want ErrLinkClosed", err)
	}
	return rcv.Close()
}

// ncclFrames is the frames a figure of the NCCL groups moves: the
// options' count in whole batches, at least one batch.
func (s *Suite) ncclFrames() int { return max(s.O.Frames/ncclBatch*ncclBatch, ncclBatch) }

// joinBare joins the two-rank bare communicator as rank, giving up when
// ctx ends or after a minute (a peer that died never joins:
// nccl.NewCommContext).
func joinBare(ctx context.Context, cx *cuda.Context, id nccl.UniqueID, rank int) (*nccl.Comm, error) {
	jctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := nccl.NewCommContext(jctx, cx, id, 2, rank)
	switch {
	case err == nil:
		return c, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("the peer did not join the bare communicator: %w", ctx.Err())
	case jctx.Err() != nil:
		return nil, fmt.Errorf("the peer did not join the bare communicator within a minute: %w", context.DeadlineExceeded)
	}
	return nil, err
}
