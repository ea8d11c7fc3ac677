package gfxcuda

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// MaxSharedRingSlots is the most slots a SharedRing (and a slot ring) has.
const MaxSharedRingSlots = 64

// Ring errors.
var (
	// ErrProducerGone: the producer process exited (or was killed)
	// without closing the ring.
	ErrProducerGone = errors.New("share: the ring's producer process is gone")
	// ErrSharedRingClosed: the producer closed the ring and every frame was
	// consumed.
	ErrSharedRingClosed = errors.New("share: the ring's producer closed it")
	// ErrSharedRingFull: every consumer slot of the ring is taken.
	ErrSharedRingFull = errors.New("share: the ring has no room for another consumer")
)

// Control block layout (little-endian, in a sealed memfd shared by the
// producer and its consumers). Offsets are multiples of 8 so that the
// words can be used atomically.
const (
	ringMagic    = 0x72584647 // "GFXr"
	ringVersion  = 1
	offMagic     = 0
	offVersion   = 4
	offSlots     = 8
	offUserMax   = 12
	offMode      = 16
	offPid       = 20
	offClosed    = 24
	offPub       = 28 // futex: bumped on every publish and on close
	offRel       = 32 // futex: bumped on every release
	offTokLen    = 36
	offNextSeq   = 40
	offReadyMax  = 48 // u64: the highest "frame ready" value the producer submitted
	offGPU       = 56 // u32: 1 when the producer synchronizes on the GPU (semaphores travel with each open)
	hdrSize      = 64
	maxConsumers = 16
	consStride   = 32 // active u32, pid i32, lastSeq u64, holding u64, pad
	offCons      = hdrSize
	offSlotTab   = offCons + maxConsumers*consStride
	slotHdr      = 48 // seq u64, timestamp i64, wait u64, userLen u32, held u32, gpuRel u32, 12 pad
	slotGPURel   = 32 // consumers that released the slot's frame with a GPU signal
	writing      = uint64(1) << 63
	maxUserBytes = 4096
	pollSlice    = 20 * time.Millisecond
)

// Frame is one published frame as a consumer sees it.
type Frame struct {
	Slot int    // the slot holding the frame's content
	Seq  uint64 // 1 for the first frame, +1 for each later one
	// Time is when the producer published the frame.
	Time time.Time
	// Wait is the timeline value (of the ring's semaphore) the producer
	// signals when the frame's GPU work is done; 0 when the content was
	// complete at publication.
	Wait uint64
	// User is the producer's per-frame metadata (a copy).
	User []byte
	// Dropped counts frames this consumer missed just before this one
	// (drop-oldest rings only).
	Dropped uint64
}

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

// shm is a mapped control block.
type shm struct {
	mem []byte
}

func (m shm) u32(off int) *uint32 { return (*uint32)(unsafe.Pointer(&m.mem[off])) }
func (m shm) u64(off int) *uint64 { return (*uint64)(unsafe.Pointer(&m.mem[off])) }

func slotStride(userMax int) int { return slotHdr + (userMax+7)&^7 }

// SharedRing is the producer's side of a frame ring shared with consumers in
// other processes (share it with Export). The producer writes a slot
// between Acquire and Publish; consumers read it between Next and
// Release. The producer never overwrites a slot a consumer holds.
// Synchronization is on the host through the control block (futexes);
// GPU work is ordered by the caller with the ring's semaphore (Frame.Wait)
// or by finishing the work before Publish. Methods are safe for concurrent
// use, though one goroutine should produce.
type SharedRing struct {
	o       SharedRingOptions
	fd      int
	m       shm
	stride  int
	mu      sync.Mutex
	seqs    []uint64 // the producer's own copy of each slot's frame
	writing []bool   // slots between Acquire and Publish
	cons    [maxConsumers]sharenet.ProcWatch
	active  [maxConsumers]bool
	closed  bool
	ex      *Shared
	gpu     *ringGPU // semaphores of a Producer; nil for host-only rings
	// waits[s]: what the next write of slot s must wait for on the GPU
	// (consumers' "slot free" values), set by Acquire.
	waits [][]freeWait
}

