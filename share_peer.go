package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// A ring whose producer renders on one GPU and whose consumer computes on
// another GPU of the same host: the consumer imports the ring's slots into
// CUDA on the producer's GPU (where the memory lives: Vulkan memory opens
// only there), and each frame reaches the consumer's GPU by a peer copy
// after the producer's semaphore (pulled by the consumer's GPU from slots
// allocated by CUDA, which it maps; pushed by the producer's GPU from
// Vulkan slots), or is read in place. docs/multi-gpu.md, "Across the GPUs
// of one host".

// PeerMode says how a PeerConsumer reaches frames that live on another GPU.
type PeerMode int

const (
	// PeerCopy (the default) copies each frame into memory of the
	// consumer's GPU (PeerConsumer.Direct says which GPU copies) and gives
	// the slot back to the producer as soon as the copy is done, on the
	// GPU: the producer renders the next frame into it while the consumer
	// still computes on the copy.
	PeerCopy PeerMode = iota
	// PeerAccess hands out the slot's own memory, which kernels on the
	// consumer's GPU read in place over NVLink or PCIe (peer access: the
	// topology must allow it, Device.CanAccessPeer). The slot goes back to
	// the producer at Release, as with a CUDAConsumer. It enables peer
	// access from the consumer's context to the producer's GPU's primary
	// context, for every user of those contexts, and leaves it enabled.
	PeerAccess
)

func (m PeerMode) String() string {
	switch m {
	case PeerCopy:
		return "copy"
	case PeerAccess:
		return "access"
	}
	return fmt.Sprintf("PeerMode(%d)", int(m))
}

// PeerOptions configure OpenPeerConsumer.
type PeerOptions struct {
	// Mode: PeerCopy (default) or PeerAccess.
	Mode PeerMode
	// Open: how to reach the ring's exporter (OpenOptions).
	Open OpenOptions
}

// ErrPeerBuffersHeld is returned by PeerConsumer.Next in PeerCopy mode
// when every frame buffer of the consumer's GPU is held by a frame not yet
// released: release one first.
var ErrPeerBuffersHeld = errors.New("gfxcuda: every frame buffer of the peer consumer is held (release a frame before the next)")

// PeerConsumer consumes, in CUDA on one GPU, a ring whose
// producer is on another GPU of the host, or on the same one. Next makes
// the consumer's stream wait on the GPU for the producer's frame, then (in
// PeerCopy mode) queues on it the copy of the frame into a buffer of the
// consumer's GPU and the slot's release to the producer after that copy;
// the host never waits for the GPU. Ptr gives the frame's memory, valid on
// the consumer's GPU until Release.
//
// A PeerConsumer is for one goroutine at a time.
type PeerConsumer struct {
	mu     sync.Mutex
	ops    peerOps
	mode   PeerMode
	nbuf   int            // frame buffers of the consumer (PeerCopy)
	free   []int          // the buffers not held
	held   map[*Frame]int // frames handed out, and their buffer
	closed bool

	taken   *Frame       // the frame of the last Take, while held
	takenOn *cuda.Stream // the stream Take was given
}

// peerOps are the GPU side of a PeerConsumer; a fake stands in for it in
// the CPU tests of the bookkeeping (share_peer_test.go).
type peerOps interface {
	// next returns the ring's next frame, s ordered on the GPU after its
	// production.
	next(ctx context.Context, s *cuda.Stream) (*Frame, error)
	// copyInto queues on s the copy of f's slot into frame buffer buf,
	// after the work that last released buf.
	copyInto(buf int, f *Frame, s *cuda.Stream) error
	// releaseAfter gives f's slot back to the producer once the work
	// queued on s so far is done, without waiting on the host.
	releaseAfter(f *Frame, s *cuda.Stream) error
	// doneWith marks buffer buf free once the work queued on s so far is
	// done.
	doneWith(buf int, s *cuda.Stream) error
	// ptr is where frame f is on the consumer's GPU (buf: its buffer).
	ptr(buf int, f *Frame) cuda.DevicePtr
	// buffers are the places frames land: the frame buffers (PeerCopy)
	// or the ring's slots (PeerAccess).
	buffers() []cuda.DevicePtr
	size() uint64
	// direct reports whether frames reach the consumer's GPU without the
	// driver staging them through host memory.
	direct() bool
	close() error
}

