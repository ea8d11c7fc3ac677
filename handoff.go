package gfxcuda

import (
	"fmt"
	"slices"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/vkown"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// own is package vulkan's queue-family ownership transfers and guard
// setters, which vulkan keeps for the hand-offs (see internal/vkown).
var own = vkown.Get[*vulkan.Commands, *vulkan.Buffer, *vulkan.Image, vulkan.ImageLayout]()

// owner says which API may use a resource.
type owner int

const (
	ownedByVulkan owner = iota
	ownedByCUDA         // between ToCUDA and Access.Done, or a ring's slot
	returning           // Done was called; the next Vulkan submission acquires it
)

func (o owner) String() string {
	switch o {
	case ownedByVulkan:
		return "Vulkan"
	case ownedByCUDA:
		return "CUDA"
	case returning:
		return "returning"
	}
	return fmt.Sprintf("owner(%d)", int(o))
}

// state is the hand-off state every shared resource carries; d.mu guards it.
type state struct {
	d      *Device
	owner  owner
	holder slotHolder // the ring or Producer that holds it as a slot, or nil
	acc    *Access    // the explicit hand-off (ToCUDA) that holds it
	closed bool
	// ret, while returning, is the CUDA→Vulkan value signalled after
	// CUDA's last use (Done, AfterCUDA); 0 where not known (the link's
	// hand-offs, handoff_link.go, then wait for the latest value).
	ret uint64
}

// slotHolder is a client of the hand-offs that holds resources as its
// slots while it runs (a Ring, a cross-process Producer): it moves them
// between Vulkan and CUDA itself, so the Device's hand-offs (ToCUDA,
// AfterCUDA, Map, ToTensor), Close and other holders refuse them
// meanwhile, with an error that names the holder.
type slotHolder interface {
	// slotNoun names a slot of the holder in errors, with what to do:
	// "a ring's slot", "a Producer's slot (close the Producer first)".
	slotNoun() string
	// refusesOtherVulkanWork: the guard refuses Vulkan work on a slot
	// submitted outside the Device's own batches (a Ring, whose batches
	// are the Device's; not a Producer, which submits its own).
	refusesOtherVulkanWork() bool
}

// Resource is a Buffer or a Texture.
type Resource interface {
	st() *state
	closer
}

// transfers records the queue family transfers of many resources in one
// barrier command for the buffers and one for the textures: a GPU may pay
// per barrier command (BENCHMARKS.md, the learner ring), and a ring hands
// over dozens of resources per batch. The zero value is ready; its scratch
// slices are reused.
type transfers struct {
	bufs []*vulkan.Buffer
	imgs []*vulkan.Image
}

// record records the release (release true) or the acquire of rs, which
// must be distinct. Resources imported lazily that Vulkan has not used yet
// have no Vulkan side to hand over: they are left out (their import
// acquires them from the external queue family when it happens).
func (t *transfers) record(c *vulkan.Commands, release bool, rs ...Resource) {
	t.bufs, t.imgs = t.bufs[:0], t.imgs[:0]
	for _, r := range rs {
		switch r := r.(type) {
		case *Buffer:
			if r.vk == nil {
				continue
			}
			t.bufs = append(t.bufs, r.vk)
		case *Texture:
			if r.vk == nil {
				continue
			}
			if release && r.vk.Layout() == vulkan.LayoutUndefined {
				// Never used by Vulkan: give it GENERAL first, so that
				// the release and the later acquire agree on the layout.
				c.TransitionImage(r.vk, vulkan.LayoutGeneral)
			}
			t.imgs = append(t.imgs, r.vk)
		}
	}
	if release {
		own.ReleaseBuffers(c, t.bufs...)
		own.ReleaseImages(c, vulkan.LayoutGeneral, t.imgs...)
	} else {
		own.AcquireBuffers(c, t.bufs...)
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, t.imgs...)
	}
	clear(t.bufs)
	clear(t.imgs)
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

// newAccessLocked makes the Access of res on stream, waiting for toCUDA
// value v. Called with d.mu held.
func (d *Device) newAccessLocked(res []Resource, stream *cuda.Stream, v uint64) *Access {
	a := &Access{d: d, res: res, stream: stream, value: v}
	for _, r := range res {
		r.st().owner, r.st().acc = ownedByCUDA, a
	}
	return a
}

// submitPooled submits c, a batch of the Device's pool (d.cmds, shared by
// its hand-offs and its rings), and gives it back to the pool either way: a
// batch that failed to submit is discarded, restoring the layouts it
// recorded, and reused. It returns the submission's serial
// (Commands.Serial), taken before the pool may hand c on.
func (d *Device) submitPooled(c *vulkan.Commands, o vulkan.SubmitOptions) (uint64, error) {
	err := c.Submit(o)
	serial := c.Serial()
	d.cmds.Put(c)
	return serial, err
}

// recordPending records the acquire of every resource CUDA has returned and
// says which toVK value the submission must wait for (nil: none), without
// changing any state: commitPending does once the submission succeeded.
// Called with d.mu held.
func (d *Device) recordPending(c *vulkan.Commands) []vulkan.SemaphoreValue {
	back := make([]Resource, 0, len(d.pending))
	for _, r := range d.pending {
		if s := r.st(); !s.closed && s.owner == returning && !slices.Contains(back, r) {
			back = append(back, r)
		}
	}
	var t transfers
	t.record(c, false, back...)
	if d.toVK.value > d.vkWaited {
		return []vulkan.SemaphoreValue{{Semaphore: d.toVK.vk, Value: d.toVK.value}}
	}
	return nil
}

// commitPending marks what recordPending recorded as done. Called with d.mu
// held.
func (d *Device) commitPending(wait []vulkan.SemaphoreValue) {
	for _, r := range d.pending {
		if s := r.st(); !s.closed && s.owner == returning {
			s.owner, s.ret = ownedByVulkan, 0
		}
	}
	d.pending = d.pending[:0]
	if wait != nil {
		d.vkWaited = wait[0].Value
	}
}

// flushPending submits the acquire of what CUDA returned, if anything, so
// that Vulkan work submitted after it is ordered after CUDA's. Called with
// d.mu held.
func (d *Device) flushPending() error {
	if len(d.pending) == 0 && d.toVK.value <= d.vkWaited {
		return nil
	}
	sc, err := d.cmds.Get()
	if err != nil {
		return err
	}
	wait := d.recordPending(sc)
	if _, err := d.submitPooled(sc, vulkan.SubmitOptions{Wait: wait}); err != nil {
		return fmt.Errorf("interop: acquiring resources back from CUDA: %w", err)
	}
	d.commitPending(wait)
	return nil
}

// ToCUDA hands resources from Vulkan to CUDA. It submits to the Vulkan queue,
// after everything submitted before, the release of the resources to
// VK_QUEUE_FAMILY_EXTERNAL (images go to the GENERAL layout) and a signal of
// the Vulkan→CUDA semaphore, and makes stream (nil: the Device's stream) wait
// for that signal on the GPU. Nothing blocks the host.
//
// Until Done, the resources belong to CUDA: Vulkan work on them through the
// vulkan package (Commands.Submit, Buffer.Upload, Buffer.Readback) fails
// with an error matching ErrHeldByCUDA.
//
// On error, nothing changed hands: the resources stay Vulkan's (or, if only
// CUDA's wait could not be queued, return to Vulkan with its next
// submission), and may be handed over again.
func (d *Device) ToCUDA(stream *cuda.Stream, res ...Resource) (*Access, error) {
	res = slices.Clone(res) // the Access keeps them
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	if err := d.checkToCUDA(res); err != nil {
		return nil, err
	}
	c, err := d.cmds.Get()
	if err != nil {
		return nil, err
	}
	wait := d.recordPending(c)
	var t transfers
	t.record(c, true, res...)
	v := d.toCUDA.value + 1
	if _, err := d.submitPooled(c, vulkan.SubmitOptions{Wait: wait, Signal: []vulkan.SemaphoreValue{{Semaphore: d.toCUDA.vk, Value: v}}}); err != nil {
		return nil, fmt.Errorf("interop: ToCUDA: submitting the release: %w", err)
	}
	d.toCUDA.value = v
	d.commitPending(wait)
	if stream == nil {
		stream = d.stream
	}
	if err := d.toCUDA.cu.wait(stream, v); err != nil {
		// The release is submitted but CUDA will not wait for it, so CUDA
		// must not touch the resources: they return to Vulkan, which needs
		// no CUDA signal to acquire them (its queue orders the release
		// before the acquire).
		for _, r := range res {
			r.st().owner, r.st().ret = returning, 0
			d.pending = append(d.pending, r)
		}
		return nil, fmt.Errorf("interop: ToCUDA: CUDA wait: %w (the resources stay Vulkan's)", err)
	}
	return d.newAccessLocked(res, stream, v), nil
}

// checkToCUDA checks that res may be handed to CUDA. Called with d.mu held.
func (d *Device) checkToCUDA(res []Resource) error {
	seen := make(map[Resource]bool, len(res))
	for _, r := range res {
		s := r.st()
		switch {
		case s.d != d:
			return fmt.Errorf("interop: ToCUDA: %T belongs to another Device", r)
		case s.closed:
			return ErrClosed
		case s.holder != nil:
			return fmt.Errorf("interop: ToCUDA: %T is %s: %w", r, s.holder.slotNoun(), ErrHeldByCUDA)
		case s.owner == ownedByCUDA:
			return fmt.Errorf("interop: ToCUDA: %w", ErrHeldByCUDA)
		case seen[r]:
			return fmt.Errorf("interop: ToCUDA: %T listed twice", r)
		}
		seen[r] = true
	}
	return nil
}

// Done ends CUDA's access: once the work queued on the Access's stream so far
// has finished, CUDA signals the CUDA→Vulkan semaphore, and the next Vulkan
// submission through the Device (Submit, Run, ToCUDA) or through the vulkan
// package on one of the resources waits for it and re-acquires the
// resources. Done does not block the host. Idempotent; after an error the
// resources stay CUDA's and Done may be called again.
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
	if err := order(d.cs, a.stream, d.stream); err != nil {
		return fmt.Errorf("interop: Done: %w", err)
	}
	w := d.toVK.value + 1
	if err := d.toVK.cu.signal(d.stream, w); err != nil {
		return fmt.Errorf("interop: Done: CUDA signal: %w", err)
	}
	d.toVK.value = w
	for _, r := range a.res {
		s := r.st()
		if s.acc == a {
			s.acc = nil
		}
		if !s.closed {
			s.owner, s.ret = returning, w
			d.pending = append(d.pending, r)
		}
	}
	a.done = true
	return nil
}

