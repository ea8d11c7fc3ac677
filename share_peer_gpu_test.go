//go:build linux

package gfxcuda

import (
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
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The GPU tests of PeerConsumer: a Vulkan producer renders 1080p RGBA8
// frames (the test pattern, by a compute shader) into a ring of buffer
// slots; a consumer in another process takes them on another GPU (or on
// the producer's, which a one-GPU machine runs), and a CUDA kernel there
// checks every texel of every frame.

// peerBufferProducer makes a Producer over n exportable buffers of w×h
// RGBA8 texels; each frame is rendered into an image by the pattern shader
// and copied into its slot.
func peerBufferProducer(t testing.TB, d *vulkan.Device, n, batch int, w, h uint32) (*Producer, func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error)) {
	t.Helper()
	return patternSlots(t, d, n, batch, w, h, ProducerOptions{}, slotBuffers, nil)
}

// cudaUUIDs lists the UUIDs of the CUDA GPUs, by ordinal.
func cudaUUIDs(t testing.TB) []cuda.UUID {
	devs, err := cuda.Devices()
	if err != nil {
		t.Fatal(err)
	}
	var us []cuda.UUID
	for _, d := range devs {
		u, err := d.UUID()
		if err != nil {
			t.Fatal(err)
		}
		us = append(us, u)
	}
	return us
}

// TestGPUPeerRing: frames of a Vulkan producer, consumed by a
// PeerConsumer in another process, every texel checked by a CUDA kernel
// on the consumer's GPU, in both modes; the consumer prints its frame rate
// beside a bare peer copy (cuMemcpyPeerAsync) of the same bytes between
// the same GPUs, measured in the same process. "same GPU" runs the same
// code with both ends on the producer's GPU (one GPU is enough);
// "two GPUs" puts the consumer on another GPU and skips when this process
// sees only one (the one skip GFXCUDA_REQUIRE_CUDA=1 allows). "textures"
// does the same over a ring of image slots (PeerCopy, a quarter of the
// frames).
// GFXCUDA_PEER_FRAMES sets the frame count (default 4000).
func TestGPUPeerRing(t *testing.T) {
	d := vkDevice(t)
	needCUDAOn(t, d)
	frames := 4000
	if s := os.Getenv("GFXCUDA_PEER_FRAMES"); s != "" {
		frames, _ = strconv.Atoi(s)
	}
	prod := cuda.UUID(d.Physical().DeviceUUID)
	var same, other *cuda.UUID
	for _, u := range cudaUUIDs(t) {
		if u == prod && same == nil {
			same = &u
		} else if u != prod && other == nil {
			other = &u
		}
	}
	if same == nil {
		t.Fatalf("the Vulkan device %s (UUID %s) is not among the CUDA GPUs", d, prod)
	}
	t.Run("two GPUs/producer's GPU hidden", func(t *testing.T) {
		if other == nil {
			skipBelowTwoGPUs(t, 1)
		}
		p, _ := peerBufferProducer(t, d, 2, 1, 64, 64)
		c := startChild(t, "peerhidden", "TOKEN="+string(p.Token()), "CUDA_VISIBLE_DEVICES=GPU-"+other.String())
		got := c.expect(t, "refused")
		if !strings.Contains(got, prod.String()) || !strings.Contains(got, "CUDA_VISIBLE_DEVICES") {
			t.Errorf("the refusal does not name the producer's GPU and CUDA_VISIBLE_DEVICES: %s", got)
		}
		c.wait(t)
	})
	for _, tc := range []struct {
		name string
		cons *cuda.UUID
	}{{"same GPU", same}, {"two GPUs", other}} {
		// sub runs f as subtest name of tc, skipped where the second GPU
		// is missing.
		sub := func(name string, f func(t *testing.T, cons cuda.UUID)) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				if tc.cons == nil {
					skipBelowTwoGPUs(t, 1)
				}
				f(t, *tc.cons)
			})
		}
		for _, mode := range []PeerMode{PeerCopy, PeerAccess} {
			sub(mode.String(), func(t *testing.T, cons cuda.UUID) { runPeerRing(t, d, cons, mode, frames, slotBuffers) })
		}
		sub("textures", func(t *testing.T, cons cuda.UUID) { runPeerRing(t, d, cons, PeerCopy, frames/4, slotTextures) })
		// The ring alone across processes (frames not rendered nor
		// checked, sequence numbers and metadata checked): the rate,
		// beside a bare peer copy in the consumer's process, is logged
		// (the benchmark's figure, gfxcuda bench --only peer, measures
		// it in one process).
		sub("CUDA slots/ring alone", runPeerRingAlone)
		// Slots allocated by CUDA: across GPUs the consumer's GPU maps
		// them, pulls the copies and reads them in place.
		for _, mode := range []PeerMode{PeerCopy, PeerAccess} {
			sub("CUDA slots/"+mode.String(), func(t *testing.T, cons cuda.UUID) { runPeerRing(t, d, cons, mode, frames/2, slotCUDA) })
		}
	}
}