// NewSharedRing makes the shared control block for slots already exported.
func NewSharedRing(o SharedRingOptions) (*SharedRing, error) {
	n := len(o.Slots)
	if n < 2 || n > MaxSharedRingSlots {
		return nil, fmt.Errorf("share: NewRing: %d slots (2 to %d)", n, MaxSharedRingSlots)
	}
	if o.UserBytes == 0 {
		o.UserBytes = 256
	}
	if o.UserBytes < 0 || o.UserBytes > maxUserBytes {
		return nil, fmt.Errorf("share: NewRing: UserBytes %d (0 to %d)", o.UserBytes, maxUserBytes)
	}
	var lines []string
	for i, s := range o.Slots {
		if s == nil {
			return nil, fmt.Errorf("share: NewRing: slot %d is nil", i)
		}
		lines = append(lines, string(s.Token()))
	}
	if o.Semaphore != nil {
		lines = append(lines, string(o.Semaphore.Token()))
	}
	toks := strings.Join(lines, "\n")
	stride := slotStride(o.UserBytes)
	size := offSlotTab + n*stride + len(toks)
	fd, mem, err := newControlBlock(size)
	if err != nil {
		return nil, fmt.Errorf("share: NewRing: %w", err)
	}
	r := &SharedRing{o: o, fd: fd, m: shm{mem}, stride: stride, seqs: make([]uint64, n), writing: make([]bool, n), waits: make([][]freeWait, n)}
	for i := range r.cons {
		r.cons[i] = sharenet.NoWatch()
	}
	le := binary.LittleEndian
	le.PutUint32(mem[offVersion:], ringVersion)
	le.PutUint32(mem[offSlots:], uint32(n))
	le.PutUint32(mem[offUserMax:], uint32(o.UserBytes))
	if o.DropOldest {
		le.PutUint32(mem[offMode:], 1)
	}
	le.PutUint32(mem[offPid:], uint32(os.Getpid()))
	le.PutUint32(mem[offTokLen:], uint32(len(toks)))
	copy(mem[offSlotTab+n*stride:], toks)
	atomic.StoreUint64(r.m.u64(offNextSeq), 1)
	atomic.StoreUint32(r.m.u32(offMagic), ringMagic)
	return r, nil
}

func (r *SharedRing) slotOff(i int) int { return offSlotTab + i*r.stride }

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

func (r *SharedRing) open(p sharenet.Peer) ([]int, []byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, fmt.Errorf("%w: the ring is closed", ErrWithdrawn)
	}
	r.reapLocked()
	idx := -1
	for i := range r.active {
		if !r.active[i] {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, nil, fmt.Errorf("%w: %d consumers already", ErrSharedRingFull, maxConsumers)
	}
	fd, err := dupCloexec(r.fd)
	if err != nil {
		return nil, nil, err
	}
	fds := []int{fd}
	if r.gpu != nil {
		more, err := r.gpu.attach(idx)
		if err != nil {
			closeFDErr(fd)
			return nil, nil, err
		}
		fds = append(fds, more...)
	}
	// The liveness socket: the consumer keeps one end, we poll the other.
	pair, err := livenessPair()
	if err != nil {
		sharenet.CloseAll(fds)
		if r.gpu != nil {
			r.gpu.detach(idx, atomic.LoadUint64(r.m.u64(offNextSeq)))
		}
		return nil, nil, fmt.Errorf("share: the ring's liveness socket: %w", err)
	}
	fds = append(fds, pair[1])
	c := offCons + idx*consStride
	atomic.StoreUint64(r.m.u64(c+16), 0)
	atomic.StoreUint64(r.m.u64(c+8), atomic.LoadUint64(r.m.u64(offNextSeq))-1)
	atomic.StoreUint32(r.m.u32(c+4), uint32(p.PID()))
	atomic.StoreUint32(r.m.u32(c), 1)
	r.active[idx] = true
	r.cons[idx] = sharenet.Watch(p.PID(), pair[0])
	return fds, binary.LittleEndian.AppendUint32(nil, uint32(idx)), nil
}

