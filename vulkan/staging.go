package vulkan

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Staged transfers: Upload and Readback of device-local buffers and of
// images go through per-device staging rings that are made once and reused
// (no allocation per call). A transfer is cut into pieces (stagePieceFor);
// each piece is one submit that signals the device's timeline, and the host
// waits only for the slot it is about to reuse, so the host copy of one
// piece overlaps the DMA of the others. Large host copies are spread over
// several goroutines (memory bandwidth and page faults of fresh memory
// scale with cores). Both rings live in host-cached, coherent memory where
// the device has it (the readback heap's type): the host reads and writes
// it as ordinary memory, where the upload heap's uncached type is
// write-combined on discrete GPUs (very slow to read, and not what the
// host memcpy bound measures); the GPU reaches both over PCIe as pinned
// host memory. `gfxcuda bench` times the host copy into and out of this
// memory and the DMA from it.
//
// Why staging is the default on GPUs (TransferAuto) rather than importing
// the caller's memory per call (TransferImport): on the H100 with NVIDIA's
// driver the direct path (VK_EXT_external_memory_host pins every page and
// maps it for the GPU) read 64 MiB back in 8.1 ms, of which the DMA at the
// 49 GB/s the same run measured is 1.4 ms: about 6.5 ms went to importing
// and releasing, more than copying the same bytes on 8 cores (2.5 ms at the
// 26.8 GB/s measured). Uploads: direct 8.8 GB/s, staged (then through the
// upload heap, 4 MiB pieces) 10.1; a 1080p frame's round trip took 2.8 ms
// direct, almost all of it two imports of 8.3 MB. An import pays only where
// the host copy costs more than the pinning, which on lavapipe (whose
// "DMA" is itself a host copy) is always, and on NVIDIA was never at the
// sizes measured; so TransferAuto imports on CPU devices only.
// Device.TransferStats splits the time of each path into host copy,
// submit, wait, import and release, so the choice can be checked on each
// machine (`gfxcuda bench --only compute` prints it per row).

const (
	// stageSlot is the size of one slot of a staging ring, stageSlots the
	// number of slots: up to stageSlots pieces are in flight.
	stageSlot  = 8 << 20
	stageSlots = 4
	// stagePieceMin is the smallest piece a large transfer is cut into.
	stagePieceMin = 256 << 10
)

// stagePieceFor is the piece size for a transfer of n bytes: a quarter of
// it (so that the host copy of one piece overlaps the DMA of three others),
// at least stagePieceMin (each piece costs a submit, about 10–20 µs of host
// time on NVIDIA, and its share of the GPU's per-batch overhead) and at
// most a slot. 64 MiB goes in 8 pieces of 8 MiB, a 1080p RGBA8 frame
// (8.3 MB) in 4 of about 2 MB.
func stagePieceFor(n int) int {
	p := (n/stageSlots + 65535) &^ 65535
	return max(stagePieceMin, min(p, stageSlot))
}

// stageCache is the number of recorded batches a ring keeps per slot: a
// transfer whose pieces were recorded before (the same copies of the same
// resource, as repeated uploads of a frame are) submits them again as
// recorded (Commands.Reuse), without resetting and recording a batch.
const stageCache = 4

// stagedBatch is a batch of a ring's slot and the piece it recorded.
type stagedBatch struct {
	c    *Commands
	key  pieceKey
	used uint64 // tick of its last use, for eviction
}

// stagingRing is a host-visible buffer of stageSlots slots, each with the
// batches recorded for it and the one that last used it.
type stagingRing struct {
	d       *Device
	buf     *Buffer
	mapped  []byte
	batches [stageSlots][]*stagedBatch
	last    [stageSlots]*Commands // in flight in the slot, or nil
	tick    uint64
	st      *transferCounters
	cp      copier // reused by each transfer
}

// stagingState is a device's rings, one per direction; mu serializes the
// transfers that use them.
type stagingState struct {
	mu       sync.Mutex
	up, down *stagingRing
	mode     TransferMode
	noImport bool // a host import failed once: staging only from then on
	imported atomic.Int64
	stats    transferCounters
}