// OpenPeerConsumer attaches to a ring (a Producer or a slotring.Ring, token
// tok) as a consumer whose frames are used on the GPU of the CUDA context
// c, which may differ from the producer's GPU. Both GPUs must be visible
// to this process (CUDA_VISIBLE_DEVICES); the producer's is found by the
// UUID in the token, the consumer's is c's. The slots are imported into
// the primary context of the producer's GPU. In PeerCopy mode the
// consumer allocates one frame buffer per ring slot on c; texture slots
// (2D, one layer) are copied into it untiled, rows packed (Size = width ×
// height × texel bytes). PeerAccess takes buffer slots only.
func OpenPeerConsumer(ctx context.Context, c *cuda.Context, tok Token, o PeerOptions) (*PeerConsumer, error) {
	if c == nil {
		return nil, errors.New("gfxcuda: OpenPeerConsumer with a nil CUDA context: give the context of the consumer's GPU")
	}
	if o.Mode != PeerCopy && o.Mode != PeerAccess {
		return nil, fmt.Errorf("gfxcuda: OpenPeerConsumer: unknown mode %v (PeerCopy or PeerAccess)", o.Mode)
	}
	m, err := tok.Meta()
	if err != nil {
		return nil, err
	}
	if m.Kind != KindRing {
		return nil, fmt.Errorf("%w: OpenPeerConsumer opens a ring, and the token shares a %v", ErrWrongKind, m.Kind)
	}
	ops, n, err := openPeerGPU(ctx, c, tok, m, o)
	if err != nil {
		return nil, err
	}
	return newPeerConsumer(ops, o.Mode, n), nil
}

// newPeerConsumer is the bookkeeping over ops, with n frame buffers.
func newPeerConsumer(ops peerOps, mode PeerMode, n int) *PeerConsumer {
	pc := &PeerConsumer{ops: ops, mode: mode, held: map[*Frame]int{}}
	if mode == PeerCopy {
		pc.nbuf = n
		for i := n - 1; i >= 0; i-- {
			pc.free = append(pc.free, i)
		}
	}
	return pc
}

// Mode is the consumer's PeerMode.
func (pc *PeerConsumer) Mode() PeerMode { return pc.mode }

// Direct reports whether frames go from the producer's GPU to the
// consumer's without passing through host memory: always with both ends
// on one GPU and in PeerAccess mode; in PeerCopy mode across GPUs, when
// there is a peer path between the GPUs (NVLink or PCIe peer to peer).
// Over it, slots that are CUDA allocations (Device.NewBufferFromCUDA,
// ExportCUDA) are mapped for the consumer's GPU, whose copy engines pull
// each frame, so that the producer's GPU spends nothing on the copies;
// other slots (Vulkan allocations, which only their own GPU maps) are
// pushed by the producer's GPU into the frame buffers (peer access is
// enabled from the producer's primary context to the consumer's context
// for that). Without a peer path the driver stages each copy through host
// memory, several times slower.
func (pc *PeerConsumer) Direct() bool { return pc.ops.direct() }

// Size is the size in bytes of each frame (the ring's slot size).
func (pc *PeerConsumer) Size() uint64 { return pc.ops.size() }