// reapLocked drops consumers whose process exited or who closed: their
// held slots are free again.
func (r *SharedRing) reapLocked() int {
	n := 0
	if r.closed {
		return 0
	}
	for i := range r.active {
		if !r.active[i] {
			continue
		}
		c := offCons + i*consStride
		if atomic.LoadUint32(r.m.u32(c)) != 0 && !r.cons[i].Dead() {
			n++
			continue
		}
		atomic.StoreUint32(r.m.u32(c), 0)
		r.active[i] = false
		r.cons[i].Close()
		for s := range r.seqs {
			clearBit(r.m.u32(r.slotOff(s)+28), i)
			clearBit(r.m.u32(r.slotOff(s)+slotGPURel), i)
		}
		if r.gpu != nil {
			// Its "slot free" signals may never come (a killed process):
			// signal past every value a submitted batch waits for.
			r.gpu.detach(i, atomic.LoadUint64(r.m.u64(offNextSeq)))
		}
	}
	return n
}

func clearBit(h *uint32, i int) {
	for {
		old := atomic.LoadUint32(h)
		if atomic.CompareAndSwapUint32(h, old, old&^(1<<i)) {
			return
		}
	}
}

func setBit(h *uint32, i int) {
	for {
		old := atomic.LoadUint32(h)
		if atomic.CompareAndSwapUint32(h, old, old|1<<i) {
			return
		}
	}
}

// Consumers reports how many consumers are attached (after dropping those
// that exited).
func (r *SharedRing) Consumers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reapLocked()
}

// WaitConsumers waits until at least n consumers are attached.
func (r *SharedRing) WaitConsumers(ctx context.Context, n int) error {
	for r.Consumers() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("share: waiting for %d ring consumers: %w", n, ctx.Err())
		case <-time.After(pollSlice):
		}
	}
	return nil
}

// Acquire returns a slot the producer may write: in blocking mode the
// oldest slot every attached consumer has released; with DropOldest the
// oldest slot no consumer holds. It waits while there is none, until ctx
// ends. Consumers that exit meanwhile are dropped and their slots
// reclaimed. Several slots may be acquired before they are published (a
// batch); Publish them in the order acquired.
func (r *SharedRing) Acquire(ctx context.Context) (int, error) {
	for {
		slot, word, rel, err := r.tryAcquire()
		if err != nil || slot >= 0 {
			return slot, err
		}
		if err := ctx.Err(); err != nil {
			return -1, fmt.Errorf("share: Ring.Acquire: every slot is held: %w", err)
		}
		sharenet.FutexWait(word, rel, pollSlice) // EFAULT, not a fault, if Close unmapped it meanwhile
	}
}

// tryAcquire returns a free slot, or -1 and the release futex's word and
// value to wait on.
func (r *SharedRing) tryAcquire() (int, *uint32, uint32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return -1, nil, 0, ErrSharedRingClosed
	}
	word := r.m.u32(offRel)
	rel := atomic.LoadUint32(word)
	s, err := r.pickLocked()
	return s, word, rel, err
}