// TransferMode says how Upload and Readback of device-local memory move
// bytes.
type TransferMode int

// Transfer modes.
const (
	// TransferAuto chooses by device, by what each path measured: on GPUs
	// it stages every transfer through the reused rings (on the H100 the
	// per-call import cost more than the host copy it saves, in both
	// directions and for textures: see TransferImport); on CPU devices
	// (lavapipe), whose "DMA" is itself a host copy, it imports as
	// TransferImport does, saving one of the two copies.
	TransferAuto TransferMode = iota
	// TransferStaged always copies through the staging rings.
	TransferStaged
	// TransferImport imports the caller's memory (VK_EXT_external_memory_host)
	// per call where it is page-aligned and large enough, so that the GPU
	// copies from or into it with no host copy; the unaligned head and
	// tail, small transfers and devices without the extension go through
	// the rings. The import (pinning every page) costs more than the copy
	// it saves on NVIDIA's driver; it wins where the host copy is the
	// expensive part (lavapipe).
	TransferImport
)

// String names the mode.
func (m TransferMode) String() string {
	switch m {
	case TransferAuto:
		return "auto"
	case TransferStaged:
		return "staged"
	case TransferImport:
		return "import"
	}
	return fmt.Sprintf("TransferMode(%d)", int(m))
}

// importsFor reports whether a transfer mode imports the caller's memory
// on this device: TransferImport always, TransferAuto on CPU devices only.
func (d *Device) importsFor(m TransferMode) bool {
	return m == TransferImport || m == TransferAuto && d.pd.IsSoftware()
}

// ImportsHostMemory reports whether Upload and Readback import the
// caller's page-aligned memory instead of staging it, in the device's
// current transfer mode (where the device has VK_EXT_external_memory_host
// and no import failed).
func (d *Device) ImportsHostMemory() bool {
	d.stage.mu.Lock()
	defer d.stage.mu.Unlock()
	return d.importsFor(d.stage.mode) && !d.stage.noImport && d.raw.HasHostPointer()
}

// hostImportMin is the smallest aligned run an import covers.
const hostImportMin = 1 << 20

// SetTransferMode chooses how Upload and Readback move bytes (TransferAuto
// by default).
func (d *Device) SetTransferMode(m TransferMode) {
	d.stage.mu.Lock()
	d.stage.mode = m
	d.stage.mu.Unlock()
}

// HostImports counts the transfers that imported the caller's memory
// instead of copying it, for tests and benchmarks.
func (d *Device) HostImports() int64 { return d.stage.imported.Load() }

// TransferStats is where the time of Upload and Readback of device-local
// memory went, summed over the transfers since the device was opened
// (subtract two snapshots to time some of them). Times are host time spent
// in each step: HostCopy copying into or out of the staging rings, Submit
// recording and submitting pieces, Wait blocked on the GPU, Import and
// Release importing and freeing the caller's memory (TransferImport).
//
// Reused counts the staged pieces submitted as recorded by an earlier
// transfer (the same copy of the same resource through the same slot), with
// no command recording.
type TransferStats struct {
	Transfers, Pieces, Reused, StagedBytes, ImportedBytes int64
	HostCopy, Submit, Wait, Import, Release               time.Duration
}

// Sub returns s minus an earlier snapshot.
func (s TransferStats) Sub(o TransferStats) TransferStats {
	return TransferStats{
		Transfers: s.Transfers - o.Transfers, Pieces: s.Pieces - o.Pieces, Reused: s.Reused - o.Reused,
		StagedBytes: s.StagedBytes - o.StagedBytes, ImportedBytes: s.ImportedBytes - o.ImportedBytes,
		HostCopy: s.HostCopy - o.HostCopy, Submit: s.Submit - o.Submit, Wait: s.Wait - o.Wait,
		Import: s.Import - o.Import, Release: s.Release - o.Release,
	}
}

