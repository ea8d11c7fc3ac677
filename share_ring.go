package gfxcuda

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/internal/shmring"
)

// MaxSharedRingSlots is the most slots a SharedRing (and a slot ring) has.
const MaxSharedRingSlots = shmring.MaxSlots

// Ring errors.
var (
	// ErrProducerGone: the producer process exited (or was killed)
	// without closing the ring.
	ErrProducerGone = shmring.ErrProducerGone
	// ErrSharedRingClosed: the producer closed the ring and every frame was
	// consumed.
	ErrSharedRingClosed = shmring.ErrClosed
	// ErrSharedRingFull: every consumer slot of the ring is taken.
	ErrSharedRingFull = shmring.ErrFull
)

// pollSlice is how long the ring's waits sleep before they look at their
// peers (and their own GPU work) again.
const pollSlice = shmring.PollSlice

// Frame is one published frame as a consumer sees it: its slot, sequence
// number, publication time, the timeline value to wait for (Wait), the
// producer's metadata (User) and the frames missed before it (Dropped).
type Frame = shmring.Frame

// SharedRingOptions configure NewSharedRing.
type SharedRingOptions struct {
	// Slots are the shared slot resources (buffers or textures), at least
	// 2; their tokens travel with the ring's. The ring does not own them.
	Slots []*Shared
	// DropOldest makes a producer with no free slot overwrite the oldest
	// frame no consumer holds, instead of waiting for every consumer to
	// release it.
	DropOldest bool
	// UserBytes bounds the per-frame metadata (default 256, at most 4096).
	UserBytes int
	// Semaphore, optional, is a shared timeline semaphore the producer
	// signals (Frame.Wait) for GPU-side synchronization.
	Semaphore *Shared
	// Export configures how the ring's own token is shared (Export of the
	// ring); export the slots with the same options.
	Export ExportOptions
}

// SharedRing is the producer's side of a frame ring shared with consumers in
// other processes (share it with Export). The producer writes a slot
// between Acquire and Publish; consumers read it between Next and
// Release. The producer never overwrites a slot a consumer holds.
// Synchronization is on the host through the control block (futexes);
// GPU work is ordered by the caller with the ring's semaphore (Frame.Wait)
// or by finishing the work before Publish. Methods are safe for concurrent
// use, though one goroutine should produce.
//
// The control block's protocol is internal/shmring's; the SharedRing adds
// the slots' tokens and the ring's export.
type SharedRing struct {
	o      SharedRingOptions
	ring   *shmring.Ring
	mu     sync.Mutex
	closed bool
	ex     *Shared
}

// NewSharedRing makes the shared control block for slots already exported.
func NewSharedRing(o SharedRingOptions) (*SharedRing, error) {
	if n := len(o.Slots); n < 2 || n > MaxSharedRingSlots {
		return nil, fmt.Errorf("share: NewRing: %d slots (2 to %d)", n, MaxSharedRingSlots)
	}
	var toks []string
	for i, s := range o.Slots {
		if s == nil {
			return nil, fmt.Errorf("share: NewRing: slot %d is nil", i)
		}
		toks = append(toks, string(s.Token()))
	}
	if o.Semaphore != nil {
		toks = append(toks, string(o.Semaphore.Token()))
	}
	ring, err := shmring.New(shmring.Options{Slots: len(o.Slots), UserBytes: o.UserBytes, DropOldest: o.DropOldest, Tokens: toks})
	if err != nil {
		return nil, err
	}
	o.UserBytes = ring.UserBytes()
	return &SharedRing{o: o, ring: ring}, nil
}

// Export shares an *Buffer, an *Texture or a *Ring (its
// producer side), with at most one ExportOptions (rings: SharedRingOptions.Export
// is used instead). Buffers and textures made by ImportBuffer,
// ImportTexture or an Open function cannot be exported again.
func Export(res any, o ...ExportOptions) (*Shared, error) {
	switch r := res.(type) {
	case *Buffer:
		fd, err := r.ExportFD() // probe: fails now for imported or closed buffers
		if err != nil {
			return nil, fmt.Errorf("share: Export: %w", err)
		}
		sharenet.CloseAll([]int{fd})
		m := Meta{Kind: KindBuffer, UUID: r.Device().Vulkan().Physical().DeviceUUID, Size: r.Size(), AllocationSize: r.AllocationSize(),
			Offset: r.Offset()}
		if r.Dedicated() {
			m.Flags |= FlagDedicated
		}
		if r.FromCUDA() {
			m.Flags |= FlagFromCUDA
		}
		return newExport(m, oneFD(r.ExportFD), o)
	case *Texture:
		fd, err := r.ExportFD()
		if err != nil {
			return nil, fmt.Errorf("share: Export: %w", err)
		}
		sharenet.CloseAll([]int{fd})
		opt := r.Options()
		m := Meta{Kind: KindTexture, Flags: FlagDedicated, UUID: r.Device().Vulkan().Physical().DeviceUUID,
			AllocationSize: r.AllocationSize(), Format: uint32(opt.Format), Width: opt.Width, Height: opt.Height,
			Layers: opt.Layers, Usage: uint32(opt.Usage)}
		return newExport(m, oneFD(r.ExportFD), o)
	case *SharedRing:
		return r.export()
	case nil:
		return nil, errors.New("share: Export(nil)")
	}
	return nil, fmt.Errorf("share: Export: cannot share a %T (use ExportVulkan for vulkan objects, ExportCUDA for CUDA allocations)", res)
}

