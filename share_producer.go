package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ProducerOptions configure NewProducer.
type ProducerOptions struct {
	// Slots are the ring's slots, all of the producer's Vulkan device:
	// *vulkan.Buffer or *vulkan.Image (2D, created Exportable), or
	// *Buffer or *Texture (the Producer's until it is closed: their
	// Device's ToCUDA, Map, ToTensor and Close refuse them with an error
	// wrapping ErrHeldByCUDA meanwhile). At least 2. For consumers on
	// another GPU (PeerConsumer), Buffers made by Device.NewBufferFromCUDA
	// are best: the consumer's GPU maps them and pulls the frames itself.
	Slots []any
	// Batch is the number of frames handed over per synchronization (1 by
	// default, at most len(Slots)): one submission, one semaphore signal
	// and one consumer-side wait per batch.
	Batch int
	// DropOldest, UserBytes: as in SharedRingOptions.
	DropOldest bool
	UserBytes  int
	// HostSync makes the producer wait for each batch on the host before
	// publishing it, as it must on drivers without exportable timeline
	// semaphores (lavapipe), where this is automatic.
	HostSync bool
	// Export configures how the ring and its slots are shared (rendezvous,
	// socket directory, the users allowed).
	Export ExportOptions
}

// Producer is the Vulkan producer of a ring shared with consumers in other
// processes, synchronized on the GPU where the driver exports timeline
// semaphores:
//
//   - each batch of frames is one submission that waits (on the GPU) for
//     every consumer that read the slots' previous frames to signal its
//     "slot free" semaphore, acquires the slots from
//     VK_QUEUE_FAMILY_EXTERNAL, records the frames, releases the slots to
//     VK_QUEUE_FAMILY_EXTERNAL (images in the GENERAL layout) and signals
//     the "frame ready" semaphore with the batch's last sequence number;
//   - the frames are published on the host (control block, futexes) as
//     soon as the batch is submitted, each carrying that value as
//     Frame.Wait: CUDAConsumer and VulkanConsumer make their stream or
//     queue wait for it, and signal "slot free" when done.
//
// The host never waits on another process's GPU work; it throttles itself
// on its own submissions. Without exportable semaphores (or with
// HostSync), the producer waits for each batch on the host and publishes
// it complete (Frame.Wait 0), and consumers release frames only after
// their work has finished.
//
// Consumers that die are dropped: their semaphores are signalled from the
// host so that no submission waits for them forever, and their slots are
// reclaimed.
type Producer struct {
	dev     *vulkan.Device
	ring    *SharedRing
	ex      *Shared
	slotEx  []*Shared
	bufs    []*vulkan.Buffer
	imgs    []*vulkan.Image
	touched []bool // released to external at least once
	batch   int
	cmds    []*vulkan.Commands
	pending []bool // cmds[i] was submitted
	next    int    // the next command buffer to use
	gpu     *ringGPU
	claimed []*state // slots of a Device claimed by claim
	closed  bool
}

// claim marks a Device's resource as p's slot, so that the Device's own
// hand-offs (ToCUDA, Map, ToTensor) and Close refuse it while p runs: the
// producer moves it between Vulkan and its consumers itself. A resource
// CUDA has handed back is acquired by Vulkan first.
func (p *Producer) claim(s *state) error {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return err
	}
	switch {
	case s.closed:
		return ErrClosed
	case s.holder != nil:
		return fmt.Errorf("share: NewProducer: the resource is already a ring's slot: %w", ErrHeldByCUDA)
	case s.owner == ownedByCUDA:
		return fmt.Errorf("share: NewProducer: %w (call Access.Done first)", ErrHeldByCUDA)
	case s.owner == returning:
		if err := d.flushPending(); err != nil {
			return err
		}
	}
	s.holder = p
	p.claimed = append(p.claimed, s)
	return nil
}

// slotNoun and refusesOtherVulkanWork make a Producer the slotHolder of
// the Device's resources it claimed: it submits its own Vulkan work on
// them, which the guard lets through.
func (p *Producer) slotNoun() string             { return "a Producer's slot (close the Producer first)" }
func (p *Producer) refusesOtherVulkanWork() bool { return false }

// unclaim gives the slots claim took back to their Device.
func (p *Producer) unclaim() {
	for _, s := range p.claimed {
		s.d.mu.Lock()
		if s.holder == p {
			s.holder = nil
		}
		s.d.mu.Unlock()
	}
	p.claimed = nil
}

