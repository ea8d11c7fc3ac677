//go:build linux

package gfxcuda

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/link/nccltransport"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// twoRanksEnv names the role of TestNCCLTwoRanks's child process.
const twoRanksEnv = "GFXCUDA_TWO_RANKS_CHILD"

// twoGPUs returns the UUIDs of CUDA GPUs 0 and 1. Without a CUDA driver it
// skips (fails under GFXCUDA_REQUIRE_CUDA=1); with fewer than two GPUs it
// skips with one line, also under GFXCUDA_REQUIRE_CUDA=1: the one skip
// that variable allows.
func twoGPUs(t *testing.T) (cuda.UUID, cuda.UUID) {
	t.Helper()
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA: %v", err)
	}
	ds, err := cuda.Devices()
	if err != nil {
		t.Fatal(err)
	}
	skipBelowTwoGPUs(t, len(ds))
	u0, err := ds[0].UUID()
	if err != nil {
		t.Fatal(err)
	}
	u1, err := ds[1].UUID()
	if err != nil {
		t.Fatal(err)
	}
	return u0, u1
}

// openDeviceOn opens a Device on the GPU with UUID u (validation as
// GFXCUDA_VALIDATION says) and loads NCCL; the caller fails on its error
// (it established that the GPU is there).
func openDeviceOn(u cuda.UUID) (*Device, error) {
	d, err := Open(Options{UUID: &u})
	if err != nil {
		return nil, fmt.Errorf("opening GPU %v: %w", u, err)
	}
	if err := nccl.Load(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

const twoRanksW, twoRanksH, twoRanksSlots, twoRanksBatch = 1920, 1080, 16, 8

// TestNCCLTwoRanks: the link with one rank per GPU. The producer
// (LinkSender) runs on GPU 0 in this process, the consumer
// (LinkReceiver) on GPU 1 in a child process; the control channel is a
// Unix socket. 10,000 1080p RGBA8 frames (GFXCUDA_LINK_FRAMES overrides),
// 16 slots, batches of 8, each frame rendered by Vulkan compute with its
// own random seed; the receiver checks every texel of every frame with a
// CUDA kernel (its slots poisoned first; the checker shown to fail on a
// wrong seed). Then, in the same run, bare ncclSend/ncclRecv of the same
// bytes between the two ranks (a second communicator, groups of 8 frames
// from 16 frame buffers): both throughputs and their ratio are logged
// (issue 23 asks for ≥ 0.8). Skips with one line below 2 GPUs.
func TestNCCLTwoRanks(t *testing.T) {
	u0, u1 := twoGPUs(t)
	d, err := openDeviceOn(u0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() }) // after the pattern filler's images
	v, lib, _ := nccl.Version()
	t.Logf("NCCL %s (%s); sender GPU 0 %v, receiver GPU 1 %v", v, lib, u0, u1)
	frames := 10000
	if s := os.Getenv("GFXCUDA_LINK_FRAMES"); s != "" {
		frames, _ = strconv.Atoi(s)
	}
	frames = (frames + twoRanksBatch - 1) / twoRanksBatch * twoRanksBatch
	const w, h, slots, batch = twoRanksW, twoRanksH, twoRanksSlots, twoRanksBatch
	shape := LinkShape{Width: w, Height: h, Format: format.RGBA8UNorm}
	frame := uint64(w * h * 4)

	c1, c2 := socketPairT(t)
	b1, b2 := socketPairT(t)
	ch := startTwoRanksChild(t, c2, b2, "FRAMES="+strconv.Itoa(frames))
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	snd, err := d.NewLinkSender(ctx, c1, LinkOptions{Shape: shape, Slots: slots, Receiver: &u1, Timeout: time.Minute})
	if err != nil {
		ch.fatal(t, "sender: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			snd.Close()
		}
	}()
	vk := d.Vulkan()
	pf := newPatternFiller(t, vk, slots, w, h)
	t0 := time.Now()
	for sent := 0; sent < frames; sent += batch {
		_, err := snd.Send(ctx, batch, func(c *vulkan.Commands, first uint64, ss []int) error {
			return pf.record(c, first, ss, func(sl int) *vulkan.Buffer { return snd.Slot(sl).Vulkan() })
		})
		if err != nil {
			ch.fatal(t, "send of frames %d-%d: %v", sent, sent+batch-1, err)
		}
	}
	// The sends end once the receiver has received them.
	if err := snd.ends.Wait(ctx); err != nil {
		ch.fatal(t, "waiting for the sends: %v", err)
	}
	linkEl := time.Since(t0)
	closed = true
	if err := snd.Close(); err != nil {
		ch.fatal(t, "sender Close: %v", err)
	}
	got := strings.Fields(ch.expect(t, "checked"))
	if len(got) != 3 || got[0] != strconv.Itoa(frames) || got[1] != "0" {
		t.Fatalf("the receiver reports %q (frames, wrong texels, wrong texels for a wrong seed): want %d frames checked, 0 wrong texels", got, frames)
	}
	if bad, _ := strconv.ParseUint(got[2], 10, 64); bad < uint64(w*h)-2 {
		t.Fatalf("the receiver's checker found only %d of %d texels wrong for a wrong seed", bad, w*h)
	}

	// Bare ncclSend/ncclRecv of the same bytes between the same ranks.
	id, err := nccl.NewUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b1.Write(id[:]); err != nil {
		ch.fatal(t, "sending the bare communicator's id: %v", err)
	}
	cx := d.CUDA()
	comm, err := nccltransport.Join(ctx, cx, id, 2, 0)
	if err != nil {
		ch.fatal(t, "bare communicator: %v", err)
	}
	defer comm.Close()
	src, err := cx.Alloc(frame * slots)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// Random bytes, like the rendered frames (Hopper compresses constant
	// data, which could flatter one side).
	if err := cx.CopyHtoD(src.Ptr(), random(int(frame*slots))); err != nil {
		t.Fatal(err)
	}
	st, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := cx.Synchronize(); err != nil {
		t.Fatal(err)
	}
	ch.expect(t, "bare ready")
	t0 = time.Now()
	for n := 0; n < frames; n += batch {
		err := comm.Group(func() error {
			for i := 0; i < batch; i++ {
				if err := comm.Send(st, src.Ptr().Add(uint64((n+i)%slots)*frame), frame, 1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			ch.fatal(t, "bare send: %v", err)
		}
	}
	if err := st.Wait(ctx); err != nil {
		ch.fatal(t, "bare sends: %v", err)
	}
	bareEl := time.Since(t0)
	if got := ch.expect(t, "bare"); got != strconv.Itoa(frames) {
		t.Fatalf("the receiver's bare receives: %q", got)
	}
	// ncclCommDestroy of a two-rank communicator returns once the other
	// rank destroys its own (NCCL 2.28), and the receiver keeps its rank
	// open until told: a close bounded by a short context gives up with
	// the context's error (the destroy goes on in the background), and
	// completes once the receiver closes its rank.
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	err = comm.CloseContext(short)
	cancelShort()
	switch {
	case err == nil:
		t.Logf("this NCCL's ncclCommDestroy returned without the other rank's")
	case !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("closing one rank while the other holds its own: %v, want context.DeadlineExceeded", err)
	}
	if err := comm.Close(); err != nil { // closed already: nothing to wait for
		t.Errorf("Close after CloseContext: %v", err)
	}
	ch.send(t, "close")
	ch.expect(t, "done")
	ch.wait(t)
	gbps := func(el time.Duration) float64 { return float64(frames) * float64(frame) / el.Seconds() / 1e9 }
	t.Logf("link, GPU 0 → GPU 1 (2 ranks, 2 processes), %d frames of %v, %d slots, batches of %d, rendered by Vulkan and every texel checked by CUDA: %v, %.0f frames/s, %.1f GB/s",
		frames, shape, slots, batch, linkEl.Round(time.Millisecond), float64(frames)/linkEl.Seconds(), gbps(linkEl))
	t.Logf("bare ncclSend/ncclRecv of the same bytes, same ranks: %v, %.0f frames/s, %.1f GB/s",
		bareEl.Round(time.Millisecond), float64(frames)/bareEl.Seconds(), gbps(bareEl))
	t.Logf("ratio link/bare: %.2f (the link's side renders every frame on GPU 0 and the receiver checks it; `gfxcuda bench --only nccl` measures the link alone against issue 23's 0.8)", bareEl.Seconds()/linkEl.Seconds())
}

// startTwoRanksChild runs TestNCCLTwoRanksChild with ctrl and bare as its
// descriptors 3 and 4.
func startTwoRanksChild(t *testing.T, ctrl, bare net.Conn, env ...string) *child {
	t.Helper()
	return startChildWithConns(t, "TestNCCLTwoRanksChild", []net.Conn{ctrl, bare}, append([]string{twoRanksEnv + "=recv"}, env...)...)
}

// TestNCCLTwoRanksChild is TestNCCLTwoRanks's receiver, on GPU 1.
func TestNCCLTwoRanksChild(t *testing.T) {
	if os.Getenv(twoRanksEnv) != "recv" {
		t.Skip("helper process for TestNCCLTwoRanks (set by it)")
	}
	cs := childConns("ctrl", "bare")
	ctrl, bare := cs[0], cs[1]
	frames, _ := strconv.ParseUint(os.Getenv("FRAMES"), 10, 64)
	if err := cuda.Init(); err != nil {
		childFail("%v", err)
	}
	ds, err := cuda.Devices()
	if err != nil || len(ds) < 2 {
		childFail("GPU 1: %d GPUs, %v", len(ds), err)
	}
	u1, err := ds[1].UUID()
	if err != nil {
		childFail("%v", err)
	}
	d, err := openDeviceOn(u1)
	if err != nil {
		childFail("%v", err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	const w, h, slots = twoRanksW, twoRanksH, twoRanksSlots
	shape := LinkShape{Width: w, Height: h, Format: format.RGBA8UNorm}
	rcv, err := d.NewLinkReceiver(ctx, ctrl, LinkAccept{Expect: &shape, Timeout: time.Minute})
	if err != nil {
		childFail("receiver: %v", err)
	}
	cx := d.CUDA()
	check, err := testpattern.NewChecker(cx, 528)
	if err != nil {
		childFail("%v", err)
	}
	defer check.Close()
	s, err := cx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		childFail("%v", err)
	}
	defer s.Close()
	for i := 0; i < slots; i++ {
		if err := rcv.Slot(i).Map(s, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.Memset32(p, 0xcdcdcdcd, w*h) }); err != nil {
			childFail("poisoning slot %d: %v", i, err)
		}
	}
	n := uint64(w * h)
	got := uint64(0)
	for got < frames {
		b, err := rcv.Receive(ctx)
		if err != nil {
			childFail("receive after %d frames: %v", got, err)
		}
		if b.First != got {
			childFail("batch of frame %d, want %d", b.First, got)
		}
		acc, err := rcv.ToCUDA(s, b)
		if err != nil {
			childFail("ToCUDA: %v", err)
		}
		for i, sl := range b.Slots {
			seed := testpattern.Seed(b.First + uint64(i))
			if err := check.Check(acc.Stream(), rcv.Slot(sl).Ptr(), n, seed); err != nil {
				childFail("%v", err)
			}
			if got == 0 && i == 0 {
				if err := check.CheckWrongSeed(acc.Stream(), rcv.Slot(sl).Ptr(), n, seed); err != nil {
					childFail("%v", err)
				}
			}
		}
		if err := acc.Done(); err != nil {
			childFail("%v", err)
		}
		if err := rcv.Release(b); err != nil {
			childFail("release: %v", err)
		}
		got += uint64(len(b.Slots))
	}
	if _, err := rcv.Receive(ctx); !errors.Is(err, ErrLinkClosed) {
		childFail("after the last frame: %v, want ErrLinkClosed", err)
	}
	if err := s.Wait(ctx); err != nil {
		childFail("%v", err)
	}
	counts, err := check.Result(nil) // s finished above
	if err != nil {
		childFail("%v", err)
	}
	if err := rcv.Close(); err != nil {
		childFail("receiver Close: %v", err)
	}
	say("checked %d %d %d", got, counts.Wrong, counts.WrongSeed)

	// The bare receives.
	var id nccl.UniqueID
	bare.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.ReadFull(bare, id[:]); err != nil {
		childFail("reading the bare communicator's id: %v", err)
	}
	comm, err := nccltransport.Join(ctx, cx, id, 2, 1)
	if err != nil {
		childFail("bare communicator: %v", err)
	}
	defer comm.Close()
	frame := uint64(w * h * 4)
	dst, err := cx.Alloc(frame * slots)
	if err != nil {
		childFail("%v", err)
	}
	defer dst.Close()
	say("bare ready")
	for k := uint64(0); k < frames; k += twoRanksBatch {
		err := comm.Group(func() error {
			for i := uint64(0); i < twoRanksBatch; i++ {
				if err := comm.Recv(s, dst.Ptr().Add((k+i)%slots*frame), frame, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			childFail("bare receive: %v", err)
		}
	}
	if err := s.Wait(ctx); err != nil {
		childFail("bare receives: %v", err)
	}
	say("bare %d", frames)
	// Keep this rank open until the sender has tried to close its own
	// (TestNCCLTwoRanks checks that the try is bounded), then close it.
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() || in.Text() != "close" {
		childFail("want the command close, got %q", in.Text())
	}
	if err := comm.Close(); err != nil {
		childFail("closing the bare communicator: %v", err)
	}
	say("done")
}
