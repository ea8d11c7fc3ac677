package vulkan

import (
	"errors"
	"testing"
)

// A batch recorded before another that changes an image's layout, and
// submitted after it, would start from the wrong layout: Submit refuses
// it, and the batch can still be submitted in order.
func TestSubmitRefusesLayoutOutOfOrder(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	img, err := d.NewImage(ImageOptions{Dim: Image2D, Format: 37 /* R8G8B8A8_UNORM */, Width: 8, Height: 8,
		Usage: ImageTransferSrc | ImageTransferDst | ImageSampled})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	first, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	first.TransitionImage(img, LayoutTransferDst)  // Undefined -> TransferDst
	second.TransitionImage(img, LayoutTransferSrc) // TransferDst -> TransferSrc
	if err := second.Submit(SubmitOptions{}); !errors.Is(err, ErrLayoutOrder) {
		t.Fatalf("submitting the later-recorded batch first: %v, want ErrLayoutOrder", err)
	}
	if img.Submitted() != LayoutUndefined {
		t.Fatalf("submitted layout %v after a refused batch, want %v", img.Submitted(), LayoutUndefined)
	}
	for _, c := range []*Commands{first, second} {
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(-1); err != nil {
			t.Fatal(err)
		}
	}
	if img.Submitted() != LayoutTransferSrc || img.Layout() != LayoutTransferSrc {
		t.Fatalf("layouts %v (submitted) and %v (recorded), want %v", img.Submitted(), img.Layout(), LayoutTransferSrc)
	}
	// A batch that only uses the image, recorded before a transition and
	// submitted after it, is refused too.
	buf, err := d.NewBuffer(BufferOptions{Size: 8 * 8 * 4})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	if err := first.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := second.Reset(); err != nil {
		t.Fatal(err)
	}
	first.CopyImageToBuffer(buf, img, BufferImageCopy{}) // expects TransferSrc
	second.TransitionImage(img, LayoutGeneral)
	if err := second.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := first.Submit(SubmitOptions{}); !errors.Is(err, ErrLayoutOrder) {
		t.Fatalf("a copy recorded for TransferSrc submitted after a move to General: %v, want ErrLayoutOrder", err)
	}
	if err := second.Wait(-1); err != nil {
		t.Fatal(err)
	}
}

// A guard refuses work on its object, or runs first; the batch stays
// recorded when refused.
func TestGuard(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	buf, err := d.NewBuffer(BufferOptions{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	refuse := errors.New("held elsewhere")
	var calls int
	var fail bool
	buf.setGuard(func(c *Commands) error {
		calls++
		if fail {
			return refuse
		}
		return nil
	})
	fail = true
	if err := buf.Upload(0, make([]byte, 64)); !errors.Is(err, refuse) {
		t.Fatalf("Upload: %v, want the guard's error", err)
	}
	if err := buf.Readback(0, make([]byte, 64)); !errors.Is(err, refuse) {
		t.Fatalf("Readback: %v, want the guard's error", err)
	}
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.FillBuffer(buf, 0, 0, 0x01020304)
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, refuse) {
		t.Fatalf("Submit: %v, want the guard's error", err)
	}
	fail = false
	if err := c.Submit(SubmitOptions{}); err != nil {
		t.Fatalf("Submit once the guard allows it: %v", err)
	}
	if err := c.Wait(-1); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 64)
	if err := buf.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 4 || got[63] != 1 {
		t.Fatalf("buffer %x after the fill", got[:8])
	}
	if calls < 4 {
		t.Fatalf("guard called %d times", calls)
	}
	buf.setGuard(nil)
}

// Raw handles are non-zero while open and zero after Close.
func TestRawHandles(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	if in.Handle() == 0 || d.Physical().Handle() == 0 || d.Handle() == 0 || d.QueueHandle() == 0 || d.Instance() != in {
		t.Fatal("zero instance, physical device, device or queue handle")
	}
	buf, err := d.NewBuffer(BufferOptions{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	img, err := d.NewImage(ImageOptions{Dim: Image2D, Format: 37, Width: 4, Height: 4, Usage: ImageSampled | ImageTransferDst})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := d.NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if buf.Handle() == 0 || img.Handle() == 0 || sem.Handle() == 0 {
		t.Fatal("zero buffer, image or semaphore handle")
	}
	for _, c := range []interface{ Close() error }{buf, img, sem} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Handle() != 0 || img.Handle() != 0 || sem.Handle() != 0 {
		t.Fatal("handles of closed objects")
	}
}
