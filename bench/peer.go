package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// PeerSteps is the number of figures Peer adds (PeerSteps/2 per pair of
// GPUs).
const PeerSteps = 10

// The ring's shape: a producer batch costs the producer's GPU a switch
// between its Vulkan and CUDA contexts, about 0.45 ms on an H100/H200
// (BENCHMARKS.md), so a batch must carry enough frames for that to hide
// behind the copies: 16 1080p RGBA8 frames are 0.5 ms of NVLink copies,
// and four batches in flight keep both GPUs busy.
const peerSlots, peerBatch = 64, 16

// peerFrame is the bytes of one frame: 1080p RGBA8.
const peerFrame = frameW * frameH * 4

// staged marks the figures whose copies the driver stages through host
// memory (no peer path between the GPUs).
const staged = "staged through host memory: no peer path"

// Peer measures rings across the GPUs of one host: a gfxcuda.Producer
// renders 1080p RGBA8 frames (the test pattern, a compute shader, copied
// into buffer slots) on this suite's GPU, and a gfxcuda.PeerConsumer takes
// them on a CUDA context of another GPU, where a kernel checks every texel
// of every frame; beside it, a bare cuMemcpyPeerAsync of the same bytes
// between the same GPUs (over the peer path where there is one), run
// alternately in the same repetitions. The figure held to issue 23's
// target (≥ 0.8× the bare copy across two GPUs) is the ring's own cost, as
// for the NCCL link: frames not rendered, released as soon as they land
// (PeerCopy); the figures with the render and the check say what a full
// pipeline keeps of it. The consumer runs in this
// process (the cross-process path is the same code; TestGPUPeerRing runs
// it). Both modes: PeerCopy and, where the topology allows it, PeerAccess.
// With one GPU the same figures are measured with both ends on it, and the
// two-GPU rows carry a note instead.
func (s *Suite) Peer() error {
	prod, err := s.D.CUDA().Device().UUID()
	if err != nil {
		return err
	}
	other, _, _, err := otherGPU(prod)
	if err != nil {
		return err
	}
	if err := s.peerPair(s.D.CUDA(), "peer ring, both ends on one GPU, 1080p RGBA8 frames", "one GPU", 0); err != nil {
		return err
	}
	const g = "peer ring across two GPUs, 1080p RGBA8 frames"
	if other == nil {
		for _, n := range []string{"bare cuMemcpyPeerAsync of the same bytes", "Producer → PeerConsumer (copy), the ring alone",
			"Producer → PeerConsumer (copy), the ring alone, slots allocated by Vulkan", "Producer → PeerConsumer (copy)",
			"Producer → PeerConsumer (access)"} {
			if s.Progress != nil {
				s.Progress.Step(g + ": " + n)
			}
			s.add(Figure{Group: g, Name: n, Unit: "GB/s", Note: "not measured: this process sees one CUDA GPU (needs 2)"})
		}
		return nil
	}
	cx, err := other.PrimaryContext()
	if err != nil {
		return err
	}
	defer cx.Close()
	return s.peerPair(cx, g, fmt.Sprintf("GPU %d → GPU %d", s.D.CUDA().Device().Ordinal(), other.Ordinal()), 0.8)
}

// peerPair measures the figures of group g for one pair of GPUs: the
// producer on the suite's GPU, the consumer on cx's; target applies to
// the ring alone (0: none, both ends on one GPU).
func (s *Suite) peerPair(cx *cuda.Context, g, pair string, target float64) error {
	frames := s.O.Frames
	if frames == 0 {
		frames = 2048
	}
	frames = (frames + peerBatch - 1) / peerBatch * peerBatch
	src := s.D.CUDA()
	bare, err := newBarePeer(cx, src, peerFrame)
	if err != nil {
		return err
	}
	defer bare.close()
	base := func() (float64, error) {
		d, err := bare.run(frames)
		return gbps(frames*peerFrame, d), err
	}
	path := "direct"
	if !bare.direct {
		path = staged
	}
	bareName := fmt.Sprintf("bare cuMemcpyPeerAsync of the same bytes (%s, %s)", pair, path)
	if err := s.figure(g, bareName, "GB/s", base, nil); err != nil {
		return err
	}
	for _, mode := range []gfxcuda.PeerMode{gfxcuda.PeerCopy, gfxcuda.PeerAccess} {
		name := fmt.Sprintf("Producer → PeerConsumer (%v), %d slots, batches of %d, every texel checked", mode, peerSlots, peerBatch)
		r, err := newPeerRingSlots(s.D, cx, mode, true) // slots the consumer's GPU maps and pulls from
		how := ""
		if err == nil && !r.pc.Direct() {
			how = " (" + staged + ")"
			name += how
		}
		if err == nil && mode == gfxcuda.PeerCopy {
			alone := fmt.Sprintf("Producer → PeerConsumer (copy), the ring alone: %d slots, batches of %d, frames not rendered, released as they land%s",
				peerSlots, peerBatch, how)
			if err := s.paired(g, alone, "GB/s", bareName, base, r.rate(frames, true), target); err != nil {
				return errors.Join(err, r.close())
			}
			if err := s.peerVulkanSlots(cx, g, bareName, base, frames); err != nil {
				return errors.Join(err, r.close())
			}
		}
		if errors.Is(err, gfxcuda.ErrUnsupported) && mode == gfxcuda.PeerAccess {
			if s.Progress != nil {
				s.Progress.Step(g + ": " + name)
			}
			s.add(Figure{Group: g, Name: name, Unit: "GB/s", Note: "not measured: " + err.Error()})
			continue
		}
		if err != nil {
			return err
		}
		err = s.paired(g, name, "GB/s", bareName, base, r.rate(frames, false), 0)
		err = errors.Join(err, r.verify(), r.close())
		if err != nil {
			return err
		}
	}
	return nil
}

