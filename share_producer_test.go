//go:build linux

package gfxcuda

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// patternProducer makes a Producer over n exportable RGBA8 images of w×h
// that a compute shader fills with each frame's test pattern.
func patternProducer(t testing.TB, d *vulkan.Device, n, batch int, w, h uint32, o ProducerOptions) (*Producer, func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error)) {
	t.Helper()
	return patternSlots(t, d, n, batch, w, h, o, slotTextures, nil)
}

// patternSlots makes a Producer over n slots of w×h RGBA8 texels whose
// frames the pattern shader renders into an image each: the exportable
// images themselves (slotTextures), or buffers the images are copied
// into: exportable Vulkan buffers (slotBuffers) or buffers allocated by
// CUDA on dev (slotCUDA: Device.NewBufferFromCUDA; the producer is then
// on dev's Vulkan device, d is not used). The record function's user
// bytes are seq×7.
func patternSlots(t testing.TB, d *vulkan.Device, n, batch int, w, h uint32, o ProducerOptions, kind int, dev *Device) (*Producer, func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error)) {
	t.Helper()
	if kind == slotCUDA {
		d = dev.Vulkan()
	}
	tp, err := testpattern.NewProducer(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	var imgs []*vulkan.Image
	var bufs []*vulkan.Buffer
	for i := 0; i < n; i++ {
		img, err := d.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: w, Height: h, Exportable: kind == slotTextures})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { img.Close() })
		imgs = append(imgs, img)
		switch kind {
		case slotTextures:
			o.Slots = append(o.Slots, img)
		case slotCUDA:
			b, err := dev.NewBufferFromCUDA(uint64(w) * uint64(h) * 4)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			if !b.FromCUDA() {
				t.Fatal("NewBufferFromCUDA: FromCUDA false")
			}
			bufs = append(bufs, b.Vulkan())
			o.Slots = append(o.Slots, b)
		default:
			b, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(w) * uint64(h) * 4, Exportable: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			bufs = append(bufs, b)
			o.Slots = append(o.Slots, b)
		}
	}
	o.Batch = batch
	p, err := NewProducer(d, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	record := func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
		tp.Record(c, imgs[slot], seq)
		if kind != slotTextures {
			c.CopyImageToBuffer(bufs[slot], imgs[slot], vulkan.BufferImageCopy{})
		}
		return binary.LittleEndian.AppendUint64(nil, seq*7), c.Err()
	}
	return p, record
}

// checkPattern compares every texel of a frame read back with the
// pattern of frame seq; it returns the number of wrong texels.
func checkPattern(b []byte, seq uint64) int {
	seed := testpattern.Seed(seq)
	bad := 0
	for i := 0; i+4 <= len(b); i += 4 {
		if binary.LittleEndian.Uint32(b[i:]) != testpattern.Texel(uint32(i/4), seed) {
			bad++
		}
	}
	return bad
}

// runProducer produces frames frames (in batches) for a consumer started
// as child role, and checks what the child reports.
func runProducer(t *testing.T, d *vulkan.Device, role string, slots, batch, frames int, w, h uint32, wantGPU bool) {
	runProducerWith(t, d, role, slots, batch, frames, w, h, wantGPU, ExportOptions{},
		func(env ...string) *child { return startChild(t, role, env...) })
}

