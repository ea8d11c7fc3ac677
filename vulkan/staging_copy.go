package vulkan

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Parallel host copies, the host side of the staging rings and of mapped
// copies (staging.go says when each mechanism runs).

// copyChunkMin is the smallest part of a piece one worker copies.
const copyChunkMin = 256 << 10

// copier spreads the host copies of one staged transfer over up to
// GOMAXPROCS goroutines (at most 8), started once per transfer: each
// piece is cut into one contiguous chunk per worker, and each worker
// copies its chunk of every piece in order, as soon as the piece is open
// (its slot free, or its download finished), while the transfer's own
// goroutine (worker 0) submits. Workers poll for the next piece for as
// long as Commands.Wait polls (not on CPU devices, whose copies run on the
// cores a poll would take), then block.
type copier struct {
	r       *stagingRing
	pieces  []piece
	up      bool
	workers int
	spin    time.Duration
	opened  atomic.Int64   // pieces [0, opened) may be copied
	abort   atomic.Bool    // stop: copy nothing more
	left    []atomic.Int32 // per piece, the chunks still being copied
	mu      sync.Mutex
	cond    sync.Cond // signalled when a piece opens or is copied
	wg      sync.WaitGroup
}

// start sets the copier up for pieces and starts its workers.
func (cp *copier) start(r *stagingRing, pieces []piece, up bool) {
	cp.r, cp.pieces, cp.up = r, pieces, up
	cp.cond.L = &cp.mu
	largest := 0
	for _, p := range pieces {
		largest = max(largest, len(p.host))
	}
	cp.workers = max(1, min(runtime.GOMAXPROCS(0), 8, largest/copyChunkMin))
	cp.spin = 0
	if r.d.pd.Type != DeviceTypeCPU {
		cp.spin = waitSpin()
	}
	cp.opened.Store(0)
	cp.abort.Store(false)
	if cap(cp.left) < len(pieces) {
		cp.left = make([]atomic.Int32, len(pieces))
	}
	cp.left = cp.left[:len(pieces)]
	for k := range cp.left {
		cp.left[k].Store(int32(cp.workers))
	}
	for w := 1; w < cp.workers; w++ {
		cp.wg.Add(1)
		go cp.work(w)
	}
}

// open lets the workers copy pieces [0, n).
func (cp *copier) open(n int) {
	cp.opened.Store(int64(n))
	cp.signal()
}

// stop ends the transfer: workers copy no piece not yet started, and stop
// returns once they have all returned.
func (cp *copier) stop() {
	cp.abort.Store(true)
	cp.signal()
	cp.wg.Wait()
	cp.pieces = nil
}

func (cp *copier) signal() {
	cp.mu.Lock()
	cp.cond.Broadcast()
	cp.mu.Unlock()
}

// await returns once ok does: it polls for up to cp.spin, then blocks
// until a signal.
func (cp *copier) await(ok func() bool) {
	if ok() {
		return
	}
	if cp.spin > 0 {
		t := time.Now()
		for time.Since(t) < cp.spin {
			runtime.Gosched()
			if ok() {
				return
			}
		}
	}
	cp.mu.Lock()
	for !ok() {
		cp.cond.Wait()
	}
	cp.mu.Unlock()
}

// work is worker w's loop over the pieces.
func (cp *copier) work(w int) {
	defer cp.wg.Done()
	for k := range cp.pieces {
		cp.await(func() bool { return cp.opened.Load() > int64(k) || cp.abort.Load() })
		if cp.abort.Load() {
			return
		}
		cp.chunk(k, w)
	}
}

// chunk copies worker w's chunk of piece k (opened) and counts it done.
func (cp *copier) chunk(k, w int) {
	host := cp.pieces[k].host
	n := len(host)
	part := max(copyChunkMin/2, ((n+cp.workers-1)/cp.workers+4095)&^4095)
	if lo := w * part; lo < n {
		hi := min(lo+part, n)
		slot := cp.r.mapped[uint64(k%stageSlots)*stageSlot:]
		if cp.up {
			copy(slot[lo:hi], host[lo:hi])
		} else {
			copy(host[lo:hi], slot[lo:hi])
		}
	}
	if cp.left[k].Add(-1) == 0 {
		cp.signal()
	}
}

// copyPiece copies this goroutine's chunk of piece k (opened) and returns
// once the workers have copied theirs.
func (cp *copier) copyPiece(k int) {
	cp.chunk(k, 0)
	cp.await(func() bool { return cp.left[k].Load() == 0 })
}

// parallelCopyMin is the size from which parallelCopy uses several
// goroutines.
const parallelCopyMin = 1 << 20

// parallelCopy copies src into dst (of equal length) with up to
// GOMAXPROCS goroutines (at most 8), each copying a contiguous part.
func parallelCopy(dst, src []byte) {
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), 8, n/(parallelCopyMin/2))
	if n < parallelCopyMin || workers < 2 {
		copy(dst, src)
		return
	}
	part := (n/workers + 4095) &^ 4095
	var wg sync.WaitGroup
	for start := part; start < n; start += part {
		end := min(start+part, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[start:end], src[start:end])
		}()
	}
	copy(dst[:min(part, n)], src[:min(part, n)])
	wg.Wait()
}

// mappedCopyMin is the size from which copies between the host and a
// mapped buffer (Upload, Readback) use parallelCopy: below it the copy
// stays in the caches, and waking goroutines costs more than it saves
// (lavapipe, 2 cores: 64 MiB readbacks into new memory 32 ms -> 18 ms,
// 1 MiB ones twice as slow in parallel).
const mappedCopyMin = 16 << 20

// mappedCopy copies src into dst (of equal length), in parallel from
// mappedCopyMin bytes.
func mappedCopy(dst, src []byte) {
	if len(src) < mappedCopyMin {
		copy(dst, src)
		return
	}
	parallelCopy(dst, src)
}

// ParallelCopy copies src into dst, as the built-in copy does, spreading a
// large copy over several goroutines; it returns the number of bytes
// copied. The benchmarks time it as the host's memory bandwidth.
func ParallelCopy(dst, src []byte) int {
	n := min(len(dst), len(src))
	parallelCopy(dst[:n], src[:n])
	return n
}