// Next waits on the host (bounded by ctx) for the ring's next frame and
// queues on s, a stream of the consumer's context: a wait for the
// producer's work on the frame, then (PeerCopy) the peer copy of the frame
// into a frame buffer of the consumer's GPU and, after it, the slot's
// release to the producer (with the rest of the producer's batch when more
// of its frames are published: one signal per batch). Work queued on s
// after Next reads the frame at
// Ptr. The producer's death gives ErrProducerGone; in PeerCopy mode, a
// Next while every frame buffer is held gives ErrPeerBuffersHeld (and
// takes no frame).
func (pc *PeerConsumer) Next(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return nil, fmt.Errorf("gfxcuda: PeerConsumer.Next: %w", ErrClosed)
	}
	if s == nil {
		return nil, errors.New("gfxcuda: PeerConsumer.Next with a nil stream: give a stream of the consumer's context")
	}
	if pc.mode == PeerCopy && len(pc.free) == 0 {
		return nil, fmt.Errorf("%w: %d frames held", ErrPeerBuffersHeld, pc.nbuf)
	}
	f, err := pc.ops.next(ctx, s)
	if err != nil {
		return nil, err
	}
	if pc.mode == PeerAccess {
		pc.held[f] = -1
		return f, nil
	}
	b := pc.free[len(pc.free)-1]
	if err := pc.ops.copyInto(b, f, s); err != nil {
		return nil, errors.Join(fmt.Errorf("gfxcuda: PeerConsumer.Next: the peer copy: %w", err), pc.ops.releaseAfter(f, s))
	}
	if err := pc.ops.releaseAfter(f, s); err != nil {
		return nil, fmt.Errorf("gfxcuda: PeerConsumer.Next: giving the slot back after the copy: %w", err)
	}
	pc.free = pc.free[:len(pc.free)-1]
	pc.held[f] = b
	return f, nil
}

// Ptr is where frame f is on the consumer's GPU: its frame buffer
// (PeerCopy) or its slot on the producer's GPU (PeerAccess). 0 for a frame
// not held.
func (pc *PeerConsumer) Ptr(f *Frame) cuda.DevicePtr {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	b, ok := pc.held[f]
	if !ok || pc.closed {
		return 0
	}
	return pc.ops.ptr(b, f)
}

// Release ends the consumer's use of frame f once the work queued on s so
// far is done, without waiting: in PeerCopy mode its frame buffer may then
// take another frame (the slot went back to the producer at Next); in
// PeerAccess mode the slot goes back to the producer (release frames in
// the order Next returned them).
func (pc *PeerConsumer) Release(f *Frame, s *cuda.Stream) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return fmt.Errorf("gfxcuda: PeerConsumer.Release: %w", ErrClosed)
	}
	if s == nil {
		return errors.New("gfxcuda: PeerConsumer.Release with a nil stream: give a stream of the consumer's context")
	}
	b, ok := pc.held[f]
	if !ok {
		return errors.New("gfxcuda: PeerConsumer.Release of a frame not held (released already, or not from this consumer)")
	}
	if pc.mode == PeerAccess {
		if err := pc.ops.releaseAfter(f, s); err != nil {
			return fmt.Errorf("gfxcuda: PeerConsumer.Release: %w", err)
		}
		delete(pc.held, f)
		return nil
	}
	if err := pc.ops.doneWith(b, s); err != nil {
		return fmt.Errorf("gfxcuda: PeerConsumer.Release: %w", err)
	}
	delete(pc.held, f)
	pc.free = append(pc.free, b)
	return nil
}

// Buffers returns where frames land on the consumer's GPU, by index: the
// frame buffers (PeerCopy) or the ring's slots on the producer's GPU
// (PeerAccess); Index tells which one holds a frame. Each is Size bytes.
func (pc *PeerConsumer) Buffers() []cuda.DevicePtr { return pc.ops.buffers() }

// Index is the index in Buffers of frame f's memory (-1 for a frame not
// held).
func (pc *PeerConsumer) Index(f *Frame) int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	b, ok := pc.held[f]
	if !ok {
		return -1
	}
	if pc.mode == PeerAccess {
		return f.Slot
	}
	return b
}

// Take is Next for one frame at a time (the C library's and Python's ring
// readers): it first releases the frame the previous Take returned, if
// still held, on the stream that Take was given.
func (pc *PeerConsumer) Take(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	if err := pc.Drop(); err != nil {
		return nil, err
	}
	f, err := pc.Next(ctx, s)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	pc.taken, pc.takenOn = f, s
	pc.mu.Unlock()
	return f, nil
}

// Drop releases the frame the last Take returned, if still held, on the
// stream Take was given.
func (pc *PeerConsumer) Drop() error {
	pc.mu.Lock()
	f, s := pc.taken, pc.takenOn
	pc.taken, pc.takenOn = nil, nil
	_, held := pc.held[f]
	pc.mu.Unlock()
	if f == nil || !held {
		return nil
	}
	return pc.Release(f, s)
}

