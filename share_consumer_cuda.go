package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// hostReleaseTimeout bounds the host waits of consumers on rings without
// GPU synchronization.
const hostReleaseTimeout = 30 * time.Second

// CUDAConsumer consumes a ring in CUDA: its slots are imported into a CUDA
// context, and each frame Next returns comes with a stream already ordered
// (on the GPU) after the producer's work on it. Release queues, on the
// stream, the signal that gives the slot back; the host never waits for
// the GPU. Consecutive frames of one producer batch cost one semaphore
// wait per stream.
//
// On a ring without GPU synchronization (a producer on a driver without
// exportable semaphores) frames are complete when Next returns them, and
// Release waits on the host for the stream before giving the slot back.
//
// A CUDAConsumer is for one goroutine at a time.
type CUDAConsumer struct {
	c      *Consumer
	ctx    *cuda.Context
	bufs   []*CUDABuffer
	texs   []*CUDATexture
	ready  *cuda.ExternalSemaphore
	free   *cuda.ExternalSemaphore
	waited map[*cuda.Stream]uint64 // the "frame ready" value each stream waits for already
	last   *cuda.Stream            // the stream of the last signal
	ev     *cuda.Event
	aux    *cuda.Stream // for unblocking after the producer's death
	freed  bool         // "frame ready" was signalled past the producer
	closed bool
}

