package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The transports of `gfxcuda share` and `gfxcuda open`.
const (
	transportRing = "ring" // a ring shared between processes of one host (share.go)
	transportNCCL = "nccl" // a gfxcuda link over NCCL, between GPUs or hosts
)

// linkFlags are the flags share and open take for --transport nccl.
type linkFlags struct {
	transport *string
	addr      *string // --listen (share) or --connect (open)
	device    *string
	timeout   *time.Duration
	fs        *flag.FlagSet
}

// addLinkFlags adds --transport, --device, --timeout and the address flag
// (addrFlag: "listen" or "connect") to fs.
func addLinkFlags(fs *flag.FlagSet, addrFlag, addrUsage string) *linkFlags {
	return &linkFlags{
		transport: fs.String("transport", transportRing, "`HOW` frames move: ring (GPU memory shared between processes of this host) or nccl (a link over NCCL: between GPUs or hosts; docs/multi-gpu.md)"),
		addr:      fs.String(addrFlag, "", addrUsage),
		device:    fs.String("device", "", "with --transport nccl: the `GPU` (a CUDA ordinal or a UUID as nvidia-smi -L prints it)"),
		timeout:   fs.Duration("timeout", 2*time.Minute, "with --transport nccl: how long to wait for the peer (to connect, to answer, to join NCCL)"),
		fs:        fs,
	}
}

// set reports whether flag name was given.
func (l *linkFlags) set(name string) bool { return flagGiven(l.fs, name) }

// check refuses flags that do not go with the transport chosen: it
// returns the usage error's text, or "".
func (l *linkFlags) check(ringOnly []string) string {
	switch *l.transport {
	case transportRing:
		for _, n := range []string{l.addrName(), "device", "timeout"} {
			if l.set(n) {
				return fmt.Sprintf("%s goes with --transport nccl", flagName(n))
			}
		}
	case transportNCCL:
		for _, n := range ringOnly {
			if l.set(n) {
				return fmt.Sprintf("%s goes with rings, not with --transport nccl", flagName(n))
			}
		}
		if *l.timeout <= 0 {
			return "--timeout must be positive"
		}
		if *l.addr != "" {
			if _, _, err := parseLinkAddr(*l.addr); err != nil {
				return fmt.Sprintf("%s %q: %v", flagName(l.addrName()), *l.addr, err)
			}
		}
	default:
		return fmt.Sprintf("--transport %q: want ring or nccl", *l.transport)
	}
	return ""
}

func (l *linkFlags) addrName() string {
	if l.fs.Lookup("listen") != nil {
		return "listen"
	}
	return "connect"
}

// parseLinkAddr reads unix:PATH or tcp:HOST:PORT.
func parseLinkAddr(s string) (network, addr string, err error) {
	network, addr, ok := strings.Cut(s, ":")
	switch {
	case !ok || addr == "":
		return "", "", errors.New("want unix:PATH or tcp:HOST:PORT")
	case network == "unix":
		return network, addr, nil
	case network == "tcp":
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return "", "", fmt.Errorf("want tcp:HOST:PORT (%v)", err)
		}
		return network, addr, nil
	}
	return "", "", fmt.Errorf("unknown kind %q: want unix:PATH or tcp:HOST:PORT", network)
}

// defaultLinkAddr is the Unix socket a link listens on when --listen is
// not given, and open connects to without --connect: in the share
// directory, named after the token (both ends compute it).
func defaultLinkAddr(dir string, tok gfxcuda.LinkToken) string {
	if dir == "" {
		dir = gfxcuda.DefaultShareDir()
	}
	h := sha256.Sum256([]byte(strings.TrimSpace(string(tok))))
	return "unix:" + filepath.Join(dir, "link-"+hex.EncodeToString(h[:8])+".sock")
}

// linkDevice opens the gfxcuda Device of --device (empty: the first GPU;
// avoid: a GPU to pass over when another is there, the sender's).
func linkDevice(name string, avoid *cuda.UUID) (*gfxcuda.Device, error) {
	if err := cuda.Init(); err != nil {
		return nil, err
	}
	var u cuda.UUID
	if name != "" {
		dev, err := cuda.LookupDevice(name)
		if err != nil {
			return nil, fmt.Errorf("--device %s: %w (gfxcuda devices lists the GPUs)", name, err)
		}
		if u, err = dev.UUID(); err != nil {
			return nil, err
		}
	} else {
		ds, err := cuda.Devices()
		if err != nil {
			return nil, err
		}
		if len(ds) == 0 {
			return nil, errors.New("no CUDA GPU is visible (check CUDA_VISIBLE_DEVICES)")
		}
		for i, d := range ds {
			du, err := d.UUID()
			if err != nil {
				return nil, err
			}
			if i == 0 || (avoid != nil && u == *avoid && du != *avoid) {
				u = du
			}
		}
	}
	if avoid != nil && u == *avoid {
		return nil, fmt.Errorf("the sender runs on GPU %v, which is this receiver's GPU too: NCCL cannot put both ends of a link on one GPU; run the receiver on another GPU (--device, CUDA_VISIBLE_DEVICES) or another host", u)
	}
	return gfxcuda.Open(gfxcuda.Options{UUID: &u})
}