// Held is the number of frames handed out and not released.
func (pc *PeerConsumer) Held() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.held)
}

// Close detaches from the ring and frees the imports, the frame buffers,
// the streams and events. It waits (bounded) for the work it queued, so
// that the producer's waits are satisfied before the semaphores go.
// Frames still held are given up. Idempotent.
func (pc *PeerConsumer) Close() error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return nil
	}
	pc.closed = true
	pc.held = nil
	pc.free = nil
	return pc.ops.close()
}

// peerDevice finds, among the UUIDs of the GPUs this process sees (by CUDA
// ordinal), the producer's GPU want. Its error, for a GPU this process
// cannot see, wraps ErrResourceOnOtherGPU and names CUDA_VISIBLE_DEVICES.
func peerDevice(want cuda.UUID, visible []cuda.UUID) (int, error) {
	for i, u := range visible {
		if u == want {
			return i, nil
		}
	}
	vis, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES")
	if !ok {
		vis = "(not set)"
	}
	return -1, fmt.Errorf("%w: the ring's producer is on GPU %s, which this process does not see (%d CUDA GPUs visible, CUDA_VISIBLE_DEVICES=%s): "+
		"a peer consumer needs the producer's GPU and its own visible", ErrResourceOnOtherGPU, want, len(visible), vis)
}

// peerGPU is the CUDA side of a PeerConsumer: the ring imported on the
// producer's GPU (src), frame buffers and events on the consumer's (dst).
type peerGPU struct {
	cc       *CUDAConsumer
	src, dst *cuda.Context
	ownSrc   bool         // src was retained here
	sa       *cuda.Stream // on src: the semaphore waits and the slot releases
	ready    *cuda.Event  // on src: recorded on sa after a frame's wait
	after    *cuda.Event  // on dst: recorded on the consumer's stream before a release
	bufs     []*cuda.DeviceMemory
	bufFree  []*cuda.Event           // on dst: recorded at each buffer's release
	bufLast  []*cuda.Stream          // the stream of each buffer's last release
	waited   map[*cuda.Stream]uint64 // the streams that waited for the newest batch (next)
	n        uint64
	copyMode bool
	textures bool // slots are CUDA arrays: copied untiled, rows packed
	// push: PeerCopy across GPUs from slots not mapped for dst, with
	// peer access from src to dst: the copies run on sa, the producer's
	// GPU writing the consumer's frame buffers directly, and the
	// consumer's stream waits for copied[buf]. Otherwise the copies run
	// on the consumer's stream: direct for mapped slots, staged by the
	// driver through host memory for Vulkan-imported ones (out of the
	// consumer's peer mappings).
	push   bool
	copied []*cuda.Event // on src: recorded on sa after each buffer's copy
	// mapped: the slots are CUDA allocations mapped for the consumer's
	// GPU too (mapForConsumer): copies run on the consumer's stream and
	// its copy engines read the slots over the peer path; PeerAccess
	// reads them in place.
	mapped bool
	// run: frames of one producer batch whose slots go back together
	// (releaseAfter), their copies queued on runOn.
	run   []*Frame
	runOn *cuda.Stream
}

