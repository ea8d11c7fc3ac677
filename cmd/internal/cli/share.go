package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// framePattern fills b with frame seq's content: pseudo-random bytes both
// sides compute, so the consumer checks every byte.
func framePattern(seq uint64, b []byte) {
	r := rand.New(rand.NewPCG(seq, ^seq))
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
}

// shareDevice opens the first Vulkan device that can export and import
// memory by file descriptor.
func shareDevice() (*vulkan.Instance, *vulkan.Device, error) {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-share"})
	if err != nil {
		return nil, nil, err
	}
	pds, err := in.PhysicalDevices()
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	for _, pd := range pds {
		if pd.CanExportOpaqueFD() && pd.CanImportOpaqueFD() {
			d, err := in.NewDevice(pd, vulkan.DeviceOptions{})
			if err != nil {
				in.Close()
				return nil, nil, err
			}
			return in, d, nil
		}
	}
	in.Close()
	return nil, nil, errors.New("no Vulkan device can share memory by file descriptor (VK_KHR_external_memory_fd)")
}

// interruption is the cause of an interruptible context's end: a signal.
type interruption struct{ sig os.Signal }

func (i interruption) Error() string { return "interrupted by " + sigName(i.sig) }

// sigName is the signal's usual name: SIGINT, SIGTERM.
func sigName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptible returns a context that ends at the first SIGINT (Ctrl-C)
// or SIGTERM, with an interruption as its cause: share and open then end
// as they do after their last frame (their summary printed, their sockets
// removed). The signal is caught once: a second one ends the process at
// once, by the signal's default action (nothing cleaned up). stop lets the
// signals go.
func interruptible() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(interruption{s})
			signal.Stop(ch) // the next one is the default action's
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// interrupted returns the signal that ended ctx (interruptible's), or nil.
func interrupted(ctx context.Context) os.Signal {
	var i interruption
	if errors.As(context.Cause(ctx), &i) {
		return i.sig
	}
	return nil
}

// stopped reports whether a signal ended ctx: an error of a call that
// waited on ctx is then the interruption (the run ends there as after its
// last frame), not a failure.
func stopped(ctx context.Context) bool { return interrupted(ctx) != nil }

// endOfRun is what a summary line adds about how a run that was to make
// want frames (0: until interrupted) ended after n, and its exit status.
// A run that went its course, or one of --frames 0 that a signal ended
// (how it was meant to end), exits 0; one interrupted before its --frames
// did not do what was asked: it says so and exits 128 + the signal's
// number (130 for Ctrl-C, 143 for SIGTERM), the status a shell gives a
// command a signal ended, so that a script or make stops there rather than
// taking a short run for a full one.
func endOfRun(ctx context.Context, n, want uint64) (note string, rc int) {
	sig := interrupted(ctx)
	switch {
	case sig == nil:
		return "", 0
	case want == 0:
		return fmt.Sprintf(" (ended by %s)", sigName(sig)), 0
	}
	rc = 130
	if s, ok := sig.(syscall.Signal); ok {
		rc = 128 + int(s)
	}
	return fmt.Sprintf(" (interrupted by %s after %d of %d frames)", sigName(sig), n, want), rc
}

// perSecond is n per second of el (0 when no time passed).
func perSecond(n float64, el time.Duration) float64 {
	if el <= 0 {
		return 0
	}
	return n / el.Seconds()
}

