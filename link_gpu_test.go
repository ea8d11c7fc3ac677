//go:build linux

package gfxcuda

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// needNCCLDevice opens a Device and loads NCCL; it skips with one line
// without a GPU shared by Vulkan and CUDA or without NCCL, and fails
// instead under GFXCUDA_REQUIRE_CUDA=1 (the GPU machine has NCCL) or
// GFXCUDA_REQUIRE_NCCL=1.
func needNCCLDevice(t *testing.T) *Device {
	t.Helper()
	d := openDevice(t)
	if err := nccl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" || os.Getenv("GFXCUDA_REQUIRE_NCCL") == "1" {
			t.Fatalf("NCCL required (GFXCUDA_REQUIRE_CUDA/NCCL=1): %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	return d
}

// TestNCCLLoopbackFrames: a one-rank NCCL communicator moves a ring's
// 1080p RGBA8 frames from the sender's slots to the receiver's (the link
// protocol in one process: NewLinkLoopback), 10,000 frames in batches of
// 8 over 16 slots (GFXCUDA_LINK_FRAMES overrides the count). Vulkan
// compute renders each frame's random-seeded pattern into an image and
// copies it into the sender's slot (CUDA memory imported into Vulkan); on
// the receiving side a CUDA kernel checks every texel of every frame in
// the receiver's slot (poisoned first, and each frame's seed differs, so
// a frame not moved fails). The checker is shown to fail on a wrong seed.
func TestNCCLLoopbackFrames(t *testing.T) {
	d := needNCCLDevice(t)
	v, lib, _ := nccl.Version()
	t.Logf("NCCL %s (%s)", v, lib)
	const w, h, slots, batch = 1920, 1080, 16, 8
	frames := 10000
	if s := os.Getenv("GFXCUDA_LINK_FRAMES"); s != "" {
		frames, _ = strconv.Atoi(s)
	}
	frames = (frames + batch - 1) / batch * batch
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	shape := LinkShape{Width: w, Height: h, Format: format.RGBA8UNorm}
	snd, rcv, err := d.NewLinkLoopback(ctx, LinkOptions{Shape: shape, Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			snd.Close()
			rcv.Close()
		}
	}()
	if in, err := snd.Token().Info(); err != nil || in.Shape.FrameSize != w*h*4 || in.Slots != slots {
		t.Fatalf("token: %+v, %v", in, err)
	}

	vk := d.Vulkan()
	pf := newPatternFiller(t, vk, slots, w, h)

	cx := d.CUDA()
	check, err := testpattern.NewChecker(cx, 528)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Poison the receiver's slots.
	for i := 0; i < slots; i++ {
		if err := rcv.Slot(i).Map(s, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.Memset32(p, 0xcdcdcdcd, w*h) }); err != nil {
			t.Fatal(err)
		}
	}
	n := uint64(w * h)

	t0 := time.Now()
	for sent := 0; sent < frames; sent += batch {
		_, err := snd.Send(ctx, batch, func(c *vulkan.Commands, first uint64, ss []int) error {
			return pf.record(c, first, ss, func(sl int) *vulkan.Buffer { return snd.Slot(sl).Vulkan() })
		})
		if err != nil {
			t.Fatalf("send of frames %d-%d: %v", sent, sent+batch-1, err)
		}
		b, err := rcv.Receive(ctx)
		if err != nil {
			t.Fatalf("receive of frames %d-: %v", sent, err)
		}
		if b.First != uint64(sent) || len(b.Slots) != batch {
			t.Fatalf("received frames %d+%d, want %d+%d", b.First, len(b.Slots), sent, batch)
		}
		// No Vulkan submission: the slots come straight from the receives.
		acc, err := rcv.ToCUDA(s, b)
		if err != nil {
			t.Fatal(err)
		}
		for i, sl := range b.Slots {
			seed := testpattern.Seed(b.First + uint64(i))
			if err := check.Check(acc.Stream(), rcv.Slot(sl).Ptr(), n, seed); err != nil {
				t.Fatal(err)
			}
			if sent == 0 && i == 0 {
				if err := check.CheckWrongSeed(acc.Stream(), rcv.Slot(sl).Ptr(), n, seed); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := acc.Done(); err != nil {
			t.Fatal(err)
		}
		if err := rcv.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	if err := check.Verify(nil, frames); err != nil { // s finished above
		t.Fatal(err)
	}
	t.Logf("%d frames of %v through NCCL (one rank, batches of %d, %d slots), every texel checked: %v, %.0f frames/s, %.1f GB/s",
		frames, shape, batch, slots, el.Round(time.Millisecond), float64(frames)/el.Seconds(), float64(frames)*float64(n*4)/el.Seconds()/1e9)
	closed = true
	if err := snd.Close(); err != nil {
		t.Errorf("sender Close: %v", err)
	}
	if err := rcv.Close(); err != nil {
		t.Errorf("receiver Close: %v", err)
	}
	if err := snd.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestNCCLLoopbackCycles: links open and close 50 times without leaking
// descriptors or GPU memory.
func TestNCCLLoopbackCycles(t *testing.T) {
	d := needNCCLDevice(t)
	shape := LinkShape{Width: 256, Height: 256, Format: format.RGBA8UNorm}
	cycle := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		snd, rcv, err := d.NewLinkLoopback(ctx, LinkOptions{Shape: shape, Slots: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snd.Send(ctx, 2, nil); err != nil {
			t.Fatal(err)
		}
		b, err := rcv.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := rcv.Release(b); err != nil {
			t.Fatal(err)
		}
		if err := snd.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rcv.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cycle() // NCCL's one-time setup
	fds := countFDs(t)
	free0, _, err := d.CUDA().MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		cycle()
	}
	free1, _, _ := d.CUDA().MemInfo()
	if n := countFDs(t); n > fds+2 {
		t.Errorf("%d descriptors after 50 links, %d before", n, fds)
	}
	if free1+64<<20 < free0 {
		t.Errorf("GPU memory free went from %d to %d MiB over 50 links", free0>>20, free1>>20)
	}
}
