package shmring

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

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// Options configure New.
type Options struct {
	// Slots is the number of slots, 2 to MaxSlots.
	Slots int
	// UserBytes bounds the per-frame metadata (DefaultUserBytes when 0,
	// at most MaxUserBytes).
	UserBytes int
	// DropOldest makes a producer with no free slot overwrite the oldest
	// frame no consumer holds, instead of waiting for every consumer to
	// release it.
	DropOldest bool
	// Tokens travel in the control block for consumers: one line per
	// slot, then optionally one for the ring's semaphore (Reader.Tokens).
	Tokens []string
}

// GPU is what a GPU-synchronized ring's producer keeps beside the control
// block: the consumers' semaphores. The Ring calls it with its lock held,
// so it must not call back into the Ring.
type GPU interface {
	// Attach prepares consumer idx and returns the descriptors that
	// travel to it with the control block's.
	Attach(idx int) ([]int, error)
	// Detach forgets consumer idx (it closed or died); next is the ring's
	// next sequence number.
	Detach(idx int, next uint64)
	// Reuse tells that the slot, whose frame seq the consumers in mask
	// released with a GPU signal, is acquired to be written again.
	Reuse(slot int, mask uint32, seq uint64)
}

// Ring is the producer's side of the control block. The producer writes a
// slot between Acquire and Publish; consumers read it between Next and
// Release; the producer never hands out a slot a consumer holds. Methods
// are safe for concurrent use, though one goroutine should produce.
type Ring struct {
	o       Options
	fd      int
	m       shm
	stride  int
	mu      sync.Mutex
	seqs    []uint64 // the producer's own copy of each slot's frame
	writing []bool   // slots between Acquire and Publish
	cons    [MaxConsumers]sharenet.ProcWatch
	active  [MaxConsumers]bool
	closed  bool
	gpu     GPU
}

// New makes a control block in a sealed memfd and maps it. On Windows it
// refuses: the cross-process ring is not supported there yet.
func New(o Options) (*Ring, error) {
	n := o.Slots
	if n < 2 || n > MaxSlots {
		return nil, fmt.Errorf("share: NewRing: %d slots (2 to %d)", n, MaxSlots)
	}
	if o.UserBytes == 0 {
		o.UserBytes = DefaultUserBytes
	}
	if o.UserBytes < 0 || o.UserBytes > MaxUserBytes {
		return nil, fmt.Errorf("share: NewRing: UserBytes %d (0 to %d)", o.UserBytes, MaxUserBytes)
	}
	if len(o.Tokens) != n && len(o.Tokens) != n+1 {
		return nil, fmt.Errorf("share: NewRing: %d tokens for %d slots", len(o.Tokens), n)
	}
	for i, t := range o.Tokens {
		if strings.Contains(t, "\n") {
			return nil, fmt.Errorf("share: NewRing: token %d spans lines", i)
		}
	}
	toks := strings.Join(o.Tokens, "\n")
	stride := slotStride(o.UserBytes)
	size := offSlotTab + n*stride + len(toks)
	if size > maxBlock {
		return nil, fmt.Errorf("share: NewRing: a control block of %d bytes (at most %d)", size, maxBlock)
	}
	fd, mem, err := newControlBlock(size)
	if err != nil {
		return nil, fmt.Errorf("share: NewRing: %w", err)
	}
	r := &Ring{o: o, fd: fd, m: shm{mem}, stride: stride, seqs: make([]uint64, n), writing: make([]bool, n)}
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

func (r *Ring) slotOff(i int) int { return offSlotTab + i*r.stride }

// Slots is the number of slots.
func (r *Ring) Slots() int { return len(r.seqs) }

// UserBytes is the most metadata a frame carries.
func (r *Ring) UserBytes() int { return r.o.UserBytes }

// UseGPU makes the ring's frames GPU-synchronized: g is told of consumers
// coming and going, and the control block says so to consumers. Call it
// before the first Attach.
func (r *Ring) UseGPU(g GPU) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gpu = g
	atomic.StoreUint32(r.m.u32(offGPU), 1)
}