func (r *SharedRing) pickLocked() (int, error) {
	r.reapLocked()
	// Slots from the oldest frame on.
	order := make([]int, len(r.seqs))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && r.seqs[order[j]] < r.seqs[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, s := range order {
		if r.writing[s] {
			continue
		}
		if !r.o.DropOldest && !r.consumedLocked(r.seqs[s]) {
			return -1, nil // the oldest frame is still unread: wait
		}
		so := r.slotOff(s)
		atomic.StoreUint64(r.m.u64(so), r.seqs[s]|writing)
		if atomic.LoadUint32(r.m.u32(so+28)) == 0 {
			r.writing[s] = true
			if g := atomic.SwapUint32(r.m.u32(so+slotGPURel), 0); g != 0 && r.gpu != nil {
				r.waits[s] = r.gpu.waitsFor(g, r.seqs[s], r.waits[s])
			}
			return s, nil
		}
		atomic.StoreUint64(r.m.u64(so), r.seqs[s]) // a consumer holds it
		if !r.o.DropOldest {
			return -1, nil
		}
	}
	return -1, nil
}

// consumedLocked: every attached consumer has released frame seq (or a
// later one).
func (r *SharedRing) consumedLocked(seq uint64) bool {
	if seq == 0 {
		return true
	}
	for i := range r.active {
		if r.active[i] && atomic.LoadUint64(r.m.u64(offCons+i*consStride+8)) < seq {
			return false
		}
	}
	return true
}

// unacquire gives acquired slots back unpublished: their frames stay
// what they were (a Producer's batch that failed).
func (r *SharedRing) unacquire(slots []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		r.writing[s] = false
		atomic.StoreUint64(r.m.u64(r.slotOff(s)), r.seqs[s])
	}
}

// slotWaits is what writing the acquired slots waits for: each
// consumer's "slot free" semaphore at the highest value any of the slots
// needs (GPU rings; none otherwise).
func (r *SharedRing) slotWaits(slots []int) []vulkan.SemaphoreValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	var waits []vulkan.SemaphoreValue
	for _, s := range slots {
		for _, w := range r.waits[s] {
			merged := false
			for i := range waits {
				if waits[i].Semaphore == w.sem {
					waits[i].Value = max(waits[i].Value, w.value)
					merged = true
				}
			}
			if !merged {
				waits = append(waits, vulkan.SemaphoreValue{Semaphore: w.sem, Value: w.value})
			}
		}
	}
	return waits
}

// submitted forgets the slots' waits: a submission now waits for them.
func (r *SharedRing) submitted(slots []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		r.waits[s] = r.waits[s][:0]
	}
}

// announceReady records the timeline value the ring's last submitted
// batch signals, before its submission: a consumer of a dead producer
// signals past it.
func (r *SharedRing) announceReady(last uint64) {
	atomic.StoreUint64(r.m.u64(offReadyMax), last)
}

// useGPU makes the ring's frames GPU-synchronized through g's
// semaphores, and says so in the control block for consumers.
func (r *SharedRing) useGPU(g *ringGPU) {
	r.gpu = g
	atomic.StoreUint32(r.m.u32(offGPU), 1)
}

// userBytes is the most metadata a frame carries.
func (r *SharedRing) userBytes() int { return r.o.UserBytes }

// Publish makes the frame in slot (from Acquire) visible to consumers,
// with user metadata and the timeline value its GPU work signals (0: the
// content is complete now). It returns the frame's sequence number.
func (r *SharedRing) Publish(slot int, user []byte, wait uint64) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, ErrSharedRingClosed
	}
	if slot < 0 || slot >= len(r.writing) || !r.writing[slot] {
		return 0, fmt.Errorf("share: Ring.Publish: slot %d was not acquired", slot)
	}
	if len(user) > r.o.UserBytes {
		return 0, fmt.Errorf("share: Ring.Publish: %d bytes of metadata, at most %d", len(user), r.o.UserBytes)
	}
	so := r.slotOff(slot)
	seq := atomic.LoadUint64(r.m.u64(offNextSeq))
	le := binary.LittleEndian
	le.PutUint64(r.m.mem[so+8:], uint64(time.Now().UnixNano()))
	le.PutUint64(r.m.mem[so+16:], wait)
	le.PutUint32(r.m.mem[so+24:], uint32(len(user)))
	copy(r.m.mem[so+slotHdr:], user)
	atomic.StoreUint64(r.m.u64(so), seq)
	atomic.StoreUint64(r.m.u64(offNextSeq), seq+1)
	r.seqs[slot] = seq
	r.writing[slot] = false
	atomic.AddUint32(r.m.u32(offPub), 1)
	sharenet.FutexWake(r.m.u32(offPub))
	return seq, nil
}

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
	atomic.StoreUint32(r.m.u32(offClosed), 1)
	atomic.AddUint32(r.m.u32(offPub), 1)
	sharenet.FutexWake(r.m.u32(offPub))
	r.mu.Unlock()
	if ex != nil {
		ex.Close()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.cons {
		r.cons[i].Close()
	}
	err := unmapShared(r.m.mem)
	r.m.mem = nil
	return errors.Join(err, closeFDErr(r.fd))
}

