package interop

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// owner says which API may use a resource.
type owner int

const (
	ownedByVulkan owner = iota
	ownedByCUDA         // between ToCUDA and Access.Done
	returning           // Done was called; the next Vulkan submission acquires it
)

// state is the hand-off state every shared resource carries.
type state struct {
	d      *Device
	owner  owner
	closed bool
}

// Resource is a Buffer or a Texture.
type Resource interface {
	st() *state
	release(c *vulkan.Commands) // record the release to VK_QUEUE_FAMILY_EXTERNAL
	acquire(c *vulkan.Commands) // record the acquire from VK_QUEUE_FAMILY_EXTERNAL
	closer
}

// Access is a period during which CUDA may use some resources: from
// Device.ToCUDA until Done.
type Access struct {
	d      *Device
	res    []Resource
	stream *cuda.Stream
	value  uint64
	done   bool
}

// Stream is the CUDA stream to queue work on. It waits (on the GPU) for the
// Vulkan work submitted before ToCUDA.
func (a *Access) Stream() *cuda.Stream { return a.stream }

// cmdPool hands out Commands, reusing those whose last submission has
// finished, so that recording never waits on the host.
type cmdPool struct {
	vk   *vulkan.Device
	cmds []*vulkan.Commands
}

// get returns a Commands ready for recording.
func (p *cmdPool) get() (*vulkan.Commands, error) {
	for _, c := range p.cmds {
		if c.Done() {
			if err := c.Reset(); err == nil {
				return c, nil
			}
		}
	}
	c, err := p.vk.NewCommands()
	if err != nil {
		return nil, err
	}
	p.cmds = append(p.cmds, c)
	return c, nil
}

// close waits for every submission and frees the Commands.
func (p *cmdPool) close() error {
	var err error
	for _, c := range p.cmds {
		err = errors.Join(err, c.Close())
	}
	p.cmds = nil
	return err
}

// syncCommands returns a command buffer for hand-off barriers. Called with
// d.mu held.
func (d *Device) syncCommands() (*vulkan.Commands, error) { return d.syncs.get() }

// acquirePending records the acquire of every resource CUDA has returned and
// says which toVK value the submission must wait for (0: none). Called with
// d.mu held.
func (d *Device) acquirePending(c *vulkan.Commands) []vulkan.SemaphoreValue {
	for _, r := range d.pending {
		if s := r.st(); !s.closed && s.owner == returning {
			r.acquire(c)
			s.owner = ownedByVulkan
		}
	}
	d.pending = d.pending[:0]
	if d.toVK.value > d.vkWaited {
		return []vulkan.SemaphoreValue{{Semaphore: d.toVK.vk, Value: d.toVK.value}}
	}
	return nil
}

// ToCUDA hands resources from Vulkan to CUDA. It submits to the Vulkan queue,
// after everything submitted before, the release of the resources to
// VK_QUEUE_FAMILY_EXTERNAL (images go to the GENERAL layout) and a signal of
// the Vulkan→CUDA semaphore, and makes stream (nil: the Device's stream) wait
// for that signal on the GPU. Nothing blocks the host.
//
// Until Done, the resources belong to CUDA: pass them to no Vulkan work.
func (d *Device) ToCUDA(stream *cuda.Stream, res ...Resource) (*Access, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	seen := map[Resource]bool{}
	for _, r := range res {
		s := r.st()
		switch {
		case s.d != d:
			return nil, fmt.Errorf("interop: ToCUDA: %T belongs to another Device", r)
		case s.closed:
			return nil, ErrClosed
		case s.owner == ownedByCUDA:
			return nil, fmt.Errorf("interop: ToCUDA: %w", ErrHeldByCUDA)
		case seen[r]:
			return nil, fmt.Errorf("interop: ToCUDA: %T listed twice", r)
		}
		seen[r] = true
	}
	c, err := d.syncCommands()
	if err != nil {
		return nil, err
	}
	wait := d.acquirePending(c)
	for _, r := range res {
		r.release(c)
	}
	v := d.toCUDA.value + 1
	if err := c.Submit(vulkan.SubmitOptions{Wait: wait, Signal: []vulkan.SemaphoreValue{{Semaphore: d.toCUDA.vk, Value: v}}}); err != nil {
		return nil, fmt.Errorf("interop: ToCUDA: submitting the release: %w", err)
	}
	d.toCUDA.value = v
	if wait != nil {
		d.vkWaited = wait[0].Value
	}
	for _, r := range res {
		r.st().owner = ownedByCUDA
	}
	if stream == nil {
		stream = d.stream
	}
	if err := d.toCUDA.cu.Wait(stream, v); err != nil {
		return nil, fmt.Errorf("interop: ToCUDA: CUDA wait: %w", err)
	}
	return &Access{d: d, res: res, stream: stream, value: v}, nil
}

// Done ends CUDA's access: once the work queued on the Access's stream so far
// has finished, CUDA signals the CUDA→Vulkan semaphore, and the next Vulkan
// submission through the Device (Submit, Run, ToCUDA) waits for it and
// re-acquires the resources. Done does not block the host. Idempotent.
func (a *Access) Done() error {
	d := a.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.done {
		return nil
	}
	if err := d.live(); err != nil {
		return err
	}
	// Every signal goes through the Device's stream, so its values increase
	// in order even when several Accesses use different streams.
	if a.stream != d.stream {
		ev, err := d.ctx.NewEvent(cuda.EventDisableTiming)
		if err != nil {
			return err
		}
		err = ev.Record(a.stream)
		if err == nil {
			err = d.stream.WaitEvent(ev)
		}
		ev.Close() // the driver keeps it until the wait is resolved
		if err != nil {
			return err
		}
	}
	w := d.toVK.value + 1
	if err := d.toVK.cu.Signal(d.stream, w); err != nil {
		return fmt.Errorf("interop: Done: CUDA signal: %w", err)
	}
	d.toVK.value = w
	for _, r := range a.res {
		if s := r.st(); !s.closed {
			s.owner = returning
			d.pending = append(d.pending, r)
		}
	}
	a.done = true
	return nil
}

// Submit submits Vulkan work after everything CUDA has handed back: if
// resources are returning from CUDA, a small submission first waits (on the
// GPU) for CUDA's signal and acquires them back into Vulkan's queue family.
// Use it instead of Commands.Submit for work that touches shared resources.
func (d *Device) Submit(c *vulkan.Commands, o vulkan.SubmitOptions) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return err
	}
	if len(d.pending) > 0 || d.toVK.value > d.vkWaited {
		sc, err := d.syncCommands()
		if err != nil {
			return err
		}
		wait := d.acquirePending(sc)
		if err := sc.Submit(vulkan.SubmitOptions{Wait: wait}); err != nil {
			return fmt.Errorf("interop: acquiring resources back from CUDA: %w", err)
		}
		if wait != nil {
			d.vkWaited = wait[0].Value
		}
	}
	return c.Submit(o)
}

// Run records Vulkan work with record, submits it with Submit and waits for
// it: the simple, synchronous way for scripts and tests.
func (d *Device) Run(record func(*vulkan.Commands) error) error {
	c, err := d.vk.NewCommands()
	if err != nil {
		return err
	}
	defer c.Close()
	if err := record(c); err != nil {
		return err
	}
	if err := d.Submit(c, vulkan.SubmitOptions{}); err != nil {
		return err
	}
	return c.Wait(-1)
}
