package shmring

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// Reader is a consumer's side of the control block: it takes frames in
// sequence order and holds their slots until it releases them. Methods
// are safe for concurrent use.
type Reader struct {
	m       shm
	idx     int
	n       int // slots
	stride  int
	userMax int
	tokens  []string
	prod    sharenet.ProcWatch
	mu      sync.Mutex
	held    []*Frame // in sequence order
	last    uint64   // the newest frame taken
	signal  uint64   // the last frame whose release was signalled on the GPU
	closed  bool
}

// Open maps the control block fd (which stays the caller's) as consumer
// idx, the index Ring.Attach gave, and checks it: nothing in it can make
// the reader go out of bounds. prod watches the producer; the Reader owns
// it from then on (it closes it, on failure too). On Windows it refuses:
// the cross-process ring is not supported there yet.
func Open(fd, idx int, prod sharenet.ProcWatch) (*Reader, error) {
	r, err := open(fd, idx)
	if err != nil {
		prod.Close()
		return nil, err
	}
	r.prod = prod
	return r, nil
}

func open(fd, idx int) (*Reader, error) {
	size, err := fileSize(fd)
	if err != nil {
		return nil, fmt.Errorf("share: OpenRing: %w", err)
	}
	if size < offSlotTab || size > maxBlock || idx < 0 || idx >= MaxConsumers {
		return nil, fmt.Errorf("share: OpenRing: control block of %d bytes, consumer %d", size, idx)
	}
	mem, err := mapShared(fd, size)
	if err != nil {
		return nil, fmt.Errorf("share: OpenRing: mmap: %w", err)
	}
	le := binary.LittleEndian
	n, um, tl := int(le.Uint32(mem[offSlots:])), int(le.Uint32(mem[offUserMax:])), int(le.Uint32(mem[offTokLen:]))
	fail := func(why string) (*Reader, error) {
		unmapShared(mem)
		return nil, fmt.Errorf("share: OpenRing: malformed control block: %s", why)
	}
	if le.Uint32(mem[offMagic:]) != ringMagic || le.Uint32(mem[offVersion:]) != ringVersion {
		return fail("magic or version")
	}
	if n < 2 || n > MaxSlots || um > MaxUserBytes {
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
	r := &Reader{m: shm{mem}, idx: idx, n: n, stride: stride, userMax: um, tokens: lines, prod: sharenet.NoWatch()}
	r.last = atomic.LoadUint64(r.m.u64(cons(idx) + consReleased))
	return r, nil
}

// Tokens are the ones the producer put in the control block
// (Options.Tokens): one per slot, then possibly the semaphore's.
func (r *Reader) Tokens() []string { return append([]string(nil), r.tokens...) }

// Slots is the number of slots.
func (r *Reader) Slots() int { return r.n }

func (r *Reader) slotOff(i int) int { return offSlotTab + i*r.stride }

// testHookScanned, set by tests only, runs in Next after a scan of the
// slots that found no new frame.
var testHookScanned func()

// Next waits for the next frame (the oldest one this consumer has not seen)
// and holds its slot until Release. A consumer may hold several frames at
// once (up to the number of slots). It fails with ErrClosed after the last
// frame of a closed ring, and with ErrProducerGone within about PollSlice
// of the producer's death.
func (r *Reader) Next(ctx context.Context) (*Frame, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("share: Consumer.Next after Close")
	}
	if len(r.held) >= r.n {
		return nil, errors.New("share: Consumer.Next: every slot is held by this consumer; Release a frame first")
	}
	for {
		pub := atomic.LoadUint32(r.m.u32(offPub))
		best, bestSeq := -1, uint64(0)
		for s := 0; s < r.n; s++ {
			q := atomic.LoadUint64(r.m.u64(r.slotOff(s) + slotSeq))
			if q&writing == 0 && q > r.last && (best < 0 || q < bestSeq) {
				best, bestSeq = s, q
			}
		}
		if best >= 0 && atomic.LoadUint32(r.m.u32(offPub)) != pub {
			continue // frames were published during the scan: it may have missed an older one
		}
		if best >= 0 {
			so := r.slotOff(best)
			setBit(r.m.u32(so+slotHeld), r.idx)
			if atomic.LoadUint64(r.m.u64(so+slotSeq)) != bestSeq { // overwritten meanwhile
				clearBit(r.m.u32(so+slotHeld), r.idx)
				continue
			}
			le := binary.LittleEndian
			ul := min(int(le.Uint32(r.m.mem[so+slotUser:])), r.userMax)
			f := &Frame{Slot: best, Seq: bestSeq, Time: time.Unix(0, int64(le.Uint64(r.m.mem[so+slotTime:]))),
				Wait: le.Uint64(r.m.mem[so+slotWait:]), User: append([]byte(nil), r.m.mem[so+slotHdr:so+slotHdr+ul]...),
				Dropped: bestSeq - r.last - 1}
			atomic.StoreUint64(r.m.u64(cons(r.idx)+consHolding), bestSeq)
			r.held = append(r.held, f)
			r.last = bestSeq
			return f, nil
		}
		if testHookScanned != nil {
			testHookScanned()
		}
		if atomic.LoadUint32(r.m.u32(offClosed)) != 0 {
			// The producer may have published its last frames and closed
			// the ring after the scan above: Publish bumps offPub after
			// storing the slot's sequence, so a changed offPub means the
			// scan may have missed them. Close bumps it too (after
			// offClosed), so this rescans at most once more.
			if atomic.LoadUint32(r.m.u32(offPub)) != pub {
				continue
			}
			return nil, ErrClosed
		}
		if r.prod.Dead() {
			if r.prod.PID() > 0 {
				return nil, fmt.Errorf("%w (pid %d)", ErrProducerGone, r.prod.PID())
			}
			return nil, ErrProducerGone
		}
		if atomic.LoadUint32(r.m.u32(cons(r.idx)+consActive)) == 0 {
			return nil, errors.New("share: the producer dropped this consumer")
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("share: Consumer.Next: %w", err)
		}
		sharenet.FutexWait(r.m.u32(offPub), pub, PollSlice)
	}
}