// OpenCUDAConsumer attaches to a ring as one more consumer and imports its
// slots (buffers or textures) and semaphores into c.
func OpenCUDAConsumer(ctx context.Context, c *cuda.Context, tok Token, o ...OpenOptions) (_ *CUDAConsumer, err error) {
	cons, err := OpenSharedRing(ctx, tok, o...)
	if err != nil {
		return nil, err
	}
	cc := &CUDAConsumer{c: cons, ctx: c, waited: map[*cuda.Stream]uint64{}}
	defer func() {
		if err != nil {
			cc.Close()
		}
	}()
	for i, st := range cons.Slots() {
		m, err := st.Meta()
		if err != nil {
			return nil, err
		}
		if m.Kind == KindTexture {
			t, err := OpenCUDATexture(ctx, c, st, o...)
			if err != nil {
				return nil, fmt.Errorf("share: ring slot %d: %w", i, err)
			}
			cc.texs = append(cc.texs, t)
			cc.bufs = append(cc.bufs, nil)
		} else {
			b, err := OpenCUDABuffer(ctx, c, st, o...)
			if err != nil {
				return nil, fmt.Errorf("share: ring slot %d: %w", i, err)
			}
			cc.bufs = append(cc.bufs, b)
			cc.texs = append(cc.texs, nil)
		}
	}
	if cons.semaphoreFDs() {
		rfd, ffd := cons.takeSemaphoreFDs()
		if cc.ready, err = c.ImportSemaphoreFD(rfd, true); err != nil { // takes rfd
			sharenet.CloseAll([]int{ffd})
			return nil, fmt.Errorf("share: importing the ring's semaphore into CUDA: %w", err)
		}
		if cc.free, err = c.ImportSemaphoreFD(ffd, true); err != nil {
			return nil, fmt.Errorf("share: importing the ring's semaphore into CUDA: %w", err)
		}
		if cc.ev, err = c.NewEvent(cuda.EventDisableTiming); err != nil {
			return nil, err
		}
		if cc.aux, err = c.NewStream(cuda.StreamNonBlocking); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// Consumer is the ring's host side (Slots, GPUSync).
func (cc *CUDAConsumer) Consumer() *Consumer { return cc.c }

// Buffer returns slot i's buffer, or nil when the slots are textures.
func (cc *CUDAConsumer) Buffer(i int) *CUDABuffer { return cc.bufs[i] }

// Texture returns slot i's texture, or nil when the slots are buffers.
func (cc *CUDAConsumer) Texture(i int) *CUDATexture { return cc.texs[i] }

// numSlots is the ring's number of slots.
func (cc *CUDAConsumer) numSlots() int { return len(cc.bufs) }

// buffers are the slots' buffers (nil for texture slots), by slot.
func (cc *CUDAConsumer) buffers() []*CUDABuffer { return cc.bufs }

// Ptr is the device pointer of frame f's buffer slot (0 for textures).
func (cc *CUDAConsumer) Ptr(f *Frame) cuda.DevicePtr {
	if b := cc.bufs[f.Slot]; b != nil {
		return b.Ptr()
	}
	return 0
}

// Array is the CUDA array of frame f's texture slot (nil for buffers).
func (cc *CUDAConsumer) Array(f *Frame) *cuda.Array {
	if t := cc.texs[f.Slot]; t != nil {
		return t.Array()
	}
	return nil
}

// Next waits on the host for the next frame's publication (as
// Consumer.Next) and makes stream s wait on the GPU until the producer's
// work on it is done; work queued on s after Next sees the frame's
// content. The producer's death gives ErrProducerGone (and work already
// queued waiting for it is released, reading whatever the slot holds).
func (cc *CUDAConsumer) Next(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	if cc.closed {
		return nil, errors.New("share: CUDAConsumer.Next after Close")
	}
	f, err := cc.c.Next(ctx)
	if err != nil {
		if errors.Is(err, ErrProducerGone) {
			cc.unblock()
		}
		return nil, err
	}
	if cc.ready != nil && f.Wait > cc.waited[s] {
		if err := cc.ready.Wait(s, f.Wait); err != nil {
			cc.c.Release(f)
			return nil, fmt.Errorf("share: CUDAConsumer.Next: %w", err)
		}
		cc.waited[s] = f.Wait
	}
	return f, nil
}

// Release gives frame f's slot back once the work queued on s so far has
// finished: it queues the slot's "free" signal on s (ordered after earlier
// releases on other streams) and returns without waiting. Release frames
// in the order Next returned them.
func (cc *CUDAConsumer) Release(f *Frame, s *cuda.Stream) error {
	return cc.releaseRun([]*Frame{f}, s)
}

// signalLocked queues on s the "slot free" signal of value v, after the
// signals queued on other streams (they must reach the semaphore in
// increasing order). Called with cc.c.mu held.
func (cc *CUDAConsumer) signalLocked(s *cuda.Stream, v uint64) error {
	if cc.last != nil && cc.last != s {
		if err := cc.ev.Record(cc.last); err != nil {
			return err
		}
		if err := s.WaitEvent(cc.ev); err != nil {
			return err
		}
	}
	if err := cc.free.Signal(s, v); err != nil {
		return fmt.Errorf("share: CUDAConsumer.Release: %w", err)
	}
	cc.last = s
	return nil
}

// releaseRun releases frames fs, taken by Next in this order, once the
// work queued on s so far is done, with one "slot free" signal, of the
// last frame's sequence number, for all of them: the producer waits for
// each slot until that value, so their slots go back together. Without
// GPU semaphores it waits for s on the host (bounded), once, and releases
// them there.
func (cc *CUDAConsumer) releaseRun(fs []*Frame, s *cuda.Stream) error {
	if cc.closed {
		return errors.New("share: CUDAConsumer.Release after Close")
	}
	if cc.free == nil {
		ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
		defer cancel()
		if err := s.Wait(ctx); err != nil {
			return fmt.Errorf("share: CUDAConsumer.Release: waiting for the stream: %w", err)
		}
		var err error
		for _, f := range fs {
			err = errors.Join(err, cc.c.Release(f))
		}
		return err
	}
	return cc.c.locked(func() error {
		for i, f := range fs {
			last := i == len(fs)-1
			err := cc.c.releaseLocked(f, func(v uint64) error {
				if !last {
					return nil // covered by the last frame's signal
				}
				return cc.signalLocked(s, v)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// published reports whether the ring holds a frame of sequence seq that
// this consumer can take now.
func (cc *CUDAConsumer) published(seq uint64) bool { return cc.c.published(seq) }

// unblock signals "frame ready" past every value the dead producer could
// have submitted, so that streams waiting for it go on.
func (cc *CUDAConsumer) unblock() {
	if cc.ready == nil || cc.freed {
		return
	}
	cc.freed = true
	v := cc.c.readyMax() + 1
	for _, w := range cc.waited {
		v = max(v, w+1)
	}
	if cc.ready.Signal(cc.aux, v) == nil {
		ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
		cc.aux.Wait(ctx)
		cancel()
	}
}

// Close detaches from the ring and releases the imports. It waits
// (bounded) for the last stream that released a frame, so that the
// producer's wait for it is satisfied before the semaphore goes. Streams
// still waiting for a dead producer are released. Idempotent.
func (cc *CUDAConsumer) Close() error {
	if cc.closed {
		return nil
	}
	cc.closed = true
	if cc.c.producerGone() {
		cc.unblock()
	}
	var err error
	if cc.last != nil {
		ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
		err = cc.last.Wait(ctx)
		cancel()
	}
	err = errors.Join(err, cc.c.Close())
	for _, x := range []interface{ Close() error }{cc.ev, cc.aux, cc.free, cc.ready} {
		if x != nil && !isNilCloser(x) {
			err = errors.Join(err, x.Close())
		}
	}
	for _, b := range cc.bufs {
		if b != nil {
			err = errors.Join(err, b.Close())
		}
	}
	for _, t := range cc.texs {
		if t != nil {
			err = errors.Join(err, t.Close())
		}
	}
	return err
}

// isNilCloser: a typed nil pointer in an interface.
func isNilCloser(x interface{ Close() error }) bool {
	switch v := x.(type) {
	case *cuda.Event:
		return v == nil
	case *cuda.Stream:
		return v == nil
	case *cuda.ExternalSemaphore:
		return v == nil
	}
	return false
}