// Attach registers a consumer in process pid (watched through a pidfd
// and a liveness socket) and returns its index and the descriptors it
// needs, to send it: the control block's, the GPU hooks' (GPU rings) and
// the far end of its liveness socket. They are the caller's to close. It
// fails with ErrClosed on a closed ring and ErrFull when MaxConsumers are
// attached.
func (r *Ring) Attach(pid int) (idx int, fds []int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return -1, nil, ErrClosed
	}
	r.reapLocked()
	idx = -1
	for i := range r.active {
		if !r.active[i] {
			idx = i
			break
		}
	}
	if idx < 0 {
		return -1, nil, fmt.Errorf("%w: %d consumers already", ErrFull, MaxConsumers)
	}
	fd, err := dupCloexec(r.fd)
	if err != nil {
		return -1, nil, fmt.Errorf("share: the ring's control block: %w", err)
	}
	fds = []int{fd}
	if r.gpu != nil {
		more, err := r.gpu.Attach(idx)
		if err != nil {
			closeFD(fd)
			return -1, nil, err
		}
		fds = append(fds, more...)
	}
	// The liveness socket: the consumer keeps one end, we poll the other.
	pair, err := livenessPair()
	if err != nil {
		sharenet.CloseAll(fds)
		if r.gpu != nil {
			r.gpu.Detach(idx, atomic.LoadUint64(r.m.u64(offNextSeq)))
		}
		return -1, nil, fmt.Errorf("share: the ring's liveness socket: %w", err)
	}
	fds = append(fds, pair[1])
	c := cons(idx)
	atomic.StoreUint64(r.m.u64(c+consHolding), 0)
	atomic.StoreUint64(r.m.u64(c+consReleased), atomic.LoadUint64(r.m.u64(offNextSeq))-1)
	atomic.StoreUint32(r.m.u32(c+consPid), uint32(pid))
	atomic.StoreUint32(r.m.u32(c+consActive), 1)
	r.active[idx] = true
	r.cons[idx] = sharenet.Watch(pid, pair[0])
	return idx, fds, nil
}

// reapLocked drops consumers whose process exited or who closed: their
// held slots are free again. It returns how many stay.
func (r *Ring) reapLocked() int {
	n := 0
	if r.closed {
		return 0
	}
	for i := range r.active {
		if !r.active[i] {
			continue
		}
		c := cons(i)
		if atomic.LoadUint32(r.m.u32(c+consActive)) != 0 && !r.cons[i].Dead() {
			n++
			continue
		}
		atomic.StoreUint32(r.m.u32(c+consActive), 0)
		r.active[i] = false
		r.cons[i].Close()
		for s := range r.seqs {
			clearBit(r.m.u32(r.slotOff(s)+slotHeld), i)
			clearBit(r.m.u32(r.slotOff(s)+slotGPURel), i)
		}
		if r.gpu != nil {
			r.gpu.Detach(i, atomic.LoadUint64(r.m.u64(offNextSeq)))
		}
	}
	return n
}

// Consumers reports how many consumers are attached (after dropping those
// that exited).
func (r *Ring) Consumers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reapLocked()
}

// WaitConsumers waits until at least n consumers are attached.
func (r *Ring) WaitConsumers(ctx context.Context, n int) error {
	for r.Consumers() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("share: waiting for %d ring consumers: %w", n, ctx.Err())
		case <-time.After(PollSlice):
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
func (r *Ring) Acquire(ctx context.Context) (int, error) {
	for {
		slot, word, rel, err := r.tryAcquire()
		if err != nil || slot >= 0 {
			return slot, err
		}
		if err := ctx.Err(); err != nil {
			return -1, fmt.Errorf("share: Ring.Acquire: every slot is held: %w", err)
		}
		sharenet.FutexWait(word, rel, PollSlice) // EFAULT, not a fault, if Close unmapped it meanwhile
	}
}

// tryAcquire returns a free slot, or -1 and the release futex's word and
// value to wait on.
func (r *Ring) tryAcquire() (int, *uint32, uint32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return -1, nil, 0, ErrClosed
	}
	word := r.m.u32(offRel)
	rel := atomic.LoadUint32(word)
	return r.pickLocked(), word, rel, nil
}