// gbps is bytes/s in GB/s.
func gbps(frames uint64, size uint64, el time.Duration) float64 {
	return float64(frames) * float64(size) / el.Seconds() / 1e9
}

// shareNCCL is `gfxcuda share --transport nccl`: the sending end of a
// link. A compute shader renders each frame's test pattern, copied into
// the link's slots; NCCL sends them to `gfxcuda open --transport nccl`.
func shareNCCL(ctx context.Context, lf *linkFlags, dir string, slots, batch, width, height, frames int, tokenFile string, loopback bool, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gfxcuda share:", err)
		return 1
	}
	// NCCL first: its absence is the likeliest failure, and says how to
	// install it.
	if err := nccl.Load(); err != nil {
		return fail(err)
	}
	d, err := linkDevice(*lf.device, nil)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	o := gfxcuda.LinkOptions{
		Shape:   gfxcuda.LinkShape{Width: uint32(width), Height: uint32(height), Format: format.RGBA8UNorm},
		Slots:   slots,
		Timeout: *lf.timeout,
	}
	v, lib, _ := nccl.Version()
	gpu := cuda.UUID(d.Vulkan().Physical().DeviceUUID)
	var snd *gfxcuda.LinkSender
	var rcv *gfxcuda.LinkReceiver // loopback: this process's receiver
	var chk *linkChecker
	if loopback {
		rctx, rcancel := context.WithTimeout(ctx, *lf.timeout)
		snd, rcv, err = d.NewLinkLoopback(rctx, o)
		rcancel()
		if err != nil {
			if stopped(ctx) {
				return linkInterrupted(ctx, frames, stdout)
			}
			return fail(err)
		}
		defer rcv.Close()
		if chk, err = newLinkChecker(d, rcv); err != nil {
			snd.Close()
			return fail(err)
		}
		defer chk.close()
		fmt.Fprintf(stdout, "loopback link of %d slots of %dx%d RGBA8 frames on GPU %v, batches of %d, NCCL %s (%s): both ends in this process (a one-rank communicator); every texel checked by CUDA\n",
			slots, width, height, gpu, batch, v, lib)
	} else {
		if snd, err = shareNCCLRendezvous(ctx, d, o, lf, dir, tokenFile, batch, stdout); err != nil {
			if stopped(ctx) {
				return linkInterrupted(ctx, frames, stdout)
			}
			return fail(err)
		}
	}
	closed := false
	defer func() {
		if !closed {
			snd.Close()
		}
	}()
	vk := d.Vulkan()
	tp, err := testpattern.NewProducer(vk)
	if err != nil {
		return fail(err)
	}
	defer tp.Close()
	var imgs []*vulkan.Image
	for i := 0; i < slots; i++ {
		img, err := vk.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: uint32(width), Height: uint32(height)})
		if err != nil {
			return fail(err)
		}
		defer img.Close()
		imgs = append(imgs, img)
	}
	record := func(c *vulkan.Commands, first uint64, ss []int) error {
		for i, sl := range ss {
			tp.Record(c, imgs[sl], first+uint64(i))
			c.CopyImageToBuffer(snd.Slot(sl).Vulkan(), imgs[sl], vulkan.BufferImageCopy{})
		}
		return c.Err()
	}
	size := uint64(width) * uint64(height) * 4
	// The loopback receiver takes each batch just sent even after a
	// signal (the sender's Close waits for its sends to be received):
	// it waits at most --timeout, not on the signal.
	receive := func() (gfxcuda.LinkBatch, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *lf.timeout)
		defer cancel()
		return rcv.Receive(rctx)
	}
	t0, last, lastN := time.Now(), time.Now(), uint64(0)
	var sent uint64
	// The context is looked at every batch: Send waits on it only while
	// the receiver holds the slots.
	for (frames == 0 || sent < uint64(frames)) && ctx.Err() == nil {
		n := batch
		if frames != 0 && uint64(frames)-sent < uint64(n) {
			n = int(uint64(frames) - sent)
		}
		total, err := snd.Send(ctx, n, record)
		if err != nil {
			if stopped(ctx) {
				break
			}
			if errors.Is(err, gfxcuda.ErrLinkClosed) {
				return fail(fmt.Errorf("the receiver closed the link after %d frames: %w", sent, err))
			}
			return fail(err)
		}
		sent = total
		if rcv != nil {
			b, err := receive()
			if err == nil {
				err = chk.check(b)
			}
			if err != nil {
				return fail(fmt.Errorf("loopback receiver: %w", err))
			}
		}
		if time.Since(last) >= time.Second {
			fmt.Fprintf(stdout, "sent %d frames, %.0f frames/s, %.2f GB/s\n", sent, float64(sent-lastN)/time.Since(last).Seconds(), gbps(sent-lastN, size, time.Since(last)))
			last, lastN = time.Now(), sent
		}
	}
	closed = true
	// Close waits (at most --timeout) for the sends, which end once the
	// receiver has received them.
	if err := snd.Close(); err != nil {
		return fail(err)
	}
	if rcv != nil {
		// The receiver sees the sender's close (then closes without
		// writing to a channel the sender already shut).
		if _, err := receive(); !errors.Is(err, gfxcuda.ErrLinkClosed) {
			return fail(fmt.Errorf("loopback receiver after the sender closed: %v, want the link closed", err))
		}
		bad, err := chk.finish()
		if err == nil {
			err = rcv.Close()
		}
		if err != nil {
			return fail(err)
		}
		el := time.Since(t0)
		note, rc := endOfRun(ctx, chk.got, uint64(frames))
		fmt.Fprintf(stdout, "%d frames in %v (%.0f frames/s, %.2f GB/s): sent and received, every texel checked on the GPU, %d bad texels%s\n", chk.got,
			el.Round(time.Millisecond), perSecond(float64(chk.got), el), gbps(chk.got, size, el), bad, note)
		if bad > 0 || chk.got != sent {
			return 1
		}
		return rc
	}
	el := time.Since(t0)
	note, rc := endOfRun(ctx, sent, uint64(frames))
	fmt.Fprintf(stdout, "sent %d frames in %v: %.0f frames/s, %.2f GB/s%s\n", sent, el.Round(time.Millisecond), perSecond(float64(sent), el), gbps(sent, size, el), note)
	return rc
}

