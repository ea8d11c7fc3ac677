// Package slotring is a frame ring shared with other processes together
// with the slots it shares: a Ring is a gfxcuda.SharedRing that makes its
// slots, exports each one and the ring, and readies a slot's content at
// Publish. Its slots are either host-visible Vulkan buffers, mapped
// (NewHost: the CPU of every process reaches them), or shared Vulkan/CUDA
// buffers (New: CUDA reaches them). A Reader (Open, OpenHost) is the other
// process's side. This is what the C library's gfxcuda_ring_* functions
// are; it uses the face's public API only.
package slotring

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ErrPublishRefused is wrapped by the errors of Ring.Publish when the
// ring refuses the frame (a slot that was not acquired, metadata longer
// than the ring takes, a closed ring), as opposed to a failure readying
// the slot's content.
var ErrPublishRefused = errors.New("gfxcuda: the ring refused the frame")

// Options configure NewHost and New.
type Options struct {
	// SlotBytes is the size of each slot (at least 1).
	SlotBytes uint64
	// Slots is the number of slots, 2 to 64.
	Slots int
	// DropOldest: see SharedRingOptions.DropOldest.
	DropOldest bool
	// Export configures how the slots and the ring are shared.
	Export gfxcuda.ExportOptions
}

// Slot is one slot of a Ring or Reader: a mapped
// host-visible Vulkan buffer (Host) or a shared buffer (Buffer).
type Slot struct {
	host *vulkan.Buffer
	mem  []byte
	buf  *gfxcuda.Buffer
}

// Host returns the mapping of a host slot (nil for a shared slot). It is
// valid until the ring is closed.
func (s *Slot) Host() []byte { return s.mem }

// HostAddr returns the address of the mapping of a host slot (0 for a
// shared slot).
func (s *Slot) HostAddr() uintptr {
	if len(s.mem) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&s.mem[0]))
}

// VulkanBuffer returns the Vulkan buffer of a host slot (nil for a shared
// slot).
func (s *Slot) VulkanBuffer() *vulkan.Buffer { return s.host }

// Buffer returns the shared buffer of a shared slot (nil for a host slot).
func (s *Slot) Buffer() *gfxcuda.Buffer { return s.buf }

// Size is the slot's size in bytes.
func (s *Slot) Size() uint64 {
	if s.buf != nil {
		return s.buf.Size()
	}
	return uint64(len(s.mem))
}

func (s *Slot) close() error {
	if s.buf != nil {
		return s.buf.Close()
	}
	return s.host.Close()
}

// mapHostSlot maps b as a slot; it closes b on failure.
func mapHostSlot(b *vulkan.Buffer) (*Slot, error) {
	m, err := b.Map()
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%w: mapping a ring slot: %w", gfxcuda.ErrUnsupported, err)
	}
	if len(m) == 0 {
		b.Close()
		return nil, fmt.Errorf("%w: gfxcuda: an empty mapping", gfxcuda.ErrUnsupported)
	}
	return &Slot{host: b, mem: m}, nil
}

// Ring is the producer's side of a ring of slots shared with other
// processes (Token). Write a slot between Acquire and Publish. Methods are
// safe for concurrent use.
type Ring struct {
	r     *gfxcuda.SharedRing
	ex    *gfxcuda.Shared   // the ring's export
	exs   []*gfxcuda.Shared // the slots' exports
	slots []*Slot
	dev   *gfxcuda.Device // shared slots; nil for host slots

	mu      sync.Mutex
	stopped bool
	closed  bool
}

// NewHost makes a ring of host-visible (readback) Vulkan buffers
// on vd, each mapped and exported with o.Export, and exports the ring.
// Errors making or exporting a slot wrap ErrUnsupported.
func NewHost(vd *vulkan.Device, o Options) (*Ring, error) {
	return newRing(nil, o, func() (*Slot, *gfxcuda.Shared, error) {
		b, err := vd.NewBuffer(vulkan.BufferOptions{Size: o.SlotBytes, Heap: vulkan.HeapReadback, Exportable: true})
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", gfxcuda.ErrUnsupported, err)
		}
		s, err := mapHostSlot(b)
		if err != nil {
			return nil, nil, err
		}
		ex, err := gfxcuda.ExportVulkan(vd, b, o.Export)
		if err != nil {
			return s, nil, fmt.Errorf("%w: %w", gfxcuda.ErrUnsupported, err)
		}
		return s, ex, nil
	})
}