// runProducerWith is runProducer with the ring exported with eo and the
// consumer started by start (in another container, say).
func runProducerWith(t *testing.T, d *vulkan.Device, role string, slots, batch, frames int, w, h uint32, wantGPU bool,
	eo ExportOptions, start func(env ...string) *child) {
	frames = (frames + batch - 1) / batch * batch // whole batches: the consumer checks each frame produced
	p, record := patternProducer(t, d, slots, batch, w, h, ProducerOptions{Export: eo})
	if wantGPU && !p.GPUSync() {
		t.Fatalf("%s exports timeline semaphores but the producer synchronizes on the host", d)
	}
	c := start("TOKEN="+string(p.Token()), "FRAMES="+strconv.Itoa(frames), "BATCH="+strconv.Itoa(batch),
		"WIDTH="+strconv.Itoa(int(w)), "HEIGHT="+strconv.Itoa(int(h)))
	// A consumer attaches within seconds, or never (it failed to start:
	// its output says why).
	c.waitAttached(t, p.Ring(), 1, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	t0 := time.Now()
	for n := 0; n < frames; n += batch {
		last, err := p.Produce(ctx, record)
		if err != nil {
			c.fatal(t, "frame %d: %v", n, err)
		}
		if last != uint64(n+batch) {
			t.Fatalf("batch ending at frame %d got sequence %d", n+batch, last)
		}
	}
	got := c.expect(t, "checked")
	el := time.Since(t0)
	t.Logf("%d frames of %dx%d, %d slots, batches of %d, GPU sync %v: %v, %.0f frames/s (%s)", frames, w, h, slots, batch,
		p.GPUSync(), el.Round(time.Millisecond), float64(frames)/el.Seconds(), got)
	if got != strconv.Itoa(frames) {
		t.Fatalf("consumer checked %s frames", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "closed")
	c.wait(t)
}

// TestProducerToVulkanAcrossProcesses: a compute shader writes each frame's
// pattern into the ring's images; a Vulkan consumer in another process
// copies every frame out in its own submissions and checks every texel.
// On lavapipe the hand-off is the host path (no external semaphores).
func TestProducerToVulkanAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	for _, b := range []int{1, 3} {
		t.Run(fmt.Sprintf("batch%d", b), func(t *testing.T) {
			runProducer(t, d, "vkpattern", 3, b, 120, 64, 48, false)
		})
	}
}

// needCUDAOn skips without a CUDA driver (fails under GFXCUDA_REQUIRE_CUDA=1)
// and checks that dev exports timeline semaphores.
func needCUDAOn(t *testing.T, dev *vulkan.Device) {
	t.Helper()
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required: %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	if !dev.Physical().CanExportSemaphoreFD() {
		t.Fatalf("%s has CUDA but no exportable timeline semaphores", dev)
	}
}

// TestGPURingVulkanToCUDAAcrossProcesses: a 3-slot ring of 1280×720
// images over 10,000 frames, a Vulkan producer and a CUDA consumer in
// another process synchronized on the GPU; the consumer checks every texel
// of every frame on the GPU (gfx_check_hash). Batches of 1 and of 3.
func TestGPURingVulkanToCUDAAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	for _, b := range []int{1, 3} {
		t.Run(fmt.Sprintf("batch%d", b), func(t *testing.T) {
			runProducer(t, d, "cudapattern", 3, b, 10000, 1280, 720, true)
		})
	}
}

// TestGPURingAcrossContainers: the same GPU-synchronized ring with the
// CUDA consumer in its own network and PID namespaces (another container,
// with a /proc of its own),
// reaching the producer through the filesystem socket, and through the
// pidfd door from its own network namespace; every texel of every frame is
// checked on the GPU. Needs root besides CUDA.
func TestGPURingAcrossContainers(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	needNamespaces(t)
	for _, tc := range []struct {
		name string
		eo   ExportOptions
		c    container
	}{
		// A container runtime gives a new PID namespace a /proc of its
		// own; CUDA does not start without it (cuda.Init says why).
		{"filesystem socket", ExportOptions{Rendezvous: RendezvousFS, Dir: sharedDir(t)}, container{newNet | newPID | ownProc, 0}},
		{"pidfd", ExportOptions{Rendezvous: RendezvousPidfd}, container{newNet, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runProducerWith(t, d, "cudapattern", 3, 3, 3000, 1280, 720, true, tc.eo,
				func(env ...string) *child { return startIn(t, "cudapattern", tc.c, env...) })
		})
	}
}

// TestGPURingVulkanToVulkanAcrossProcesses: the same with a Vulkan
// consumer, synchronized on the GPU.
func TestGPURingVulkanToVulkanAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	runProducer(t, d, "vkpattern", 3, 3, 3000, 640, 360, true)
}