// linkInterrupted is a link's summary when a signal came before it was
// set up: nothing was sent; the exit status is endOfRun's.
func linkInterrupted(ctx context.Context, frames int, stdout io.Writer) int {
	note, rc := endOfRun(ctx, 0, uint64(frames))
	fmt.Fprintf(stdout, "sent 0 frames: the link was not set up%s\n", note)
	return rc
}

// shareNCCLRendezvous makes the link's token, prints it with the command
// to run, waits (at most --timeout) for one receiver on --listen and
// opens the sending end with it.
func shareNCCLRendezvous(ctx context.Context, d *gfxcuda.Device, o gfxcuda.LinkOptions, lf *linkFlags, dir, tokenFile string, batch int, stdout io.Writer) (*gfxcuda.LinkSender, error) {
	tok, err := d.NewLinkToken(o)
	if err != nil {
		return nil, err
	}
	o.Token = tok
	addr := *lf.addr
	if addr == "" {
		if dir == "" {
			dir = gfxcuda.DefaultShareDir()
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("the socket directory: %w", err)
		}
		addr = defaultLinkAddr(dir, tok)
	}
	network, where, _ := parseLinkAddr(addr)
	ln, err := net.Listen(network, where)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	defer ln.Close() // removes a Unix socket's file: a token serves one link
	if network == "unix" {
		if err := os.Chmod(where, 0o600); err != nil {
			return nil, err
		}
	}
	connect := ""
	switch {
	case *lf.addr == "":
	case network == "tcp":
		host, port, _ := net.SplitHostPort(where)
		if h, err := os.Hostname(); err == nil && (host == "" || host == "0.0.0.0" || host == "::") {
			host = h
		}
		connect = "--connect tcp:" + net.JoinHostPort(host, port) + " "
	default:
		connect = "--connect " + addr + " "
	}
	if tokenFile != "" {
		// Before the token is printed: whoever reads the printout may
		// look for the file. Removed once the link is set up or failed.
		if err := writeTokenFile(tokenFile, gfxcuda.Token(tok), gfxcuda.ExportOptions{}); err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		defer os.Remove(tokenFile)
	}
	v, lib, _ := nccl.Version()
	fmt.Fprintf(stdout, "link of %d slots of %dx%d RGBA8 frames on GPU %v, batches of %d, NCCL %s (%s), listening on %s; in another terminal (or on another host) run:\n\n  gfxcuda open --transport nccl %s%s\n\n",
		o.Slots, o.Shape.Width, o.Shape.Height, cuda.UUID(d.Vulkan().Physical().DeviceUUID), batch, v, lib, addr, connect, tok)
	if tokenFile != "" {
		fmt.Fprintf(stdout, "token written to %s\n", tokenFile)
	}
	fmt.Fprintf(stdout, "waiting for the receiver (at most %v)…\n", *lf.timeout)
	conn, err := acceptOne(ctx, ln, *lf.timeout)
	if err != nil {
		return nil, err
	}
	ln.Close()
	rctx, rcancel := context.WithTimeout(ctx, *lf.timeout)
	defer rcancel()
	snd, err := d.NewLinkSender(rctx, conn, o)
	if err != nil {
		return nil, peerTimeout(err, "receiver", *lf.timeout)
	}
	fmt.Fprintln(stdout, "the receiver joined; sending")
	return snd, nil
}