// AfterCUDA orders the Vulkan work on res submitted after the call after
// the CUDA work queued on stream (nil: the Device's stream) so far, which
// may have written them, with no host wait: the Device's stream waits for
// stream (an event), CUDA signals the CUDA→Vulkan semaphore there, and the
// next Vulkan submission through the Device, or through package vulkan on
// one of res, waits for that signal on the GPU and acquires res from
// CUDA's queue family. It is Access.Done for memory CUDA wrote without a
// ToCUDA: memory allocated by CUDA and written there first, such as a
// PyTorch tensor in a Pool's segment seen through Device.PoolBuffer.
// Resources held by CUDA (ToCUDA: end the hand-off with Done, which orders
// the same way), by a Ring or by a Producer are refused.
func (d *Device) AfterCUDA(stream *cuda.Stream, res ...Resource) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return err
	}
	for _, r := range res {
		s := r.st()
		switch {
		case s.d != d:
			return fmt.Errorf("interop: AfterCUDA: %T belongs to another Device", r)
		case s.closed:
			return ErrClosed
		case s.holder != nil:
			return fmt.Errorf("interop: AfterCUDA: %T is %s: %w", r, s.holder.slotNoun(), ErrHeldByCUDA)
		case s.owner == ownedByCUDA:
			return fmt.Errorf("interop: AfterCUDA: %w (its Access.Done orders Vulkan after CUDA)", ErrHeldByCUDA)
		}
	}
	if stream == nil {
		stream = d.stream
	}
	if err := order(d.cs, stream, d.stream); err != nil {
		return fmt.Errorf("interop: AfterCUDA: %w", err)
	}
	w := d.toVK.value + 1
	if err := d.toVK.cu.signal(d.stream, w); err != nil {
		return fmt.Errorf("interop: AfterCUDA: CUDA signal: %w", err)
	}
	d.toVK.value = w
	// Resources closed since they were listed need no acquire: drop them,
	// so that a caller who orders many short-lived buffers (a from_torch
	// per step) and submits no Vulkan work keeps the list short.
	d.pending = slices.DeleteFunc(d.pending, func(r Resource) bool { return r.st().closed })
	for _, r := range res {
		r.st().owner, r.st().ret = returning, w
		d.pending = append(d.pending, r)
	}
	return nil
}

