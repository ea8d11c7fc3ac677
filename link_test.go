//go:build linux

package gfxcuda

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"github.com/gfxcuda/gfxcuda/link"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The link protocol (link.go) on the CPU: both ends run the protocol code
// LinkSender and LinkReceiver run, over fakeNCCL, a transport that stands
// in for NCCL only: it moves each slot's bytes over a socket between the
// two ends (two processes where a peer must die). The slots are
// host-visible Vulkan buffers (the real slots are CUDA memory, which this
// machine has not); lavapipe's compute writes each frame's random-seeded
// pattern on the sending side, and the receiving side copies each frame
// with Vulkan and checks every texel.

// linkChildEnv names the role of a child process of these tests.
const linkChildEnv = "GFXCUDA_LINK_CHILD"

// fakeNCCL is a link.Transport moving bytes over a socket.
type fakeNCCL struct {
	slots []*vulkan.Buffer
	size  uint64
	data  net.Conn
	// dieAt: the sending process kills itself halfway through sending
	// frame dieAt (-1: never).
	dieAt int64
	next  int64
	once  sync.Once
}

func newFakeNCCL(vk *vulkan.Device, size uint64, slots int, data net.Conn) (*fakeNCCL, error) {
	f := &fakeNCCL{size: size, data: data, dieAt: -1}
	for i := 0; i < slots; i++ {
		b, err := vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapReadback})
		if err != nil {
			f.free()
			return nil, err
		}
		f.slots = append(f.slots, b)
	}
	return f, nil
}

func (f *fakeNCCL) free() {
	for _, b := range f.slots {
		b.Close()
	}
	f.slots = nil
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

func (f *fakeNCCL) Send(ctx context.Context, ss []int) error {
	f.data.SetWriteDeadline(deadlineOf(ctx))
	for _, s := range ss {
		mem, err := f.slots[s].Map()
		if err != nil {
			return err
		}
		if err := f.slots[s].Invalidate(0, f.size); err != nil {
			return err
		}
		if f.next == f.dieAt {
			f.data.Write(mem[:f.size/2])
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		if _, err := f.data.Write(mem[:f.size]); err != nil {
			return err
		}
		f.next++
	}
	return nil
}

func (f *fakeNCCL) Recv(ctx context.Context, ss []int) error {
	f.data.SetReadDeadline(deadlineOf(ctx))
	for _, s := range ss {
		mem, err := f.slots[s].Map()
		if err != nil {
			return err
		}
		if _, err := io.ReadFull(f.data, mem[:f.size]); err != nil {
			return err
		}
		if err := f.slots[s].Flush(0, f.size); err != nil {
			return err
		}
		f.next++
	}
	return nil
}

func (f *fakeNCCL) Close(ctx context.Context) error {
	var err error
	f.once.Do(func() { err = f.data.Close() })
	return err
}

func (f *fakeNCCL) Abort() { f.once.Do(func() { f.data.Close() }) }

// fakeEnd is one end of a link over fakeNCCL.
type fakeEnd struct {
	l  *link.Link
	f  *fakeNCCL
	vk *vulkan.Device
}

func (e *fakeEnd) close() error {
	err := e.l.Close()
	if e.f != nil {
		e.f.free()
	}
	return err
}

func openFakeSender(ctx context.Context, vk *vulkan.Device, ctrl, data net.Conn, o LinkOptions, dieAt int64) (*fakeEnd, error) {
	o, err := link.SenderOptions(o)
	if err != nil {
		return nil, err
	}
	f, err := newFakeNCCL(vk, o.Shape.FrameSize, o.Slots, data)
	if err != nil {
		return nil, err
	}
	f.dieAt = dieAt
	l, err := link.OpenSender(ctx, ctrl, o, link.Setup{GPU: vk.Physical().DeviceUUID,
		Join: func(context.Context, *link.TokenData) (link.Transport, error) { return f, nil }})
	if err != nil {
		f.free()
		ctrl.Close()
		data.Close()
		return nil, err
	}
	return &fakeEnd{l: l, f: f, vk: vk}, nil
}

func openFakeReceiver(ctx context.Context, vk *vulkan.Device, ctrl, data net.Conn, a LinkAccept) (*fakeEnd, error) {
	e := &fakeEnd{vk: vk}
	l, err := link.OpenReceiver(ctx, ctrl, a, link.Setup{GPU: vk.Physical().DeviceUUID,
		Prepare: func(tok *link.TokenData) (err error) {
			e.f, err = newFakeNCCL(vk, tok.Shape.FrameSize, int(tok.Slots), data)
			return err
		},
		Join: func(context.Context, *link.TokenData) (link.Transport, error) { return e.f, nil }})
	if err != nil {
		if e.f != nil {
			e.f.free()
		}
		ctrl.Close()
		data.Close()
		return nil, err
	}
	e.l = l
	return e, nil
}

// patternFiller records, for each frame of a batch, the frame's pattern
// into an image (compute) and its copy into the slot's buffer.
type patternFiller struct {
	vk   *vulkan.Device
	tp   *testpattern.Producer
	imgs []*vulkan.Image
}

func newPatternFiller(t testing.TB, vk *vulkan.Device, slots int, w, h uint32) *patternFiller {
	t.Helper()
	tp, err := testpattern.NewProducer(vk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	p := &patternFiller{vk: vk, tp: tp}
	for i := 0; i < slots; i++ {
		img, err := vk.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: w, Height: h})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { img.Close() })
		p.imgs = append(p.imgs, img)
	}
	return p
}

