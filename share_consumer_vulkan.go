package gfxcuda

import (
	"context"
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// VulkanConsumer consumes a ring in Vulkan: its slots are imported into a
// Vulkan device, and Consume records the consumer's commands for one or
// more frames into one submission that waits (on the GPU) for the
// producer's "frame ready" value, acquires the slots from
// VK_QUEUE_FAMILY_EXTERNAL (images in the GENERAL layout), runs the
// commands, releases the slots back and signals this consumer's "slot
// free" value. The host does not wait for the GPU.
//
// On a ring without GPU synchronization, or a device without external
// semaphores (lavapipe), Consume waits for its submission on the host
// before giving the slots back.
//
// A VulkanConsumer is for one goroutine at a time.
type VulkanConsumer struct {
	c       *Consumer
	dev     *vulkan.Device
	bufs    []*vulkan.Buffer
	imgs    []*vulkan.Image
	ready   *vulkan.Semaphore
	free    *vulkan.Semaphore
	cmds    []*vulkan.Commands
	pending []bool
	next    int
	freed   bool
	closed  bool
}

// OpenVulkanConsumer attaches to a ring as one more consumer and imports
// its slots and semaphores into dev.
func OpenVulkanConsumer(ctx context.Context, dev *vulkan.Device, tok Token, o ...OpenOptions) (_ *VulkanConsumer, err error) {
	cons, err := OpenSharedRing(ctx, tok, o...)
	if err != nil {
		return nil, err
	}
	vc := &VulkanConsumer{c: cons, dev: dev}
	defer func() {
		if err != nil {
			vc.Close()
		}
	}()
	for i, st := range cons.Slots() {
		m, err := st.Meta()
		if err != nil {
			return nil, err
		}
		var b *vulkan.Buffer
		var img *vulkan.Image
		if m.Kind == KindTexture {
			img, err = OpenVulkanImage(ctx, dev, st, o...)
		} else {
			b, err = OpenVulkanBuffer(ctx, dev, st, o...)
		}
		if err != nil {
			return nil, fmt.Errorf("share: ring slot %d: %w", i, err)
		}
		vc.bufs, vc.imgs = append(vc.bufs, b), append(vc.imgs, img)
	}
	if cons.semaphoreFDs() && dev.Physical().CanExportSemaphoreFD() {
		rfd, ffd := cons.takeSemaphoreFDs()
		if vc.ready, err = dev.ImportSemaphoreFD(rfd, true); err != nil {
			sharenet.CloseAll([]int{ffd})
			return nil, fmt.Errorf("share: importing the ring's semaphore into Vulkan: %w", err)
		}
		if vc.free, err = dev.ImportSemaphoreFD(ffd, true); err != nil {
			return nil, fmt.Errorf("share: importing the ring's semaphore into Vulkan: %w", err)
		}
	} else if cons.semaphoreFDs() {
		return nil, errors.New("share: the ring's producer synchronizes on the GPU, and this Vulkan device cannot import its semaphores (VK_KHR_external_semaphore_fd)")
	}
	for i := 0; i < len(vc.bufs)+1; i++ {
		c, err := dev.NewCommands()
		if err != nil {
			return nil, err
		}
		vc.cmds, vc.pending = append(vc.cmds, c), append(vc.pending, false)
	}
	return vc, nil
}

// Consumer is the ring's host side (Slots, GPUSync).
func (vc *VulkanConsumer) Consumer() *Consumer { return vc.c }

// Buffer returns slot i's buffer, or nil when the slots are images.
func (vc *VulkanConsumer) Buffer(i int) *vulkan.Buffer { return vc.bufs[i] }

// Image returns slot i's image, or nil when the slots are buffers.
func (vc *VulkanConsumer) Image(i int) *vulkan.Image { return vc.imgs[i] }

// Next waits for the next frame's publication (as Consumer.Next). Pass it
// to Consume; its content is visible only to the commands Consume records.
func (vc *VulkanConsumer) Next(ctx context.Context) (*Frame, error) {
	if vc.closed {
		return nil, errors.New("share: VulkanConsumer.Next after Close")
	}
	f, err := vc.c.Next(ctx)
	if errors.Is(err, ErrProducerGone) {
		vc.unblock()
	}
	return f, err
}

// waitCommands waits for submission i, bounded by ctx.
func (vc *VulkanConsumer) waitCommands(ctx context.Context, i int) error {
	if !vc.pending[i] {
		return nil
	}
	for {
		err := vc.cmds[i].Wait(pollSlice)
		if !errors.Is(err, vulkan.ErrTimeout) {
			if err == nil {
				vc.pending[i] = false
			}
			return err
		}
		if vc.c.producerGone() {
			vc.unblock()
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("share: waiting for the consumer's GPU work: %w", err)
		}
	}
}

// Consume records the acquire of every frame's slot (frames held, from
// Next, in the order Next returned them), record's commands for each frame
// and the slots' release, submits them as one batch ordered after the producer and gives
// the slots back. Images are in the GENERAL layout when record runs and
// may be left in any layout (the release moves them back to GENERAL).
// Results written to the consumer's own resources are ready once
// WaitIdle or a later submission's Wait returns.
func (vc *VulkanConsumer) Consume(ctx context.Context, record func(c *vulkan.Commands, f *Frame) error, frames ...*Frame) error {
	if vc.closed {
		return errors.New("share: VulkanConsumer.Consume after Close")
	}
	if len(frames) == 0 {
		return nil
	}
	ci := vc.next
	c := vc.cmds[ci]
	if err := vc.waitCommands(ctx, ci); err != nil {
		return err
	}
	if err := c.Reset(); err != nil {
		return err
	}
	// Every frame's slot is acquired before the first frame is recorded
	// and released after the last, the buffers in one barrier command each
	// way (a GPU may pay per command).
	var wait uint64
	var bufs []*vulkan.Buffer
	for _, f := range frames {
		wait = max(wait, f.Wait)
		if img := vc.imgs[f.Slot]; img != nil {
			own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, img)
		} else {
			bufs = append(bufs, vc.bufs[f.Slot])
		}
	}
	own.AcquireBuffers(c, bufs...)
	for _, f := range frames {
		if err := record(c, f); err != nil {
			c.Reset()
			return err
		}
	}
	bufs = bufs[:0]
	for _, f := range frames {
		if img := vc.imgs[f.Slot]; img != nil {
			own.ReleaseImages(c, vulkan.LayoutGeneral, img)
		} else {
			bufs = append(bufs, vc.bufs[f.Slot])
		}
	}
	own.ReleaseBuffers(c, bufs...)
	if err := c.Err(); err != nil {
		c.Reset()
		return err
	}
	var o vulkan.SubmitOptions
	last := frames[len(frames)-1].Seq
	if vc.ready != nil {
		if wait > 0 {
			o.Wait = []vulkan.SemaphoreValue{{Semaphore: vc.ready, Value: wait}}
		}
		o.Signal = []vulkan.SemaphoreValue{{Semaphore: vc.free, Value: last}}
	}
	inOrder := vc.c.locked(func() error {
		for i, f := range frames {
			if vc.c.heldIndex(f) < 0 || (i > 0 && f.Seq <= frames[i-1].Seq) || (vc.ready != nil && f.Seq <= vc.c.signalledLocked()) {
				return errors.New("share: VulkanConsumer.Consume: pass held frames, in the order Next returned them")
			}
		}
		return nil
	})
	if inOrder != nil {
		c.Reset()
		return inOrder
	}
	if err := c.Submit(o); err != nil {
		return fmt.Errorf("share: VulkanConsumer.Consume: %w", err)
	}
	vc.pending[ci] = true
	vc.next = (vc.next + 1) % len(vc.cmds)
	if vc.ready == nil {
		if err := vc.waitCommands(ctx, ci); err != nil {
			return err
		}
		for _, f := range frames {
			if err := vc.c.Release(f); err != nil {
				return err
			}
		}
		return nil
	}
	// The submission signals "slot free" at the last frame's number, after
	// the work on every frame: each frame's release is covered by it.
	return vc.c.locked(func() error {
		for i, f := range frames {
			var sig func(uint64) error
			if i == len(frames)-1 {
				sig = func(uint64) error { return nil } // submitted above
			} else {
				vc.c.gpuReleasedLocked(f.Slot)
			}
			if err := vc.c.releaseLocked(f, sig); err != nil {
				return err
			}
		}
		return nil
	})
}