// NewProducer makes a ring over o.Slots on dev and shares it (Token).
func NewProducer(dev *vulkan.Device, o ProducerOptions) (*Producer, error) {
	n := len(o.Slots)
	if o.Batch == 0 {
		o.Batch = 1
	}
	if n < 2 || o.Batch < 1 || o.Batch > n {
		return nil, fmt.Errorf("share: NewProducer: %d slots in batches of %d (at least 2 slots, batch 1 to the slot count)", n, o.Batch)
	}
	p := &Producer{dev: dev, bufs: make([]*vulkan.Buffer, n), imgs: make([]*vulkan.Image, n), touched: make([]bool, n), batch: o.Batch}
	fail := func(err error) (*Producer, error) {
		p.Close()
		return nil, err
	}
	for i, s := range o.Slots {
		var ex *Shared
		var err error
		switch r := s.(type) {
		case *vulkan.Buffer:
			p.bufs[i] = r
			ex, err = ExportVulkan(dev, r, o.Export)
		case *vulkan.Image:
			p.imgs[i] = r
			ex, err = ExportVulkan(dev, r, o.Export)
		case *Buffer:
			if err = p.claim(&r.s); err == nil {
				p.bufs[i] = r.Vulkan()
				ex, err = Export(r, o.Export)
			}
		case *Texture:
			if err = p.claim(&r.s); err == nil {
				p.imgs[i] = r.Vulkan()
				ex, err = Export(r, o.Export)
			}
		default:
			err = fmt.Errorf("share: NewProducer: slot %d is a %T, not a Vulkan or interop buffer or image", i, s)
		}
		if err != nil {
			return fail(err)
		}
		p.slotEx = append(p.slotEx, ex)
	}
	r, err := NewSharedRing(SharedRingOptions{Slots: p.slotEx, DropOldest: o.DropOldest, UserBytes: o.UserBytes, Export: o.Export})
	if err != nil {
		return fail(err)
	}
	p.ring = r
	if !o.HostSync && dev.Physical().CanExportSemaphoreFD() {
		ready, err := dev.NewTimelineSemaphore(0, true)
		if err == nil {
			p.gpu = &ringGPU{dev: dev, ready: ready}
			r.useGPU(p.gpu)
		} else if !errors.Is(err, vulkan.ErrUnsupported) {
			return fail(err)
		}
	}
	// Enough command buffers for every slot's batch and one more: the host
	// stays at most that far ahead of the GPU.
	for i := 0; i < n/o.Batch+1; i++ {
		c, err := dev.NewCommands()
		if err != nil {
			return fail(err)
		}
		p.cmds = append(p.cmds, c)
		p.pending = append(p.pending, false)
	}
	if p.ex, err = Export(r); err != nil {
		return fail(err)
	}
	return p, nil
}

// Token is the ring's token, for OpenSharedRing, OpenCUDAConsumer and
// OpenVulkanConsumer in other processes.
func (p *Producer) Token() Token { return p.ex.Token() }

// Ring is the ring's host side (Consumers, WaitConsumers, NextSeq).
func (p *Producer) Ring() *SharedRing { return p.ring }

// GPUSync reports whether frames are handed over on the GPU (exported
// timeline semaphores) rather than completed on the host.
func (p *Producer) GPUSync() bool { return p.gpu != nil }

// Batch is the number of frames per Produce.
func (p *Producer) Batch() int { return p.batch }

// waitCommands waits until c's submission has finished, dropping dead
// consumers meanwhile (which unblocks submissions waiting for them).
func (p *Producer) waitCommands(ctx context.Context, i int) error {
	if !p.pending[i] {
		return nil
	}
	for {
		err := p.cmds[i].Wait(pollSlice)
		if !errors.Is(err, vulkan.ErrTimeout) {
			if err == nil {
				p.pending[i] = false
			}
			return err
		}
		p.ring.Consumers()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("share: waiting for the producer's GPU work: %w", err)
		}
	}
}