func (p *patternFiller) fill(f *fakeNCCL) func(first uint64, ss []int) error {
	return func(first uint64, ss []int) error {
		return p.vk.RunTimeout(20*time.Second, func(c *vulkan.Commands) error {
			return p.record(c, first, ss, func(s int) *vulkan.Buffer { return f.slots[s] })
		})
	}
}

// record records, for each slot s of ss, frame first+i's pattern into the
// slot's image and its copy into the buffer slot(s).
func (p *patternFiller) record(c *vulkan.Commands, first uint64, ss []int, slot func(s int) *vulkan.Buffer) error {
	for i, s := range ss {
		p.tp.Record(c, p.imgs[s], first+uint64(i))
		c.CopyImageToBuffer(slot(s), p.imgs[s], vulkan.BufferImageCopy{})
	}
	return c.Err()
}

// checker copies received frames with Vulkan into a readback buffer and
// checks every texel.
type checker struct {
	vk  *vulkan.Device
	out *vulkan.Buffer
}

func newChecker(vk *vulkan.Device, size uint64) (*checker, error) {
	out, err := vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapReadback})
	if err != nil {
		return nil, err
	}
	return &checker{vk: vk, out: out}, nil
}

// check returns an error naming the first wrong frame of batch b.
func (c *checker) check(f *fakeNCCL, b LinkBatch) error {
	for i, s := range b.Slots {
		seq := b.First + uint64(i)
		if err := c.out.Upload(0, poisonedBytes(int(f.size))); err != nil {
			return err
		}
		err := c.vk.RunTimeout(20*time.Second, func(cm *vulkan.Commands) error {
			cm.CopyBuffer(c.out, f.slots[s], 0, 0, f.size)
			return cm.Err()
		})
		if err != nil {
			return err
		}
		got := make([]byte, f.size)
		if err := c.out.Readback(0, got); err != nil {
			return err
		}
		if bad := checkPattern(got, seq); bad != 0 {
			return fmt.Errorf("frame %d (slot %d): %d of %d texels wrong", seq, s, bad, len(got)/4)
		}
	}
	return nil
}