// Published reports whether a slot holds frame seq, published and not
// being rewritten: for a frame after the last one Next returned, a Next
// now would find it without waiting.
func (r *Reader) Published(seq uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || seq == 0 { // frames count from 1; 0 marks an empty slot
		return false
	}
	for s := 0; s < r.n; s++ {
		if atomic.LoadUint64(r.m.u64(r.slotOff(s)+slotSeq)) == seq {
			return true
		}
	}
	return false
}

// Holds reports whether fs are frames this reader holds, each once, in
// the order Next returned them; with gpu, also all after the last frame
// whose release was signalled on the GPU (what a GPU release of them
// needs: the signals must go up).
func (r *Reader) Holds(fs []*Frame, gpu bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.checkLocked(fs, gpu) == nil
}

func (r *Reader) checkLocked(fs []*Frame, gpu bool) error {
	var prev uint64
	for i, f := range fs {
		if r.closed || r.heldIndex(f) < 0 {
			return errors.New("share: Consumer.Release of a frame not held")
		}
		if i > 0 && f.Seq <= prev {
			return fmt.Errorf("share: Release of frame %d after frame %d: release frames in the order Next returned them", f.Seq, prev)
		}
		if gpu && f.Seq <= r.signal {
			return fmt.Errorf("share: Release of frame %d after frame %d: release frames in the order Next returned them", f.Seq, r.signal)
		}
		prev = f.Seq
	}
	return nil
}

// Release gives the frames' slots back to the producer. Without signal,
// the consumer must be done with them, on the GPU too. With signal, a
// GPU release: after checking them (Holds), Release calls signal once
// with the last frame's sequence number, to queue the GPU signal of this
// consumer's "slot free" semaphore at that value (after the consumer's
// work on every frame), and marks their slots so that the producer's next
// write of each waits for it on the GPU (GPU.Reuse). When signal fails,
// nothing is released.
func (r *Reader) Release(fs []*Frame, signal func(v uint64) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkLocked(fs, signal != nil); err != nil || len(fs) == 0 {
		return err
	}
	last := fs[len(fs)-1].Seq
	if signal != nil {
		if err := signal(last); err != nil {
			return err
		}
		r.signal = last
	}
	co := cons(r.idx)
	for _, f := range fs {
		if signal != nil {
			setBit(r.m.u32(r.slotOff(f.Slot)+slotGPURel), r.idx)
		}
		if atomic.LoadUint64(r.m.u64(co+consReleased)) < f.Seq {
			atomic.StoreUint64(r.m.u64(co+consReleased), f.Seq)
		}
		clearBit(r.m.u32(r.slotOff(f.Slot)+slotHeld), r.idx)
		r.held = append(r.held[:r.heldIndex(f)], r.held[r.heldIndex(f)+1:]...)
	}
	if len(r.held) == 0 {
		atomic.StoreUint64(r.m.u64(co+consHolding), 0)
	}
	atomic.AddUint32(r.m.u32(offRel), 1)
	sharenet.FutexWake(r.m.u32(offRel))
	return nil
}

func (r *Reader) heldIndex(f *Frame) int {
	for i, h := range r.held {
		if h == f {
			return i
		}
	}
	return -1
}

// Held is the number of frames the reader holds.
func (r *Reader) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.held)
}

// GPUSync reports whether the producer said it synchronizes on the GPU
// (Ring.UseGPU).
func (r *Reader) GPUSync() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.closed && atomic.LoadUint32(r.m.u32(offGPU)) != 0
}

// ReadyMax is the highest "frame ready" value the producer submitted
// (Ring.AnnounceReady).
func (r *Reader) ReadyMax() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0
	}
	return atomic.LoadUint64(r.m.u64(offReadyMax))
}

// ProducerPID is the producer's pid as this process sees it (0: not
// visible from here, as from another PID namespace).
func (r *Reader) ProducerPID() int { return r.prod.PID() }

// ProducerGone reports whether the producer's process exited.
func (r *Reader) ProducerGone() bool { return r.prod.Dead() }

// Close detaches the consumer, releasing the frames it holds, and unmaps
// the control block. Idempotent.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	for _, f := range r.held {
		clearBit(r.m.u32(r.slotOff(f.Slot)+slotHeld), r.idx)
	}
	r.held = nil
	atomic.StoreUint32(r.m.u32(cons(r.idx)+consActive), 0)
	atomic.AddUint32(r.m.u32(offRel), 1)
	sharenet.FutexWake(r.m.u32(offRel))
	r.prod.Close()
	err := unmapShared(r.m.mem)
	r.m.mem = nil
	return err
}
