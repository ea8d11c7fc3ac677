package bench

import (
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/vkown"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// own is package vulkan's queue-family ownership transfers (see
// internal/vkown), which BenchmarkQueueFamilyTransfers records the way the
// hand-offs do.
var own = vkown.Get[*vulkan.Commands, *vulkan.Buffer, *vulkan.Image, vulkan.ImageLayout]()

// BenchmarkRecordTensorFrames records (does not submit) what the tensor
// ring's producer records per batch: 32 frames of render + tensor pass,
// each into another buffer. It is the producer's host cost, on any Vulkan
// device (lavapipe included): the ring benchmarks compare against the
// producer's GPU rate only while this stays well below it.
func BenchmarkRecordTensorFrames(b *testing.B) {
	vd := vulkanDevice(b)
	prod, err := testpattern.NewProducer(vd)
	if err != nil {
		b.Fatal(err)
	}
	defer prod.Close()
	pass, err := gfxcuda.NewVulkanConverter(vd, gfxcuda.TensorLayout{DType: format.Uint8})
	if err != nil {
		b.Fatal(err)
	}
	defer pass.Close()
	img, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: 64, Height: 64})
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	var bufs []*vulkan.Buffer
	for i := 0; i < 32; i++ {
		buf, err := vd.NewBuffer(vulkan.BufferOptions{Size: 64 * 64 * 4})
		if err != nil {
			b.Fatal(err)
		}
		defer buf.Close()
		bufs = append(bufs, buf)
	}
	c, err := vd.NewCommands()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for f := 0; f < 32; f++ {
			prod.Record(c, img, uint64(f))
			if err := pass.Record(c, img, bufs[f]); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.Reset(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/32, "µs/frame")
}

// vulkanDevice opens the first Vulkan device, validation off, or skips.
func vulkanDevice(b *testing.B) *vulkan.Device {
	off := false
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &off})
	if err != nil {
		b.Skipf("no Vulkan: %v", err)
	}
	b.Cleanup(func() { inst.Close() })
	pds, err := inst.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		b.Skipf("no Vulkan device: %v", err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { vd.Close() })
	return vd
}

// BenchmarkQueueFamilyTransfers measures, on the GPU alone (batches
// recorded once and resubmitted), what the ring's queue family transfers
// cost the tensor producer per batch of 32 frames: none, one barrier
// command per buffer each way (what rings recorded before), and one
// barrier command for all the batch's buffers each way (what they record
// now).
func BenchmarkQueueFamilyTransfers(b *testing.B) {
	d := openGPU(b)
	h, err := NewRingHarness(d, 129, 32)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for _, c := range []struct {
		name string
		xfer int
	}{{"none", 0}, {"per-buffer", 1}, {"one-barrier", 2}} {
		b.Run(c.name, func(b *testing.B) {
			fps, err := producerTransfers(h, 32, max(b.N, 2048), c.xfer)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(fps, "frames/s")
		})
	}
}

// producerTransfers runs the tensor producer (as ProducerAlone) with, per
// batch, the acquire of the batch's buffers before and their release after:
// none (0), one barrier command per buffer (1) or one for all (2). The
// first 4 batches are recorded, then resubmitted as recorded: the GPU's
// rate, not the host's.
func producerTransfers(h *RingHarness, batch, frames, xfer int) (float64, error) {
	vd := h.D.Vulkan()
	var cmds []*vulkan.Commands
	defer func() {
		for _, c := range cmds {
			c.Close()
		}
	}()
	nbuf := len(h.bufs) - 1
	scratch := h.texs[len(h.texs)-1].Vulkan()
	t0 := time.Now()
	for f := 0; f < frames; f += batch {
		if len(cmds) >= 4 {
			c := cmds[(f/batch)%4]
			if err := c.Wait(-1); err != nil {
				return 0, err
			}
			if err := c.Reuse(); err != nil {
				return 0, err
			}
			if err := c.Submit(vulkan.SubmitOptions{}); err != nil {
				return 0, err
			}
			continue
		}
		c, err := vd.NewCommands()
		if err != nil {
			return 0, err
		}
		cmds = append(cmds, c)
		var bs []*vulkan.Buffer
		for i := 0; i < batch; i++ {
			bs = append(bs, h.bufs[(f+i)%nbuf].Vulkan())
		}
		switch xfer {
		case 1:
			for _, b := range bs {
				own.AcquireBuffers(c, b)
			}
		case 2:
			own.AcquireBuffers(c, bs...)
		}
		for i := 0; i < batch; i++ {
			h.Prod.Record(c, scratch, uint64(f+i))
			if err := h.Pass.Record(c, scratch, bs[i]); err != nil {
				return 0, err
			}
		}
		switch xfer {
		case 1:
			for _, b := range bs {
				own.ReleaseBuffers(c, b)
			}
		case 2:
			own.ReleaseBuffers(c, bs...)
		}
		if err := c.Submit(vulkan.SubmitOptions{}); err != nil {
			return 0, err
		}
	}
	for _, c := range cmds {
		if err := c.Wait(-1); err != nil {
			return 0, err
		}
	}
	return float64(frames) / time.Since(t0).Seconds(), nil
}