// peerVulkanSlots measures the ring alone with slots allocated by Vulkan
// (exportable Vulkan buffers) instead of CUDA: only their own GPU maps
// them, so across GPUs the producer's GPU pushes each frame into the
// consumer's frame buffers, beside its own Vulkan work.
func (s *Suite) peerVulkanSlots(cx *cuda.Context, g, bareName string, base func() (float64, error), frames int) error {
	r, err := newPeerRingSlots(s.D, cx, gfxcuda.PeerCopy, false)
	if err != nil {
		return err
	}
	how := ""
	if !r.pc.Direct() {
		how = " (" + staged + ")"
	}
	name := fmt.Sprintf("Producer → PeerConsumer (copy), the ring alone, slots allocated by Vulkan (pushed by the producer's GPU): %d slots, batches of %d%s",
		peerSlots, peerBatch, how)
	return errors.Join(s.paired(g, name, "GB/s", bareName, base, r.rate(frames, true), 0), r.close())
}

// otherGPU is the first CUDA GPU this process sees that is not the one
// with UUID me (nil: none), its UUID, and how many GPUs it sees.
func otherGPU(me cuda.UUID) (*cuda.Device, cuda.UUID, int, error) {
	devs, err := cuda.Devices()
	if err != nil {
		return nil, cuda.UUID{}, 0, err
	}
	for _, d := range devs {
		u, err := d.UUID()
		if err != nil {
			return nil, cuda.UUID{}, 0, err
		}
		if u != me {
			return &d, u, len(devs), nil
		}
	}
	return nil, cuda.UUID{}, len(devs), nil
}

// barePeer copies frames from memory of src to memory of dst, nothing
// else: over the peer path between the two GPUs where there is one (peer
// access enabled both ways, as a multi-GPU program does), otherwise staged
// by the driver through host memory.
type barePeer struct {
	dst, src *cuda.Context
	stream   *cuda.Stream
	a, b     *cuda.DeviceMemory
	frame    uint64
	direct   bool
}

func newBarePeer(dst, src *cuda.Context, frame uint64) (_ *barePeer, err error) {
	p := &barePeer{dst: dst, src: src, frame: frame, direct: true}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if dst.Device().Ordinal() != src.Device().Ordinal() {
		a, err := dst.TryEnablePeerAccess(src)
		if err != nil {
			return nil, err
		}
		b, err := src.TryEnablePeerAccess(dst)
		if err != nil {
			return nil, err
		}
		p.direct = a && b
	}
	if p.stream, err = dst.NewStream(cuda.StreamNonBlocking); err != nil {
		return nil, err
	}
	if p.a, err = src.Alloc(frame * peerSlots); err != nil {
		return nil, err
	}
	if p.b, err = dst.Alloc(frame * peerSlots); err != nil {
		return nil, err
	}
	return p, randomFill(src, p.a.Ptr(), frame*peerSlots)
}