func socketPairT(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	a, b, err := link.SocketPair()
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

var linkShape = LinkShape{Width: 96, Height: 64, Format: format.RGBA8UNorm}

// openFakePair makes both ends in this process.
func openFakePair(t *testing.T, vk *vulkan.Device, o LinkOptions, a LinkAccept) (snd, rcv *fakeEnd, serr, rerr error) {
	t.Helper()
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	ctx := ctx10(t)
	done := make(chan struct{})
	go func() {
		rcv, rerr = openFakeReceiver(ctx, vk, c2, d2, a)
		close(done)
	}()
	snd, serr = openFakeSender(ctx, vk, c1, d1, o, -1)
	<-done
	return
}

// TestLinkTokenRoundTrip: tokens encode and parse back; damage, other
// versions and inconsistent fields are refused.
func TestLinkTokenRoundTrip(t *testing.T) {
	tok := &link.TokenData{Session: 77, Shape: LinkShape{Width: 1920, Height: 1080, Format: format.RGBA8UNorm, FrameSize: 1920 * 1080 * 4}, Slots: 4}
	for i := range tok.NCCLID {
		tok.NCCLID[i] = byte(i * 3)
	}
	tok.Sender[0], tok.Receiver[15] = 1, 2
	s := tok.Encode()
	got, err := link.ParseToken(s)
	if err != nil || *got != *tok {
		t.Fatalf("link.ParseToken(%q) = %+v, %v", s, got, err)
	}
	in, err := s.Info()
	if err != nil || in.Slots != 4 || in.Shape != tok.Shape || in.Receiver == nil || in.Receiver[15] != 2 {
		t.Fatalf("Info = %+v, %v", in, err)
	}
	bad := []LinkToken{"", "gfxlink2." + s[len(link.TokenPrefix):], s[:len(s)-2], s + "A", "gfxcuda2." + s[len(link.TokenPrefix):]}
	// A flipped bit anywhere fails the checksum (or the base64).
	for i := len(link.TokenPrefix); i < len(s); i += 17 {
		b := []byte(s)
		b[i] ^= 1
		bad = append(bad, LinkToken(b))
	}
	for _, f := range []func(*link.TokenData){
		func(t *link.TokenData) { t.Slots = 0 },
		func(t *link.TokenData) { t.Slots = 65 },
		func(t *link.TokenData) { t.Shape.FrameSize++ },
		func(t *link.TokenData) { t.Shape.Format = 0 },
	} {
		c := *tok
		f(&c)
		bad = append(bad, c.Encode())
	}
	for _, b := range bad {
		if _, err := link.ParseToken(b); !errors.Is(err, ErrBadToken) {
			t.Errorf("link.ParseToken(%.40q…) = %v, want ErrBadToken", b, err)
		}
	}
}

// FuzzParseLinkToken: parsing never panics, and what parses re-encodes to
// the same token.
func FuzzParseLinkToken(f *testing.F) {
	tok := &link.TokenData{Session: 1, Shape: LinkShape{FrameSize: 100}, Slots: 3}
	f.Add(string(tok.Encode()))
	tok2 := &link.TokenData{Session: 2, Shape: LinkShape{Width: 4, Height: 2, Format: format.RGBA8UNorm, FrameSize: 32}, Slots: 64}
	f.Add(string(tok2.Encode()))
	f.Add("gfxlink1.")
	f.Add("gfxlink1.AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := link.ParseToken(LinkToken(s))
		if err != nil {
			return
		}
		if again, err := link.ParseToken(got.Encode()); err != nil || *again != *got {
			t.Fatalf("re-encoding %q: %+v, %v", s, again, err)
		}
	})
}