// Consumer is a process's view of a ring shared by another process.
type Consumer struct {
	m       shm
	idx     int
	slots   []Token
	sem     Token
	stride  int
	userMax int
	prod    sharenet.ProcWatch
	mu      sync.Mutex
	held    []*Frame // in sequence order
	last    uint64   // the newest frame taken
	signal  uint64   // the last "slot free" value signalled on the GPU
	closed  bool
	// gpuImported: the semaphores' descriptors were imported.
	gpuImported bool
	// GPU rings: the producer's "frame ready" semaphore and this
	// consumer's "slot free" one (descriptors until imported), or -1.
	readyFD, freeFD int
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
	fd := fds[0]
	defer closeFDErr(fd)
	idx := int(binary.LittleEndian.Uint32(r.Extra))
	c, err := mapConsumer(fd, idx)
	if err != nil {
		sharenet.CloseAll(append(fds[1:], hup))
		return nil, err
	}
	c.readyFD, c.freeFD = -1, -1
	if len(fds) == 3 {
		c.readyFD, c.freeFD = fds[1], fds[2]
	}
	c.prod = sharenet.Watch(r.PID, hup)
	return c, nil
}

// mapConsumer maps and checks a control block; nothing in it can make the
// consumer read out of bounds.
func mapConsumer(fd, idx int) (*Consumer, error) {
	size, err := fileSize(fd)
	if err != nil {
		return nil, err
	}
	if size < offSlotTab || size > 64<<20 || idx < 0 || idx >= maxConsumers {
		return nil, fmt.Errorf("share: OpenRing: control block of %d bytes, consumer %d", size, idx)
	}
	mem, err := mapShared(fd, size)
	if err != nil {
		return nil, fmt.Errorf("share: OpenRing: mmap: %w", err)
	}
	le := binary.LittleEndian
	n, um, tl := int(le.Uint32(mem[offSlots:])), int(le.Uint32(mem[offUserMax:])), int(le.Uint32(mem[offTokLen:]))
	fail := func(why string) (*Consumer, error) {
		unmapShared(mem)
		return nil, fmt.Errorf("share: OpenRing: malformed control block: %s", why)
	}
	if le.Uint32(mem[offMagic:]) != ringMagic || le.Uint32(mem[offVersion:]) != ringVersion {
		return fail("magic or version")
	}
	if n < 2 || n > MaxSharedRingSlots || um > maxUserBytes {
		return fail("slot count or metadata size")
	}
	stride := slotStride(um)
	if offSlotTab+n*stride+tl != size {
		return fail("size")
	}
	lines := strings.Split(string(mem[offSlotTab+n*stride:]), "\n")
	if len(lines) != n && len(lines) != n+1 {
		return fail("slot tokens")
	}
	c := &Consumer{m: shm{mem}, idx: idx, stride: stride, userMax: um, readyFD: -1, freeFD: -1, prod: sharenet.NoWatch()}
	for _, l := range lines[:n] {
		c.slots = append(c.slots, Token(l))
	}
	if len(lines) == n+1 {
		c.sem = Token(lines[n])
	}
	c.last = atomic.LoadUint64(c.m.u64(offCons + idx*consStride + 8))
	return c, nil
}

// Slots returns the tokens of the ring's slots, in slot order.
func (c *Consumer) Slots() []Token { return append([]Token(nil), c.slots...) }

// Semaphore returns the token of the ring's timeline semaphore, or "".
func (c *Consumer) Semaphore() Token { return c.sem }

