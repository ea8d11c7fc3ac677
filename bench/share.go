package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ShareOpenModes are what ShareOpen's child process does with a token:
// open it with gfxcuda.OpenBuffer or OpenTexture (CUDA at once, Vulkan on
// first use) and report the open ("interop") or the open and the first
// Vulkan use ("interop+vulkan"); or open it into CUDA alone with
// OpenCUDABuffer or OpenCUDATexture and report the open ("cuda") or a
// second open of the same token in the same process, which reuses the
// import ("cuda-again").
const (
	OpenInterop       = "interop"
	OpenInteropVulkan = "interop+vulkan"
	OpenCUDA          = "cuda"
	OpenCUDAAgain     = "cuda-again"
)

// ShareOpenSteps and ShareRingSteps are the figures ShareOpen and
// ShareRing add (progress).
const (
	ShareOpenSteps = 7
	ShareRingSteps = 5
)

// ipcOpenName is IPCOpen's figure, the baseline of ShareOpen's.
const ipcOpenName = "open a CUDA IPC handle of 256 MiB in another process"

// ShareOpen measures opening share handles in another process, next to
// CUDA IPC's open of 256 MiB (IPCOpen, same run): a 256 MiB buffer the
// exporter allocated with CUDA (cuMemCreate, POSIX descriptor) or with
// Vulkan, and a 1080p RGBA8 texture, opened for CUDA use (OpenCUDABuffer,
// OpenCUDATexture), again in the same process (the import reused), and as
// interop resources (CUDA at once, Vulkan on first use, and with that
// first use). child runs that process on a token in a mode (ShareOpenModes)
// and returns the time the open took in it (the device already open).
func (s *Suite) ShareOpen(child func(tok gfxcuda.Token, mode string) (time.Duration, error)) error {
	const n = 256 << 20
	cu, err := s.D.NewBufferFromCUDA(n)
	if err != nil {
		return err
	}
	defer cu.Close()
	b, err := s.D.NewBuffer(n)
	if err != nil {
		return err
	}
	defer b.Close()
	tex, err := s.D.NewTexture(gfxcuda.TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	if err != nil {
		return err
	}
	defer tex.Close()
	vsIPC := func(target float64) func(*Figure) {
		return func(f *Figure) { f.Against, f.Target = ipcOpenName, target }
	}
	texTarget := func(f *Figure) {
		f.Against = ipcOpenName
		mark := "met"
		if f.Value > 1 {
			mark = "NOT met"
		}
		f.Note = "target ≤ 1 ms: " + mark
	}
	for _, c := range []struct {
		name string
		res  any
		mode string
		mod  func(*Figure)
	}{
		{"open a 256 MiB buffer handle for CUDA use in another process (cuMemCreate memory: cuMemImportFromShareableHandle)", cu, OpenCUDA, vsIPC(0.5)},
		{"open the same 256 MiB buffer handle again in that process (the import reused)", cu, OpenCUDAAgain, vsIPC(0)},
		{"open a 256 MiB buffer handle for CUDA use in another process (Vulkan memory: cuImportExternalMemory)", b, OpenCUDA, vsIPC(0)},
		{"open a 1080p texture handle for CUDA use in another process", tex, OpenCUDA, texTarget},
		{"open a 256 MiB buffer handle in another process (gfxcuda.Buffer: CUDA now, Vulkan on first use)", b, OpenInterop, vsIPC(0)},
		{"open a 256 MiB buffer handle in another process (Vulkan + CUDA)", b, OpenInteropVulkan, vsIPC(0)},
		{"open a 1080p texture handle in another process (Vulkan + CUDA)", tex, OpenInteropVulkan, vsIPC(0)},
	} {
		ex, err := gfxcuda.Export(c.res)
		if err != nil {
			return err
		}
		err = s.figure("one-time costs", c.name, "ms", func() (float64, error) {
			d, err := child(ex.Token(), c.mode)
			return float64(d.Nanoseconds()) / 1e6, err
		}, c.mod)
		ex.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// shareRings are the shapes ShareRing compares: slots, frames per batch.
var shareRings = []ringCase{{3, 1}, {16, 8}}

// ShareRing measures a gfxcuda.Producer (Vulkan, 1080p RGBA8 frames written
// by a compute shader) handing frames to a CUDA consumer in another
// process (child: it consumes frames frames of the ring's token and
// returns the frame rate it saw), next to gfxcuda.Ring in this process
// with the same shape and the same consumer work, in the same run. Both
// consumers copy every frame out of its CUDA array and check every texel
// on the GPU (gfx_check_hash): the figures include a full check of every
// frame, and a wrong texel fails the benchmark.
//
// The last shape runs a second time with the consumer in its own network
// namespace (another container): it reaches the producer through the
// filesystem socket, and must keep ≥ 0.9× the in-process ring too. That
// needs root (a new network namespace); elsewhere the figure says so.
func (s *Suite) ShareRing(child func(tok gfxcuda.Token, frames int, netns bool) (float64, error)) error {
	h, err := NewRingHarness(s.D, 16, 8)
	if err != nil {
		return err
	}
	defer h.Close()
	frames := s.O.Frames
	for _, rc := range shareRings {
		frames := (frames + rc.batch - 1) / rc.batch * rc.batch
		inName := fmt.Sprintf("gfxcuda.Ring in one process, %d slots, batches of %d (1080p, every texel checked)", rc.slots, rc.batch)
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
		name := fmt.Sprintf("gfxcuda.Producer → CUDA consumer in another process, %d slots, batches of %d (1080p, every texel checked)", rc.slots, rc.batch)
		err = s.figure("ring", name, "frames/s", func() (float64, error) { return s.crossRing(h, rc, frames, false, child) },
			func(f *Figure) { f.Against, f.Target = inName, 0.9 })
		if err != nil {
			return err
		}
		if rc != shareRings[len(shareRings)-1] {
			continue
		}
		name = fmt.Sprintf("gfxcuda.Producer → CUDA consumer in another process and network namespace (filesystem socket), %d slots, batches of %d (1080p, every texel checked)", rc.slots, rc.batch)
		if os.Geteuid() != 0 {
			s.add(Figure{Group: "ring", Name: name, Unit: "frames/s", Note: "not measured: a network namespace needs root"})
			continue
		}
		err = s.figure("ring", name, "frames/s", func() (float64, error) { return s.crossRing(h, rc, frames, true, child) },
			func(f *Figure) { f.Against, f.Target = inName, 0.9 })
		if err != nil {
			return err
		}
	}
	return nil
}

// crossRing runs one cross-process ring: it produces frames frames and
// returns the consumer's frame rate.
func (s *Suite) crossRing(h *RingHarness, rc ringCase, frames int, netns bool, child func(gfxcuda.Token, int, bool) (float64, error)) (float64, error) {
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
	p, err := gfxcuda.NewProducer(d, gfxcuda.ProducerOptions{Slots: slots, Batch: rc.batch})
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
		fps, err := child(p.Token(), frames, netns)
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
func ConsumeRingCUDA(ctx context.Context, cx *cuda.Context, tok gfxcuda.Token, frames int) (float64, error) {
	cc, err := gfxcuda.OpenCUDAConsumer(ctx, cx, tok)
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	check, err := testpattern.NewChecker(cx, 0)
	if err != nil {
		return 0, err
	}
	defer check.Close()
	const n = frameW * frameH
	lin, err := cx.Alloc(8 * n * 4)
	if err != nil {
		return 0, err
	}
	defer lin.Close()
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
		if err := check.Check(s, dst, uint64(n), testpattern.Seed(f.Seq)); err != nil {
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
	if err := check.Verify(nil, frames); err != nil { // s finished above
		return 0, fmt.Errorf("share ring: %w", err)
	}
	return float64(frames-1) / el.Seconds(), nil
}
