package cli

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// shareGPU is `gfxcuda share` with GPU frames: a compute shader writes each
// frame's test pattern into RGBA8 textures of a gfxcuda.Producer.
func shareGPU(ctx context.Context, d *vulkan.Device, slots, batch, width, height, frames int, drop bool, eo gfxcuda.ExportOptions,
	announce func(gfxcuda.Token) error, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	tp, err := testpattern.NewProducer(d)
	if err != nil {
		return fail(err)
	}
	defer tp.Close()
	var imgs []*vulkan.Image
	var res []any
	for i := 0; i < slots; i++ {
		img, err := d.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: uint32(width), Height: uint32(height), Exportable: true})
		if err != nil {
			return fail(err)
		}
		defer img.Close()
		imgs, res = append(imgs, img), append(res, img)
	}
	p, err := gfxcuda.NewProducer(d, gfxcuda.ProducerOptions{Slots: res, Batch: batch, DropOldest: drop, Export: eo})
	if err != nil {
		return fail(err)
	}
	defer p.Close()
	how := "handed over on the GPU (exported timeline semaphores)"
	if !p.GPUSync() {
		how = "completed on the host before each hand-off (this driver exports no timeline semaphores)"
	}
	fmt.Fprintf(stdout, "ring of %d × %dx%d RGBA8 textures on %s, batches of %d, %s; in another terminal run:\n\n  gfxcuda open %s\n\n(add --cuda to consume in CUDA)\n",
		slots, width, height, d, batch, how, p.Token())
	if err := announce(p.Token()); err != nil {
		return fail(err)
	}
	fmt.Fprintln(stdout, "waiting for a consumer…")
	if err := p.Ring().WaitConsumers(ctx, 1); err != nil && !stopped(ctx) {
		return fail(err)
	}
	record := func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
		tp.Record(c, imgs[slot], seq)
		return binary.LittleEndian.AppendUint64(nil, seq), c.Err()
	}
	t0, last, lastN := time.Now(), time.Now(), 0
	n := 0
	// The context is looked at every batch: Produce waits on it only
	// while consumers hold the slots (never once the last one has left).
	for (frames == 0 || n < frames) && ctx.Err() == nil {
		if _, err := p.Produce(ctx, record); err != nil {
			if stopped(ctx) {
				break
			}
			return fail(err)
		}
		n += batch
		if time.Since(last) >= time.Second {
			fmt.Fprintf(stdout, "produced %d frames, %.0f frames/s, %d consumer(s)\n", n, float64(n-lastN)/time.Since(last).Seconds(), p.Ring().Consumers())
			last, lastN = time.Now(), n
		}
	}
	el := time.Since(t0)
	note, rc := endOfRun(ctx, uint64(n), uint64(frames))
	fmt.Fprintf(stdout, "produced %d frames in %v: %.0f frames/s%s\n", n, el.Round(time.Millisecond), perSecond(float64(n), el), note)
	return rc
}

// openVulkan consumes a ring of textures in Vulkan: each frame is copied to
// a host-visible buffer in the consumer's own submission and every texel
// compared with the pattern. vc is the ring's one attachment (runOpen's).
func openVulkan(ctx context.Context, d *vulkan.Device, vc *gfxcuda.VulkanConsumer, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gfxcuda open:", err)
		return 1
	}
	o := vc.Image(0).Options()
	size := int(o.Width * o.Height * 4)
	rb, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(size), Heap: vulkan.HeapReadback})
	if err != nil {
		return fail(err)
	}
	defer rb.Close()
	got := make([]byte, size)
	fmt.Fprintf(stdout, "consuming %d slots of %dx%d texels on %s in Vulkan (GPU hand-off: %v)\n", len(vc.Consumer().Slots()), o.Width, o.Height, d, vc.Consumer().GPUSync())
	n, bad, dropped := 0, 0, uint64(0)
	t0, last, lastN := time.Now(), time.Now(), 0
	// The context is looked at every frame: Next waits on it only while
	// no frame is there.
	for ctx.Err() == nil {
		f, err := vc.Next(ctx)
		if errors.Is(err, gfxcuda.ErrSharedRingClosed) || (err != nil && stopped(ctx)) {
			break
		}
		if err != nil {
			return fail(err)
		}
		err = vc.Consume(ctx, func(c *vulkan.Commands, f *gfxcuda.Frame) error {
			c.CopyImageToBuffer(rb, vc.Image(f.Slot), vulkan.BufferImageCopy{})
			return c.Err()
		}, f)
		if err == nil {
			err = d.WaitIdle()
		}
		if err == nil {
			err = rb.Readback(0, got)
		}
		if err != nil && stopped(ctx) {
			break // a frame not consumed: not counted
		}
		if err != nil {
			return fail(err)
		}
		seed := testpattern.Seed(f.Seq)
		for i := 0; i < size; i += 4 {
			if binary.LittleEndian.Uint32(got[i:]) != testpattern.Texel(uint32(i/4), seed) {
				bad++
				break
			}
		}
		dropped += f.Dropped
		n++
		if time.Since(last) >= time.Second {
			fmt.Fprintf(stdout, "frame %d: %.0f frames/s, %d checked, %d bad, %d dropped\n", f.Seq,
				float64(n-lastN)/time.Since(last).Seconds(), n, bad, dropped)
			last, lastN = time.Now(), n
		}
	}
	el := time.Since(t0)
	note, _ := endOfRun(ctx, uint64(n), 0)
	fmt.Fprintf(stdout, "%d frames in %v (%.0f frames/s): every texel of %d checked, %d bad, %d dropped%s\n", n,
		el.Round(time.Millisecond), perSecond(float64(n), el), n, bad, dropped, note)
	if bad > 0 {
		return 1
	}
	return 0
}

