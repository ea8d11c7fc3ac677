package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/kernels"
	"github.com/gfxcuda/gfxcuda/internal/testpattern"
	"github.com/gfxcuda/gfxcuda/interop"
	"github.com/gfxcuda/gfxcuda/share"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ShareOpen measures opening share handles in another process: a 256 MiB
// buffer and a 1080p RGBA8 texture, imported into Vulkan and CUDA there.
// child runs that process on a token and returns the time the open took
// in it (the device already open), next to CUDA IPC's figure.
func (s *Suite) ShareOpen(child func(tok share.Token) (time.Duration, error)) error {
	b, err := s.D.NewBuffer(256 << 20)
	if err != nil {
		return err
	}
	defer b.Close()
	tex, err := s.D.NewTexture(interop.TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	if err != nil {
		return err
	}
	defer tex.Close()
	for _, c := range []struct {
		name string
		res  any
	}{{"open a 256 MiB buffer handle in another process (Vulkan + CUDA)", b},
		{"open a 1080p texture handle in another process (Vulkan + CUDA)", tex}} {
		ex, err := share.Export(c.res)
		if err != nil {
			return err
		}
		err = s.figure("one-time costs", c.name, "ms", func() (float64, error) {
			d, err := child(ex.Token())
			return float64(d.Microseconds()) / 1000, err
		}, func(f *Figure) { f.Against = "open a CUDA IPC handle of 256 MiB in another process" })
		ex.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// shareRings are the shapes ShareRing compares: slots, frames per batch.
var shareRings = []ringCase{{3, 1}, {16, 8}}

// ShareRing measures a share.Producer (Vulkan, 1080p RGBA8 frames written
// by a compute shader) handing frames to a CUDA consumer in another
// process (child: it consumes frames frames of the ring's token and
// returns the frame rate it saw), next to interop.Ring in this process
// with the same shape and the same consumer work, in the same run. Both
// consumers copy every frame out of its CUDA array and check every texel
// on the GPU (gfx_check_hash): the figures include a full check of every
// frame, and a wrong texel fails the benchmark.
func (s *Suite) ShareRing(child func(tok share.Token, frames int) (float64, error)) error {
	h, err := NewRingHarness(s.D, 16, 8)
	if err != nil {
		return err
	}
	defer h.Close()
	frames := s.O.Frames
	for _, rc := range shareRings {
		frames := (frames + rc.batch - 1) / rc.batch * rc.batch
		inName := fmt.Sprintf("interop.Ring in one process, %d slots, batches of %d (1080p, every texel checked)", rc.slots, rc.batch)
		err := s.figure("ring", inName, "frames/s", func() (float64, error) {
			if err := h.ResetErrors(); err != nil {
				return 0, err
			}
			fps, err := h.RunRing(rc, CopyMode, frames, true)
			if err != nil {
				return 0, err
			}
			if n, first, err := h.ReadErrors(); err != nil || n != 0 {
				return 0, fmt.Errorf("%d wrong texels (first at word %d): %v", n, first, err)
			}
			return fps, nil
		}, nil)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("share.Producer → CUDA consumer in another process, %d slots, batches of %d (1080p, every texel checked)", rc.slots, rc.batch)
		err = s.figure("ring", name, "frames/s", func() (float64, error) { return s.crossRing(h, rc, frames, child) },
			func(f *Figure) { f.Against, f.Target = inName, 0.9 })
		if err != nil {
			return err
		}
	}
	return nil
}

// crossRing runs one cross-process ring: it produces frames frames and
// returns the consumer's frame rate.
func (s *Suite) crossRing(h *RingHarness, rc ringCase, frames int, child func(share.Token, int) (float64, error)) (float64, error) {
	d := s.D.Vulkan()
	var slots []any
	for i := 0; i < rc.slots; i++ {
		img, err := d.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: frameW, Height: frameH, Exportable: true})
		if err != nil {
			return 0, err
		}
		defer img.Close()
		slots = append(slots, img)
	}
	p, err := share.NewProducer(d, share.ProducerOptions{Slots: slots, Batch: rc.batch})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	if !p.GPUSync() {
		return 0, fmt.Errorf("%s cannot export timeline semaphores: the cross-process ring would synchronize on the host", d)
	}
	type result struct {
		fps float64
		err error
	}
	done := make(chan result, 1)
	go func() {
		fps, err := child(p.Token(), frames)
		done <- result{fps, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	wait := func() error {
		for p.Ring().Consumers() < 1 {
			select {
			case r := <-done:
				return fmt.Errorf("the consumer process ended before attaching: %v", r.err)
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return nil
	}
	if err := wait(); err != nil {
		return 0, err
	}
	record := func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
		h.Prod.Record(c, slots[slot].(*vulkan.Image), seq)
		return nil, c.Err()
	}
	for n := 0; n < frames; n += rc.batch {
		if _, err := p.Produce(ctx, record); err != nil {
			return 0, err
		}
	}
	r := <-done
	return r.fps, r.err
}

// ConsumeRingCUDA consumes frames frames of a ring of 1080p RGBA8 images
// in CUDA context cx, as ShareRing's consumer process: each frame is copied
// out of its CUDA array and every texel checked against the test pattern
// on the GPU. It returns the frame rate from the first frame's arrival to
// the last one's check, and fails on any wrong texel.
func ConsumeRingCUDA(ctx context.Context, cx *cuda.Context, tok share.Token, frames int) (float64, error) {
	cc, err := share.OpenCUDAConsumer(ctx, cx, tok)
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	mod, err := cx.LoadModule(kernels.PTX)
	if err != nil {
		return 0, err
	}
	defer mod.Close()
	check, err := mod.Function(kernels.CheckHash)
	if err != nil {
		return 0, err
	}
	const n = frameW * frameH
	lin, err := cx.Alloc(8 * n * 4)
	if err != nil {
		return 0, err
	}
	defer lin.Close()
	errs, err := cx.Alloc(16)
	if err != nil {
		return 0, err
	}
	defer errs.Close()
	if err := errors.Join(s.Memset8(errs.Ptr(), 0, 8), s.Memset32(errs.Ptr().Add(8), 0xffffffff, 1)); err != nil {
		return 0, err
	}
	var t0 time.Time
	for i := 0; i < frames; i++ {
		f, err := cc.Next(ctx, s)
		if err != nil {
			return 0, fmt.Errorf("frame %d: %w", i, err)
		}
		if i == 0 {
			t0 = time.Now()
		}
		dst := lin.Ptr().Add(uint64(i%8) * n * 4)
		if err := s.CopyFromArray(cuda.ArrayCopy{Array: cc.Array(f), Ptr: dst}); err != nil {
			return 0, err
		}
		if err := check.Launch(s, cuda.Dim3{X: 264}, cuda.Dim3{X: 256}, 0, dst, uint64(n), testpattern.Seed(f.Seq), errs.Ptr(), errs.Ptr().Add(8)); err != nil {
			return 0, err
		}
		if err := cc.Release(f, s); err != nil {
			return 0, err
		}
	}
	if err := s.Synchronize(); err != nil {
		return 0, err
	}
	el := time.Since(t0)
	// s is non-blocking and finished above: a synchronous copy reads the
	// counters (Stream.CopyDtoH takes only pinned memory).
	var b [16]byte
	if err := cx.CopyDtoH(b[:], errs.Ptr()); err != nil {
		return 0, err
	}
	if bad := binary.LittleEndian.Uint64(b[:]); bad != 0 {
		return 0, fmt.Errorf("share ring: %d wrong texels over %d frames (first at word %d)", bad, frames, binary.LittleEndian.Uint32(b[8:]))
	}
	return float64(frames-1) / el.Seconds(), nil
}