// String is the stats in one line.
func (s TransferStats) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3g ms", float64(d.Nanoseconds())/1e6) }
	out := fmt.Sprintf("%d transfers, %d pieces: host copy %s, submit %s, wait %s", s.Transfers, s.Pieces,
		ms(s.HostCopy), ms(s.Submit), ms(s.Wait))
	if s.ImportedBytes > 0 || s.Import > 0 {
		out += fmt.Sprintf(", import %s, release %s", ms(s.Import), ms(s.Release))
	}
	return out
}

// transferCounters accumulates TransferStats.
type transferCounters struct {
	transfers, pieces, reused, staged, imported atomic.Int64
	hostCopy, submit, wait, importNs, releaseNs atomic.Int64
}

// since adds the time since t to c and returns now.
func since(c *atomic.Int64, t time.Time) time.Time {
	now := time.Now()
	c.Add(int64(now.Sub(t)))
	return now
}

// TransferStats returns where the time of the device's Upload and Readback
// of device-local memory went so far.
func (d *Device) TransferStats() TransferStats {
	c := &d.stage.stats
	return TransferStats{
		Transfers: c.transfers.Load(), Pieces: c.pieces.Load(), Reused: c.reused.Load(), StagedBytes: c.staged.Load(), ImportedBytes: c.imported.Load(),
		HostCopy: time.Duration(c.hostCopy.Load()), Submit: time.Duration(c.submit.Load()), Wait: time.Duration(c.wait.Load()),
		Import: time.Duration(c.importNs.Load()), Release: time.Duration(c.releaseNs.Load()),
	}
}

// ring returns the device's ring for a direction, making it on first use.
// Both directions use host-cached memory where there is some (see above).
func (d *Device) ring(up bool) (*stagingRing, error) {
	r := &d.stage.down
	if up {
		r = &d.stage.up
	}
	if *r != nil {
		return *r, nil
	}
	b, err := d.NewBuffer(BufferOptions{Size: stageSlot * stageSlots, Usage: bufferTransfer, Heap: HeapReadback})
	if err != nil {
		return nil, fmt.Errorf("staging buffer: %w", err)
	}
	*r = &stagingRing{d: d, buf: b, mapped: unsafe.Slice((*byte)(b.mapped), stageSlot*stageSlots), st: &d.stage.stats}
	return *r, nil
}

// piece is one part of a staged transfer: the caller's bytes, and the
// copy between them, in a staging slot, and the resource.
type piece struct {
	host []byte
	key  pieceKey
}

// pieceKey is the copy of a piece: of n bytes at off of buf, or of region
// bc (its BufferOffset the slot's) of img, in layout as recorded, to the
// resource (up) or from it. Batches that recorded equal keys for the same
// slot are the same commands.
type pieceKey struct {
	up     bool
	buf    *Buffer
	off, n uint64
	img    *Image
	layout ImageLayout
	bc     BufferImageCopy
}

// record records the piece's copy between the staging slot at stOff of st
// and the resource, moving an image to LayoutGeneral first if copies
// cannot use its layout.
func (k *pieceKey) record(c *Commands, st *Buffer, stOff uint64) {
	if k.buf != nil {
		if k.up {
			c.CopyBuffer(k.buf, st, k.off, stOff, k.n)
		} else {
			c.CopyBuffer(st, k.buf, stOff, k.off, k.n)
		}
		return
	}
	want := LayoutTransferSrc
	if k.up {
		want = LayoutTransferDst
	}
	if l := k.img.Layout(); l != want && l != LayoutGeneral {
		c.TransitionImage(k.img, LayoutGeneral)
	}
	bc := k.bc
	bc.BufferOffset = stOff
	if k.up {
		c.CopyBufferToImage(k.img, st, bc)
	} else {
		c.CopyImageToBuffer(st, k.img, bc)
	}
}