// acceptOne waits (until ctx ends or timeout) for one connection on ln.
func acceptOne(ctx context.Context, ln net.Listener, timeout time.Duration) (net.Conn, error) {
	if dl, ok := ln.(interface{ SetDeadline(time.Time) error }); ok {
		dl.SetDeadline(time.Now().Add(timeout))
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	c, err := ln.Accept()
	if err == nil {
		return c, nil
	}
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("interrupted while waiting for the receiver: %w", ctx.Err())
	case errors.As(err, &ne) && ne.Timeout():
		return nil, fmt.Errorf("no receiver connected within %v (--timeout): run the printed `gfxcuda open` command: %w", timeout, context.DeadlineExceeded)
	}
	return nil, fmt.Errorf("waiting for the receiver: %w", err)
}

// openNCCL is `gfxcuda open --transport nccl TOKEN`: the receiving end of
// a link; a CUDA kernel checks every texel of every frame.
func openNCCL(ctx context.Context, lf *linkFlags, dir string, tok gfxcuda.LinkToken, info gfxcuda.LinkInfo, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gfxcuda open:", err)
		return 1
	}
	if err := nccl.Load(); err != nil {
		return fail(err)
	}
	if info.Shape.Format != format.RGBA8UNorm {
		return fail(fmt.Errorf("the link sends %v; gfxcuda open checks the RGBA8 frames of gfxcuda share", info.Shape))
	}
	name := *lf.device
	if name == "" && info.Receiver != nil {
		name = info.Receiver.String()
	}
	d, err := linkDevice(name, &info.Sender)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	addr := *lf.addr
	if addr == "" {
		addr = defaultLinkAddr(dir, tok)
	}
	network, where, _ := parseLinkAddr(addr)
	dctx, dcancel := context.WithTimeout(ctx, *lf.timeout)
	conn, err := (&net.Dialer{}).DialContext(dctx, network, where)
	dcancel()
	if err != nil && stopped(ctx) {
		return openInterrupted(ctx, stdout)
	}
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			hint = " (is `gfxcuda share --transport nccl` still running, on this host with the same --dir? From another host, give --connect tcp:HOST:PORT with the sender's --listen)"
		}
		return fail(fmt.Errorf("connecting to the sender at %s: %w%s", addr, err, hint))
	}
	rctx, rcancel := context.WithTimeout(ctx, *lf.timeout)
	shape := info.Shape
	rcv, err := d.NewLinkReceiver(rctx, conn, gfxcuda.LinkAccept{Expect: &shape, Token: tok, Timeout: *lf.timeout})
	rcancel()
	if err != nil && stopped(ctx) {
		return openInterrupted(ctx, stdout)
	}
	if err != nil {
		return fail(peerTimeout(err, "sender", *lf.timeout))
	}
	defer rcv.Close()
	chk, err := newLinkChecker(d, rcv)
	if err != nil {
		return fail(err)
	}
	defer chk.close()
	fmt.Fprintf(stdout, "receiving %v in %d slots on GPU %v from GPU %v; every texel checked by CUDA\n", shape, rcv.Slots(), cuda.UUID(d.Vulkan().Physical().DeviceUUID), info.Sender)
	t0, last, lastN := time.Now(), time.Now(), uint64(0)
	// The context is looked at every batch: Receive waits on it only
	// while no batch is there.
	for ctx.Err() == nil {
		b, err := rcv.Receive(ctx)
		if errors.Is(err, gfxcuda.ErrLinkClosed) || (err != nil && stopped(ctx)) {
			break
		}
		if err != nil {
			return fail(fmt.Errorf("after %d frames: %w", chk.got, err))
		}
		if err := chk.check(b); err != nil {
			return fail(err)
		}
		if time.Since(last) >= time.Second {
			bad, err := chk.read()
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stdout, "frame %d: %.0f frames/s, %.2f GB/s, %d checked, %d bad texels\n", chk.got-1,
				float64(chk.got-lastN)/time.Since(last).Seconds(), gbps(chk.got-lastN, shape.FrameSize, time.Since(last)), chk.got, bad)
			last, lastN = time.Now(), chk.got
		}
	}
	bad, err := chk.finish()
	if err != nil {
		return fail(err)
	}
	if err := rcv.Close(); err != nil {
		return fail(err)
	}
	el := time.Since(t0)
	note, _ := endOfRun(ctx, chk.got, 0)
	fmt.Fprintf(stdout, "%d frames in %v (%.0f frames/s, %.2f GB/s): every texel checked on the GPU, %d bad texels%s\n", chk.got,
		el.Round(time.Millisecond), perSecond(float64(chk.got), el), gbps(chk.got, shape.FrameSize, el), bad, note)
	if bad > 0 {
		return 1
	}
	return 0
}