// New makes a ring of shared buffers of d (CUDA reaches them),
// each exported with o.Export, and exports the ring. Errors exporting a
// slot wrap ErrUnsupported.
//
// Slots of at least CUDA's allocation granularity (2 MiB on current GPUs)
// are allocated by CUDA (Device.NewBufferFromCUDA), when rounding them up
// to it wastes at most a quarter: a PeerConsumer on another GPU maps them
// and pulls the frames with its own copy engines, and other processes
// import them with cuMemImportFromShareableHandle. Smaller slots are
// Vulkan allocations.
func New(d *gfxcuda.Device, o Options) (*Ring, error) {
	fromCUDA := cudaSlotSize(d.CUDA(), o.SlotBytes)
	return newRing(d, o, func() (*Slot, *gfxcuda.Shared, error) {
		var b *gfxcuda.Buffer
		var err error
		if fromCUDA {
			b, err = d.NewBufferFromCUDA(o.SlotBytes)
		} else {
			b, err = d.NewBuffer(o.SlotBytes)
		}
		if err != nil {
			return nil, nil, err
		}
		s := &Slot{buf: b}
		ex, err := gfxcuda.Export(b, o.Export)
		if err != nil {
			return s, nil, fmt.Errorf("%w: %w", gfxcuda.ErrUnsupported, err)
		}
		return s, ex, nil
	})
}

// cudaSlotSize reports whether New allocates slots of n bytes
// with CUDA: at least one allocation granule of c, and at most a quarter
// of n lost to rounding up to the granularity.
func cudaSlotSize(c *cuda.Context, n uint64) bool {
	g, err := c.Granularity()
	if err != nil || g == 0 || n < g {
		return false
	}
	return (n+g-1)/g*g-n <= n/4
}

func newRing(d *gfxcuda.Device, o Options, slot func() (*Slot, *gfxcuda.Shared, error)) (*Ring, error) {
	if o.SlotBytes == 0 || o.Slots < 2 || o.Slots > gfxcuda.MaxSharedRingSlots {
		return nil, fmt.Errorf("gfxcuda: a slot ring of %d slots of %d bytes: give slots of at least 1 byte and 2 to %d slots", o.Slots, o.SlotBytes, gfxcuda.MaxSharedRingSlots)
	}
	r := &Ring{dev: d}
	fail := func(err error) (*Ring, error) {
		for _, x := range r.exs {
			x.Close()
		}
		for _, s := range r.slots {
			s.close()
		}
		return nil, err
	}
	for i := 0; i < o.Slots; i++ {
		s, ex, err := slot()
		if s != nil {
			r.slots = append(r.slots, s)
		}
		if err != nil {
			return fail(err)
		}
		r.exs = append(r.exs, ex)
	}
	sr, err := gfxcuda.NewSharedRing(gfxcuda.SharedRingOptions{Slots: r.exs, DropOldest: o.DropOldest, Export: o.Export})
	if err != nil {
		return fail(err)
	}
	ex, err := gfxcuda.Export(sr)
	if err != nil {
		sr.Close()
		return fail(err)
	}
	r.r, r.ex = sr, ex
	return r, nil
}

// Token is the ring's token, which Open and OpenHost open.
func (r *Ring) Token() gfxcuda.Token { return r.ex.Token() }

// Ring returns the shared control block.
func (r *Ring) Ring() *gfxcuda.SharedRing { return r.r }

// Device returns the Device of a ring of shared slots (nil for host slots).
func (r *Ring) Device() *gfxcuda.Device { return r.dev }

// Slots returns the ring's slots, by index.
func (r *Ring) Slots() []*Slot { return append([]*Slot(nil), r.slots...) }

// WaitConsumers waits until at least n consumers are attached.
func (r *Ring) WaitConsumers(ctx context.Context, n int) error {
	return r.r.WaitConsumers(ctx, n)
}

// Acquire returns a slot to write (SharedRing.Acquire).
func (r *Ring) Acquire(ctx context.Context) (int, error) { return r.r.Acquire(ctx) }