// TestLinkBackPressure: the sender sends at most Slots frames ahead of the
// receiver's releases: with nothing released, the next Send waits and
// ends with its context; a release lets it through. Every frame checked.
func TestLinkBackPressure(t *testing.T) {
	vk := vkDevice(t)
	snd, rcv, serr, rerr := openFakePair(t, vk, LinkOptions{Shape: linkShape, Slots: 3}, LinkAccept{Expect: &linkShape})
	if serr != nil || rerr != nil {
		t.Fatal(serr, rerr)
	}
	defer snd.close()
	defer rcv.close()
	fill := newPatternFiller(t, vk, 3, linkShape.Width, linkShape.Height).fill(snd.f)
	chk, err := newChecker(vk, snd.f.size)
	if err != nil {
		t.Fatal(err)
	}
	defer chk.out.Close()
	got := make(chan LinkBatch, 8)
	go func() {
		for {
			b, err := rcv.l.Receive(context.Background())
			if err != nil {
				close(got)
				return
			}
			got <- b
		}
	}()
	ctx := ctx10(t)
	if n, err := snd.l.Send(ctx, 2, fill); err != nil || n != 2 {
		t.Fatalf("send: %d, %v", n, err)
	}
	if n, err := snd.l.Send(ctx, 1, fill); err != nil || n != 3 {
		t.Fatalf("send: %d, %v", n, err)
	}
	b0, b1 := <-got, <-got
	for _, b := range []LinkBatch{b0, b1} {
		if err := chk.check(rcv.f, b); err != nil {
			t.Fatal(err)
		}
	}
	// Three frames held by the receiver: no credit for a fourth.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	t0 := time.Now()
	_, err = snd.l.Send(short, 1, fill)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("send without credit: %v, want DeadlineExceeded", err)
	}
	if el := time.Since(t0); el < 250*time.Millisecond || el > 5*time.Second {
		t.Fatalf("send without credit returned after %v", el)
	}
	// Out-of-order release is refused; releasing frames 0-1 frees two.
	if err := rcv.l.Release(b1); err == nil {
		t.Fatal("release out of order accepted")
	}
	if err := rcv.l.Release(b0); err != nil {
		t.Fatal(err)
	}
	if n, err := snd.l.Send(ctx, 2, fill); err != nil || n != 5 {
		t.Fatalf("send after release: %d, %v", n, err)
	}
	for _, want := range []uint64{3} {
		b := <-got
		if b.First != want || len(b.Slots) != 2 || b.Slots[0] != 0 || b.Slots[1] != 1 {
			t.Fatalf("batch %+v, want frames 3-4 in slots 0-1", b)
		}
		if err := chk.check(rcv.f, b); err != nil {
			t.Fatal(err)
		}
	}
	// Slot 2 (frame 2) was never overwritten while held.
	if err := chk.check(rcv.f, b1); err != nil {
		t.Fatal(err)
	}
}

// TestLinkCloseBothWays: a sender's Close lets the receiver take every
// batch sent, then ErrLinkClosed; a receiver's Close makes the sender's
// next Send fail with ErrLinkClosed. No error on either Close.
func TestLinkCloseBothWays(t *testing.T) {
	vk := vkDevice(t)
	fds := countFDs(t)
	for _, senderFirst := range []bool{true, false} {
		snd, rcv, serr, rerr := openFakePair(t, vk, LinkOptions{Shape: linkShape, Slots: 2}, LinkAccept{})
		if serr != nil || rerr != nil {
			t.Fatal(serr, rerr)
		}
		fill := newPatternFiller(t, vk, 2, linkShape.Width, linkShape.Height).fill(snd.f)
		ctx := ctx10(t)
		recvd := make(chan error, 1)
		go func() {
			n := 0
			for {
				b, err := rcv.l.Receive(ctx)
				if err != nil {
					if n != 4 && senderFirst {
						err = fmt.Errorf("%d frames before %w", n, err)
					}
					recvd <- err
					return
				}
				n += len(b.Slots)
				if err := rcv.l.Release(b); err != nil {
					recvd <- err
					return
				}
			}
		}()
		for i := 0; i < 2; i++ {
			if _, err := snd.l.Send(ctx, 2, fill); err != nil {
				t.Fatal(err)
			}
		}
		if senderFirst {
			if err := snd.close(); err != nil {
				t.Fatalf("sender Close: %v", err)
			}
			if err := <-recvd; !errors.Is(err, ErrLinkClosed) {
				t.Fatalf("receive after the sender closed: %v", err)
			}
			if err := rcv.close(); err != nil {
				t.Fatalf("receiver Close: %v", err)
			}
		} else {
			time.Sleep(50 * time.Millisecond) // let the receiver take the batches
			if err := rcv.close(); err != nil {
				t.Fatalf("receiver Close: %v", err)
			}
			<-recvd
			deadline := time.Now().Add(5 * time.Second)
			var err error
			for time.Now().Before(deadline) {
				if _, err = snd.l.Send(ctx, 1, fill); err != nil {
					break
				}
			}
			if !errors.Is(err, ErrLinkClosed) {
				t.Fatalf("send after the receiver closed: %v, want ErrLinkClosed", err)
			}
			if err := snd.close(); err != nil {
				t.Fatalf("sender Close: %v", err)
			}
		}
		if err := snd.close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	if n := countFDs(t); n > fds {
		t.Fatalf("%d descriptors open after, %d before", n, fds)
	}
}

// TestLinkRejects: a receiver refuses tokens of another shape, with more
// slots than it allows, or for a GPU it cannot see; both ends fail with
// ErrLinkRejected and the reason.
func TestLinkRejects(t *testing.T) {
	vk := vkDevice(t)
	other := LinkShape{Width: 64, Height: 64, Format: format.RGBA8UNorm}
	var ghost cuda.UUID
	for i := range ghost {
		ghost[i] = 0xEE
	}
	for _, c := range []struct {
		name string
		o    LinkOptions
		a    LinkAccept
		want string
	}{
		{"shape", LinkOptions{Shape: linkShape}, LinkAccept{Expect: &other}, "expects 64x64"},
		{"slots", LinkOptions{Shape: linkShape, Slots: 8}, LinkAccept{MaxSlots: 4}, "8 slots"},
		{"gpu", LinkOptions{Shape: linkShape, Receiver: &ghost}, LinkAccept{}, "cannot see"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fds := countFDs(t)
			snd, rcv, serr, rerr := openFakePair(t, vk, c.o, c.a)
			if snd != nil || rcv != nil {
				t.Fatal("a refused link opened")
			}
			for _, err := range []error{serr, rerr} {
				if !errors.Is(err, ErrLinkRejected) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%v, want ErrLinkRejected saying %q", err, c.want)
				}
			}
			if n := countFDs(t); n > fds {
				t.Fatalf("%d descriptors open after, %d before", n, fds)
			}
		})
	}
}