// openPeerGPU opens the ring of tok on the producer's GPU (found by the
// token's UUID) for a consumer on c's GPU; it returns the frame buffer
// count (the ring's slots).
func openPeerGPU(ctx context.Context, c *cuda.Context, tok Token, m Meta, o PeerOptions) (_ *peerGPU, _ int, err error) {
	devs, err := cuda.Devices()
	if err != nil {
		return nil, 0, err
	}
	var vis []cuda.UUID
	for _, d := range devs {
		u, err := d.UUID()
		if err != nil {
			return nil, 0, err
		}
		vis = append(vis, u)
	}
	i, err := peerDevice(cuda.UUID(m.UUID), vis)
	if err != nil {
		return nil, 0, err
	}
	g := &peerGPU{dst: c, copyMode: o.Mode == PeerCopy, waited: map[*cuda.Stream]uint64{}}
	defer func() {
		if err != nil {
			g.close()
		}
	}()
	if devs[i].Ordinal() == c.Device().Ordinal() {
		g.src = c
	} else {
		if g.src, err = devs[i].PrimaryContext(); err != nil {
			return nil, 0, err
		}
		g.ownSrc = true
	}
	// canPeer: the consumer's GPU can reach the producer's (asked once,
	// before the ring is opened, so that PeerAccess where the topology
	// has no peer path fails first).
	var canPeer bool
	if g.src != c {
		if canPeer, err = c.Device().CanAccessPeer(devs[i]); err != nil {
			return nil, 0, err
		}
		if o.Mode == PeerAccess && !canPeer {
			return nil, 0, fmt.Errorf("%w: GPU %d cannot read GPU %d's memory in place (no peer access in this topology): use PeerCopy",
				ErrUnsupported, c.Device().Ordinal(), devs[i].Ordinal())
		}
	}
	if g.cc, err = OpenCUDAConsumer(ctx, g.src, tok, o.Open); err != nil {
		return nil, 0, err
	}
	nslots := g.cc.numSlots()
	if g.cc.Buffer(0) == nil { // texture slots: CUDA arrays
		if o.Mode == PeerAccess {
			return nil, 0, fmt.Errorf("%w: the ring's slots are textures (CUDA arrays), which kernels cannot read in place as linear memory: use PeerCopy", ErrUnsupported)
		}
		d := g.cc.Texture(0).Array().Desc()
		if d.Layers > 1 {
			return nil, 0, fmt.Errorf("%w: a peer consumer takes 2D texture slots of one layer; these have %d", ErrUnsupported, d.Layers)
		}
		g.textures = true
		g.n = d.Width * d.Height * d.ElementSize()
	} else {
		g.n = g.cc.Buffer(0).Size()
	}
	if g.src != c && !g.textures && canPeer {
		if g.mapped, err = g.mapForConsumer(c, devs[i]); err != nil {
			return nil, 0, err
		}
	}
	if o.Mode == PeerAccess && g.src != c && !g.mapped {
		// Slots mapped for the consumer's GPU need nothing more; others
		// (memory imported from Vulkan) need the context-wide peer
		// access, enabled only then, and whether it reaches that memory
		// is asked of the driver, not assumed.
		if err := c.EnablePeerAccess(g.src); err != nil {
			return nil, 0, fmt.Errorf("%w: enabling peer access from GPU %d to GPU %d, to read frames in place: %w", ErrUnsupported, c.Device().Ordinal(), devs[i].Ordinal(), err)
		}
		for k, b := range g.cc.buffers() {
			ok, perr := c.CanReadPointer(b.Ptr())
			why := "the driver says peer access does not reach memory imported from Vulkan"
			if perr != nil {
				why = perr.Error()
			}
			if perr != nil || !ok {
				return nil, 0, fmt.Errorf("%w: kernels on GPU %d cannot read slot %d on GPU %d in place (%s): use PeerCopy",
					ErrUnsupported, c.Device().Ordinal(), k, g.src.Device().Ordinal(), why)
			}
		}
	}
	if g.sa, err = g.src.NewStream(cuda.StreamNonBlocking); err != nil {
		return nil, 0, err
	}
	if g.ready, err = g.src.NewEvent(cuda.EventDisableTiming); err != nil {
		return nil, 0, err
	}
	if g.after, err = c.NewEvent(cuda.EventDisableTiming); err != nil {
		return nil, 0, err
	}
	if g.copyMode {
		for range nslots {
			b, err := c.Alloc(g.n)
			if err != nil {
				return nil, 0, fmt.Errorf("gfxcuda: a peer consumer's frame buffer of %d bytes: %w", g.n, err)
			}
			g.bufs = append(g.bufs, b)
			e, err := c.NewEvent(cuda.EventDisableTiming)
			if err != nil {
				return nil, 0, err
			}
			g.bufFree = append(g.bufFree, e)
			g.bufLast = append(g.bufLast, nil)
		}
		if g.src != c && !g.mapped {
			// The producer's GPU writes the frame buffers over its peer
			// path, when it has one; otherwise the driver stages the
			// copies through host memory.
			if g.push = canPush(g.src, c); g.push {
				for range nslots {
					e, err := g.src.NewEvent(cuda.EventDisableTiming)
					if err != nil {
						return nil, 0, err
					}
					g.copied = append(g.copied, e)
				}
			}
		}
	}
	return g, nslots, nil
}