// Publish readies the content of slot (from Acquire) and publishes it
// with a copy of user: a host slot is flushed; for a shared slot, the
// producer's CUDA work queued on s so far is waited for, bounded by ctx
// (nil s: the content is complete already). The frame is complete at
// publication (Frame.Wait 0). Errors of the ring itself wrap
// ErrPublishRefused.
func (r *Ring) Publish(ctx context.Context, slot int, user []byte, s *cuda.Stream) (uint64, error) {
	if slot < 0 || slot >= len(r.slots) {
		return 0, fmt.Errorf("%w: slot %d of %d", ErrPublishRefused, slot, len(r.slots))
	}
	sl := r.slots[slot]
	switch {
	case sl.host != nil:
		if err := sl.host.Flush(0, sl.host.Size()); err != nil {
			return 0, err
		}
	case s != nil:
		if err := s.Wait(ctx); err != nil {
			return 0, err
		}
	}
	q, err := r.r.Publish(slot, append([]byte(nil), user...), 0)
	if err != nil {
		return 0, refused{err}
	}
	return q, nil
}

// refused wraps an error of the ring as ErrPublishRefused, keeping its
// message.
type refused struct{ err error }

func (e refused) Error() string   { return e.err.Error() }
func (e refused) Unwrap() []error { return []error{ErrPublishRefused, e.err} }

// Stop closes the ring (consumers get ErrSharedRingClosed after the frames
// published) and withdraws the tokens of the ring and its slots; the slots
// stay usable until Close. Idempotent.
func (r *Ring) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopLocked()
}

func (r *Ring) stopLocked() error {
	if r.stopped {
		return nil
	}
	r.stopped = true
	err := r.r.Close()
	r.ex.Close()
	for _, x := range r.exs {
		x.Close()
	}
	return err
}

// Close stops the ring and frees its slots. Idempotent.
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.stopLocked(), closeSlots(&r.closed, r.slots))
}

// closeSlots closes slots unless *closed, then sets it: the second half of
// Ring.Close and Reader.Close, after they stop.
func closeSlots(closed *bool, slots []*Slot) error {
	if *closed {
		return nil
	}
	*closed = true
	var err error
	for _, s := range slots {
		err = errors.Join(err, s.close())
	}
	return err
}

var _ gfxcuda.Reader = (*Reader)(nil)

// Reader is a consumer of another process's Ring: its slots
// opened in this process, and the frame it holds. Next takes a frame
// (releasing the one held), Release or ReleaseHeld gives it back; it is a
// gfxcuda.Reader. Methods are safe for concurrent use.
type Reader struct {
	c     *gfxcuda.Consumer
	slots []*Slot
	dev   *gfxcuda.Device // shared slots; nil for host slots
	csem  *cuda.ExternalSemaphore
	vsem  *vulkan.Semaphore

	mu      sync.Mutex
	held    *gfxcuda.Frame
	stopped bool
	closed  bool
}

// OpenHost opens the ring of token tok (a Ring of host slots)
// on vd: each slot mapped, and the producer's semaphore if it has one.
// Errors mapping a slot wrap ErrUnsupported.
func OpenHost(ctx context.Context, vd *vulkan.Device, tok gfxcuda.Token) (*Reader, error) {
	return openRing(ctx, nil, tok, func(st gfxcuda.Token) (*Slot, error) {
		b, err := gfxcuda.OpenVulkanBuffer(ctx, vd, st)
		if err != nil {
			return nil, err
		}
		return mapHostSlot(b)
	}, func(st gfxcuda.Token, rr *Reader) (err error) {
		rr.vsem, err = gfxcuda.OpenVulkanSemaphore(ctx, vd, st)
		return err
	})
}

// Open opens the ring of token tok (a Ring of shared slots) on
// d: each slot as a shared buffer, and the producer's semaphore in CUDA if
// it has one.
func Open(ctx context.Context, d *gfxcuda.Device, tok gfxcuda.Token) (*Reader, error) {
	return openRing(ctx, d, tok, func(st gfxcuda.Token) (*Slot, error) {
		b, err := d.OpenBuffer(ctx, st)
		if err != nil {
			return nil, err
		}
		return &Slot{buf: b}, nil
	}, func(st gfxcuda.Token, rr *Reader) (err error) {
		rr.csem, err = gfxcuda.OpenCUDASemaphore(ctx, d.CUDA(), st)
		return err
	})
}

func openRing(ctx context.Context, d *gfxcuda.Device, tok gfxcuda.Token, slot func(gfxcuda.Token) (*Slot, error),
	sem func(gfxcuda.Token, *Reader) error) (*Reader, error) {
	c, err := gfxcuda.OpenSharedRing(ctx, tok)
	if err != nil {
		return nil, err
	}
	rr := &Reader{c: c, dev: d}
	for _, st := range c.Slots() {
		s, err := slot(st)
		if err != nil {
			rr.Close()
			return nil, err
		}
		rr.slots = append(rr.slots, s)
	}
	if st := c.Semaphore(); st != "" {
		if err := sem(st, rr); err != nil {
			rr.Close()
			return nil, err
		}
	}
	return rr, nil
}