// runShare is `gfxcuda share`: the producer of a ring shared with another
// process, which runs `gfxcuda open TOKEN`.
func runShare(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("share", `Produces frames into a ring shared with other processes; run the printed
`+"`gfxcuda open TOKEN`"+` (or `+"`gfxcuda open --cuda TOKEN`"+`) in another terminal to
consume and check them. By default a compute shader writes each frame's test
pattern into RGBA8 textures, handed over on the GPU (exported timeline
semaphores) where the driver can. Openers reach this process through an
abstract socket (same network namespace) and a socket in --dir (another
container that mounts it); --allow-uid and --allow-gid let other users in
(containers running as other uids), --rendezvous pidfd lets processes of
this PID namespace take the descriptors with pidfd_getfd (docs/sharing.md,
"Containers"). With --transport nccl the frames go over NCCL instead, to a
receiver on another GPU or host (`+"`gfxcuda open --transport nccl TOKEN`"+`):
the receiver connects to --listen (docs/multi-gpu.md, "Across hosts with
NCCL").`, stdout, stderr)
	fs := cl.fs
	slots := fs.Int("slots", 3, "ring slots")
	batch := fs.Int("batch", 1, "frames per GPU hand-off (GPU frames)")
	width := fs.Int("width", 1920, "frame width in texels (GPU frames)")
	height := fs.Int("height", 1080, "frame height in texels (GPU frames)")
	cpu := fs.Bool("cpu", false, "write frames with the CPU into host-visible buffers instead of with a compute shader into textures")
	size := fs.Int("size", 1<<20, "bytes per frame with --cpu (a multiple of 8)")
	frames := fs.Int("frames", 10000, "frames to produce (0: until Ctrl-C or SIGTERM; stopped before N frames, share exits 130, 143 for SIGTERM)")
	drop := fs.Bool("drop", false, "drop the oldest frame instead of waiting for slow consumers")
	tokenFile := fs.String("token-file", "", "also write the token to `FILE` (for an opener in another container: put it in the shared directory)")
	exportOpts := exportFlags(fs)
	loopback := fs.Bool("loopback", false, "with --transport nccl: both ends in this process on one GPU (a one-rank NCCL communicator), every texel checked: tests NCCL and the link with one GPU")
	lf := addLinkFlags(fs, "listen", "with --transport nccl: where the receiver connects, `ADDR`: unix:PATH or tcp:HOST:PORT (default: a Unix socket in --dir named after the token)")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	eo := exportOpts()
	if msg := lf.check([]string{"cpu", "size", "drop", "allow-uid", "allow-gid", "rendezvous"}); msg != "" {
		return cl.fail("%s", msg)
	}
	if *loopback && *lf.transport != transportNCCL {
		return cl.fail("--loopback goes with --transport nccl")
	}
	if *loopback && (lf.set("listen") || *tokenFile != "") {
		return cl.fail("--loopback has no receiver to reach: drop --listen and --token-file")
	}
	if *slots < 2 || *size < 8 || *size%8 != 0 {
		return cl.fail("need --slots ≥ 2 and --size a positive multiple of 8")
	}
	if !*cpu && (*batch < 1 || *batch > *slots || *width < 1 || *height < 1) {
		return cl.fail("need 1 ≤ --batch ≤ --slots and a positive --width and --height")
	}
	if *frames < 0 {
		return cl.fail("--frames must be 0 (until interrupted) or more")
	}
	if *lf.transport == transportNCCL && *slots > 64 {
		return cl.fail("--transport nccl takes at most 64 --slots")
	}
	// What share writes, checked before any work.
	if *tokenFile != "" {
		if err := checkOutput(*tokenFile); err != nil {
			return cl.fail("--token-file %s: %v", *tokenFile, err)
		}
	}
	usesDir := eo.Rendezvous == gfxcuda.RendezvousAuto || eo.Rendezvous&gfxcuda.RendezvousFS != 0
	if *lf.transport == transportNCCL {
		usesDir = !*loopback && *lf.addr == ""
	}
	if usesDir && eo.Dir != "" {
		if err := checkSocketDir(eo.Dir); err != nil {
			return cl.fail("--dir %s: %v", eo.Dir, err)
		}
	}
	if network, where, _ := parseLinkAddr(*lf.addr); *lf.transport == transportNCCL && network == "unix" {
		if err := checkSocketPath(where); err != nil {
			return cl.fail("--listen %s: %v", *lf.addr, err)
		}
	}
	// From here on a signal ends the run as its last frame would.
	ctx, stop := interruptible()
	defer stop()
	if *lf.transport == transportNCCL {
		return shareNCCL(ctx, lf, eo.Dir, *slots, *batch, *width, *height, *frames, *tokenFile, *loopback, stdout, stderr)
	}
	// Refusals (a user not allowed, a forged token) are printed as they
	// happen, with the peer's credentials.
	defer gfxcuda.SetShareLogf(gfxcuda.SetShareLogf(func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }))
	in, d, err := shareDevice()
	if err != nil {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	defer in.Close()
	defer d.Close()
	announce := func(tok gfxcuda.Token) error {
		describeToken(stdout, tok, eo)
		if *tokenFile != "" {
			if err := writeTokenFile(*tokenFile, tok, eo); err != nil {
				return fmt.Errorf("--token-file: %w", err)
			}
			defer fmt.Fprintf(stdout, "token written to %s\n", *tokenFile)
		}
		return nil
	}
	if !*cpu {
		return shareGPU(ctx, d, *slots, *batch, *width, *height, *frames, *drop, eo, announce, stdout, stderr)
	}
	var maps [][]byte
	var bufs []*vulkan.Buffer
	var exs []*gfxcuda.Shared
	for i := 0; i < *slots; i++ {
		b, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(*size), Heap: vulkan.HeapUpload, Exportable: true})
		if err == nil {
			var m []byte
			if m, err = b.Map(); err == nil {
				var ex *gfxcuda.Shared
				if ex, err = gfxcuda.ExportVulkan(d, b, eo); err == nil {
					defer ex.Close()
					exs = append(exs, ex)
				}
				maps = append(maps, m)
			}
			defer b.Close()
			bufs = append(bufs, b)
		}
		if err != nil {
			fmt.Fprintln(stderr, "gfxcuda share: slot:", err)
			return 1
		}
	}
	r, err := gfxcuda.NewSharedRing(gfxcuda.SharedRingOptions{Slots: exs, DropOldest: *drop, Export: eo})
	if err != nil {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	defer r.Close()
	ex, err := gfxcuda.Export(r)
	if err != nil {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	fmt.Fprintf(stdout, "ring of %d × %d bytes on %s; in another terminal run:\n\n  gfxcuda open %s\n\n", *slots, *size, d, ex.Token())
	if err := announce(ex.Token()); err != nil {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	fmt.Fprintln(stdout, "waiting for a consumer…")
	if err := r.WaitConsumers(ctx, 1); err != nil && !stopped(ctx) {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	t0, last, lastN := time.Now(), time.Now(), 0
	n := 0
	// The context is looked at every frame: Acquire waits on it only
	// while consumers hold every slot (never once the last one has left).
	for (*frames == 0 || n < *frames) && ctx.Err() == nil {
		slot, err := r.Acquire(ctx)
		if err != nil {
			if stopped(ctx) {
				break
			}
			fmt.Fprintln(stderr, "gfxcuda share:", err)
			return 1
		}
		seq := r.NextSeq()
		framePattern(seq, maps[slot])
		if err := bufs[slot].Flush(0, uint64(*size)); err != nil {
			fmt.Fprintln(stderr, "gfxcuda share:", err)
			return 1
		}
		user := binary.LittleEndian.AppendUint64(nil, seq)
		if _, err := r.Publish(slot, user, 0); err != nil {
			fmt.Fprintln(stderr, "gfxcuda share:", err)
			return 1
		}
		n++
		if time.Since(last) >= time.Second {
			fmt.Fprintf(stdout, "produced %d frames, %.0f frames/s, %d consumer(s)\n", n, float64(n-lastN)/time.Since(last).Seconds(), r.Consumers())
			last, lastN = time.Now(), n
		}
	}
	el := time.Since(t0)
	note, rc := endOfRun(ctx, uint64(n), uint64(*frames))
	fmt.Fprintf(stdout, "produced %d frames in %v: %.0f frames/s, %.2f GB/s%s\n", n, el.Round(time.Millisecond),
		perSecond(float64(n), el), perSecond(float64(n)*float64(*size), el)/1e9, note)
	return rc
}

// runOpen is `gfxcuda open TOKEN`: consumes a ring's frames and checks
// every byte.
func runOpen(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("open", `Consumes the frames of a ring shared by `+"`gfxcuda share`"+`, checks every byte
and prints the frame rate. TOKEN is what gfxcuda share printed. When the
exporter cannot be reached, it says why for each way the token offers and
what to set. With --transport nccl, TOKEN is a link's (gfxcuda share
--transport nccl): it connects to the sender, receives the frames over NCCL
on another GPU (or host), checks every texel with CUDA and prints frames/s
and GB/s.`, stdout, stderr, "TOKEN")
	useCUDA := cl.fs.Bool("cuda", false, "consume in CUDA (the frames' texels are checked on the GPU) instead of Vulkan")
	openOpts := openFlags(cl.fs)
	lf := addLinkFlags(cl.fs, "connect", "with --transport nccl: the sender's --listen `ADDR`: unix:PATH or tcp:HOST:PORT (default: the Unix socket in --dir named after the token)")
	pos, code, ok := cl.parse(args)
	if !ok {
		return code
	}
	oo := openOpts()
	if msg := lf.check([]string{"cuda", "rendezvous"}); msg != "" {
		return cl.fail("%s", msg)
	}
	// From here on a signal ends the run as the producer's end would
	// (open has no frame count: it exits 0 either way).
	ctx, stop := interruptible()
	defer stop()
	if *lf.transport == transportNCCL {
		lt := gfxcuda.LinkToken(pos[0])
		info, err := lt.Info()
		if err != nil {
			if _, rerr := gfxcuda.Token(pos[0]).Meta(); rerr == nil {
				return cl.fail("TOKEN is a ring's token: open it without --transport nccl")
			}
			return cl.fail("TOKEN %q: %s (copy the whole token gfxcuda share --transport nccl printed)", pos[0], strings.TrimPrefix(err.Error(), "share: "))
		}
		return openNCCL(ctx, lf, oo.Dir, lt, info, stdout, stderr)
	}
	if strings.HasPrefix(strings.TrimSpace(pos[0]), "gfxlink") {
		return cl.fail("TOKEN is a link's token (from gfxcuda share --transport nccl): add --transport nccl")
	}
	tok := gfxcuda.Token(pos[0])
	if _, err := tok.Meta(); err != nil {
		return cl.fail("TOKEN %q: %s (copy the whole token gfxcuda share printed)", pos[0], strings.TrimPrefix(err.Error(), "share: "))
	}
	if *useCUDA {
		return openCUDA(ctx, tok, oo, stdout, stderr)
	}
	in, d, err := shareDevice()
	if err != nil {
		fmt.Fprintln(stderr, "gfxcuda open:", err)
		return 1
	}
	defer in.Close()
	defer d.Close()
	// Attach once, for either kind of slot: a consumer that attached only
	// to look at the slots' kind and left would let the producer (which
	// starts when its first consumer attaches) publish a batch that the
	// consumer attaching next never sees.
	vc, err := gfxcuda.OpenVulkanConsumer(ctx, d, tok, oo)
	if err != nil {
		if stopped(ctx) {
			return openInterrupted(ctx, stdout)
		}
		fmt.Fprintln(stderr, "gfxcuda open:", err)
		return 1
	}
	defer vc.Close()
	if vc.Image(0) != nil {
		return openVulkan(ctx, d, vc, stdout, stderr)
	}
	c := vc.Consumer()
	var maps [][]byte
	var bufs []*vulkan.Buffer
	for i := range c.Slots() {
		b := vc.Buffer(i)
		m, err := b.Map()
		if err != nil {
			fmt.Fprintln(stderr, "gfxcuda open: slot:", err)
			return 1
		}
		bufs, maps = append(bufs, b), append(maps, m)
	}
	fmt.Fprintf(stdout, "consuming %d slots of %d bytes on %s\n", len(bufs), bufs[0].Size(), d)
	var want []byte
	n, bad, dropped := 0, 0, uint64(0)
	t0, last, lastN := time.Now(), time.Now(), 0
	// The context is looked at every frame: Next waits on it only while
	// no frame is there.
	for ctx.Err() == nil {
		f, err := c.Next(ctx)
		if errors.Is(err, gfxcuda.ErrSharedRingClosed) || (err != nil && stopped(ctx)) {
			break
		}
		if err != nil {
			fmt.Fprintln(stderr, "gfxcuda open:", err)
			return 1
		}
		m := maps[f.Slot]
		bufs[f.Slot].Invalidate(0, uint64(len(m)))
		if len(want) != len(m) {
			want = make([]byte, len(m))
		}
		framePattern(f.Seq, want)
		ok := string(want) == string(m) && len(f.User) == 8 && binary.LittleEndian.Uint64(f.User) == f.Seq
		if !ok {
			bad++
		}
		dropped += f.Dropped
		c.Release(f)
		n++
		if time.Since(last) >= time.Second {
			fmt.Fprintf(stdout, "frame %d: %.0f frames/s, %d checked, %d bad, %d dropped, latency %v\n", f.Seq,
				float64(n-lastN)/time.Since(last).Seconds(), n, bad, dropped, time.Since(f.Time).Round(time.Microsecond))
			last, lastN = time.Now(), n
		}
	}
	el := time.Since(t0)
	note, _ := endOfRun(ctx, uint64(n), 0)
	fmt.Fprintf(stdout, "%d frames in %v (%.0f frames/s): %d checked byte for byte, %d bad, %d dropped%s\n", n,
		el.Round(time.Millisecond), perSecond(float64(n), el), n, bad, dropped, note)
	if bad > 0 {
		return 1
	}
	return 0
}

// openInterrupted is open's summary when a signal came before the ring or
// link was open: no frame was consumed, and that is no failure.
func openInterrupted(ctx context.Context, stdout io.Writer) int {
	fmt.Fprintf(stdout, "0 frames: ended by %s before the producer was reached\n", sigName(interrupted(ctx)))
	return 0
}

// Hidden commands `gfxcuda bench` starts in another process.
const (
	shareOpenChildCmd = "__share-open" // TOKEN [MODE]: open a buffer or texture handle (bench.ShareOpenModes), print the nanoseconds it took
	shareRingChildCmd = "__share-ring" // TOKEN FRAMES: consume a bench ring
)

func runShareChild(cmd string, args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "usage: gfxcuda", cmd, "TOKEN ...")
		return 2
	}
	tok := gfxcuda.Token(args[0])
	m, err := tok.Meta()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	u := cuda.UUID(m.UUID)
	if cmd == shareRingChildCmd {
		frames := 0
		if len(args) == 2 {
			frames, _ = strconv.Atoi(args[1])
		}
		cx, err := cudaContext(u)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer cx.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		fps, err := bench.ConsumeRingCUDA(ctx, cx, tok, frames)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintln(stdout, fps)
		return 0
	}
	mode := bench.OpenInterop
	if len(args) == 2 {
		mode = args[1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var el time.Duration
	switch mode {
	case bench.OpenCUDA, bench.OpenCUDAAgain:
		el, err = openForCUDA(ctx, u, tok, m.Kind, mode == bench.OpenCUDAAgain)
	case bench.OpenInterop, bench.OpenInteropVulkan:
		el, err = openInterop(ctx, u, tok, m.Kind, mode == bench.OpenInteropVulkan)
	default:
		fmt.Fprintf(stderr, "gfxcuda %s: unknown mode %q\n", cmd, mode)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, el.Nanoseconds())
	return 0
}

// openForCUDA opens tok into CUDA alone (the primary context made and
// warmed first: it is not part of the open) and returns how long that
// took; again: the time of a second open of the same token, which reuses
// the import.
func openForCUDA(ctx context.Context, u cuda.UUID, tok gfxcuda.Token, kind gfxcuda.Kind, again bool) (time.Duration, error) {
	cx, err := cudaContext(u)
	if err != nil {
		return 0, err
	}
	defer cx.Close()
	if err := cx.Synchronize(); err != nil {
		return 0, err
	}
	open := func() (interface{ Close() error }, error) {
		if kind == gfxcuda.KindTexture {
			return gfxcuda.OpenCUDATexture(ctx, cx, tok)
		}
		return gfxcuda.OpenCUDABuffer(ctx, cx, tok)
	}
	t0 := time.Now()
	first, err := open()
	el := time.Since(t0)
	if err != nil {
		return 0, err
	}
	defer first.Close()
	if !again {
		return el, nil
	}
	t0 = time.Now()
	second, err := open()
	el = time.Since(t0)
	if err != nil {
		return 0, err
	}
	return el, second.Close()
}

// openInterop opens tok with gfxcuda.OpenBuffer or OpenTexture on an
// interop device (opened first) and returns how long that took; vk: with
// the first Vulkan use, which imports it into Vulkan.
func openInterop(ctx context.Context, u cuda.UUID, tok gfxcuda.Token, kind gfxcuda.Kind, vk bool) (time.Duration, error) {
	dev, err := gfxcuda.Open(gfxcuda.Options{UUID: &u})
	if err != nil {
		return 0, err
	}
	defer dev.Close()
	t0 := time.Now()
	var c interface{ Close() error }
	if kind == gfxcuda.KindTexture {
		var t *gfxcuda.Texture
		if t, err = dev.OpenTexture(ctx, tok); err == nil {
			c = t
			if vk {
				_, err = t.VulkanImage()
			}
		}
	} else {
		var b *gfxcuda.Buffer
		if b, err = dev.OpenBuffer(ctx, tok); err == nil {
			c = b
			if vk {
				_, err = b.VulkanBuffer()
			}
		}
	}
	el := time.Since(t0)
	if c != nil {
		err = errors.Join(err, c.Close())
	}
	return el, err
}

// shareChild runs a hidden share command in a new process of this command
// line (selfCommand), in its own network namespace when netns (root only).
func shareChild(netns bool, args ...string) ([]byte, error) {
	cmd, err := selfCommand(args...)
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if netns {
		cmd.SysProcAttr = inNewNetNamespace()
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func shareOpenChild(tok gfxcuda.Token, mode string) (time.Duration, error) {
	out, err := shareChild(false, shareOpenChildCmd, string(tok), mode)
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return time.Duration(ns), err
}

func shareRingChild(tok gfxcuda.Token, frames int, netns bool) (float64, error) {
	out, err := shareChild(netns, shareRingChildCmd, string(tok), strconv.Itoa(frames))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
}
