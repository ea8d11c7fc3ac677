// Package shmring is the protocol of a frame ring shared between
// processes: the control block (a sealed memfd that the producer and its
// consumers map), its layout, and the moves each side makes on it. The
// producer (Ring) hands out slots to write (Acquire), publishes frames
// (Publish), registers consumers (Attach) and drops those that died
// (Consumers); a consumer (Reader) takes the oldest frame it has not seen
// (Next), holds its slot and gives it back (Release).
//
// It moves sequence numbers, bit sets and metadata bytes, never GPU
// memory: it imports no GPU package and nothing of the face (package
// gfxcuda), whose SharedRing, Producer and Consumer wrap it with the
// slots' tokens and, for GPU-synchronized rings, the semaphores (through
// the GPU hooks of a Ring). Synchronization is on the host: atomics on
// the shared words, futexes to wait, and sharenet's process watches to
// notice a peer that died.
package shmring

import (
	"errors"
	"sync/atomic"
	"time"
	"unsafe"
)

// Limits of a ring.
const (
	// MaxSlots is the most slots a ring has.
	MaxSlots = 64
	// MaxConsumers is the most consumers attached at once.
	MaxConsumers = 16
	// MaxUserBytes bounds a frame's metadata.
	MaxUserBytes = 4096
	// DefaultUserBytes is the metadata room of a ring whose options say 0.
	DefaultUserBytes = 256
	// PollSlice is how long a wait sleeps before it looks at its peers
	// again: a peer's death is noticed within about this long.
	PollSlice = 20 * time.Millisecond
)

// Ring errors.
var (
	// ErrProducerGone: the producer process exited (or was killed)
	// without closing the ring.
	ErrProducerGone = errors.New("share: the ring's producer process is gone")
	// ErrClosed: the producer closed the ring and every frame was
	// consumed.
	ErrClosed = errors.New("share: the ring's producer closed it")
	// ErrFull: every consumer slot of the ring is taken.
	ErrFull = errors.New("share: the ring has no room for another consumer")
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

// Control block layout (little-endian). Offsets are multiples of 8 so
// that the words can be used atomically.
//
//	header     64 bytes: the words below
//	consumers  MaxConsumers records of consStride bytes:
//	           active u32, pid i32, released u64 (the newest frame it
//	           gave back), holding u64 (the newest frame it holds, 0: none)
//	slots      n records of slotStride(userMax) bytes:
//	           seq u64 (the frame in the slot; writing set while the
//	           producer rewrites it), time i64, wait u64, userLen u32,
//	           held u32 (bit set of consumers), gpuRel u32 (bit set of
//	           consumers that released it with a GPU signal), pad, then
//	           the metadata
//	trailer    the slots' tokens, then the semaphore's, one per line
const (
	ringMagic   = 0x72584647 // "GFXr"
	ringVersion = 1
	offMagic    = 0
	offVersion  = 4
	offSlots    = 8
	offUserMax  = 12
	offMode     = 16
	offPid      = 20
	offClosed   = 24
	offPub      = 28 // futex: bumped on every publish and on close
	offRel      = 32 // futex: bumped on every release
	offTokLen   = 36
	offNextSeq  = 40
	offReadyMax = 48 // u64: the highest "frame ready" value the producer submitted
	offGPU      = 56 // u32: 1 when the producer synchronizes on the GPU (semaphores travel with each open)
	hdrSize     = 64

	consStride   = 32
	consActive   = 0
	consPid      = 4
	consReleased = 8
	consHolding  = 16
	offCons      = hdrSize
	offSlotTab   = offCons + MaxConsumers*consStride

	slotHdr    = 48
	slotSeq    = 0
	slotTime   = 8
	slotWait   = 16
	slotUser   = 24
	slotHeld   = 28
	slotGPURel = 32
	writing    = uint64(1) << 63

	maxBlock = 64 << 20 // the largest control block a consumer maps
)

// shm is a mapped control block.
type shm struct {
	mem []byte
}

func (m shm) u32(off int) *uint32 { return (*uint32)(unsafe.Pointer(&m.mem[off])) }
func (m shm) u64(off int) *uint64 { return (*uint64)(unsafe.Pointer(&m.mem[off])) }

// cons is the offset of consumer i's record.
func cons(i int) int { return offCons + i*consStride }

func slotStride(userMax int) int { return slotHdr + (userMax+7)&^7 }

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
