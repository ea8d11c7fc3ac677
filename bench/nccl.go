package bench

import (
	"context"
	"errors"
	"fmt"
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

// NCCL measures frames moved by the NCCL link (gfxcuda.NewNCCLLoopback: a
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
	snd, rcv, err := s.D.NewNCCLLoopback(ctx, gfxcuda.LinkOptions{Shape: shape, Slots: ncclSlots})
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
	frames := s.O.Frames / ncclBatch * ncclBatch
	if frames == 0 {
		frames = ncclBatch
	}
	gbps := func(n int, d time.Duration) float64 { return float64(n) * float64(frame) / d.Seconds() / 1e9 }
	base := func() (float64, error) {
		d, err := bare.run(frames)
		return gbps(frames, d), err
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
		return gbps(frames, time.Since(t0)), nil
	}
	if err := s.figure(g, ncclBare, "GB/s", base, nil); err != nil {
		return err
	}
	return s.paired(g, fmt.Sprintf("link: NCCLSender → NCCLReceiver, %d slots, batches of %d (hand-offs, credits)", ncclSlots, ncclBatch),
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
	for n := 0; n < frames; n += ncclBatch {
		err := b.comm.Group(func() error {
			for i := 0; i < ncclBatch; i++ {
				off := uint64((n+i)%ncclSlots) * b.frame
				if err := b.comm.Send(b.stream, b.src.Ptr().Add(off), b.frame, 0); err != nil {
					return err
				}
				if err := b.comm.Recv(b.stream, b.dst.Ptr().Add(off), b.frame, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if err := b.stream.Wait(ctx); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func (b *bareNCCL) close() {
	var errs []error
	if b.stream != nil {
		errs = append(errs, b.stream.Close())
	}
	for _, m := range []*cuda.DeviceMemory{b.src, b.dst} {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	if b.comm != nil {
		errs = append(errs, b.comm.Close())
	}
	_ = errors.Join(errs...)
}