// unblock signals "frame ready" past every value the dead producer could
// have submitted, so that submissions waiting for it go on.
func (vc *VulkanConsumer) unblock() {
	if vc.ready == nil || vc.freed {
		return
	}
	vc.freed = true
	// The dead producer's queue signalled at most readyMax, and nothing in
	// this process signals "frame ready" on a queue: a host signal of
	// readyMax+1 is above every pending signal. The zero-timeout wait
	// (rather than vkGetSemaphoreCounterValue, which the validation layer
	// records as a host signal it may keep "pending") tells whether the
	// semaphore is there already.
	v := vc.c.readyMax() + 1
	if vc.ready.Wait(v, 0) == nil {
		return
	}
	vc.ready.Signal(v)
}

// Close waits (bounded) for the consumer's submissions, detaches from the
// ring and releases the imports. Idempotent.
func (vc *VulkanConsumer) Close() error {
	if vc.closed {
		return nil
	}
	vc.closed = true
	if vc.c.producerGone() {
		vc.unblock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
	defer cancel()
	var err error
	for i := range vc.cmds {
		err = errors.Join(err, vc.waitCommands(ctx, i))
	}
	for _, c := range vc.cmds {
		err = errors.Join(err, c.Close())
	}
	err = errors.Join(err, vc.c.Close())
	for _, s := range []*vulkan.Semaphore{vc.free, vc.ready} {
		if s != nil {
			err = errors.Join(err, s.Close())
		}
	}
	for i := range vc.bufs {
		if vc.bufs[i] != nil {
			err = errors.Join(err, vc.bufs[i].Close())
		}
		if vc.imgs[i] != nil {
			err = errors.Join(err, vc.imgs[i].Close())
		}
	}
	return err
}