// stream checks that s is a stream of the consumer's context.
func (g *peerGPU) stream(s *cuda.Stream) error {
	if s.Context() == nil || s.Context().Handle() != g.dst.Handle() {
		return fmt.Errorf("gfxcuda: the stream is not of the peer consumer's CUDA context (GPU %d)", g.dst.Device().Ordinal())
	}
	return nil
}

func (g *peerGPU) next(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	if err := g.stream(s); err != nil {
		return nil, err
	}
	f, err := g.cc.Next(ctx, g.sa)
	if err != nil {
		return nil, err
	}
	// Frames of one producer batch share their semaphore value: s waits
	// once per batch. A frame without one (Wait 0) was complete when
	// published. A pushed copy runs on sa, after the wait: s waits for
	// the copy instead (copyInto).
	if !g.push && f.Wait > g.waited[s] {
		if err := g.ready.Record(g.sa); err != nil {
			return nil, errors.Join(err, g.cc.Release(f, g.sa))
		}
		if err := s.WaitEvent(g.ready); err != nil {
			return nil, errors.Join(err, g.cc.Release(f, g.sa))
		}
		// Frames come in order: a stream that waited for an older
		// batch must wait again anyway, so only the newest batch's
		// waiters are kept (a stream per frame does not grow the map).
		for k, w := range g.waited {
			if w < f.Wait {
				delete(g.waited, k)
			}
		}
		g.waited[s] = f.Wait
	}
	return f, nil
}

func (g *peerGPU) copyInto(buf int, f *Frame, s *cuda.Stream) error {
	if g.push {
		return g.pushInto(buf, f, s)
	}
	if l := g.bufLast[buf]; l != nil && l != s { // on the same stream, stream order suffices
		if err := s.WaitEvent(g.bufFree[buf]); err != nil {
			return err
		}
	}
	if g.textures {
		return s.CopyFromArrayPeer(cuda.ArrayCopy{Array: g.cc.Array(f), Ptr: g.bufs[buf].Ptr()}, g.dst)
	}
	if g.mapped {
		// The slot is mapped for this GPU: its copy engines read it
		// where it is (a copy within the address space s's GPU reaches).
		return s.CopyDtoD(g.bufs[buf].Ptr(), g.cc.Ptr(f), g.n)
	}
	return s.CopyPeer(g.bufs[buf].Ptr(), g.dst, g.cc.Ptr(f), g.src, g.n)
}

// pushInto queues the copy of f's slot into frame buffer buf on sa (the
// producer's GPU), after the consumer's last use of buf, and makes s wait
// for it.
func (g *peerGPU) pushInto(buf int, f *Frame, s *cuda.Stream) error {
	if g.bufLast[buf] != nil {
		if err := g.sa.WaitEvent(g.bufFree[buf]); err != nil {
			return err
		}
	}
	var err error
	if g.textures {
		err = g.sa.CopyFromArrayPeer(cuda.ArrayCopy{Array: g.cc.Array(f), Ptr: g.bufs[buf].Ptr()}, g.dst)
	} else {
		err = g.sa.CopyPeer(g.bufs[buf].Ptr(), g.dst, g.cc.Ptr(f), g.src, g.n)
	}
	if err != nil {
		return err
	}
	if err := g.copied[buf].Record(g.sa); err != nil {
		return err
	}
	return s.WaitEvent(g.copied[buf])
}