// TestLinkGivenToken: a token made ahead (LinkOptions.Token) is the one
// the sender offers; a receiver given it opens the link, a receiver given
// another refuses it (both ends fail); a token for other options is
// refused by the sender before the rendezvous. The token's transport id
// (random here; the fake sender's own is zero) is the one offered.
func TestLinkGivenToken(t *testing.T) {
	vk := vkDevice(t)
	o, err := link.SenderOptions(LinkOptions{Shape: linkShape, Slots: 4})
	if err != nil {
		t.Fatal(err)
	}
	gpu := cuda.UUID(vk.Physical().DeviceUUID)
	var id [128]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	tok := link.SenderToken(o, gpu, id).Encode()
	other := link.SenderToken(o, gpu, id).Encode() // another session
	if tok == other {
		t.Fatal("two sessions made the same token")
	}
	fds := countFDs(t)
	o.Token = tok
	snd, rcv, serr, rerr := openFakePair(t, vk, o, LinkAccept{Token: tok})
	if serr != nil || rerr != nil {
		t.Fatalf("the token given to both ends: sender %v, receiver %v", serr, rerr)
	}
	if got := snd.l.Tok().Encode(); got != tok {
		t.Fatalf("the sender offered %q, not the token given %q", got, tok)
	}
	if err := snd.close(); err != nil {
		t.Fatalf("sender close: %v", err)
	}
	if _, err := rcv.l.Receive(ctx10(t)); !errors.Is(err, ErrLinkClosed) {
		t.Fatalf("receive after the sender closed: %v, want ErrLinkClosed", err)
	}
	if err := rcv.close(); err != nil {
		t.Fatalf("receiver close: %v", err)
	}
	snd, rcv, serr, rerr = openFakePair(t, vk, o, LinkAccept{Token: other})
	if snd != nil || rcv != nil {
		t.Fatal("a link opened with another token than the receiver's")
	}
	for _, err := range []error{serr, rerr} {
		if !errors.Is(err, ErrLinkRejected) || !strings.Contains(err.Error(), "another link") {
			t.Fatalf("%v, want ErrLinkRejected saying \"another link\"", err)
		}
	}
	o2 := o
	o2.Slots = 5
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	defer c2.Close()
	defer d2.Close()
	if _, err := openFakeSender(ctx10(t), vk, c1, d1, o2, -1); err == nil || !strings.Contains(err.Error(), "another link") {
		t.Fatalf("a token for 4 slots used with 5: %v, want an error saying \"another link\"", err)
	}
	c2.Close()
	d2.Close()
	if n := countFDs(t); n > fds {
		t.Fatalf("%d descriptors open after, %d before", n, fds)
	}
}