func (c *Consumer) slotOff(i int) int { return offSlotTab + i*c.stride }

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
func (c *Consumer) Next(ctx context.Context) (*Frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("share: Consumer.Next after Close")
	}
	if len(c.held) >= len(c.slots) {
		return nil, errors.New("share: Consumer.Next: every slot is held by this consumer; Release a frame first")
	}
	n := len(c.slots)
	bit := uint32(1) << c.idx
	for {
		pub := atomic.LoadUint32(c.m.u32(offPub))
		best, bestSeq := -1, uint64(0)
		for s := 0; s < n; s++ {
			q := atomic.LoadUint64(c.m.u64(c.slotOff(s)))
			if q&writing == 0 && q > c.last && (best < 0 || q < bestSeq) {
				best, bestSeq = s, q
			}
		}
		if best >= 0 && atomic.LoadUint32(c.m.u32(offPub)) != pub {
			continue // frames were published during the scan: it may have missed an older one
		}
		if best >= 0 {
			so := c.slotOff(best)
			h := c.m.u32(so + 28)
			for {
				old := atomic.LoadUint32(h)
				if atomic.CompareAndSwapUint32(h, old, old|bit) {
					break
				}
			}
			if atomic.LoadUint64(c.m.u64(so)) != bestSeq { // overwritten meanwhile
				c.unhold(best)
				continue
			}
			le := binary.LittleEndian
			ul := int(le.Uint32(c.m.mem[so+24:]))
			if ul > c.userMax {
				ul = c.userMax
			}
			f := &Frame{Slot: best, Seq: bestSeq, Time: time.Unix(0, int64(le.Uint64(c.m.mem[so+8:]))),
				Wait: le.Uint64(c.m.mem[so+16:]), User: append([]byte(nil), c.m.mem[so+slotHdr:so+slotHdr+ul]...),
				Dropped: bestSeq - c.last - 1}
			atomic.StoreUint64(c.m.u64(offCons+c.idx*consStride+16), bestSeq)
			c.held = append(c.held, f)
			c.last = bestSeq
			return f, nil
		}
		if testHookScanned != nil {
			testHookScanned()
		}
		if atomic.LoadUint32(c.m.u32(offClosed)) != 0 {
			// The producer may have published its last frames and closed
			// the ring after the scan above: Publish bumps offPub after
			// storing the slot's sequence, so a changed offPub means the
			// scan may have missed them. Close bumps it too (after
			// offClosed), so this rescans at most once more.
			if atomic.LoadUint32(c.m.u32(offPub)) != pub {
				continue
			}
			return nil, ErrSharedRingClosed
		}
		if c.prod.Dead() {
			if c.prod.PID() > 0 {
				return nil, fmt.Errorf("%w (pid %d)", ErrProducerGone, c.prod.PID())
			}
			return nil, ErrProducerGone
		}
		if atomic.LoadUint32(c.m.u32(offCons+c.idx*consStride)) == 0 {
			return nil, errors.New("share: the producer dropped this consumer")
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("share: Consumer.Next: %w", err)
		}
		sharenet.FutexWait(c.m.u32(offPub), pub, pollSlice)
	}
}

// published reports whether a slot holds frame seq, published and not
// being rewritten: for a frame after the last one Next returned, a Next
// now would find it without waiting.
func (c *Consumer) published(seq uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || seq == 0 { // frames count from 1; 0 marks an empty slot
		return false
	}
	for s := 0; s < len(c.slots); s++ {
		if atomic.LoadUint64(c.m.u64(c.slotOff(s))) == seq {
			return true
		}
	}
	return false
}

// testHookScanned, set by tests only, runs in Consumer.Next after a scan
// of the slots that found no new frame.
var testHookScanned func()

func (c *Consumer) unhold(slot int) {
	h := c.m.u32(c.slotOff(slot) + 28)
	bit := uint32(1) << c.idx
	for {
		old := atomic.LoadUint32(h)
		if atomic.CompareAndSwapUint32(h, old, old&^bit) {
			break
		}
	}
}