// cudaContext retains the primary context of the CUDA device with UUID u.
func cudaContext(u cuda.UUID) (*cuda.Context, error) {
	if err := cuda.Init(); err != nil {
		return nil, err
	}
	dev, err := cuda.DeviceByUUID(u)
	if err != nil {
		return nil, err
	}
	return dev.PrimaryContext()
}

// openCUDA is `gfxcuda open --cuda`: consumes a ring of textures in CUDA,
// checking every texel of every frame on the GPU.
func openCUDA(ctx context.Context, tok gfxcuda.Token, oo gfxcuda.OpenOptions, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gfxcuda open:", err)
		return 1
	}
	m, err := tok.Meta()
	if err != nil {
		return fail(err)
	}
	cx, err := cudaContext(cuda.UUID(m.UUID))
	if err != nil {
		return fail(err)
	}
	defer cx.Close()
	cc, err := gfxcuda.OpenCUDAConsumer(ctx, cx, tok, oo)
	if err != nil {
		if stopped(ctx) {
			return openInterrupted(ctx, stdout)
		}
		return fail(err)
	}
	defer cc.Close()
	if cc.Texture(0) == nil {
		return fail(errors.New("--cuda needs a ring of textures: start the producer without --cpu"))
	}
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	check, err := testpattern.NewChecker(cx, 0)
	if err != nil {
		return fail(err)
	}
	defer check.Close()
	desc := cc.Texture(0).Array().Desc()
	texels := desc.Width * desc.Height
	lin, err := cx.Alloc(texels * 4)
	if err != nil {
		return fail(err)
	}
	defer lin.Close()
	readBad := func() (uint64, error) {
		n, err := check.Result(s)
		return n.Wrong, err
	}
	fmt.Fprintf(stdout, "consuming %d slots of %dx%d texels in CUDA on device %d (GPU hand-off: %v)\n", len(cc.Consumer().Slots()),
		desc.Width, desc.Height, cx.Device().Ordinal(), cc.Consumer().GPUSync())
	n, dropped := 0, uint64(0)
	var bad uint64
	t0, last, lastN := time.Now(), time.Now(), 0
	// The context is looked at every frame: Next waits on it only while
	// no frame is there.
	for ctx.Err() == nil {
		f, err := cc.Next(ctx, s)
		if errors.Is(err, gfxcuda.ErrSharedRingClosed) || (err != nil && stopped(ctx)) {
			break
		}
		if err != nil {
			return fail(err)
		}
		err = s.CopyFromArray(cuda.ArrayCopy{Array: cc.Array(f), Ptr: lin.Ptr()})
		if err == nil {
			err = check.Check(s, lin.Ptr(), texels, testpattern.Seed(f.Seq))
		}
		if err == nil {
			err = cc.Release(f, s)
		}
		if err != nil {
			return fail(err)
		}
		dropped += f.Dropped
		n++
		if time.Since(last) >= time.Second {
			if bad, err = readBad(); err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "frame %d: %.0f frames/s, %d checked, %d bad texels, %d dropped\n", f.Seq,
				float64(n-lastN)/time.Since(last).Seconds(), n, bad, dropped)
			last, lastN = time.Now(), n
		}
	}
	if bad, err = readBad(); err != nil {
		return fail(err)
	}
	el := time.Since(t0)
	note, _ := endOfRun(ctx, uint64(n), 0)
	fmt.Fprintf(stdout, "%d frames in %v (%.0f frames/s): every texel checked on the GPU, %d bad texels, %d dropped%s\n", n,
		el.Round(time.Millisecond), perSecond(float64(n), el), bad, dropped, note)
	if bad > 0 {
		return 1
	}
	return 0
}