func (p *barePeer) run(frames int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t0 := time.Now()
	for i := 0; i < frames; i++ {
		off := uint64(i%peerSlots) * p.frame
		if err := p.stream.CopyPeer(p.b.Ptr().Add(off), p.dst, p.a.Ptr().Add(off), p.src, p.frame); err != nil {
			return 0, err
		}
	}
	if err := p.stream.Wait(ctx); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func (p *barePeer) close() {
	// A benchmark's clean-up: its figures are taken; errors here change none.
	if p.stream != nil {
		p.stream.Close()
	}
	for _, m := range []*cuda.DeviceMemory{p.a, p.b} {
		if m != nil {
			m.Close()
		}
	}
}

// peerRing is a Producer on d's GPU and a PeerConsumer on cx's.
type peerRing struct {
	d      *gfxcuda.Device
	cx     *cuda.Context
	tp     *testpattern.Producer
	imgs   []*vulkan.Image
	bufs   []*vulkan.Buffer
	slots  []*gfxcuda.Buffer // CUDA-allocated slots (bufs are their Vulkan side)
	p      *gfxcuda.Producer
	pc     *gfxcuda.PeerConsumer
	st     *cuda.Stream
	check  *testpattern.Checker
	frames int // checked so far
}

// newPeerRingSlots makes a ring with slots allocated by CUDA (fromCUDA) or
// by Vulkan.
func newPeerRingSlots(d *gfxcuda.Device, cx *cuda.Context, mode gfxcuda.PeerMode, fromCUDA bool) (_ *peerRing, err error) {
	r := &peerRing{d: d, cx: cx}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	vd := d.Vulkan()
	if r.tp, err = testpattern.NewProducer(vd); err != nil {
		return nil, err
	}
	var slots []any
	for i := 0; i < peerSlots; i++ {
		img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: frameW, Height: frameH})
		if err != nil {
			return nil, err
		}
		r.imgs = append(r.imgs, img)
		if fromCUDA {
			b, err := d.NewBufferFromCUDA(frameW * frameH * 4)
			if err != nil {
				return nil, err
			}
			r.slots = append(r.slots, b)
			r.bufs = append(r.bufs, b.Vulkan())
			slots = append(slots, b)
			continue
		}
		b, err := vd.NewBuffer(vulkan.BufferOptions{Size: frameW * frameH * 4, Exportable: true})
		if err != nil {
			return nil, err
		}
		r.bufs = append(r.bufs, b)
		slots = append(slots, b)
	}
	if r.p, err = gfxcuda.NewProducer(vd, gfxcuda.ProducerOptions{Slots: slots, Batch: peerBatch}); err != nil {
		return nil, err
	}
	if !r.p.GPUSync() {
		return nil, fmt.Errorf("%s cannot export timeline semaphores: the ring would synchronize on the host", vd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r.pc, err = gfxcuda.OpenPeerConsumer(ctx, cx, r.p.Token(), gfxcuda.PeerOptions{Mode: mode}); err != nil {
		return nil, err
	}
	if r.st, err = cx.NewStream(cuda.StreamNonBlocking); err != nil {
		return nil, err
	}
	if r.check, err = testpattern.NewChecker(cx, 528); err != nil {
		return nil, err
	}
	return r, nil
}

// run produces frames frames (a goroutine) and consumes them, checking
// every texel on the consumer's GPU; it returns the time until the last
// check ended. alone: the ring with nothing else — the producer records no
// work into its batches and the consumer releases each frame as soon as
// Next has queued its copy (the time until the last copy ended).
func (r *peerRing) run(frames int, alone bool) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	record := func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
		if !alone {
			r.tp.Record(c, r.imgs[slot], seq)
			c.CopyImageToBuffer(r.bufs[slot], r.imgs[slot], vulkan.BufferImageCopy{})
		}
		return nil, c.Err()
	}
	t0 := time.Now()
	perr := make(chan error, 1)
	go func() {
		for n := 0; n < frames; n += peerBatch {
			if _, err := r.p.Produce(ctx, record); err != nil {
				cancel()
				perr <- err
				return
			}
		}
		perr <- nil
	}()
	const n = frameW * frameH
	for i := 0; i < frames; i++ {
		f, err := r.pc.Next(ctx, r.st)
		if err != nil {
			cancel()
			return 0, errors.Join(fmt.Errorf("peer ring: frame %d: %w", i, err), <-perr)
		}
		if !alone {
			if err := r.check.Check(r.st, r.pc.Ptr(f), uint64(n), testpattern.Seed(f.Seq)); err != nil {
				cancel()
				return 0, errors.Join(err, <-perr)
			}
		}
		if err := r.pc.Release(f, r.st); err != nil {
			cancel()
			return 0, errors.Join(err, <-perr)
		}
	}
	if err := <-perr; err != nil {
		return 0, err
	}
	if err := r.st.Wait(ctx); err != nil {
		return 0, err
	}
	if !alone {
		r.frames += frames
	}
	return time.Since(t0), nil
}

// rate is a figure's measurement: frames through the ring (run), in GB/s.
func (r *peerRing) rate(frames int, alone bool) func() (float64, error) {
	return func() (float64, error) {
		d, err := r.run(frames, alone)
		return gbps(frames*peerFrame, d), err
	}
}

// verify fails when a checked texel was wrong.
func (r *peerRing) verify() error {
	if err := r.check.Verify(nil, r.frames); err != nil { // run waited for its stream
		return fmt.Errorf("peer ring: %w", err)
	}
	return nil
}

func (r *peerRing) close() error {
	var errs []error
	if r.pc != nil {
		errs = append(errs, r.pc.Close())
	}
	if r.p != nil {
		errs = append(errs, r.p.Close())
	}
	if r.st != nil {
		errs = append(errs, r.st.Close())
	}
	if r.check != nil {
		errs = append(errs, r.check.Close())
	}
	if r.slots != nil {
		for _, b := range r.slots {
			errs = append(errs, b.Close())
		}
	} else {
		for _, b := range r.bufs {
			errs = append(errs, b.Close())
		}
	}
	for _, img := range r.imgs {
		errs = append(errs, img.Close())
	}
	if r.tp != nil {
		errs = append(errs, r.tp.Close())
	}
	return errors.Join(errs...)
}
