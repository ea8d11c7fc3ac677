package vulkan

import (
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/internal/vkown"
)

// The hooks package vulkan registers with internal/vkown are its ownership
// transfers and guard setters: what the sharing layers get works on real
// objects.
func TestOwnHooks(t *testing.T) {
	own := vkown.Get[*Commands, *Buffer, *Image, ImageLayout]()
	in := newTestInstance(t)
	d := testDevice(t, in)
	buf, err := d.NewBuffer(BufferOptions{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	err = d.Run(func(c *Commands) error {
		c.TransitionImage(img, LayoutTransferDst)
		own.ReleaseBuffers(c, buf)
		own.ReleaseImages(c, LayoutGeneral, img)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if img.Layout() != LayoutGeneral {
		t.Errorf("layout after ReleaseImages: %v", img.Layout())
	}
	refuse := errors.New("held elsewhere")
	own.SetBufferGuard(buf, func(*Commands) error { return refuse })
	own.SetImageGuard(img, func(*Commands) error { return refuse })
	if err := buf.Upload(0, make([]byte, 64)); !errors.Is(err, refuse) {
		t.Errorf("Upload of a guarded buffer: %v, want the guard's error", err)
	}
	acquire := func(c *Commands) error {
		own.AcquireBuffers(c, buf)
		own.AcquireImages(c, LayoutGeneral, LayoutTransferSrc, img)
		return nil
	}
	if err := d.Run(acquire); !errors.Is(err, refuse) {
		t.Errorf("acquire of guarded objects: %v, want the guard's error", err)
	}
	own.SetBufferGuard(buf, nil)
	own.SetImageGuard(img, nil)
	if err := d.Run(acquire); err != nil {
		t.Fatal(err)
	}
	if img.Layout() != LayoutTransferSrc {
		t.Errorf("layout after AcquireImages: %v", img.Layout())
	}
}