// wait waits until slot i is free (its last batch has finished).
func (r *stagingRing) wait(i int) error {
	c := r.last[i]
	if c == nil {
		return nil
	}
	r.last[i] = nil
	t := time.Now()
	err := c.Wait(-1)
	since(&r.st.wait, t)
	if err != nil {
		r.discard(c)
	}
	return err
}

// free reports, without waiting, whether slot i is free.
func (r *stagingRing) free(i int) bool {
	if c := r.last[i]; c != nil {
		if !c.Done() {
			return false
		}
		r.last[i] = nil
	}
	return true
}

// discard forgets what c recorded and resets it.
func (r *stagingRing) discard(c *Commands) {
	for _, bs := range r.batches {
		for _, b := range bs {
			if b.c == c {
				b.key = pieceKey{}
			}
		}
	}
	c.Reset()
}

// batch returns a batch of slot i for key k: one that recorded k already
// and can be submitted again as recorded (reused true), or an empty one,
// the slot's least recently used or a new one.
func (r *stagingRing) batch(i int, k pieceKey) (c *Commands, reused bool, err error) {
	r.tick++
	var pick *stagedBatch
	for _, b := range r.batches[i] {
		if b.key == k && (k.buf != nil || k.img != nil) {
			if b.c.Reuse() == nil {
				b.used = r.tick
				return b.c, true, nil
			}
			pick = b // not reusable (it moved the image): record again
			break
		}
		if pick == nil || b.used < pick.used {
			pick = b
		}
	}
	if pick == nil || pick.key != k && len(r.batches[i]) < stageCache {
		c, err := r.d.NewCommands()
		if err != nil {
			return nil, false, err
		}
		pick = &stagedBatch{c: c}
		r.batches[i] = append(r.batches[i], pick)
	} else if err := pick.c.Reset(); err != nil {
		pick.key = pieceKey{}
		return nil, false, err
	}
	pick.key, pick.used = k, r.tick
	return pick.c, false, nil
}

// submit submits piece p's copy from or into slot i (free), between full
// barriers, reusing a batch that recorded it before where there is one.
func (r *stagingRing) submit(i int, p *piece) error {
	defer since(&r.st.submit, time.Now())
	k := p.key
	if k.img != nil {
		k.layout = k.img.Layout()
	}
	c, reused, err := r.batch(i, k)
	if err != nil {
		return err
	}
	if !reused {
		c.MemoryBarrier()
		k.record(c, r.buf, uint64(i)*stageSlot)
		c.MemoryBarrier()
	}
	if err := c.Submit(SubmitOptions{}); err != nil {
		r.discard(c)
		return err
	}
	r.last[i] = c
	r.st.pieces.Add(1)
	if reused {
		r.st.reused.Add(1)
	}
	return nil
}