// TestGPURingCUDAConsumerDies: a CUDA consumer killed right after queueing
// a release (its GPU signal may never run) and while holding another
// frame: the producer reclaims both slots and goes on.
func TestGPURingCUDAConsumerDies(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	p, record := patternProducer(t, d, 2, 1, 1280, 720, ProducerOptions{})
	c := startChild(t, "cudadie", "TOKEN="+string(p.Token()))
	ctx := ctx10(t)
	if err := p.Ring().WaitConsumers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := p.Produce(ctx, record); err != nil {
			t.Fatal(err)
		}
	}
	c.expect(t, "holding")
	c.send(t, "die")
	t0 := time.Now()
	for i := 0; i < 5; i++ {
		if _, err := p.Produce(ctx, record); err != nil {
			t.Fatalf("after the consumer died: %v", err)
		}
	}
	if n := p.Ring().Consumers(); n != 0 {
		t.Errorf("%d consumers after the only one died", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("producer went on and drained %v after the consumer's death", time.Since(t0))
	if el := time.Since(t0); el > 4*time.Second {
		t.Errorf("the producer's queue stalled %v on the dead consumer", el)
	}
	c.cmd.Wait()
}

// TestGPURingProducerDiesCUDA: the CUDA consumer of a producer killed
// mid-stream gets ErrProducerGone within bounded time, and its stream,
// possibly waiting for a frame that will never be signalled, drains.
func TestGPURingProducerDiesCUDA(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	c := startChild(t, "gpuproducer")
	tok := Token(c.expect(t, "token"))
	m, err := tok.Meta()
	if err != nil {
		t.Fatal(err)
	}
	cc, s := cudaConsumer(t, tok, m)
	defer cc.Close()
	if !cc.Consumer().GPUSync() {
		t.Fatal("the GPU producer's ring is not GPU-synchronized")
	}
	c.send(t, "go")
	for i := 0; i < 20; i++ {
		f, err := cc.Next(ctx10(t), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := cc.Release(f, s); err != nil {
			t.Fatal(err)
		}
	}
	c.cmd.Process.Kill()
	t0 := time.Now()
	for {
		f, err := cc.Next(ctx10(t), s)
		if err != nil {
			if !errors.Is(err, ErrProducerGone) {
				t.Fatalf("after the producer died: %v", err)
			}
			break
		}
		cc.Release(f, s)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("noticed after %v", el)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Wait(wctx); err != nil {
		t.Fatalf("the consumer's stream after the producer's death: %v", err)
	}
}

// cudaConsumer opens a ring in CUDA on the device of m, with a new stream.
func cudaConsumer(t testing.TB, tok Token, m Meta) (*CUDAConsumer, *cuda.Stream) {
	ctx := childContext(t, cuda.UUID(m.UUID), "device")
	cc, err := OpenCUDAConsumer(ctx10(t), ctx, tok)
	if err != nil {
		childFail("open ring: %v", err)
	}
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		childFail("stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return cc, s
}

// childContext is a child process's primary context on the GPU with UUID
// u (what names it in a failure), closed at the test's end.
func childContext(t testing.TB, u cuda.UUID, what string) *cuda.Context {
	if err := cuda.Init(); err != nil {
		childFail("cuda: %v", err)
	}
	dev, err := cuda.DeviceByUUID(u)
	if err != nil {
		childFail("%s %s: %v", what, u, err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		childFail("context: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// ringChild runs the child roles of the tests above; false for others.
func ringChild(t *testing.T, role string, tok Token, in *bufio.Scanner) bool {
	frames, _ := strconv.Atoi(os.Getenv("FRAMES"))
	batch, _ := strconv.Atoi(os.Getenv("BATCH"))
	long, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	switch role {
	case "vkpattern":
		d := vkDevice(t)
		vc, err := OpenVulkanConsumer(ctx10(t), d, tok)
		if err != nil {
			childFail("open ring: %v", err)
		}
		var rbs []*vulkan.Buffer
		var size int
		for i := 0; i < batch; i++ {
			o := vc.Image(0).Options()
			size = int(o.Width * o.Height * 4)
			b, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(size), Heap: vulkan.HeapReadback})
			if err != nil {
				childFail("buffer: %v", err)
			}
			rbs = append(rbs, b)
		}
		got := make([]byte, size)
		for n := 0; n < frames; n += batch {
			var fs []*Frame
			for i := 0; i < batch; i++ {
				f, err := vc.Next(long)
				if err != nil {
					childFail("frame %d: %v", n+i, err)
				}
				if f.Seq != uint64(n+i+1) || f.Dropped != 0 || binary.LittleEndian.Uint64(f.User) != f.Seq*7 {
					childFail("frame %d: seq %d, dropped %d, user %x", n+i, f.Seq, f.Dropped, f.User)
				}
				fs = append(fs, f)
			}
			err := vc.Consume(long, func(c *vulkan.Commands, f *Frame) error {
				c.CopyImageToBuffer(rbs[int(f.Seq-1)%batch], vc.Image(f.Slot), vulkan.BufferImageCopy{})
				return c.Err()
			}, fs...)
			if err != nil {
				childFail("consume: %v", err)
			}
			if err := d.WaitIdle(); err != nil {
				childFail("wait: %v", err)
			}
			for i, f := range fs {
				copy(got, poisonedBytes(size))
				if err := rbs[i].Readback(0, got); err != nil {
					childFail("readback: %v", err)
				}
				if bad := checkPattern(got, f.Seq); bad != 0 {
					childFail("frame %d: %d of %d texels wrong", f.Seq, bad, size/4)
				}
			}
		}
		say("checked %d", frames)
		if _, err := vc.Next(long); !errors.Is(err, ErrSharedRingClosed) {
			childFail("after the last frame: %v", err)
		}
		say("closed")
		for _, b := range rbs {
			b.Close()
		}
		if err := vc.Close(); err != nil {
			childFail("close: %v", err)
		}
	case "cudapattern":
		m, _ := tok.Meta()
		cc, s := cudaConsumer(t, tok, m)
		cx := s.Context()
		if !cc.Consumer().GPUSync() {
			childFail("the ring is not GPU-synchronized")
		}
		check, err := testpattern.NewChecker(cx, 0)
		if err != nil {
			childFail("checker: %v", err)
		}
		arr0 := cc.Texture(0).Array().Desc()
		n := arr0.Width * arr0.Height
		lin, err := cx.Alloc(n * 4)
		if err != nil {
			childFail("alloc: %v", err)
		}
		for i := 1; i <= frames; i++ {
			f, err := cc.Next(long, s)
			if err != nil {
				childFail("frame %d: %v", i, err)
			}
			if f.Seq != uint64(i) || f.Dropped != 0 || binary.LittleEndian.Uint64(f.User) != f.Seq*7 {
				childFail("frame %d: seq %d, dropped %d, user %x", i, f.Seq, f.Dropped, f.User)
			}
			if f.Wait < f.Seq {
				childFail("frame %d: ready value %d", i, f.Wait)
			}
			if err := s.Memset32(lin.Ptr(), 0xcdcdcdcd, n); err != nil { // poison
				childFail("memset: %v", err)
			}
			if err := s.CopyFromArray(cuda.ArrayCopy{Array: cc.Array(f), Ptr: lin.Ptr()}); err != nil {
				childFail("copy: %v", err)
			}
			if err := check.Check(s, lin.Ptr(), n, testpattern.Seed(f.Seq)); err != nil {
				childFail("check: %v", err)
			}
			if i == 1 { // the checker must see a wrong seed
				if err := check.CheckWrongSeed(s, lin.Ptr(), n, testpattern.Seed(f.Seq)); err != nil {
					childFail("check: %v", err)
				}
			}
			if err := cc.Release(f, s); err != nil {
				childFail("release: %v", err)
			}
		}
		if err := check.Verify(s, frames); err != nil {
			childFail("%v", err)
		}
		say("checked %d", frames)
		if _, err := cc.Next(long, s); !errors.Is(err, ErrSharedRingClosed) {
			childFail("after the last frame: %v", err)
		}
		say("closed")
		lin.Close()
		check.Close()
		if err := cc.Close(); err != nil {
			childFail("close: %v", err)
		}
	case "cudadie":
		m, _ := tok.Meta()
		cc, s := cudaConsumer(t, tok, m)
		lin, err := s.Context().Alloc(1280 * 720 * 4)
		if err != nil {
			childFail("alloc: %v", err)
		}
		f, err := cc.Next(long, s)
		if err != nil {
			childFail("next: %v", err)
		}
		s.CopyFromArray(cuda.ArrayCopy{Array: cc.Array(f), Ptr: lin.Ptr()})
		if err := cc.Release(f, s); err != nil {
			childFail("release: %v", err)
		}
		f, err = cc.Next(long, s)
		if err != nil {
			childFail("next: %v", err)
		}
		s.CopyFromArray(cuda.ArrayCopy{Array: cc.Array(f), Ptr: lin.Ptr()})
		say("holding")
		in.Scan()
		os.Exit(3) // dies holding a frame, its last release perhaps still queued
	case "gpuproducer":
		d := vkDevice(t)
		p, record := patternProducer(t, d, 3, 1, 640, 360, ProducerOptions{})
		say("token %s", p.Token())
		in.Scan()
		if err := p.Ring().WaitConsumers(long, 1); err != nil {
			childFail("%v", err)
		}
		for {
			if _, err := p.Produce(long, record); err != nil {
				childFail("produce: %v", err)
			}
		}
	default:
		return false
	}
	return true
}

// TestProducerClaimsDeviceSlots: a Device's buffers and textures given to a
// Producer are the Producer's until it closes — the Device's ToCUDA, Map,
// ToTensor and Close refuse them (ErrHeldByCUDA) — and its own again after;
// a resource CUDA holds cannot become a slot.
func TestProducerClaimsDeviceSlots(t *testing.T) {
	dev := interopDevice(t)
	a, err := dev.NewBuffer(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := dev.NewBuffer(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	held, err := dev.NewBuffer(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	acc, err := dev.ToCUDA(nil, held)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewProducer(dev.Vulkan(), ProducerOptions{Slots: []any{a, held}}); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("NewProducer over a buffer CUDA holds = %v, want ErrHeldByCUDA", err)
	}
	// The failed NewProducer gave a back.
	if acc2, err := dev.ToCUDA(nil, a); err != nil {
		t.Fatalf("ToCUDA after a failed NewProducer: %v", err)
	} else if err := acc2.Done(); err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	p, err := NewProducer(dev.Vulkan(), ProducerOptions{Slots: []any{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.ToCUDA(nil, b); !errors.Is(err, ErrHeldByCUDA) || !strings.Contains(err.Error(), "Producer") {
		t.Errorf("ToCUDA of a Producer's slot = %v, want ErrHeldByCUDA naming the Producer", err)
	}
	if err := a.Map(nil, func(cuda.DevicePtr, *cuda.Stream) error { return nil }); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("Map of a Producer's slot = %v, want ErrHeldByCUDA", err)
	}
	if err := a.Close(); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("Close of a Producer's slot = %v, want ErrHeldByCUDA", err)
	}
	if _, err := NewProducer(dev.Vulkan(), ProducerOptions{Slots: []any{a, held}}); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("a second Producer over the first one's slot = %v, want ErrHeldByCUDA", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	acc3, err := dev.ToCUDA(nil, a, b)
	if err != nil {
		t.Fatalf("ToCUDA after the Producer closed: %v", err)
	}
	if err := acc3.Done(); err != nil {
		t.Fatal(err)
	}
}