// Release gives the frame's slot back to the producer. The consumer must
// be done with the slot, on the GPU too: on a GPU-synchronized ring the
// producer overwrites it without waiting (CUDAConsumer.Release and
// VulkanConsumer.Consume release after GPU work instead).
func (c *Consumer) Release(f *Frame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.releaseLocked(f, nil)
}

// releaseLocked releases f; with signal, it first queues the GPU signal of
// this consumer's "slot free" semaphore at f.Seq (after the consumer's
// work on f) and marks the slot so that the producer's next write waits
// for it on the GPU. Signals must go up: frames are released in order.
func (c *Consumer) releaseLocked(f *Frame, signal func(v uint64) error) error {
	i := c.heldIndex(f)
	if c.closed || i < 0 {
		return errors.New("share: Consumer.Release of a frame not held")
	}
	if signal != nil {
		if f.Seq <= c.signal {
			return fmt.Errorf("share: Release of frame %d after frame %d: release frames in the order Next returned them", f.Seq, c.signal)
		}
		if err := signal(f.Seq); err != nil {
			return err
		}
		c.signal = f.Seq
		setBit(c.m.u32(c.slotOff(f.Slot)+slotGPURel), c.idx)
	}
	co := offCons + c.idx*consStride
	if atomic.LoadUint64(c.m.u64(co+8)) < f.Seq {
		atomic.StoreUint64(c.m.u64(co+8), f.Seq)
	}
	c.unhold(f.Slot)
	c.held = append(c.held[:i], c.held[i+1:]...)
	if len(c.held) == 0 {
		atomic.StoreUint64(c.m.u64(co+16), 0)
	}
	atomic.AddUint32(c.m.u32(offRel), 1)
	sharenet.FutexWake(c.m.u32(offRel))
	return nil
}

func (c *Consumer) heldIndex(f *Frame) int {
	for i, h := range c.held {
		if h == f {
			return i
		}
	}
	return -1
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

// locked runs fn with the consumer's lock held (fn may call the
// consumer's ...Locked methods).
func (c *Consumer) locked(fn func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fn()
}

// signalledLocked is the last frame whose release was signalled to a GPU
// producer (0: none).
func (c *Consumer) signalledLocked() uint64 { return c.signal }

// gpuReleasedLocked marks slot released on the GPU by this consumer: the
// producer's next write waits for this consumer's "slot free" value.
func (c *Consumer) gpuReleasedLocked(slot int) {
	setBit(c.m.u32(c.slotOff(slot)+slotGPURel), c.idx)
}

// producerGone reports whether the producer's process exited.
func (c *Consumer) producerGone() bool { return c.prod.Dead() }

// readyMax is the highest "frame ready" value the producer submitted.
func (c *Consumer) readyMax() uint64 { return atomic.LoadUint64(c.m.u64(offReadyMax)) }

// Close detaches the consumer (releasing a held frame). Idempotent.
func (c *Consumer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	for _, f := range c.held {
		c.unhold(f.Slot)
	}
	c.held = nil
	for _, fd := range []int{c.readyFD, c.freeFD} {
		if fd >= 0 {
			closeFDErr(fd)
		}
	}
	c.readyFD, c.freeFD = -1, -1
	atomic.StoreUint32(c.m.u32(offCons+c.idx*consStride), 0)
	atomic.AddUint32(c.m.u32(offRel), 1)
	sharenet.FutexWake(c.m.u32(offRel))
	c.prod.Close()
	err := unmapShared(c.m.mem)
	c.m.mem = nil
	return err
}

// NextSeq is the sequence number the next Publish gives its frame.
func (r *SharedRing) NextSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0
	}
	return atomic.LoadUint64(r.m.u64(offNextSeq))
}

// freeWait is a consumer's "slot free" value a write of a slot waits for.
type freeWait struct {
	sem   *vulkan.Semaphore
	value uint64
}

