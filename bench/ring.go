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

// ringCase is one ring configuration.
type ringCase struct {
	slots, batch int
}

var copyRings = []ringCase{{1, 1}, {3, 1}, {8, 1}, {16, 8}, {64, 32}, {128, 32}}

// RingSteps is the number of figures Rings adds.
func RingSteps(quick bool) int { return 3 + len(copyRings) + 6 }

// Frames of the ring benchmarks: 1080p RGBA8, written by a Vulkan compute
// shader (testpattern), consumed by CUDA.
const frameW, frameH = 1920, 1080

// RingHarness holds what the ring benchmarks and stress tests share.
type RingHarness struct {
	D      *gfxcuda.Device
	Prod   *testpattern.Producer
	Pass   *gfxcuda.VulkanConverter
	Tensor *cuda.DeviceMemory // consumer's destination: one frame per batch position
	// Checker checks the consumer's frames against the pattern.
	Checker *testpattern.Checker
	// Overwrite makes the rings of RunRing and RunLearner with
	// gfxcuda.RingOptions.Overwrite (the tensor-layout producer writes
	// every byte of its buffer slot; texture slots are acquired anyway).
	Overwrite bool
	texs      []*gfxcuda.Texture
	bufs      []*gfxcuda.Buffer
}

// NewRingHarness prepares the producer pipeline, up to maxSlots frame
// textures and tensor buffers, and the consumer's memory.
func NewRingHarness(d *gfxcuda.Device, maxSlots, maxBatch int) (*RingHarness, error) {
	h := &RingHarness{D: d}
	var err error
	if h.Prod, err = testpattern.NewProducer(d.Vulkan()); err != nil {
		return nil, err
	}
	if h.Pass, err = gfxcuda.NewVulkanConverter(d.Vulkan(), gfxcuda.TensorLayout{DType: format.Uint8}); err != nil {
		h.Close()
		return nil, err
	}
	for i := 0; i < maxSlots; i++ {
		t, err := d.NewTexture(gfxcuda.TextureOptions{Format: format.RGBA8UNorm, Width: frameW, Height: frameH})
		if err != nil {
			h.Close()
			return nil, err
		}
		h.texs = append(h.texs, t)
		b, err := d.NewBuffer(frameW * frameH * 4)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.bufs = append(h.bufs, b)
	}
	if h.Tensor, err = d.CUDA().Alloc(uint64(maxBatch) * frameW * frameH * 4); err != nil {
		h.Close()
		return nil, err
	}
	if h.Checker, err = testpattern.NewChecker(d.CUDA(), 0); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// ResetErrors zeroes the error counter (and sets "first bad" to none).
func (h *RingHarness) ResetErrors() error { return h.Checker.Reset() }

// ReadErrors returns the error count and the first bad word index, once
// the checks queued have finished.
func (h *RingHarness) ReadErrors() (uint64, uint32, error) {
	n, err := h.Checker.Result(nil)
	return n.Wrong, n.First, err
}

// Close frees everything.
func (h *RingHarness) Close() error {
	var err error
	for _, t := range h.texs {
		err = errors.Join(err, t.Close())
	}
	for _, b := range h.bufs {
		err = errors.Join(err, b.Close())
	}
	if h.Tensor != nil {
		err = errors.Join(err, h.Tensor.Close())
	}
	if h.Checker != nil {
		err = errors.Join(err, h.Checker.Close())
	}
	if h.Pass != nil {
		err = errors.Join(err, h.Pass.Close())
	}
	if h.Prod != nil {
		err = errors.Join(err, h.Prod.Close())
	}
	return err
}

// Mode is what the consumer does per frame.
type Mode int

// Ring modes.
const (
	// CopyMode: frames are textures; CUDA copies each into the tensor.
	CopyMode Mode = iota
	// TensorMode: the producer also writes each frame in tensor layout into
	// a shared buffer; CUDA does no work per frame.
	TensorMode
)

// RunRing streams frames through a ring of the given shape and returns
// frames per second. With verify, CUDA checks every texel of every frame
// (gfx_check_hash) and the error counter says how many were wrong. With
// adaptive, the consumer takes every produced batch at once (ConsumeAll).
func (h *RingHarness) RunRing(rc ringCase, mode Mode, frames int, verify bool, adaptive ...bool) (float64, error) {
	d := h.D
	if rc.slots > len(h.texs) {
		return 0, fmt.Errorf("ring of %d slots: harness has %d", rc.slots, len(h.texs))
	}
	slots := make([]gfxcuda.Resource, rc.slots)
	for i := range slots {
		if mode == CopyMode {
			slots[i] = h.texs[i]
		} else {
			slots[i] = h.bufs[i]
		}
	}
	r, err := d.NewRingWith(slots, gfxcuda.RingOptions{Batch: rc.batch, Overwrite: h.Overwrite})
	if err != nil {
		return 0, err
	}
	const n = frameW * frameH
	produce := func(c *vulkan.Commands, slot int, frame uint64) error {
		if mode == CopyMode {
			h.Prod.Record(c, h.texs[slot].Vulkan(), frame)
			return c.Err()
		}
		// Render into a scratch texture (the last one), then lay the frame
		// out as a tensor in the slot's buffer.
		scratch := h.texs[len(h.texs)-1].Vulkan()
		h.Prod.Record(c, scratch, frame)
		return h.Pass.Record(c, scratch, h.bufs[slot].Vulkan())
	}
	consume := func(slot int, frame uint64, s *cuda.Stream) error {
		var p cuda.DevicePtr
		if mode == CopyMode {
			p = h.Tensor.Ptr().Add(uint64(int(frame)%rc.batch) * n * 4)
			if err := s.CopyFromArray(cuda.ArrayCopy{Array: h.texs[slot].Array(), Ptr: p}); err != nil {
				return err
			}
		} else {
			p = h.bufs[slot].Ptr()
		}
		if verify {
			return h.Checker.Check(s, p, uint64(n), testpattern.Seed(frame))
		}
		return nil
	}
	t0 := time.Now()
	batches := (frames + rc.batch - 1) / rc.batch
	perRing := rc.slots / rc.batch
	produced := 0
	for consumed := 0; consumed < batches; {
		// Keep the producer a ring ahead when it can be.
		if produced < batches && produced < consumed+perRing {
			if err := r.Produce(context.Background(), produce); err != nil {
				r.Close()
				return 0, err
			}
			produced++
			continue
		}
		if len(adaptive) > 0 && adaptive[0] {
			n, err := r.ConsumeAll(nil, consume)
			if err != nil {
				r.Close()
				return 0, err
			}
			consumed += n / rc.batch
			continue
		}
		if err := r.Consume(nil, consume); err != nil {
			r.Close()
			return 0, err
		}
		consumed++
	}
	err = r.Close() // waits for the last batch
	el := time.Since(t0)
	return float64(batches*rc.batch) / el.Seconds(), err
}

// LearnerResult is what a learner-mode run measured.
type LearnerResult struct {
	// FPS is frames produced per second, from the first Produce until the
	// ring closed (the learner's stream and Vulkan finished).
	FPS float64
	// Returned and Skipped count the frames Next returned and skipped.
	Returned, Skipped int
}

// learnerRing is the learner-mode ring of the benchmark and stress test.
var learnerRing = ringCase{128, 32}

// RunLearner streams frames through a learner-mode ring
// (gfxcuda.RingOptions.HostObserved) of buffers the producer writes in
// tensor layout (NHWC uint8): the producer runs on its own goroutine, the
// learner calls Next on its own stream as fast as it can. With verify, the
// learner checks every texel of every frame Next returns on its stream
// (gfx_check_hash; the error counter says how many were wrong) before
// releasing it; without, the learner queues no work. Frames of skipped
// batches are counted, not checked: the producer may reuse their slots at
// once.
func (h *RingHarness) RunLearner(rc ringCase, frames int, verify bool) (LearnerResult, error) {
	d := h.D
	if rc.slots > len(h.bufs) {
		return LearnerResult{}, fmt.Errorf("ring of %d slots: harness has %d", rc.slots, len(h.bufs))
	}
	slots := make([]gfxcuda.Resource, rc.slots)
	for i := range slots {
		slots[i] = h.bufs[i]
	}
	stream, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return LearnerResult{}, err
	}
	r, err := d.NewRingWith(slots, gfxcuda.RingOptions{Batch: rc.batch, HostObserved: true, Overwrite: h.Overwrite,
		Shape: []int64{frameH, frameW, 4}, DType: format.Uint8})
	if err != nil {
		return LearnerResult{}, errors.Join(err, stream.Close())
	}
	const n = frameW * frameH
	scratch := h.texs[len(h.texs)-1].Vulkan()
	produce := func(c *vulkan.Commands, slot int, frame uint64) error {
		h.Prod.Record(c, scratch, frame)
		return h.Pass.Record(c, scratch, h.bufs[slot].Vulkan())
	}
	batches := (frames + rc.batch - 1) / rc.batch
	var res LearnerResult
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	t0 := time.Now()
	perr := make(chan error, 1)
	go func() {
		var err error
		for k := 0; k < batches && err == nil; k++ {
			err = r.Produce(ctx, produce)
		}
		if err != nil {
			cancel() // the learner would wait for batches that never come
		}
		perr <- err
	}()
	var lerr error
	for r.Consumed() < uint64(batches) && lerr == nil {
		var b *gfxcuda.Batch
		if b, lerr = r.Next(ctx, stream); lerr != nil {
			cancel()
			break
		}
		res.Returned += b.Frames()
		for i := 0; i < b.Frames() && verify && lerr == nil; i++ {
			v := b.Tensor(i)
			lerr = h.Checker.Check(stream, v.Ptr, uint64(n), testpattern.Seed(b.Frame(i)))
		}
	}
	err = errors.Join(<-perr, lerr)
	err = errors.Join(err, r.Close()) // waits for the learner's stream and the last batch
	el := time.Since(t0)
	res.Skipped = int(r.Skipped()) * rc.batch
	res.FPS = float64(batches*rc.batch) / el.Seconds()
	return res, errors.Join(err, stream.Close())
}