// Produce makes the next batch of Batch frames: it acquires Batch slots
// (waiting, until ctx ends, while consumers hold them), calls record once
// per frame with the commands to record into, the slot and the frame's
// sequence number (its user metadata is what record returns), submits the
// batch and publishes its frames. It returns the last frame's sequence
// number.
func (p *Producer) Produce(ctx context.Context, record func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error)) (uint64, error) {
	if p.closed {
		return 0, ErrSharedRingClosed
	}
	ci := p.next
	c := p.cmds[ci]
	if err := p.waitCommands(ctx, ci); err != nil {
		return 0, err
	}
	if err := c.Reset(); err != nil {
		return 0, err
	}
	r := p.ring
	slots := make([]int, 0, p.batch)
	unwind := func(err error) (uint64, error) {
		r.unacquire(slots)
		c.Reset()
		return 0, err
	}
	for len(slots) < p.batch {
		s, err := r.Acquire(ctx)
		if err != nil {
			return unwind(err)
		}
		slots = append(slots, s)
	}
	first := r.NextSeq()
	waits := r.slotWaits(slots)
	// Buffers move in one barrier command (a GPU may pay per command).
	var bufs []*vulkan.Buffer
	for _, s := range slots {
		switch {
		case p.imgs[s] != nil && p.touched[s]:
			own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, p.imgs[s])
		case p.imgs[s] != nil && p.imgs[s].Layout() == vulkan.LayoutUndefined:
			c.TransitionImage(p.imgs[s], vulkan.LayoutGeneral)
		case p.bufs[s] != nil && p.touched[s]:
			bufs = append(bufs, p.bufs[s])
		}
	}
	own.AcquireBuffers(c, bufs...)
	users := make([][]byte, len(slots))
	for i, s := range slots {
		u, err := record(c, s, first+uint64(i))
		if err != nil {
			return unwind(err)
		}
		if len(u) > r.userBytes() {
			return unwind(fmt.Errorf("share: Producer.Produce: %d bytes of metadata, at most %d", len(u), r.userBytes()))
		}
		users[i] = u
	}
	bufs = bufs[:0]
	for _, s := range slots {
		if p.imgs[s] != nil {
			own.ReleaseImages(c, vulkan.LayoutGeneral, p.imgs[s])
		} else {
			bufs = append(bufs, p.bufs[s])
		}
	}
	own.ReleaseBuffers(c, bufs...)
	if err := c.Err(); err != nil {
		return unwind(err)
	}
	last := first + uint64(len(slots)) - 1
	o := vulkan.SubmitOptions{Wait: waits}
	if p.gpu != nil {
		o.Signal = []vulkan.SemaphoreValue{{Semaphore: p.gpu.ready, Value: last}}
		// Before the submission: a consumer of a dead producer signals
		// past it.
		r.announceReady(last)
	}
	if err := c.Submit(o); err != nil {
		return unwind(fmt.Errorf("share: Producer.Produce: %w", err))
	}
	p.pending[ci] = true
	p.next = (p.next + 1) % len(p.cmds)
	r.submitted(slots)
	for _, s := range slots {
		p.touched[s] = true
	}
	wait := last
	if p.gpu == nil {
		// No semaphore can tell consumers: finish the batch first.
		if err := p.waitCommands(ctx, ci); err != nil {
			return 0, err
		}
		wait = 0
	}
	for i, s := range slots {
		if _, err := r.Publish(s, users[i], wait); err != nil {
			return 0, err
		}
	}
	return last, nil
}

// Close tells consumers that no frame follows, withdraws the ring and its
// slots' tokens, waits (bounded) for the producer's GPU work and frees the
// semaphores. The slots themselves stay the caller's. Idempotent.
func (p *Producer) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	var err error
	var next uint64
	if p.ring != nil {
		p.ring.Consumers() // drop the dead before waiting for the GPU
		next = p.ring.NextSeq()
	}
	deadline := time.Now().Add(5 * time.Second)
	wait := func(i int) error {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		return p.waitCommands(ctx, i)
	}
	released, drained := false, true
	for i := range p.cmds {
		err := wait(i)
		if err != nil && p.gpu != nil && !released {
			// A live consumer that stopped signalling: release the queue
			// (host signals of its semaphore only: nothing here signals
			// it on a queue), then let it drain, bounded again.
			p.gpu.detachAll(next)
			released = true
			deadline = time.Now().Add(5 * time.Second)
			err = wait(i)
		}
		drained = drained && err == nil
	}
	if p.ring != nil {
		err = p.ring.Close()
	}
	for _, c := range p.cmds {
		err = errors.Join(err, c.Close())
	}
	if p.gpu != nil {
		err = errors.Join(err, p.gpu.close(next, !drained))
	}
	if p.ex != nil {
		p.ex.Close()
	}
	for _, e := range p.slotEx {
		e.Close()
	}
	p.unclaim()
	return err
}
