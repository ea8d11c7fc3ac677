package vulkan

import (
	"fmt"
	"time"
	"unsafe"
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