// TestLinkPeerNeverAnswers: a control channel whose other end never
// speaks ends both setups after their timeout, with DeadlineExceeded.
func TestLinkPeerNeverAnswers(t *testing.T) {
	vk := vkDevice(t)
	for _, sender := range []bool{true, false} {
		c1, c2 := socketPairT(t)
		d1, d2 := socketPairT(t)
		t0 := time.Now()
		var err error
		if sender {
			_, err = openFakeSender(context.Background(), vk, c1, d1, LinkOptions{Shape: linkShape, Timeout: 300 * time.Millisecond}, -1)
		} else {
			_, err = openFakeReceiver(context.Background(), vk, c1, d1, LinkAccept{Timeout: 300 * time.Millisecond})
		}
		el := time.Since(t0)
		if !errors.Is(err, context.DeadlineExceeded) || el > 5*time.Second {
			t.Fatalf("sender %v: %v after %v, want DeadlineExceeded after about 300ms", sender, err, el)
		}
		c2.Close()
		d2.Close()
	}
	// A peer that hangs up at once: ErrLinkPeerGone, at once.
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	c2.Close()
	d2.Close()
	if _, err := openFakeReceiver(context.Background(), vk, c1, d1, LinkAccept{}); !errors.Is(err, ErrLinkPeerGone) {
		t.Fatalf("receiver with a hung-up peer: %v", err)
	}
}

// startLinkChild runs TestLinkChild as role with ctrl and data as its
// descriptors 3 and 4.
func startLinkChild(t *testing.T, role string, ctrl, data net.Conn, env ...string) *child {
	t.Helper()
	return startChildWithConns(t, "TestLinkChild", []net.Conn{ctrl, data}, append([]string{linkChildEnv + "=" + role}, env...)...)
}

// TestLinkAcrossProcesses: a sender here, a receiver in another process;
// frames in batches of 1 to 3 over 3 slots; the receiver checks every
// texel of every frame, then both close cleanly.
func TestLinkAcrossProcesses(t *testing.T) {
	vk := vkDevice(t)
	const frames = 60
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	ch := startLinkChild(t, "recv", c2, d2, "FRAMES="+strconv.Itoa(frames))
	ctx := ctx10(t)
	snd, err := openFakeSender(ctx, vk, c1, d1, LinkOptions{Shape: linkShape, Slots: 3}, -1)
	if err != nil {
		ch.fatal(t, "sender: %v", err)
	}
	fill := newPatternFiller(t, vk, 3, linkShape.Width, linkShape.Height).fill(snd.f)
	t0 := time.Now()
	for n := uint64(0); n < frames; {
		k := int(n%3) + 1
		if n+uint64(k) > frames {
			k = int(frames - n)
		}
		var err error
		if n, err = snd.l.Send(ctx, k, fill); err != nil {
			ch.fatal(t, "send: %v", err)
		}
	}
	if err := snd.close(); err != nil {
		ch.fatal(t, "sender Close: %v", err)
	}
	if got := ch.expect(t, "checked"); got != strconv.Itoa(frames) {
		t.Fatalf("receiver checked %s frames", got)
	}
	t.Logf("%d frames of %v in %v", frames, linkShape, time.Since(t0).Round(time.Millisecond))
	ch.expect(t, "closed")
	ch.wait(t)
}

// TestLinkReceiverDies: the receiver's process is killed while the sender
// sends: the sender's Send fails with ErrLinkPeerGone within seconds (no
// hang), and Close frees everything.
func TestLinkReceiverDies(t *testing.T) {
	vk := vkDevice(t)
	fds := countFDs(t)
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	ch := startLinkChild(t, "recv", c2, d2, "FRAMES=1000000")
	ctx := ctx10(t)
	snd, err := openFakeSender(ctx, vk, c1, d1, LinkOptions{Shape: linkShape, Slots: 3}, -1)
	if err != nil {
		ch.fatal(t, "sender: %v", err)
	}
	fill := newPatternFiller(t, vk, 3, linkShape.Width, linkShape.Height).fill(snd.f)
	for i := 0; i < 5; i++ {
		if _, err := snd.l.Send(ctx, 2, fill); err != nil {
			ch.fatal(t, "send: %v", err)
		}
	}
	ch.cmd.Process.Kill()
	t0 := time.Now()
	for {
		_, err := snd.l.Send(ctx, 3, fill)
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrLinkPeerGone) {
			t.Fatalf("send after the receiver died: %v, want ErrLinkPeerGone", err)
		}
		break
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Fatalf("the sender saw the death after %v", el)
	}
	if err := snd.close(); err != nil {
		t.Fatalf("Close after the peer died: %v", err)
	}
	ch.cmd.Wait()
	if n := countFDs(t); n > fds {
		t.Fatalf("%d descriptors open after, %d before", n, fds)
	}
}