// drain waits for every busy slot.
func (r *stagingRing) drain() error {
	var first error
	for i := range r.last {
		if err := r.wait(i); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// count adds a staged transfer of these pieces to the stats.
func (r *stagingRing) count(pieces []piece) {
	n := 0
	for _, p := range pieces {
		n += len(p.host)
	}
	r.st.transfers.Add(1)
	r.st.staged.Add(int64(n))
}

// stageUp copies each piece's bytes into a staging slot and submits its
// copy; the host copy of a piece overlaps the copies of the pieces before
// it. The host copies are spread over the copier's workers, who copy
// ahead into every free slot while this goroutine submits. It returns
// when every copy has finished.
func (d *Device) stageUp(pieces []piece) error {
	d.stage.mu.Lock()
	defer d.stage.mu.Unlock()
	r, err := d.ring(true)
	if err != nil {
		return err
	}
	r.count(pieces)
	cp := &r.cp
	cp.start(r, pieces, true)
	opened := 0 // pieces whose slot is free: [0, opened) may be copied
	open := func(limit int, block bool) error {
		n := opened
		for ; n < len(pieces) && n < limit; n++ {
			i := n % stageSlots
			if block {
				if err := r.wait(i); err != nil {
					return err
				}
			} else if !r.free(i) {
				break
			}
		}
		if n > opened {
			opened = n
			cp.open(n)
		}
		return nil
	}
	fail := func(err error) error {
		cp.stop()
		r.drain()
		return err
	}
	for k := range pieces {
		if err := open(k+stageSlots, false); err != nil {
			return fail(err)
		}
		if err := open(k+1, true); err != nil {
			return fail(err)
		}
		t := time.Now()
		cp.copyPiece(k)
		since(&r.st.hostCopy, t)
		i := k % stageSlots
		off := uint64(i) * stageSlot
		if err := r.buf.flush(off, uint64(len(pieces[k].host))); err != nil {
			return fail(err)
		}
		if err := r.submit(i, &pieces[k]); err != nil {
			return fail(err)
		}
	}
	cp.stop()
	return r.drain()
}

// stageDown submits the copies of up to stageSlots pieces ahead and copies
// each piece's bytes out of its slot (with the copier's workers) once its
// copy has finished.
func (d *Device) stageDown(pieces []piece) error {
	d.stage.mu.Lock()
	defer d.stage.mu.Unlock()
	r, err := d.ring(false)
	if err != nil {
		return err
	}
	r.count(pieces)
	cp := &r.cp
	cp.start(r, pieces, false)
	fail := func(err error) error {
		cp.stop()
		r.drain()
		return err
	}
	next := 0 // the next piece to submit
	submitTo := func(limit int) error {
		for ; next < len(pieces) && next < limit; next++ {
			i := next % stageSlots
			if err := r.wait(i); err != nil {
				return err
			}
			if err := r.submit(i, &pieces[next]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := submitTo(stageSlots); err != nil {
		return fail(err)
	}
	for k, p := range pieces {
		i := k % stageSlots
		if err := r.wait(i); err != nil { // waits for piece k's copy
			return fail(err)
		}
		off := uint64(i) * stageSlot
		if err := r.buf.invalidate(off, uint64(len(p.host))); err != nil {
			return fail(err)
		}
		cp.open(k + 1)
		t := time.Now()
		cp.copyPiece(k)
		since(&r.st.hostCopy, t)
		if err := submitTo(k + 1 + stageSlots); err != nil {
			return fail(err)
		}
	}
	cp.stop()
	return nil
}

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

// importedHost is host memory imported as a transfer buffer.
type importedHost struct {
	b   *Buffer
	pin runtime.Pinner
}

// importHost imports p (page-aligned, a whole number of pages) as a
// buffer the GPU copies from or into; close releases it.
func (d *Device) importHost(p []byte) (*importedHost, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	ptr := unsafe.Pointer(unsafe.SliceData(p))
	h := &importedHost{}
	h.pin.Pin(ptr) // the driver keeps the pointer until the memory is freed
	fail := func(err error) (*importedHost, error) {
		h.pin.Unpin()
		return nil, err
	}
	bits, err := d.raw.HostPointerTypeBits(ptr)
	if err != nil {
		return fail(err)
	}
	b := &Buffer{d: d, size: uint64(len(p)), usage: bufferTransfer, heap: HeapUpload, allocSize: uint64(len(p))}
	b.h, err = d.raw.CreateBuffer(vk.BufferCreateInfo{Size: b.size, Usage: uint32(bufferTransfer),
		ExternalHandleTypes: vk.ExternalMemoryHandleTypeHostAllocation})
	if err != nil {
		return fail(err)
	}
	req := d.raw.BufferMemoryRequirements(b.h)
	bits &= req.MemoryTypeBits
	t := -1
	for i := range d.pd.MemoryTypes {
		if bits&(1<<i) != 0 && (t < 0 || d.pd.MemoryTypes[i].Flags&MemoryHostCoherent != 0 && d.pd.MemoryTypes[t].Flags&MemoryHostCoherent == 0) {
			t = i
		}
	}
	if t < 0 || req.Size > b.size {
		d.raw.DestroyBuffer(b.h)
		return fail(fmt.Errorf("no memory type to import host memory as a %d-byte buffer (types 0x%x, %d bytes needed)", b.size, bits, req.Size))
	}
	b.memFlags = d.pd.MemoryTypes[t].Flags
	b.mem, err = d.raw.AllocateMemory(vk.MemoryAllocateInfo{Size: b.size, TypeIndex: uint32(t), HostPointer: ptr})
	if err != nil {
		d.raw.DestroyBuffer(b.h)
		return fail(err)
	}
	if err := d.raw.BindBufferMemory(b.h, b.mem, 0); err != nil {
		d.raw.DestroyBuffer(b.h)
		d.raw.FreeMemory(b.mem)
		return fail(err)
	}
	d.register(b)
	h.b = b
	return h, nil
}

// close frees the imported buffer (after the work that uses it) and
// unpins the memory.
func (h *importedHost) close() {
	h.b.Close()
	h.pin.Unpin()
}

// timedImport is importHost, counted in the transfer stats.
func (d *Device) timedImport(p []byte) (*importedHost, error) {
	t := time.Now()
	h, err := d.importHost(p)
	since(&d.stage.stats.importNs, t)
	if err == nil {
		d.stage.stats.transfers.Add(1)
		d.stage.stats.imported.Add(int64(len(p)))
	}
	return h, err
}

// timedRelease is h.close, counted in the transfer stats.
func (d *Device) timedRelease(h *importedHost) {
	t := time.Now()
	h.close()
	since(&d.stage.stats.releaseNs, t)
}

// timedRun is Run, its submit and wait counted as a piece's in the
// transfer stats.
func (d *Device) timedRun(record func(*Commands) error) error {
	t := time.Now()
	err := d.Run(record)
	since(&d.stage.stats.wait, t)
	d.stage.stats.pieces.Add(1)
	return err
}

// alignedRun returns the page-aligned run [lo, hi) of host, with hi-lo a
// whole number of pages, or lo == hi when there is none worth importing.
func alignedRun(host []byte) (lo, hi int) {
	if len(host) < hostImportMin {
		return 0, 0
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(host)))
	lo = int((page - start%page) % page)
	hi = lo + (len(host)-lo)/int(page)*int(page)
	if hi-lo < hostImportMin {
		return 0, 0
	}
	return lo, hi
}

// direct moves [off, off+len(host)) of b by importing the aligned run of
// host and copying it on the GPU in one batch; the unaligned head and tail
// go through the staging rings. It reports false, with nothing done, when
// the transfer should be staged instead.
func (b *Buffer) direct(off uint64, host []byte, up bool) (bool, error) {
	d := b.d
	d.stage.mu.Lock()
	skip := !d.importsFor(d.stage.mode) || d.stage.noImport || !d.raw.HasHostPointer()
	d.stage.mu.Unlock()
	if skip {
		return false, nil
	}
	lo, hi := alignedRun(host)
	if lo == hi {
		return false, nil
	}
	h, err := d.timedImport(host[lo:hi])
	if err != nil {
		d.stage.mu.Lock()
		d.stage.noImport = true // say it once by falling back from now on
		d.stage.mu.Unlock()
		return false, nil
	}
	defer d.timedRelease(h)
	d.stage.imported.Add(1)
	n := uint64(hi - lo)
	// The middle by DMA straight from or into the caller's memory, the
	// ends through the rings meanwhile.
	err = d.timedRun(func(c *Commands) error {
		c.MemoryBarrier()
		if up {
			c.CopyBuffer(b, h.b, off+uint64(lo), 0, n)
		} else {
			c.CopyBuffer(h.b, b, 0, off+uint64(lo), n)
		}
		c.MemoryBarrier()
		return nil
	})
	if err != nil {
		return true, err
	}
	var ends []piece
	if lo > 0 {
		ends = append(ends, bufferPieces(b, off, host[:lo], up)...)
	}
	if hi < len(host) {
		ends = append(ends, bufferPieces(b, off+uint64(hi), host[hi:], up)...)
	}
	if len(ends) == 0 {
		return true, nil
	}
	if up {
		return true, d.stageUp(ends)
	}
	return true, d.stageDown(ends)
}

// bufferPieces cuts [off, off+len(host)) of b into pieces.
func bufferPieces(b *Buffer, off uint64, host []byte, up bool) []piece {
	size := stagePieceFor(len(host))
	ps := make([]piece, 0, (len(host)+size-1)/size)
	for done := 0; done < len(host); done += size {
		k := min(size, len(host)-done)
		ps = append(ps, piece{host: host[done : done+k], key: pieceKey{up: up, buf: b, off: off + uint64(done), n: uint64(k)}})
	}
	return ps
}

// ImageRegion is a box of texels in some array layers of an image, for
// Image.Upload and Readback; zero sizes mean up to the image's edge, Layers
// 0 means all from Layer.
type ImageRegion struct {
	X, Y, Z              uint32
	Width, Height, Depth uint32
	Layer, Layers        uint32
}

// resolve fills in the region's defaults and checks it against the image;
// it returns the bytes per row of the region, tightly packed.
func (i *Image) resolve(r *ImageRegion) (rowBytes uint64, err error) {
	o := i.opts
	f := vkFormat(o.Format)
	bs := uint64(f.blockSize())
	bw, bh := f.blockExtent()
	if bs == 0 || bw != 1 || bh != 1 {
		return 0, fmt.Errorf("Upload and Readback of %v images are not supported", f)
	}
	rest := func(size, off uint32) uint32 {
		if off >= size {
			return 0
		}
		return size - off
	}
	if r.Width == 0 {
		r.Width = rest(o.Width, r.X)
	}
	if r.Height == 0 {
		r.Height = rest(o.Height, r.Y)
	}
	if r.Depth == 0 {
		r.Depth = rest(o.Depth, r.Z)
	}
	if r.Layers == 0 {
		r.Layers = rest(o.Layers, r.Layer)
	}
	if r.Width == 0 || r.Height == 0 || r.Depth == 0 || r.Layers == 0 ||
		uint64(r.X)+uint64(r.Width) > uint64(o.Width) || uint64(r.Y)+uint64(r.Height) > uint64(o.Height) ||
		uint64(r.Z)+uint64(r.Depth) > uint64(o.Depth) || uint64(r.Layer)+uint64(r.Layers) > uint64(o.Layers) {
		return 0, fmt.Errorf("region (%d, %d, %d) %dx%dx%d, layers [%d, %d) outside the %dx%dx%d image of %d layers",
			r.X, r.Y, r.Z, r.Width, r.Height, r.Depth, r.Layer, r.Layer+r.Layers, o.Width, o.Height, o.Depth, o.Layers)
	}
	rowBytes = uint64(r.Width) * bs
	if rowBytes > stageSlot {
		return 0, fmt.Errorf("rows of %d bytes exceed the %d-byte staging slots", rowBytes, stageSlot)
	}
	return rowBytes, nil
}

// RegionSize is the size of a region of the image, tightly packed: rows
// of Width texels, Height rows per slice, Depth slices per layer.
func (i *Image) RegionSize(r ImageRegion) (uint64, error) {
	rb, err := i.resolve(&r)
	if err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	return rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers), nil
}

// imagePieces cuts the region into bands of rows of one slice of one
// layer. Host and staging rows are both tightly packed, so each band is
// one contiguous host copy, and one copy region on the device.
func imagePieces(img *Image, r ImageRegion, rowBytes uint64, host []byte, up bool) []piece {
	rowsPer := uint32(max(1, uint64(stagePieceFor(len(host)))/rowBytes))
	bands := (r.Height + rowsPer - 1) / rowsPer
	ps := make([]piece, 0, int(bands)*int(r.Depth)*int(r.Layers))
	var at uint64
	for layer := r.Layer; layer < r.Layer+r.Layers; layer++ {
		for z := r.Z; z < r.Z+r.Depth; z++ {
			for y := r.Y; y < r.Y+r.Height; y += rowsPer {
				rows := min(rowsPer, r.Y+r.Height-y)
				n := uint64(rows) * rowBytes
				bc := BufferImageCopy{X: int32(r.X), Y: int32(y), Z: int32(z), Width: r.Width, Height: rows, Depth: 1,
					BaseLayer: layer, Layers: 1}
				ps = append(ps, piece{host: host[at : at+n], key: pieceKey{up: up, img: img, bc: bc}})
				at += n
			}
		}
	}
	return ps
}

// Upload writes a region of the image from data: tightly packed rows of
// texels, slice after slice, layer after layer (RegionSize bytes). It
// returns when the texels are there, after the batches submitted before it
// that use the image, through reused staging memory, pipelined in bands of
// rows. An image in a layout copies cannot use is moved to LayoutGeneral.
func (i *Image) Upload(r ImageRegion, data []byte) error {
	if err := i.acquire(); err != nil {
		return err
	}
	defer i.life.release()
	rb, err := i.resolve(&r)
	if err != nil {
		return fmt.Errorf("vulkan: Upload: %w", err)
	}
	if need := rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers); uint64(len(data)) != need {
		return fmt.Errorf("vulkan: Upload: %d bytes for a %dx%dx%d region of %d layers, which has %d", len(data), r.Width, r.Height, r.Depth, r.Layers, need)
	}
	if ok, err := i.direct(r, data, true); ok {
		return err
	}
	return i.d.stageUp(imagePieces(i, r, rb, data, true))
}

// Readback reads a region of the image into dst, laid out as Upload takes
// it, once the batches submitted before it that use the image have run.
func (i *Image) Readback(r ImageRegion, dst []byte) error {
	if err := i.acquire(); err != nil {
		return err
	}
	defer i.life.release()
	rb, err := i.resolve(&r)
	if err != nil {
		return fmt.Errorf("vulkan: Readback: %w", err)
	}
	if need := rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers); uint64(len(dst)) != need {
		return fmt.Errorf("vulkan: Readback: %d bytes for a %dx%dx%d region of %d layers, which has %d", len(dst), r.Width, r.Height, r.Depth, r.Layers, need)
	}
	if ok, err := i.direct(r, dst, false); ok {
		return err
	}
	return i.d.stageDown(imagePieces(i, r, rb, dst, false))
}

// direct copies a region between the image and host, imported, in one
// batch when host is page-aligned and a whole number of pages (a 1080p
// RGBA8 frame is 2,025 pages). It reports false, with nothing done,
// otherwise.
func (i *Image) direct(r ImageRegion, host []byte, up bool) (bool, error) {
	d := i.d
	d.stage.mu.Lock()
	skip := !d.importsFor(d.stage.mode) || d.stage.noImport || !d.raw.HasHostPointer()
	d.stage.mu.Unlock()
	if skip {
		return false, nil
	}
	if lo, hi := alignedRun(host); lo != 0 || hi != len(host) {
		return false, nil
	}
	h, err := d.timedImport(host)
	if err != nil {
		d.stage.mu.Lock()
		d.stage.noImport = true
		d.stage.mu.Unlock()
		return false, nil
	}
	defer d.timedRelease(h)
	d.stage.imported.Add(1)
	bc := BufferImageCopy{X: int32(r.X), Y: int32(r.Y), Z: int32(r.Z), Width: r.Width, Height: r.Height, Depth: r.Depth,
		BaseLayer: r.Layer, Layers: r.Layers}
	return true, d.timedRun(func(c *Commands) error {
		want := LayoutTransferSrc
		if up {
			want = LayoutTransferDst
		}
		c.MemoryBarrier()
		if l := i.Layout(); l != want && l != LayoutGeneral {
			c.TransitionImage(i, LayoutGeneral)
		}
		if up {
			c.CopyBufferToImage(i, h.b, bc)
		} else {
			c.CopyImageToBuffer(h.b, i, bc)
		}
		c.MemoryBarrier()
		return nil
	})
}