// releaseAfter gives f's slot back after the work queued on s. In
// PeerCopy mode (called by Next, right after the copy) the slots of one
// producer batch go back together: a frame whose batch has a later frame
// published already waits for it, when that frame's copy is queued (on
// the same stream), and the run is released with one signal, on the GPU
// that the producer waits for per batch anyway. A GPU takes each cross-API
// signal as a switch between the CUDA and Vulkan contexts sharing it:
// one per batch instead of one per frame.
func (g *peerGPU) releaseAfter(f *Frame, s *cuda.Stream) error {
	if err := g.stream(s); err != nil {
		return err
	}
	if !g.copyMode {
		return g.releaseRun([]*Frame{f}, s)
	}
	var err error
	if len(g.run) > 0 && g.runOn != s { // another stream: its run ends here
		err = g.flush()
	}
	g.run, g.runOn = append(g.run, f), s
	if f.Seq < f.Wait && g.cc.published(f.Seq+1) {
		return err
	}
	return errors.Join(err, g.flush())
}

// flush releases the frames held back by releaseAfter.
func (g *peerGPU) flush() error {
	if len(g.run) == 0 {
		return nil
	}
	run, s := g.run, g.runOn
	g.run, g.runOn = nil, nil
	return g.releaseRun(run, s)
}

// releaseRun gives the slots of frames fs back after the work queued on s.
func (g *peerGPU) releaseRun(fs []*Frame, s *cuda.Stream) error {
	if g.push { // the copies were queued on sa: stream order suffices
		return g.cc.releaseRun(fs, g.sa)
	}
	if err := g.after.Record(s); err != nil {
		return err
	}
	if err := g.sa.WaitEvent(g.after); err != nil {
		return err
	}
	return g.cc.releaseRun(fs, g.sa)
}

func (g *peerGPU) doneWith(buf int, s *cuda.Stream) error {
	if err := g.stream(s); err != nil {
		return err
	}
	if err := g.bufFree[buf].Record(s); err != nil {
		return err
	}
	g.bufLast[buf] = s
	return nil
}

func (g *peerGPU) ptr(buf int, f *Frame) cuda.DevicePtr {
	if g.copyMode {
		return g.bufs[buf].Ptr()
	}
	return g.cc.Ptr(f)
}

func (g *peerGPU) size() uint64 { return g.n }

func (g *peerGPU) direct() bool { return !g.copyMode || g.src == g.dst || g.push || g.mapped }

// mapForConsumer gives the consumer's GPU (c's) access to every slot in
// place, when the slots are CUDA allocations (cuMemCreate memory: buffers
// made by Device.NewBufferFromCUDA or ExportCUDA); the caller has checked
// that c's GPU has a peer path to the producer's, src. The mapping
// (cuMemSetAccess) is the allocations' own: it needs no context-wide peer
// access, and changes nothing else in c. The consumer's kernels then read
// the slots where they are (PeerAccess) and its copy engines pull frames
// over that path (PeerCopy), so that the producer's GPU runs none of the
// copies. It reports whether it did; Vulkan allocations (not mappable
// for another GPU) are left as they were.
func (g *peerGPU) mapForConsumer(c *cuda.Context, src cuda.Device) (bool, error) {
	for _, b := range g.cc.buffers() {
		if b == nil || b.shareable() == nil {
			return false, nil
		}
	}
	for k, b := range g.cc.buffers() {
		if err := b.shareable().AllowDevice(c.Device()); err != nil {
			return false, fmt.Errorf("gfxcuda: mapping slot %d of GPU %d for the consumer's GPU %d: %w", k, src.Ordinal(), c.Device().Ordinal(), err)
		}
	}
	return true, nil
}

func (g *peerGPU) buffers() []cuda.DevicePtr {
	var ps []cuda.DevicePtr
	if g.copyMode {
		for _, b := range g.bufs {
			ps = append(ps, b.Ptr())
		}
		return ps
	}
	for _, b := range g.cc.buffers() {
		ps = append(ps, b.Ptr())
	}
	return ps
}