// Slots returns the ring's slots, by index.
func (r *Reader) Slots() []*Slot { return append([]*Slot(nil), r.slots...) }

// Device returns the Device of a ring of shared slots (nil for host slots).
func (r *Reader) Device() *gfxcuda.Device { return r.dev }

// Consumer returns the ring's consumer side.
func (r *Reader) Consumer() *gfxcuda.Consumer { return r.c }

// Next releases the frame held, if any, and waits, bounded by ctx, for the
// next frame; its content is made visible: the producer's semaphore value
// is waited for on s (shared slots; nil s: the legacy default stream) or
// on the host (host slots), and a host slot is invalidated. The frame is
// held until Release (or ReleaseHeld), the next Next or Close.
func (r *Reader) Next(ctx context.Context, s *cuda.Stream) (*gfxcuda.Frame, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held != nil {
		if err := r.c.Release(r.held); err != nil {
			return nil, err
		}
		r.held = nil
	}
	f, err := r.c.Next(ctx)
	if err != nil {
		return nil, err
	}
	if f.Slot < 0 || f.Slot >= len(r.slots) {
		r.c.Release(f)
		return nil, fmt.Errorf("gfxcuda: the ring gave slot %d of %d", f.Slot, len(r.slots))
	}
	if f.Wait > 0 {
		switch {
		case r.csem != nil:
			if s == nil {
				if s, err = cuda.WrapStream(r.dev.CUDA(), cuda.LegacyDefaultStream); err != nil {
					r.c.Release(f)
					return nil, err
				}
				defer s.Close()
			}
			if err := r.csem.Wait(s, f.Wait); err != nil {
				r.c.Release(f)
				return nil, err
			}
		case r.vsem != nil:
			d, _ := ctx.Deadline()
			if err := r.vsem.Wait(f.Wait, timeUntil(d)); err != nil {
				r.c.Release(f)
				return nil, err
			}
		}
	}
	if sl := r.slots[f.Slot]; sl.host != nil {
		if err := sl.host.Invalidate(0, sl.host.Size()); err != nil {
			r.c.Release(f)
			return nil, err
		}
	}
	r.held = f
	return f, nil
}

// timeUntil is the time left to a deadline (at least 0; a zero deadline
// gives 0).
func timeUntil(d time.Time) time.Duration { return max(time.Until(d), 0) }

// Ptr is the device pointer of frame f's slot (shared slots; 0 for host
// slots, which Slot.Host maps).
func (r *Reader) Ptr(f *gfxcuda.Frame) cuda.DevicePtr {
	if f == nil || f.Slot < 0 || f.Slot >= len(r.slots) || r.slots[f.Slot].buf == nil {
		return 0
	}
	return r.slots[f.Slot].buf.Ptr()
}

// Release gives frame f (the frame held) back once the work queued on s
// so far is done: the ring's slots have no CUDA signal back to the
// producer, so it waits on the host for s (nil: no wait), then gives the
// slot back (gfxcuda.Reader).
func (r *Reader) Release(f *gfxcuda.Frame, s *cuda.Stream) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil || f != r.held {
		return errors.New("gfxcuda: slotring.Reader.Release of a frame not held (released already, or not from this reader)")
	}
	if s != nil {
		if err := s.Synchronize(); err != nil {
			return fmt.Errorf("gfxcuda: slotring.Reader.Release: waiting for the stream: %w", err)
		}
	}
	r.held = nil
	return r.c.Release(f)
}

// ReleaseHeld gives back the frame held, if any, at once (the C library's
// gfxcuda_ring_release).
func (r *Reader) ReleaseHeld() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == nil {
		return nil
	}
	f := r.held
	r.held = nil
	return r.c.Release(f)
}

// Stop detaches from the ring (releasing the frame held) and closes the
// semaphore; the slots stay usable until Close. Idempotent.
func (r *Reader) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopLocked()
}

func (r *Reader) stopLocked() error {
	if r.stopped {
		return nil
	}
	r.stopped = true
	err := r.c.Close() // releases a held frame
	r.held = nil
	if r.csem != nil {
		err = errors.Join(err, r.csem.Close())
	}
	if r.vsem != nil {
		err = errors.Join(err, r.vsem.Close())
	}
	return err
}

// Close stops the reader and closes its slots. Idempotent.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.stopLocked(), closeSlots(&r.closed, r.slots))
}