// TestLinkSenderDiesMidBatch: the sender's process kills itself halfway
// through the bytes of frame 7 (in a batch of 3): the receiver gets
// frames 0-5 intact (checked), then ErrLinkPeerGone, within seconds.
func TestLinkSenderDiesMidBatch(t *testing.T) {
	vk := vkDevice(t)
	c1, c2 := socketPairT(t)
	d1, d2 := socketPairT(t)
	ch := startLinkChild(t, "send", c2, d2, "DIE_AT=7")
	ctx := ctx10(t)
	rcv, err := openFakeReceiver(ctx, vk, c1, d1, LinkAccept{Expect: &linkShape})
	if err != nil {
		ch.fatal(t, "receiver: %v", err)
	}
	defer rcv.close()
	chk, err := newChecker(vk, rcv.f.size)
	if err != nil {
		t.Fatal(err)
	}
	defer chk.out.Close()
	checked := uint64(0)
	for {
		b, err := rcv.l.Receive(ctx)
		if err != nil {
			if !errors.Is(err, ErrLinkPeerGone) {
				t.Fatalf("after %d frames: %v, want ErrLinkPeerGone", checked, err)
			}
			break
		}
		if err := chk.check(rcv.f, b); err != nil {
			t.Fatal(err)
		}
		checked += uint64(len(b.Slots))
		if err := rcv.l.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	if checked != 6 {
		t.Fatalf("checked %d frames before the death, want 6 (frames 6-8 were the dying batch)", checked)
	}
	if err := rcv.close(); err != nil {
		t.Fatalf("Close after the peer died: %v", err)
	}
	ch.cmd.Wait()
}

// TestNCCLMissing: with GFXCUDA_NCCL_LIBRARY naming a missing file or a
// library that is not NCCL, NewLinkSender and NewLinkReceiver fail at once
// with nccl's error naming the variable (in a child: NCCL loads once per
// process). The Device's CUDA side is fake: NCCL is checked before any
// CUDA call.
func TestNCCLMissing(t *testing.T) {
	if os.Getenv(linkChildEnv) == "missing" {
		d, _ := fakeDevice(t)
		c1, c2 := socketPairT(t)
		defer c2.Close()
		want := nccl.ErrNotFound
		if strings.Contains(os.Getenv(nccl.EnvLibrary), "libm") {
			want = nccl.ErrSymbols
		}
		_, err := d.NewLinkSender(context.Background(), c1, LinkOptions{Shape: linkShape})
		if !errors.Is(err, want) || !strings.Contains(err.Error(), nccl.EnvLibrary) {
			t.Fatalf("NewLinkSender: %v, want %v", err, want)
		}
		if tok, err := d.NewLinkToken(LinkOptions{Shape: linkShape}); !errors.Is(err, want) || tok != "" {
			t.Fatalf("NewLinkToken: %q, %v, want %v", tok, err, want)
		}
		_, err = d.NewLinkReceiver(context.Background(), c1, LinkAccept{})
		if !errors.Is(err, want) {
			t.Fatalf("NewLinkReceiver: %v, want %v", err, want)
		}
		return
	}
	vkDevice(t) // skips without Vulkan
	for _, lib := range []string{"/nonexistent/libnccl.so.2", "libm.so.6"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNCCLMissing$", "-test.count=1")
		cmd.Env = append(os.Environ(), linkChildEnv+"=missing", nccl.EnvLibrary+"="+lib)
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("%s=%s: %v\n%s", nccl.EnvLibrary, lib, err, out)
		}
	}
}