// The slots of runPeerRing's producer.
const (
	slotBuffers  = iota // exportable Vulkan buffers
	slotTextures        // exportable Vulkan images
	slotCUDA            // Device.NewBufferFromCUDA (cuMemCreate memory)
)

// runPeerRing produces frames for a "peerpattern" child consuming them on
// GPU cons, and checks its report.
func runPeerRing(t *testing.T, d *vulkan.Device, cons cuda.UUID, mode PeerMode, frames int, kind int) {
	const slots, batch, w, h = 8, 4, 1920, 1080
	frames = (frames + batch - 1) / batch * batch
	var dev *Device // CUDA slots: allocated on the interop device (d unused)
	if kind == slotCUDA {
		dev = interopDevice(t)
	}
	p, record := patternSlots(t, d, slots, batch, w, h, ProducerOptions{}, kind, dev)
	if !p.GPUSync() {
		t.Fatalf("%s exports timeline semaphores but the producer synchronizes on the host", d)
	}
	c := startChild(t, "peerpattern", "TOKEN="+string(p.Token()), "FRAMES="+strconv.Itoa(frames),
		"PEER_GPU="+cons.String(), "PEER_MODE="+mode.String(), "WIDTH="+strconv.Itoa(w), "HEIGHT="+strconv.Itoa(h))
	if r := c.expect(t, "mode"); r != "ok" {
		// PeerAccess where the topology has no peer path: the consumer
		// said so (ErrUnsupported), which is what must happen.
		if mode == PeerAccess && strings.HasPrefix(r, "unsupported") {
			if kind == slotCUDA && peerPath(t, p, cons) {
				t.Fatalf("slots allocated by CUDA, a peer path between the GPUs, and the consumer cannot read them in place: %s", r)
			}
			t.Logf("GPU %s cannot read the producer's GPU in place: %s", cons, r)
			p.Close()
			c.wait(t)
			return
		}
		t.Fatalf("consumer: %s", r)
	}
	c.waitAttached(t, p.Ring(), 1, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	for n := 0; n < frames; n += batch {
		if _, err := p.Produce(ctx, record); err != nil {
			c.fatal(t, "frame %d: %v", n, err)
		}
	}
	got := c.expect(t, "checked")
	t.Logf("producer on %s, consumer on GPU %s, %v: %s", d, cons, mode, got)
	if !strings.HasPrefix(got, strconv.Itoa(frames)+" ") {
		t.Fatalf("consumer checked %s", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "closed")
	c.wait(t)
}

// runPeerRingAlone runs 4,096 frames through a ring of 64 CUDA-allocated
// 1080p slots in batches of 16, nothing rendered, to a "peerpattern"
// child on GPU cons that takes and releases them without checking texels.
func runPeerRingAlone(t *testing.T, cons cuda.UUID) {
	const slots, batch, w, h, frames = 64, 16, 1920, 1080, 4096
	p, _ := patternSlots(t, nil, slots, batch, w, h, ProducerOptions{}, slotCUDA, interopDevice(t))
	c := startChild(t, "peerpattern", "TOKEN="+string(p.Token()), "FRAMES="+strconv.Itoa(frames), "PEER_ALONE=1",
		"PEER_GPU="+cons.String(), "PEER_MODE=copy", "WIDTH="+strconv.Itoa(w), "HEIGHT="+strconv.Itoa(h))
	if r := c.expect(t, "mode"); r != "ok" {
		t.Fatalf("consumer: %s", r)
	}
	c.waitAttached(t, p.Ring(), 1, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	meta := func(_ *vulkan.Commands, _ int, seq uint64) ([]byte, error) {
		return binary.LittleEndian.AppendUint64(nil, seq*7), nil
	}
	for n := 0; n < frames; n += batch {
		if _, err := p.Produce(ctx, meta); err != nil {
			c.fatal(t, "frame %d: %v", n, err)
		}
	}
	got := c.expect(t, "checked")
	t.Logf("the ring alone, consumer in another process on GPU %s: %s", cons, got)
	if !strings.HasPrefix(got, strconv.Itoa(frames)+" ") {
		t.Fatalf("consumer took %s", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "closed")
	c.wait(t)
}

// peerPath reports whether GPU cons has a peer path to the GPU of p's
// ring (cuDeviceCanAccessPeer); false for one GPU.
func peerPath(t *testing.T, p *Producer, cons cuda.UUID) bool {
	t.Helper()
	m, err := p.Token().Meta()
	if err != nil {
		t.Fatal(err)
	}
	if cuda.UUID(m.UUID) == cons {
		return false
	}
	a, err := cuda.DeviceByUUID(cuda.UUID(m.UUID))
	if err != nil {
		t.Fatal(err)
	}
	b, err := cuda.DeviceByUUID(cons)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := b.CanAccessPeer(a)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// peerChild runs the consumer of TestGPUPeerRing; false for other roles.
func peerChild(t *testing.T, role string, tok Token) bool {
	if role == "peerhidden" { // the producer's GPU is not visible here
		if err := cuda.Init(); err != nil {
			childFail("cuda: %v", err)
		}
		dev, err := cuda.GetDevice(0)
		if err != nil {
			childFail("device: %v", err)
		}
		cx, err := dev.PrimaryContext()
		if err != nil {
			childFail("context: %v", err)
		}
		defer cx.Close()
		_, err = OpenPeerConsumer(ctx10(t), cx, tok, PeerOptions{})
		if !errors.Is(err, ErrResourceOnOtherGPU) {
			childFail("open with the producer's GPU hidden: %v, want ErrResourceOnOtherGPU", err)
		}
		say("refused %v", err)
		return true
	}
	if role != "peerpattern" {
		return false
	}
	frames, _ := strconv.Atoi(os.Getenv("FRAMES"))
	w, _ := strconv.Atoi(os.Getenv("WIDTH"))
	h, _ := strconv.Atoi(os.Getenv("HEIGHT"))
	mode := PeerCopy
	if os.Getenv("PEER_MODE") == "access" {
		mode = PeerAccess
	}
	alone := os.Getenv("PEER_ALONE") == "1" // the ring alone: nothing rendered to check
	want, err := cuda.ParseUUID(os.Getenv("PEER_GPU"))
	if err != nil {
		childFail("PEER_GPU: %v", err)
	}
	cx := childContext(t, want, "the consumer's GPU")
	m, err := tok.Meta()
	if err != nil {
		childFail("token: %v", err)
	}
	pcx := childContext(t, cuda.UUID(m.UUID), "the producer's GPU")
	n := uint64(w * h)
	bare, bareDirect := barePeerCopy(cx, pcx, n*4)

	long, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	pc, err := OpenPeerConsumer(long, cx, tok, PeerOptions{Mode: mode})
	if err != nil {
		if mode == PeerAccess && errors.Is(err, ErrUnsupported) {
			say("mode unsupported: %v", err)
			return true
		}
		childFail("open: %v", err)
	}
	say("mode ok")
	if bareDirect && !pc.Direct() {
		childFail("the GPUs have a peer path (the bare copy used it) but the consumer's frames are staged through host memory")
	}
	if pc.Size() != n*4 {
		childFail("frame size %d, want %d", pc.Size(), n*4)
	}
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		childFail("stream: %v", err)
	}
	check, err := testpattern.NewChecker(cx, 528)
	if err != nil {
		childFail("checker: %v", err)
	}
	var t0 time.Time
	for i := 1; i <= frames; i++ {
		f, err := pc.Next(long, s)
		if err != nil {
			childFail("frame %d: %v", i, err)
		}
		if i == 1 {
			t0 = time.Now()
		}
		if f.Seq != uint64(i) || f.Dropped != 0 || binary.LittleEndian.Uint64(f.User) != f.Seq*7 {
			childFail("frame %d: seq %d, dropped %d, user %x", i, f.Seq, f.Dropped, f.User)
		}
		p := pc.Ptr(f)
		if p == 0 {
			childFail("frame %d: no pointer", i)
		}
		if alone {
			if err := pc.Release(f, s); err != nil {
				childFail("release: %v", err)
			}
			continue
		}
		if err := check.Check(s, p, n, testpattern.Seed(f.Seq)); err != nil {
			childFail("check: %v", err)
		}
		if i == 1 { // the checker must see a wrong seed
			if err := check.CheckWrongSeed(s, p, n, testpattern.Seed(f.Seq)); err != nil {
				childFail("check: %v", err)
			}
		}
		// Poison what was checked: a later frame that did not arrive
		// (a copy or a render missing) fails its check.
		if err := s.Memset32(p, 0xcdcdcdcd, n); err != nil {
			childFail("poison: %v", err)
		}
		if err := pc.Release(f, s); err != nil {
			childFail("release: %v", err)
		}
	}
	if err := s.Wait(long); err != nil {
		childFail("stream: %v", err)
	}
	el := time.Since(t0)
	if !alone {
		if err := check.Verify(nil, frames); err != nil { // s finished above
			childFail("%v", err)
		}
	}
	fps := float64(frames-1) / el.Seconds()
	what := "every texel"
	if alone {
		what = "the ring alone: sequence and metadata"
	}
	say("checked %d frames, %s: %.0f frames/s, %.1f GB/s (direct: %v); a bare peer copy of %d bytes: %.0f/s, %.1f GB/s (direct: %v); ratio %.2f",
		frames, what, fps, fps*float64(n*4)/1e9, pc.Direct(), n*4, bare, bare*float64(n*4)/1e9, bareDirect, fps/bare)
	if _, err := pc.Next(long, s); !errors.Is(err, ErrSharedRingClosed) {
		childFail("after the last frame: %v", err)
	}
	say("closed")
	check.Close()
	s.Close()
	if err := pc.Close(); err != nil {
		childFail("close: %v", err)
	}
	return true
}

// barePeerCopy measures copies of n bytes from memory of src to memory of
// dst (cuMemcpyPeerAsync, queued back to back on a stream of dst), in
// copies per second, and checks the last one byte for byte.
func barePeerCopy(dst, src *cuda.Context, n uint64) (perSecond float64, direct bool) {
	direct = true
	if dst.Device().Ordinal() != src.Device().Ordinal() {
		// Over the peer path where there is one, as a multi-GPU program
		// copies; otherwise the driver stages the copy through host memory.
		a, err := dst.TryEnablePeerAccess(src)
		if err != nil {
			childFail("peer access: %v", err)
		}
		b, err := src.TryEnablePeerAccess(dst)
		if err != nil {
			childFail("peer access: %v", err)
		}
		direct = a && b
	}
	a, err := src.Alloc(n)
	if err != nil {
		childFail("alloc: %v", err)
	}
	defer a.Close()
	b, err := dst.Alloc(n)
	if err != nil {
		childFail("alloc: %v", err)
	}
	defer b.Close()
	want := seededRandom(9, int(n))
	if err := src.CopyHtoD(a.Ptr(), want); err != nil {
		childFail("upload: %v", err)
	}
	if err := dst.Memset8(b.Ptr(), 0xcd, n); err != nil {
		childFail("memset: %v", err)
	}
	s, err := dst.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		childFail("stream: %v", err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := func(k int) time.Duration {
		t0 := time.Now()
		for i := 0; i < k; i++ {
			if err := s.CopyPeer(b.Ptr(), dst, a.Ptr(), src, n); err != nil {
				childFail("peer copy: %v", err)
			}
		}
		if err := s.Wait(ctx); err != nil {
			childFail("peer copy: %v", err)
		}
		return time.Since(t0)
	}
	run(20) // warm up
	const k = 500
	el := run(k)
	got := poisonedBytes(int(n))
	if err := dst.CopyDtoH(got, b.Ptr()); err != nil {
		childFail("readback: %v", err)
	}
	for i := range got {
		if got[i] != want[i] {
			childFail("the bare peer copy differs at byte %d", i)
		}
	}
	return float64(k) / el.Seconds(), direct
}

// TestGPUPeerConsumerCycles: a PeerConsumer (each mode, on the producer's
// GPU: one GPU is enough) opened in the producer's process, a frame taken
// and released, and closed, 200 times over one ring: no descriptors, GPU
// memory or imports left. Each cycle's frame is checked byte for byte
// against the slot it came from.
func TestGPUPeerConsumerCycles(t *testing.T) {
	vd := vkDevice(t)
	needCUDAOn(t, vd)
	const w, h = 256, 128
	p, record := peerBufferProducer(t, vd, 2, 1, w, h)
	dev, err := cuda.DeviceByUUID(cuda.UUID(vd.Physical().DeviceUUID))
	if err != nil {
		t.Fatal(err)
	}
	cx, err := dev.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	defer cx.Close()
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host, err := cx.AllocHost(w * h * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	ctx := ctx10(t)
	cycle := func(mode PeerMode) {
		pc, err := OpenPeerConsumer(ctx, cx, p.Token(), PeerOptions{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Produce(ctx, record); err != nil {
			t.Fatal(err)
		}
		f, err := pc.Next(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		got := host.Bytes()
		copy(got, poisonedBytes(len(got)))
		if err := s.CopyDtoH(got, pc.Ptr(f)); err != nil {
			t.Fatal(err)
		}
		if err := pc.Release(f, s); err != nil {
			t.Fatal(err)
		}
		if err := s.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if bad := checkPattern(got, f.Seq); bad != 0 {
			t.Fatalf("%v: frame %d: %d of %d texels wrong", mode, f.Seq, bad, w*h)
		}
		if err := pc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := pc.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	cycle(PeerCopy)
	cycle(PeerAccess)
	fds := countFDs(t)
	free0, _, err := cx.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		cycle(PeerCopy)
		cycle(PeerAccess)
	}
	free1, _, _ := cx.MemInfo()
	if n := countFDs(t); n > fds+2 {
		t.Errorf("%d descriptors after 200 consumers, %d before", n, fds)
	}
	if free1+64<<20 < free0 {
		t.Errorf("GPU memory free went from %d to %d MiB over 200 consumers", free0>>20, free1>>20)
	}
	if n := openImports(); n != 0 {
		t.Errorf("%d imports left open", n)
	}
}

// TestPeerBufferProducer checks, on any Vulkan device (lavapipe here), the
// producer the GPU tests above use: frames rendered by the pattern shader
// and copied into buffer slots, read back through a consumer of the ring
// in this process, every texel compared (validation on). Where the ring
// synchronizes on the GPU (a GPU with exportable semaphores) it checks the
// frames' order and metadata; TestGPUPeerRing checks their texels there.
func TestPeerBufferProducer(t *testing.T) {
	d := vkDevice(t)
	const w, h = 64, 48
	p, record := peerBufferProducer(t, d, 3, 1, w, h)
	ctx := ctx10(t)
	c, err := OpenSharedRing(ctx, p.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var bufs []*vulkan.Buffer
	for _, st := range c.Slots() {
		b, err := OpenVulkanBuffer(ctx, d, st)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		bufs = append(bufs, b)
	}
	for i := 1; i <= 7; i++ {
		if _, err := p.Produce(ctx, record); err != nil {
			t.Fatal(err)
		}
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq != uint64(i) || binary.LittleEndian.Uint64(f.User) != f.Seq*7 {
			t.Fatalf("frame %d: seq %d, user %x", i, f.Seq, f.User)
		}
		if !p.GPUSync() {
			got := poisonedBytes(w * h * 4)
			if err := bufs[f.Slot].Readback(0, got); err != nil {
				t.Fatal(err)
			}
			if bad := checkPattern(got, f.Seq); bad != 0 {
				t.Fatalf("frame %d: %d of %d texels wrong", f.Seq, bad, w*h)
			}
		}
		if err := c.Release(f); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGPUBufferCopyToPeer: a hand-off across GPUs. A shared buffer
// written by Vulkan (random bytes) is copied to memory of the same GPU
// and, with two GPUs, of the other; then Vulkan writes it again (its
// upload must wait for the copy's return) and it is copied again. Every
// byte is compared, the destination poisoned first.
func TestGPUBufferCopyToPeer(t *testing.T) {
	d := interopDevice(t)
	const n = 8<<20 + 20
	b, err := d.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	run := func(t *testing.T, cx *cuda.Context) {
		dst, err := cx.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		s, err := cx.NewStream(cuda.StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for round := uint64(0); round < 3; round++ {
			want := seededRandom(round+40, n)
			if err := b.Vulkan().Upload(0, want); err != nil {
				t.Fatal(err)
			}
			if err := s.Memset8(dst.Ptr(), 0xcd, n); err != nil {
				t.Fatal(err)
			}
			if err := b.CopyToPeer(s, dst.Ptr()); err != nil {
				t.Fatal(err)
			}
			if err := s.Wait(ctx10(t)); err != nil {
				t.Fatal(err)
			}
			got := poisonedBytes(n)
			if err := cx.CopyDtoH(got, dst.Ptr()); err != nil {
				t.Fatal(err)
			}
			mustEqualBytes(t, fmt.Sprintf("round %d", round), got, want)
		}
		if err := b.CopyToPeer(nil, dst.Ptr()); err == nil {
			t.Error("CopyToPeer with a nil stream succeeded")
		}
	}
	t.Run("same GPU", func(t *testing.T) { run(t, d.CUDA()) })
	t.Run("two GPUs", func(t *testing.T) {
		own := d.CUDA().Device().Ordinal()
		n, err := cuda.DeviceCount()
		if err != nil {
			t.Fatal(err)
		}
		skipBelowTwoGPUs(t, n)
		dev, err := cuda.GetDevice((own + 1) % n)
		if err != nil {
			t.Fatal(err)
		}
		cx, err := dev.PrimaryContext()
		if err != nil {
			t.Fatal(err)
		}
		defer cx.Close()
		run(t, cx)
	})
}