// ProducerAlone runs the producer with no CUDA involvement: frames/s.
func (h *RingHarness) ProducerAlone(mode Mode, batch, frames int) (float64, error) {
	d, err := submitInFlight(h.D.Vulkan(), (frames+batch-1)/batch, func(c *vulkan.Commands, k int) error {
		f := k * batch
		for i := 0; i < batch; i++ {
			slot := (f + i) % (len(h.texs) - 1)
			if mode == CopyMode {
				h.Prod.Record(c, h.texs[slot].Vulkan(), uint64(f+i))
			} else {
				scratch := h.texs[len(h.texs)-1].Vulkan()
				h.Prod.Record(c, scratch, uint64(f+i))
				h.Pass.Record(c, scratch, h.bufs[slot].Vulkan())
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return float64(frames) / d.Seconds(), nil
}

// ConsumerAlone runs CUDA's per-frame copy with no Vulkan involvement.
func (h *RingHarness) ConsumerAlone(frames int) (float64, error) {
	acc, err := h.D.ToCUDA(nil, h.texs[0])
	if err != nil {
		return 0, err
	}
	s := acc.Stream()
	d, err := eventTimed(h.D.CUDA(), s, func() error {
		for f := 0; f < frames; f++ {
			if err := s.CopyFromArray(cuda.ArrayCopy{Array: h.texs[0].Array(), Ptr: h.Tensor.Ptr()}); err != nil {
				return err
			}
		}
		return nil
	})
	return float64(frames) / d.Seconds(), errors.Join(err, acc.Done())
}

// Rings measures the bounds and every ring configuration.
func (s *Suite) Rings() error {
	h, err := NewRingHarness(s.D, 129, 32)
	if err != nil {
		return err
	}
	defer h.Close()
	frames := s.O.Frames
	const g = "ring, 1080p RGBA8 frames: Vulkan compute writes, CUDA copies each to a tensor"
	var prod, cons float64
	if err := s.figure(g, "producer alone (Vulkan)", "frames/s", func() (float64, error) { return h.ProducerAlone(CopyMode, 32, frames) },
		func(f *Figure) { prod = f.Value }); err != nil {
		return err
	}
	if err := s.figure(g, "consumer alone (CUDA copy)", "frames/s", func() (float64, error) { return h.ConsumerAlone(frames) },
		func(f *Figure) { cons = f.Value }); err != nil {
		return err
	}
	serial := 1 / (1/prod + 1/cons)
	s.add(Figure{Group: g, Name: "serial bound 1/(t_producer + t_consumer)", Value: serial, Unit: "frames/s", Note: "what time-slicing allows"})
	if s.Progress != nil {
		s.Progress.Step(g + ": serial bound")
	}
	for _, rc := range copyRings {
		name := fmt.Sprintf("ring %d slots, batch %d", rc.slots, rc.batch)
		if rc.slots == 1 {
			name = "one frame at a time (1 slot)"
		}
		n := frames
		if rc.batch == 1 {
			n = frames / 4
		}
		mod := func(f *Figure) { f.Against = "serial bound 1/(t_producer + t_consumer)" }
		if rc.batch == 32 {
			mod = func(f *Figure) { f.Against, f.Target = "serial bound 1/(t_producer + t_consumer)", 0.8 }
		}
		if err := s.figure(g, name, "frames/s", func() (float64, error) { return h.RunRing(rc, CopyMode, n, false) }, mod); err != nil {
			return err
		}
	}
	if err := s.figure(g, "ring 128 slots, batch 32, consumer adaptive (all produced batches per hand-off)", "frames/s",
		func() (float64, error) { return h.RunRing(ringCase{128, 32}, CopyMode, frames, false, true) },
		func(f *Figure) { f.Against = "serial bound 1/(t_producer + t_consumer)" }); err != nil {
		return err
	}
	const g2 = "ring, producer writes the tensor layout (NHWC uint8), no CUDA work per frame"
	if err := s.figure(g2, "producer alone (render + tensor pass)", "frames/s", func() (float64, error) { return h.ProducerAlone(TensorMode, 32, frames) }, nil); err != nil {
		return err
	}
	if err := s.figure(g2, "ring 64 slots, batch 32", "frames/s", func() (float64, error) { return h.RunRing(ringCase{64, 32}, TensorMode, frames, false) },
		func(f *Figure) { f.Against, f.Target = "producer alone (render + tensor pass)", 0.9 }); err != nil {
		return err
	}
	if err := s.figure(g2, "ring 128 slots, batch 32", "frames/s", func() (float64, error) { return h.RunRing(ringCase{128, 32}, TensorMode, frames, false) },
		func(f *Figure) { f.Against = "producer alone (render + tensor pass)" }); err != nil {
		return err
	}
	if err := s.figure(g2, "ring 128 slots, batch 32, consumer adaptive", "frames/s",
		func() (float64, error) { return h.RunRing(ringCase{128, 32}, TensorMode, frames, false, true) },
		func(f *Figure) { f.Against = "producer alone (render + tensor pass)" }); err != nil {
		return err
	}
	// Learner mode: CUDA stays off the GPU until the learner has work
	// (host-observed completion, Next per learner step, release by CUDA
	// event); the learner here queues no work of its own.
	return s.paired(g2, "learner mode (host-observed, Next per step), 128 slots, batch 32", "frames/s",
		"producer alone (render + tensor pass)",
		func() (float64, error) { return h.ProducerAlone(TensorMode, 32, frames) },
		func() (float64, error) {
			res, err := h.RunLearner(learnerRing, frames, false)
			return res.FPS, err
		}, 0.95)
}