// TestLinkChild is the other end of the cross-process link tests.
func TestLinkChild(t *testing.T) {
	role := os.Getenv(linkChildEnv)
	if role != "recv" && role != "send" {
		t.Skip("helper process for the link tests (set by them)")
	}
	cs := childConns("ctrl", "data")
	ctrl, data := cs[0], cs[1]
	vk := vkDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	switch role {
	case "recv":
		frames, _ := strconv.ParseUint(os.Getenv("FRAMES"), 10, 64)
		rcv, err := openFakeReceiver(ctx, vk, ctrl, data, LinkAccept{Expect: &linkShape})
		if err != nil {
			childFail("receiver: %v", err)
		}
		chk, err := newChecker(vk, rcv.f.size)
		if err != nil {
			childFail("%v", err)
		}
		n := uint64(0)
		for n < frames {
			b, err := rcv.l.Receive(ctx)
			if err != nil {
				childFail("receive after %d frames: %v", n, err)
			}
			if err := chk.check(rcv.f, b); err != nil {
				childFail("%v", err)
			}
			n += uint64(len(b.Slots))
			if n%7 == 0 {
				time.Sleep(5 * time.Millisecond) // the sender waits for credit
			}
			if err := rcv.l.Release(b); err != nil {
				childFail("release: %v", err)
			}
		}
		say("checked %d", n)
		if _, err := rcv.l.Receive(ctx); !errors.Is(err, ErrLinkClosed) {
			childFail("after the last frame: %v, want ErrLinkClosed", err)
		}
		chk.out.Close()
		if err := rcv.close(); err != nil {
			childFail("close: %v", err)
		}
		say("closed")
	case "send":
		die, _ := strconv.ParseInt(os.Getenv("DIE_AT"), 10, 64)
		snd, err := openFakeSender(ctx, vk, ctrl, data, LinkOptions{Shape: linkShape, Slots: 3}, die)
		if err != nil {
			childFail("sender: %v", err)
		}
		fill := newPatternFiller(t, vk, 3, linkShape.Width, linkShape.Height).fill(snd.f)
		for {
			if _, err := snd.l.Send(ctx, 3, fill); err != nil {
				childFail("send: %v", err)
			}
		}
	}
}

// TestLinkOverTCP: the control channel and the fake's data on TCP
// connections (as between hosts): 24 frames, every texel checked.
func TestLinkOverTCP(t *testing.T) {
	vk := vkDevice(t)
	pair := func() (net.Conn, net.Conn) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Skipf("no TCP on loopback: %v", err)
		}
		defer ln.Close()
		a, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		b, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	c1, c2 := pair()
	d1, d2 := pair()
	ctx := ctx10(t)
	var rcv *fakeEnd
	var rerr error
	done := make(chan struct{})
	go func() {
		rcv, rerr = openFakeReceiver(ctx, vk, c2, d2, LinkAccept{Expect: &linkShape})
		close(done)
	}()
	snd, err := openFakeSender(ctx, vk, c1, d1, LinkOptions{Shape: linkShape, Slots: 4}, -1)
	<-done
	if err != nil || rerr != nil {
		t.Fatal(err, rerr)
	}
	defer rcv.close()
	fill := newPatternFiller(t, vk, 4, linkShape.Width, linkShape.Height).fill(snd.f)
	chk, err := newChecker(vk, rcv.f.size)
	if err != nil {
		t.Fatal(err)
	}
	defer chk.out.Close()
	errc := make(chan error, 1)
	go func() {
		for n := 0; n < 24; n += 4 {
			if _, err := snd.l.Send(ctx, 4, fill); err != nil {
				errc <- err
				return
			}
		}
		errc <- snd.close()
	}()
	n := 0
	for {
		b, err := rcv.l.Receive(ctx)
		if errors.Is(err, ErrLinkClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := chk.check(rcv.f, b); err != nil {
			t.Fatal(err)
		}
		n += len(b.Slots)
		if err := rcv.l.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n != 24 {
		t.Fatalf("received %d frames, want 24", n)
	}
}