// close waits (bounded) for the work queued on sa, detaches from the ring
// and frees everything; the frame buffers last, after the consumer's
// streams are done with them.
func (g *peerGPU) close() error {
	err := g.flush()
	if g.cc != nil {
		err = errors.Join(err, g.cc.Close()) // waits for sa, which waited for the consumer's last release
	}
	for _, e := range g.bufFree {
		ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
		err = errors.Join(err, e.Wait(ctx), e.Close())
		cancel()
	}
	for _, b := range g.bufs {
		err = errors.Join(err, b.Close())
	}
	for _, e := range g.copied {
		err = errors.Join(err, e.Close())
	}
	for _, x := range []interface{ Close() error }{g.after, g.ready, g.sa} {
		if x != nil && !isNilCloser(x) {
			err = errors.Join(err, x.Close())
		}
	}
	if g.ownSrc && g.src != nil {
		err = errors.Join(err, g.src.Close())
	}
	return err
}

// CopyToPeer is a hand-off across GPUs: it copies the buffer, once the
// Vulkan work on it submitted so far is done, to dst, Size bytes of memory
// of s's CUDA context, which may be on another GPU (or on the buffer's).
// The buffer is handed to CUDA on its Device's stream, s waits for that on
// the GPU (an event), the copy (cuMemcpyPeerAsync) is queued on s, and the
// buffer returns to Vulkan once the copy is done, on the GPU: no host
// waits. Work queued on s afterwards sees the bytes at dst.
func (b *Buffer) CopyToPeer(s *cuda.Stream, dst cuda.DevicePtr) error {
	if s == nil || s.Context() == nil {
		return errors.New("gfxcuda: Buffer.CopyToPeer with a nil stream: give a stream of the destination's context")
	}
	return b.Map(nil, func(p cuda.DevicePtr, ds *cuda.Stream) error {
		if canPush(ds.Context(), s.Context()) {
			// The buffer's GPU writes dst over its peer path, on the
			// Device's stream (which Vulkan's next use waits for): s
			// waits for the copy.
			if err := ds.CopyPeer(dst, s.Context(), p, ds.Context(), b.size); err != nil {
				return fmt.Errorf("gfxcuda: Buffer.CopyToPeer: %w", err)
			}
			if err := crossOrder(ds, s); err != nil {
				return fmt.Errorf("gfxcuda: Buffer.CopyToPeer: the copy is queued, but work on s would not wait for it: %w", err)
			}
			return nil
		}
		if err := crossOrder(ds, s); err != nil {
			return fmt.Errorf("gfxcuda: Buffer.CopyToPeer: %w", err)
		}
		if err := s.CopyPeer(dst, s.Context(), p, ds.Context(), b.size); err != nil {
			return fmt.Errorf("gfxcuda: Buffer.CopyToPeer: %w", err)
		}
		if err := crossOrder(s, ds); err != nil {
			// Vulkan must not have the buffer back before the copy ends.
			ctx, cancel := context.WithTimeout(context.Background(), hostReleaseTimeout)
			defer cancel()
			return errors.Join(fmt.Errorf("gfxcuda: Buffer.CopyToPeer: %w", err), s.Wait(ctx))
		}
		return nil
	})
}

// canPush reports whether from's GPU can write memory of to's context
// directly (another GPU with a peer path from from's), enabling peer access
// from from to to for it (left on: seen by every user of the contexts, as
// cuCtxEnablePeerAccess is). Copies queued on a stream of from into to's
// memory then go GPU to GPU; queued on to's side from memory imported from
// Vulkan into from, the driver stages them through host memory, since
// imported memory is outside the peer mappings.
func canPush(from, to *cuda.Context) bool {
	if from.Device().Ordinal() == to.Device().Ordinal() {
		return false
	}
	ok, err := from.TryEnablePeerAccess(to)
	return err == nil && ok
}

// crossOrder makes later work on to wait, on the GPU, for the work queued
// on from so far; the streams may be of different contexts and devices
// (an event of from's context, which cuStreamWaitEvent takes across
// devices).
func crossOrder(from, to *cuda.Stream) error {
	if from == to {
		return nil
	}
	ev, err := from.Context().NewEvent(cuda.EventDisableTiming)
	if err != nil {
		return err
	}
	err = ev.Record(from)
	if err == nil {
		err = to.WaitEvent(ev)
	}
	return errors.Join(err, ev.Close()) // the driver keeps it until the wait is resolved
}