// export shares the ring: each open registers a consumer (watched through
// a pidfd on its process and a liveness socket) and gets the control
// block's descriptor, the semaphores' (GPU rings), the far end of its
// liveness socket and its consumer index.
func (r *SharedRing) export() (*Shared, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("share: Export of a closed ring")
	}
	if r.ex != nil {
		return r.ex, nil
	}
	ex, err := newExport(Meta{Kind: KindRing, Size: uint64(len(r.o.Slots)), UUID: r.o.Slots[0].meta.UUID}, r.open, []ExportOptions{r.o.Export})
	if err != nil {
		return nil, err
	}
	r.ex = ex
	return ex, nil
}

// open answers an open of the ring's token: it attaches p as a consumer.
func (r *SharedRing) open(p sharenet.Peer) ([]int, []byte, error) {
	idx, fds, err := r.ring.Attach(p.PID())
	if errors.Is(err, shmring.ErrClosed) {
		return nil, nil, fmt.Errorf("%w: the ring is closed", ErrWithdrawn)
	}
	if err != nil {
		return nil, nil, err
	}
	return fds, binary.LittleEndian.AppendUint32(nil, uint32(idx)), nil
}

// Consumers reports how many consumers are attached (after dropping those
// that exited).
func (r *SharedRing) Consumers() int { return r.ring.Consumers() }

// WaitConsumers waits until at least n consumers are attached.
func (r *SharedRing) WaitConsumers(ctx context.Context, n int) error {
	return r.ring.WaitConsumers(ctx, n)
}

// Acquire returns a slot the producer may write: in blocking mode the
// oldest slot every attached consumer has released; with DropOldest the
// oldest slot no consumer holds. It waits while there is none, until ctx
// ends. Consumers that exit meanwhile are dropped and their slots
// reclaimed. Several slots may be acquired before they are published (a
// batch); Publish them in the order acquired.
func (r *SharedRing) Acquire(ctx context.Context) (int, error) { return r.ring.Acquire(ctx) }

// Publish makes the frame in slot (from Acquire) visible to consumers,
// with user metadata and the timeline value its GPU work signals (0: the
// content is complete now). It returns the frame's sequence number.
func (r *SharedRing) Publish(slot int, user []byte, wait uint64) (uint64, error) {
	return r.ring.Publish(slot, user, wait)
}

// NextSeq is the sequence number the next Publish gives its frame.
func (r *SharedRing) NextSeq() uint64 { return r.ring.NextSeq() }

// unacquire gives acquired slots back unpublished: their frames stay
// what they were (a Producer's batch that failed).
func (r *SharedRing) unacquire(slots []int) { r.ring.Unacquire(slots) }

// announceReady records the timeline value the ring's last submitted
// batch signals, before its submission: a consumer of a dead producer
// signals past it.
func (r *SharedRing) announceReady(last uint64) { r.ring.AnnounceReady(last) }

// useGPU makes the ring's frames GPU-synchronized through g's
// semaphores, and says so in the control block for consumers.
func (r *SharedRing) useGPU(g shmring.GPU) { r.ring.UseGPU(g) }

// userBytes is the most metadata a frame carries.
func (r *SharedRing) userBytes() int { return r.o.UserBytes }

// Close tells consumers that no frame follows (they get ErrSharedRingClosed
// after the frames already published), withdraws the ring's token and
// unmaps the control block. Idempotent.
func (r *SharedRing) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	ex := r.ex
	r.mu.Unlock()
	// The ring first: opens still in flight then find it closed.
	err := r.ring.Close()
	if ex != nil {
		ex.Close()
	}
	return err
}

// Consumer is a process's view of a ring shared by another process: the
// control block (internal/shmring's Reader), the slots' tokens and, for a
// GPU-synchronized ring, the semaphores' descriptors until imported.
type Consumer struct {
	r     *shmring.Reader
	slots []Token
	sem   Token
	// gpuImported: the semaphores' descriptors were imported.
	gpuImported bool
	// GPU rings: the producer's "frame ready" semaphore and this
	// consumer's "slot free" one (descriptors until imported), or -1.
	readyFD, freeFD int
	mu              sync.Mutex // guards closed
	closed          bool
}

