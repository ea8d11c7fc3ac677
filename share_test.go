//go:build linux

package gfxcuda

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"golang.org/x/sys/unix"
)

func ctx10(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// memfdExport exports a memfd of n random bytes (seed) as a fake buffer:
// fd passing without any GPU.
func memfdExport(t testing.TB, seed uint64, n int, o ...ExportOptions) *Shared {
	t.Helper()
	fd, err := unix.MemfdCreate("share-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.Write(fd, seededRandom(seed, n)); err != nil {
		t.Fatal(err)
	}
	return fdExport(t, fd, n, o...)
}

// fdExport exports descriptor fd (duplicated for each open), with at most
// one ExportOptions.
func fdExport(t testing.TB, fd, n int, o ...ExportOptions) *Shared {
	t.Helper()
	ex, err := newExport(Meta{Kind: KindBuffer, Size: uint64(n), AllocationSize: uint64(n)}, func(sharenet.Peer) ([]int, []byte, error) {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		return []int{d}, nil, err
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return ex
}

func readFD(t testing.TB, fd int, n int) []byte {
	t.Helper()
	got := poisonedBytes(n)
	if m, err := unix.Pread(fd, got, 0); err != nil || m != n {
		t.Fatalf("pread: %d, %v", m, err)
	}
	return got
}

// TestFDPassing: descriptors travel, in this process and to another one.
func TestFDPassing(t *testing.T) {
	ex := memfdExport(t, 5, 10000)
	fds, m, err := Fetch(ctx10(t), ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	if len(fds) != 1 || m.Size != 10000 {
		t.Fatalf("%d descriptors, meta %+v", len(fds), m)
	}
	if !bytes.Equal(readFD(t, fds[0], 10000), seededRandom(5, 10000)) {
		t.Error("memfd content differs")
	}
	unix.Close(fds[0])
	c := startChild(t, "fetch", "TOKEN="+string(ex.Token()))
	c.expect(t, "ok")
	c.wait(t)
}

// TestOtherUID: a peer of another uid is refused. Needs root (to run a
// child as nobody).
func TestOtherUID(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a child of another uid")
	}
	ex := memfdExport(t, 11, 64)
	// The child must be able to run the test binary as nobody.
	dir, err := os.MkdirTemp("", "gfxcuda-share-uid")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "share.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=otheruid", "TOKEN="+string(ex.Token()))
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "@refused") {
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
	// And the server still serves its own user.
	fds, _, err := Fetch(ctx10(t), ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	sharenet.CloseAll(fds)
}

// uploadVulkanImage writes data into img (layout GENERAL, released to external
// users).
func uploadVulkanImage(t testing.TB, d *vulkan.Device, img *vulkan.Image, data []byte) {
	t.Helper()
	up, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(len(data)), Heap: vulkan.HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if err := up.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	err = d.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(img, vulkan.LayoutTransferDst)
		c.CopyBufferToImage(img, up, vulkan.BufferImageCopy{})
		own.ReleaseImages(c, vulkan.LayoutGeneral, img)
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readVulkanImage reads an image an external user left in GENERAL.
func readVulkanImage(t testing.TB, d *vulkan.Device, img *vulkan.Image, n int) []byte {
	t.Helper()
	down, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(n), Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	err = d.Run(func(c *vulkan.Commands) error {
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutTransferSrc, img)
		c.CopyImageToBuffer(down, img, vulkan.BufferImageCopy{})
		own.ReleaseImages(c, vulkan.LayoutGeneral, img)
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	got := poisonedBytes(n)
	if err := down.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestVulkanBufferAcrossProcesses: a child opens a buffer, checks every
// byte, writes new bytes the parent checks; the parent then closes its
// buffer and the child's import keeps its bytes.
func TestVulkanBufferAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	const n = 1<<20 + 13
	b, err := d.NewBuffer(vulkan.BufferOptions{Size: n, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Upload(0, seededRandom(21, n)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportVulkan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	c := startChild(t, "vkbuffer", "TOKEN="+string(ex.Token()))
	c.expect(t, "written")
	got := poisonedBytes(n)
	if err := b.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, seededRandom(22, n)) {
		t.Fatal("bytes the child wrote differ")
	}
	ex.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenVulkanBuffer(ctx10(t), d, ex.Token()); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("open after Close: %v, want ErrWithdrawn", err)
	}
	c.send(t, "closed")
	c.expect(t, "ok")
	c.wait(t)
}

// TestVulkanImageAcrossProcesses: the same for a 2D array image.
func TestVulkanImageAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	o := vulkan.ImageOptions{Format: 37 /* R8G8B8A8_UNORM */, Width: 123, Height: 45, Layers: 2, Exportable: true}
	img, err := d.NewImage(o)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	n := 123 * 45 * 2 * 4
	uploadVulkanImage(t, d, img, seededRandom(31, n))
	ex, err := ExportVulkan(d, img)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if m := ex.Meta(); m.Kind != KindTexture || m.Width != 123 || m.Height != 45 || m.Layers != 2 || m.Format != 37 {
		t.Errorf("meta %+v", m)
	}
	c := startChild(t, "vkimage", "TOKEN="+string(ex.Token()), "NBYTES="+strconv.Itoa(n))
	c.expect(t, "written")
	if !bytes.Equal(readVulkanImage(t, d, img, n), seededRandom(32, n)) {
		t.Fatal("texels the child wrote differ")
	}
	c.wait(t)
}

// TestVulkanImageViewFormatsNotShared: an image made with ViewFormats is
// refused by ExportVulkan, naming the formats (an opener could not make
// the image as it was made: a token does not carry the list), and one made
// without them from the same options is shared.
func TestVulkanImageViewFormatsNotShared(t *testing.T) {
	d := vkDevice(t)
	o := vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: 32, Height: 8, Exportable: true,
		Usage: vulkan.ImageSampled | vulkan.ImageTransferDst, ViewFormats: []uint32{uint32(format.R32UInt)}}
	img, err := d.NewImage(o)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	ex, err := ExportVulkan(d, img)
	if err == nil {
		ex.Close()
		t.Fatal("ExportVulkan shared an image made with ViewFormats")
	}
	if !strings.Contains(err.Error(), "ViewFormats (r32_uint)") {
		t.Errorf("error %q does not name the view formats", err)
	}
	o.ViewFormats = nil
	plain, err := d.NewImage(o)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	ex, err = ExportVulkan(d, plain)
	if err != nil {
		t.Fatal(err)
	}
	ex.Close()
}

// TestWrongGPUAndKind: a token of another GPU or kind fails before any
// import.
func TestWrongGPUAndKind(t *testing.T) {
	d := vkDevice(t)
	b, err := d.NewBuffer(vulkan.BufferOptions{Size: 4096, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ex, err := ExportVulkan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	tk, _ := sharenet.Forge(ex.Token(), func(m *Meta, _ *[16]byte) { m.UUID[0] ^= 0xff })
	if _, err := OpenVulkanBuffer(ctx10(t), d, tk); !errors.Is(err, ErrResourceOnOtherGPU) {
		t.Errorf("other GPU: %v", err)
	}
	if _, err := OpenVulkanImage(ctx10(t), d, ex.Token()); !errors.Is(err, ErrWrongKind) {
		t.Errorf("buffer opened as an image: %v", err)
	}
	if _, err := ExportVulkan(d, 42); err == nil {
		t.Error("ExportVulkan(42) succeeded")
	}
}

// ringSlots makes n exportable host-visible slot buffers and exports them.
func ringSlots(t testing.TB, d *vulkan.Device, n int, size uint64) ([]*vulkan.Buffer, []*Shared) {
	var bufs []*vulkan.Buffer
	var exs []*Shared
	for i := 0; i < n; i++ {
		b, err := d.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapUpload, Exportable: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		ex, err := ExportVulkan(d, b)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		bufs, exs = append(bufs, b), append(exs, ex)
	}
	return bufs, exs
}

const ringFrameBytes = 4096

// produce writes frame seq's content into b and publishes it.
func produce(t testing.TB, r *SharedRing, bufs []*vulkan.Buffer, ctx context.Context) (uint64, error) {
	slot, err := r.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	m, err := bufs[slot].Map()
	if err != nil {
		return 0, err
	}
	// The sequence number the frame gets is known: the ring's next one.
	seq := r.NextSeq()
	copy(m, seededRandom(seq, ringFrameBytes))
	if err := bufs[slot].Flush(0, ringFrameBytes); err != nil {
		return 0, err
	}
	var user [16]byte
	binary.LittleEndian.PutUint64(user[:], seq*7)
	return r.Publish(slot, user[:], 0)
}

// TestRingAcrossProcesses: a consumer in another process checks every
// frame of 10,000 through 3 slots, none dropped.
func TestRingAcrossProcesses(t *testing.T) {
	d := vkDevice(t)
	bufs, exs := ringSlots(t, d, 3, ringFrameBytes)
	r, err := NewSharedRing(SharedRingOptions{Slots: exs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ex, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	const frames = 10000
	c := startChild(t, "ringconsumer", "TOKEN="+string(ex.Token()), "FRAMES="+strconv.Itoa(frames))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := r.WaitConsumers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := 1; i <= frames; i++ {
		seq, err := produce(t, r, bufs, ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if seq != uint64(i) {
			t.Fatalf("frame %d got sequence %d", i, seq)
		}
	}
	got := c.expect(t, "checked")
	t.Logf("%d frames across processes in %v (%s)", frames, time.Since(t0), got)
	if got != strconv.Itoa(frames) {
		t.Fatalf("consumer checked %s frames", got)
	}
	r.Close()
	c.expect(t, "closed")
	c.wait(t)
}

// TestRingConsumerDies: a consumer killed while holding a frame: the
// blocked producer reclaims its slot and goes on.
func TestRingConsumerDies(t *testing.T) {
	d := vkDevice(t)
	bufs, exs := ringSlots(t, d, 2, ringFrameBytes)
	r, err := NewSharedRing(SharedRingOptions{Slots: exs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ex, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	c := startChild(t, "ringdie", "TOKEN="+string(ex.Token()))
	ctx := ctx10(t)
	if err := r.WaitConsumers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := produce(t, r, bufs, ctx); err != nil {
			t.Fatal(err)
		}
	}
	c.expect(t, "holding")
	// Both slots hold unread frames: the producer blocks until the child
	// dies (it exits without releasing), then reclaims.
	c.send(t, "die")
	t0 := time.Now()
	for i := 0; i < 5; i++ {
		if _, err := produce(t, r, bufs, ctx); err != nil {
			t.Fatalf("after the consumer died: %v", err)
		}
	}
	t.Logf("producer went on %v after the consumer's death", time.Since(t0))
	if n := r.Consumers(); n != 0 {
		t.Errorf("%d consumers after the only one died", n)
	}
	c.cmd.Wait()
}

// TestRingProducerDies: the consumer of a producer that is killed gets
// ErrProducerGone within bounded time.
func TestRingProducerDies(t *testing.T) {
	d := vkDevice(t)
	c := startChild(t, "ringproducer")
	tok := Token(c.expect(t, "token"))
	cons, err := OpenSharedRing(ctx10(t), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	slot, err := OpenVulkanBuffer(ctx10(t), d, cons.Slots()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Close()
	c.send(t, "go")
	f, err := cons.Next(ctx10(t))
	if err != nil {
		t.Fatal(err)
	}
	cons.Release(f)
	c.cmd.Process.Kill()
	t0 := time.Now()
	for {
		f, err := cons.Next(ctx10(t))
		if err != nil {
			if !errors.Is(err, ErrProducerGone) {
				t.Fatalf("after the producer died: %v", err)
			}
			break
		}
		cons.Release(f)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("noticed after %v", el)
	}
	// The slot's memory stays readable after the exporter's death.
	got := poisonedBytes(ringFrameBytes)
	if err := slot.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, poisonedBytes(ringFrameBytes)) {
		t.Error("slot 0 reads as never written after the producer died")
	}
}

// TestChild is the other process of the tests above; it skips when not
// started by one of them.
func TestChild(t *testing.T) {
	role := os.Getenv(childEnv)
	if role == "" {
		t.Skip("helper process for the cross-process tests (set by them)")
	}
	if os.Getenv(procEnv) == "1" {
		if err := mountOwnProc(); err != nil {
			childFail("own /proc: %v", err)
		}
	}
	tok := Token(os.Getenv("TOKEN"))
	ctx := ctx10(t)
	in := bufio.NewScanner(os.Stdin)
	switch role {
	case "fetch":
		fds, m, err := Fetch(ctx, tok)
		if err != nil || len(fds) != 1 {
			childFail("fetch: %v", err)
		}
		got := poisonedBytes(int(m.Size))
		unix.Pread(fds[0], got, 0)
		if !bytes.Equal(got, seededRandom(5, int(m.Size))) {
			childFail("memfd content differs")
		}
		say("ok")
	case "otheruid":
		_, _, err := Fetch(ctx, tok)
		if errors.Is(err, ErrRefused) && strings.Contains(err.Error(), "uid") {
			say("refused %v", err)
			return
		}
		childFail("fetch as uid %d: %v", os.Getuid(), err)
	case "vkbuffer":
		d := vkDevice(t)
		b, err := OpenVulkanBuffer(ctx, d, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		n := int(b.Size())
		got := poisonedBytes(n)
		if err := b.Readback(0, got); err != nil || !bytes.Equal(got, seededRandom(21, n)) {
			childFail("imported bytes differ (%v)", err)
		}
		if err := b.Upload(0, seededRandom(22, n)); err != nil {
			childFail("upload: %v", err)
		}
		say("written")
		in.Scan() // "closed": the exporter closed its buffer
		got = poisonedBytes(n)
		if err := b.Readback(0, got); err != nil || !bytes.Equal(got, seededRandom(22, n)) {
			childFail("bytes differ after the exporter closed (%v)", err)
		}
		b.Close()
		say("ok")
	case "vkimage":
		d := vkDevice(t)
		img, err := OpenVulkanImage(ctx, d, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		n, _ := strconv.Atoi(os.Getenv("NBYTES"))
		if got := readVulkanImage(t, d, img, n); !bytes.Equal(got, seededRandom(31, n)) {
			childFail("imported texels differ")
		}
		uploadVulkanImage(t, d, img, seededRandom(32, n))
		img.Close()
		say("written")
	case "ringconsumer":
		d := vkDevice(t)
		frames, _ := strconv.Atoi(os.Getenv("FRAMES"))
		c, err := OpenSharedRing(ctx, tok)
		if err != nil {
			childFail("open ring: %v", err)
		}
		var slots [][]byte
		var bufs []*vulkan.Buffer
		for _, st := range c.Slots() {
			b, err := OpenVulkanBuffer(ctx, d, st)
			if err != nil {
				childFail("open slot: %v", err)
			}
			m, err := b.Map()
			if err != nil {
				childFail("map slot: %v", err)
			}
			bufs, slots = append(bufs, b), append(slots, m)
		}
		long, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		for i := 1; i <= frames; i++ {
			f, err := c.Next(long)
			if err != nil {
				childFail("frame %d: %v", i, err)
			}
			if f.Seq != uint64(i) || f.Dropped != 0 || binary.LittleEndian.Uint64(f.User) != f.Seq*7 {
				childFail("frame %d: seq %d, dropped %d, user %x", i, f.Seq, f.Dropped, f.User)
			}
			bufs[f.Slot].Invalidate(0, ringFrameBytes)
			if !bytes.Equal(slots[f.Slot][:ringFrameBytes], seededRandom(f.Seq, ringFrameBytes)) {
				childFail("frame %d: content differs", i)
			}
			c.Release(f)
		}
		say("checked %d", frames)
		if _, err := c.Next(long); !errors.Is(err, ErrSharedRingClosed) {
			childFail("after the last frame: %v", err)
		}
		say("closed")
		c.Close()
		for _, b := range bufs {
			b.Close()
		}
	case "ringdie":
		c, err := OpenSharedRing(ctx, tok)
		if err != nil {
			childFail("open ring: %v", err)
		}
		if _, err := c.Next(ctx); err != nil {
			childFail("next: %v", err)
		}
		say("holding")
		in.Scan()
		os.Exit(3) // dies holding a frame
	case "ringproducer":
		d := vkDevice(t)
		bufs, exs := ringSlots(t, d, 2, ringFrameBytes)
		r, err := NewSharedRing(SharedRingOptions{Slots: exs})
		if err != nil {
			childFail("ring: %v", err)
		}
		ex, err := Export(r)
		if err != nil {
			childFail("export: %v", err)
		}
		say("token %s", ex.Token())
		in.Scan()
		if err := r.WaitConsumers(ctx, 1); err != nil {
			childFail("%v", err)
		}
		for {
			if _, err := produce(t, r, bufs, ctx); err != nil {
				childFail("produce: %v", err)
			}
		}
	default:
		if !ringChild(t, role, tok, in) && !containersChild(t, role, tok, in) && !rtChild(t, role, tok, in) && !peerChild(t, role, tok) {
			cudaChild(t, role, tok)
		}
	}
}

// TestConsumerPublished: published tells the frames a slot holds, and not
// those not yet published or being rewritten (what a peer consumer's
// batched releases rely on).
func TestConsumerPublished(t *testing.T) {
	d := vkDevice(t)
	bufs, exs := ringSlots(t, d, 3, ringFrameBytes)
	r, c := ringWithConsumer(t, SharedRingOptions{Slots: exs, DropOldest: true})
	ctx := ctx10(t)
	for i := 0; i < 2; i++ {
		if _, err := produce(t, r, bufs, ctx); err != nil {
			t.Fatal(err)
		}
	}
	for seq, want := range map[uint64]bool{1: true, 2: true, 3: false, 0: false} {
		if got := c.published(seq); got != want {
			t.Errorf("published(%d) = %v, want %v", seq, got, want)
		}
	}
	f, err := c.Next(ctx)
	if err != nil || f.Seq != 1 {
		t.Fatalf("Next: %v, %v", f, err)
	}
	if !c.published(2) {
		t.Error("frame 2 not published after Next took frame 1")
	}
	if err := c.Release(f); err != nil {
		t.Fatal(err)
	}
	// The producer takes the oldest slot (frame 1's) to write frame 3.
	s, err := r.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.published(3) {
		t.Error("frame 3 published before its Publish")
	}
	if _, err := r.Publish(s, nil, 0); err != nil {
		t.Fatal(err)
	}
	if !c.published(3) || !c.published(2) {
		t.Errorf("after Publish: published(3) = %v, published(2) = %v", c.published(3), c.published(2))
	}
	c.Close()
	if c.published(2) {
		t.Error("published after Close")
	}
}

// ringWithConsumer makes a SharedRing with o, exports it and attaches a
// consumer in this process; both close at the test's end.
func ringWithConsumer(t testing.TB, o SharedRingOptions) (*SharedRing, *Consumer) {
	t.Helper()
	r, err := NewSharedRing(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	ex, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenSharedRing(ctx10(t), ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return r, c
}