// linkChecker checks every texel of every frame a link's receiver gets
// against gfxcuda share's test pattern, with a CUDA kernel on the
// receiver's GPU.
type linkChecker struct {
	rcv    *gfxcuda.LinkReceiver
	cx     *cuda.Context
	frames *testpattern.Checker // every frame; the first also against a wrong seed
	s      *cuda.Stream
	texels uint64
	got    uint64 // frames checked (queued)
}

// newLinkChecker loads the checking kernel and poisons rcv's slots.
func newLinkChecker(d *gfxcuda.Device, rcv *gfxcuda.LinkReceiver) (*linkChecker, error) {
	shape := rcv.Shape()
	if shape.Format != format.RGBA8UNorm {
		return nil, fmt.Errorf("the link sends %v; only the RGBA8 frames of gfxcuda share are checked", shape)
	}
	c := &linkChecker{rcv: rcv, cx: d.CUDA(), texels: uint64(shape.Width) * uint64(shape.Height)}
	var err error
	if c.frames, err = testpattern.NewChecker(c.cx, 0); err == nil {
		c.s, err = c.cx.NewStream(cuda.StreamNonBlocking)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	s := c.s
	for i := 0; err == nil && i < rcv.Slots(); i++ {
		err = rcv.Slot(i).Map(s, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.Memset32(p, 0xcdcdcdcd, c.texels) })
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("poisoning the slots: %w", err)
	}
	return c, nil
}

// check queues the check of batch b's frames and releases it.
func (c *linkChecker) check(b gfxcuda.LinkBatch) error {
	if b.First != c.got {
		return fmt.Errorf("the sender's batch starts at frame %d, want frame %d", b.First, c.got)
	}
	acc, err := c.rcv.ToCUDA(c.s, b)
	if err != nil {
		return err
	}
	for i, sl := range b.Slots {
		seed := testpattern.Seed(b.First + uint64(i))
		p := c.rcv.Slot(sl).Ptr()
		if err == nil {
			err = c.frames.Check(acc.Stream(), p, c.texels, seed)
		}
		if err == nil && c.got == 0 && i == 0 {
			err = c.frames.CheckWrongSeed(acc.Stream(), p, c.texels, seed)
		}
	}
	if err = errors.Join(err, acc.Done()); err == nil {
		err = c.rcv.Release(b)
	}
	c.got += uint64(len(b.Slots))
	return err
}

// read waits for the checks queued and returns the wrong texels found.
func (c *linkChecker) read() (bad uint64, err error) {
	n, err := c.frames.Result(c.s)
	return n.Wrong, err
}

// finish reads the result, failing when the checker did not run.
func (c *linkChecker) finish() (bad uint64, err error) {
	n, err := c.frames.Result(c.s)
	if err == nil {
		err = c.frames.Ran(n)
	}
	return n.Wrong, err
}

// close frees what newLinkChecker made (after the stream's work).
func (c *linkChecker) close() {
	if c.s != nil {
		c.s.Synchronize()
		c.s.Close()
	}
	if c.frames != nil {
		c.frames.Close()
	}
}

// peerTimeout words a rendezvous that ran out of time for the user.
func peerTimeout(err error, peer string, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the %s did not answer or join NCCL within %v (--timeout): %w", peer, timeout, err)
	}
	return err
}