// Submit submits Vulkan work after everything CUDA has handed back: if
// resources are returning from CUDA, a small submission first waits (on the
// GPU) for CUDA's signal and acquires them back into Vulkan's queue family.
// Use it instead of Commands.Submit for work that must come after CUDA's
// even on memory the Device does not share; Commands.Submit orders work on
// the Device's own buffers and textures by itself.
func (d *Device) Submit(c *vulkan.Commands, o vulkan.SubmitOptions) error {
	d.mu.Lock()
	err := d.live()
	if err == nil {
		err = d.flushPending()
	}
	d.mu.Unlock()
	if err != nil {
		return err
	}
	return c.Submit(o)
}

// Run records Vulkan work with record, submits it with Submit and waits for
// it: the simple, synchronous way for scripts and tests.
func (d *Device) Run(record func(*vulkan.Commands) error) error {
	return d.RunTimeout(-1, record)
}

// RunTimeout is Run with a limit on the host wait (negative: none); when it
// passes, the error wraps vulkan.ErrTimeout and the work may still run. The
// batch comes from the Vulkan device's pool (vulkan.Device.RunTimeout).
func (d *Device) RunTimeout(timeout time.Duration, record func(*vulkan.Commands) error) error {
	d.mu.Lock()
	err := d.live()
	if err == nil {
		err = d.flushPending() // the work is submitted after it
	}
	d.mu.Unlock()
	if err != nil {
		return err
	}
	return d.vk.RunTimeout(timeout, record)
}

// guard is what the vulkan package calls before Vulkan work on a shared
// resource that did not come through the Device (Commands.Submit of a batch
// using it, Buffer.Upload, Buffer.Readback): it refuses the work while CUDA
// holds the resource, and submits the acquire first when CUDA has returned
// it, so that the work sees CUDA's writes. The Device's own batches pass.
func (d *Device) guard(s *state) func(c *vulkan.Commands) error {
	return func(c *vulkan.Commands) error {
		if c != nil && d.cmds.Owns(c) {
			return nil
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if s.closed || d.closed {
			return nil // the vulkan layer reports closed objects itself
		}
		switch {
		case s.holder != nil && s.holder.refusesOtherVulkanWork():
			return fmt.Errorf("interop: the resource is %s: %w", s.holder.slotNoun(), ErrHeldByCUDA)
		case s.owner == ownedByCUDA:
			return fmt.Errorf("interop: %w", ErrHeldByCUDA)
		case s.owner == returning:
			return d.flushPending()
		}
		return nil
	}
}