// ringGPU holds a Producer's semaphores: "frame ready" (the producer's
// queue signals it with the last sequence number of each batch) and one
// "slot free" semaphore per attached consumer (the consumer signals the
// sequence number of each frame it releases, after its work on it). The
// producer creates all of them, exportable; each consumer gets the
// descriptors of the first and of its own with the ring's control block.
type ringGPU struct {
	dev     *vulkan.Device
	ready   *vulkan.Semaphore
	free    [maxConsumers]*vulkan.Semaphore
	retired []*vulkan.Semaphore
}

// attach makes consumer idx's "slot free" semaphore and returns the
// descriptors to send it: "frame ready", then its own.
func (g *ringGPU) attach(idx int) ([]int, error) {
	s, err := g.dev.NewTimelineSemaphore(0, true)
	if err != nil {
		return nil, fmt.Errorf("share: a consumer's semaphore: %w", err)
	}
	rfd, err := g.ready.ExportFD()
	if err != nil {
		s.Close()
		return nil, err
	}
	ffd, err := s.ExportFD()
	if err != nil {
		sharenet.CloseAll([]int{rfd})
		s.Close()
		return nil, err
	}
	g.free[idx] = s
	return []int{rfd, ffd}, nil
}

// detach retires consumer idx's semaphore, first signalling it (from the
// host) past every value a submitted batch may wait for, so that a
// consumer that died between its release and its GPU signal cannot stall
// the producer's queue.
//
// next is the ring's next sequence number. Every value a batch waits for
// on this semaphore is a frame the consumer took, below next; so is every
// value the consumer signals, and nothing in this process signals the
// semaphore on a queue: a host signal of next is above the current value
// and above every pending signal (VUID-VkSemaphoreSignalInfo-value-03258
// and -03259), unless a misbehaving consumer signalled next or more, which
// the zero-timeout wait detects (then no signal is needed). The current
// value is deliberately not read with vkGetSemaphoreCounterValue: the
// validation layer records such a read on an exported semaphore as a host
// signal that, with our own waits still unretired in its queue model, it
// keeps as "pending" and then reports the host signal above it.
func (g *ringGPU) detach(idx int, next uint64) {
	s := g.free[idx]
	if s == nil {
		return
	}
	g.free[idx] = nil
	if next == 0 {
		next = 1
	}
	if s.Wait(next, 0) != nil { // not there yet (or unreadable): signal
		s.Signal(next) // best effort: nothing more can be done for a dead peer
	}
	g.retired = append(g.retired, s)
	if len(g.retired) > 8 { // they are signalled: closing waits only for batches already runnable
		for _, r := range g.retired {
			r.Close()
		}
		g.retired = g.retired[:0]
	}
}

// waitsFor appends the waits for the consumers in mask that released frame
// q with a GPU signal.
func (g *ringGPU) waitsFor(mask uint32, q uint64, out []freeWait) []freeWait {
	for i := 0; i < maxConsumers; i++ {
		if mask&(1<<i) != 0 && g.free[i] != nil {
			out = append(out, freeWait{g.free[i], q})
		}
	}
	return out
}

// detachAll detaches every consumer (signalling past any wait, so that the
// queue drains).
func (g *ringGPU) detachAll(next uint64) {
	for i := range g.free {
		g.detach(i, next)
	}
}

// close destroys every semaphore. With release, it first signals each
// consumer's past any wait (so that the queue drains); without, the
// producer's queue no longer waits for them and they are left alone: a
// live consumer may still have "slot free" signals in flight, which a host
// signal must not overtake.
func (g *ringGPU) close(next uint64, release bool) error {
	if release {
		g.detachAll(next)
	}
	for i, s := range g.free {
		if s != nil {
			g.retired = append(g.retired, s)
			g.free[i] = nil
		}
	}
	var err error
	for _, r := range append(g.retired, g.ready) {
		if r != nil {
			err = errors.Join(err, r.Close())
		}
	}
	g.retired = nil
	return err
}