// pickLocked returns the slot to write next, or -1 while there is none.
func (r *Ring) pickLocked() int {
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
			return -1 // the oldest frame is still unread: wait
		}
		so := r.slotOff(s)
		// Mark it first: a consumer that holds it after this sees the
		// mark and lets it go (Reader.Next).
		atomic.StoreUint64(r.m.u64(so+slotSeq), r.seqs[s]|writing)
		if atomic.LoadUint32(r.m.u32(so+slotHeld)) == 0 {
			r.writing[s] = true
			if g := atomic.SwapUint32(r.m.u32(so+slotGPURel), 0); g != 0 && r.gpu != nil {
				r.gpu.Reuse(s, g, r.seqs[s])
			}
			return s
		}
		atomic.StoreUint64(r.m.u64(so+slotSeq), r.seqs[s]) // a consumer holds it
		if !r.o.DropOldest {
			return -1
		}
	}
	return -1
}

// consumedLocked: every attached consumer has released frame seq (or a
// later one).
func (r *Ring) consumedLocked(seq uint64) bool {
	if seq == 0 {
		return true
	}
	for i := range r.active {
		if r.active[i] && atomic.LoadUint64(r.m.u64(cons(i)+consReleased)) < seq {
			return false
		}
	}
	return true
}

// Unacquire gives acquired slots back unpublished: their frames stay
// what they were (a batch that failed).
func (r *Ring) Unacquire(slots []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	for _, s := range slots {
		if s >= 0 && s < len(r.writing) && r.writing[s] {
			r.writing[s] = false
			atomic.StoreUint64(r.m.u64(r.slotOff(s)+slotSeq), r.seqs[s])
		}
	}
}

// AnnounceReady records the timeline value the ring's last submitted
// batch signals, before its submission: a consumer of a dead producer
// signals past it (Reader.ReadyMax).
func (r *Ring) AnnounceReady(last uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		atomic.StoreUint64(r.m.u64(offReadyMax), last)
	}
}

// Publish makes the frame in slot (from Acquire) visible to consumers,
// with user metadata and the timeline value its GPU work signals (0: the
// content is complete now). It returns the frame's sequence number.
func (r *Ring) Publish(slot int, user []byte, wait uint64) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, ErrClosed
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
	le.PutUint64(r.m.mem[so+slotTime:], uint64(time.Now().UnixNano()))
	le.PutUint64(r.m.mem[so+slotWait:], wait)
	le.PutUint32(r.m.mem[so+slotUser:], uint32(len(user)))
	copy(r.m.mem[so+slotHdr:], user)
	// The sequence number last: it makes the slot's frame visible.
	atomic.StoreUint64(r.m.u64(so+slotSeq), seq)
	atomic.StoreUint64(r.m.u64(offNextSeq), seq+1)
	r.seqs[slot] = seq
	r.writing[slot] = false
	atomic.AddUint32(r.m.u32(offPub), 1)
	sharenet.FutexWake(r.m.u32(offPub))
	return seq, nil
}

// NextSeq is the sequence number the next Publish gives its frame (0 once
// closed).
func (r *Ring) NextSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0
	}
	return atomic.LoadUint64(r.m.u64(offNextSeq))
}

// Close tells consumers that no frame follows (they get ErrClosed after
// the frames already published), stops watching them and unmaps the
// control block (consumers keep their mappings). Idempotent.
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	atomic.StoreUint32(r.m.u32(offClosed), 1)
	atomic.AddUint32(r.m.u32(offPub), 1)
	sharenet.FutexWake(r.m.u32(offPub))
	for i := range r.cons {
		r.cons[i].Close()
	}
	err := unmapShared(r.m.mem)
	r.m.mem = nil
	return errors.Join(err, closeFD(r.fd))
}