// OpenSharedRing attaches to a ring shared by another process as one more
// consumer; it sees the frames published from then on. Open the slots with
// Slots' tokens (in Vulkan or CUDA, as the consumer wants), with the same
// OpenOptions.
func OpenSharedRing(ctx context.Context, tok Token, o ...OpenOptions) (*Consumer, error) {
	t, err := sharenet.ParseToken(tok)
	if err != nil {
		return nil, err
	}
	if k := t.Meta().Kind; k != KindRing {
		return nil, fmt.Errorf("%w: the token shares a %v, not a ring", ErrWrongKind, k)
	}
	r, err := t.Fetch(ctx, o...)
	if err != nil {
		return nil, err
	}
	// The control block, the semaphores (GPU rings) and the liveness
	// socket (format 2 producers).
	if len(r.FDs) < 1 || len(r.FDs) > 4 || len(r.Extra) != 4 {
		sharenet.CloseAll(r.FDs)
		return nil, errors.New("share: OpenRing: malformed reply from the producer")
	}
	fds := r.FDs
	hup := -1
	if len(fds)%2 == 0 {
		hup, fds = fds[len(fds)-1], fds[:len(fds)-1]
	}
	defer closeFD(fds[0])
	rd, err := shmring.Open(fds[0], int(binary.LittleEndian.Uint32(r.Extra)), sharenet.Watch(r.PID, hup))
	if err != nil {
		sharenet.CloseAll(fds[1:])
		return nil, err
	}
	c := &Consumer{r: rd, readyFD: -1, freeFD: -1}
	toks := rd.Tokens()
	for _, l := range toks[:rd.Slots()] {
		c.slots = append(c.slots, Token(l))
	}
	if len(toks) > rd.Slots() {
		c.sem = Token(toks[rd.Slots()])
	}
	if len(fds) == 3 {
		c.readyFD, c.freeFD = fds[1], fds[2]
	}
	return c, nil
}

// Slots returns the tokens of the ring's slots, in slot order.
func (c *Consumer) Slots() []Token { return append([]Token(nil), c.slots...) }

// Semaphore returns the token of the ring's timeline semaphore, or "".
func (c *Consumer) Semaphore() Token { return c.sem }

// GPUSync reports whether the ring's producer synchronizes on the GPU
// (Producer with external semaphores): a frame's content is then complete
// only once the producer's "frame ready" semaphore reaches Frame.Wait.
// CUDAConsumer and VulkanConsumer order their work after it; users of
// Next and Release alone must wait for it themselves.
func (c *Consumer) GPUSync() bool { return c.readyFD >= 0 || c.gpuImported }

// Next waits for the next frame (the oldest one this consumer has not seen)
// and holds its slot until Release. A consumer may hold several frames at
// once (up to the number of slots). It fails with ErrSharedRingClosed after the
// last frame of a closed ring, and with ErrProducerGone within about 20 ms
// of the producer's death.
func (c *Consumer) Next(ctx context.Context) (*Frame, error) { return c.r.Next(ctx) }

// published reports whether a slot holds frame seq, published and not
// being rewritten: for a frame after the last one Next returned, a Next
// now would find it without waiting.
func (c *Consumer) published(seq uint64) bool { return c.r.Published(seq) }

// Release gives the frame's slot back to the producer. The consumer must
// be done with the slot, on the GPU too: on a GPU-synchronized ring the
// producer overwrites it without waiting (CUDAConsumer.Release and
// VulkanConsumer.Consume release after GPU work instead).
func (c *Consumer) Release(f *Frame) error { return c.r.Release([]*Frame{f}, nil) }

// holds reports whether fs are frames the consumer holds, in the order
// Next returned them; with gpu, also all after the last one released on
// the GPU.
func (c *Consumer) holds(fs []*Frame, gpu bool) bool { return c.r.Holds(fs, gpu) }

// releaseGPU releases fs, held in this order, on a GPU ring: it first
// calls signal with the last frame's sequence number, to queue the GPU
// signal of this consumer's "slot free" semaphore at that value (after
// the consumer's work on every frame), and marks the slots so that the
// producer's next write of each waits for it on the GPU. When signal
// fails, nothing is released.
func (c *Consumer) releaseGPU(fs []*Frame, signal func(v uint64) error) error {
	return c.r.Release(fs, signal)
}

// semaphoreFDs reports whether the consumer holds the descriptors of a
// GPU ring's semaphores, not imported yet.
func (c *Consumer) semaphoreFDs() bool { return c.readyFD >= 0 }

// takeSemaphoreFDs hands the caller, who imports them, the producer's
// "frame ready" and this consumer's "slot free" semaphore descriptors.
func (c *Consumer) takeSemaphoreFDs() (ready, free int) {
	ready, free = c.readyFD, c.freeFD
	c.readyFD, c.freeFD, c.gpuImported = -1, -1, true
	return ready, free
}

// producerGone reports whether the producer's process exited.
func (c *Consumer) producerGone() bool { return c.r.ProducerGone() }

// readyMax is the highest "frame ready" value the producer submitted.
func (c *Consumer) readyMax() uint64 { return c.r.ReadyMax() }

// Close detaches the consumer (releasing a held frame). Idempotent.
func (c *Consumer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	sharenet.CloseAll([]int{c.readyFD, c.freeFD})
	c.readyFD, c.freeFD = -1, -1
	return c.r.Close()
}
