//go:build linux

package gfxcuda

import (
	"bytes"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestImportedImageAdoptedInGeneral: an image imported with
// OpenVulkanImage is taken over with an acquire from the layout the
// exporter released it in (GENERAL → GENERAL, as VulkanConsumer and
// ImportTexture do), then used in other layouts by later batches:
// every texel the exporter wrote survives, and the validation layer (on,
// checked by vkDevice) reports nothing: it used to believe the import still
// UNDEFINED, an equal-layout barrier being no transition under
// synchronization2.
func TestImportedImageAdoptedInGeneral(t *testing.T) {
	d := vkDevice(t)
	const w, h, layers = 96, 40, 2
	img, err := d.NewImage(vulkan.ImageOptions{Format: 37, Width: w, Height: h, Layers: layers, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	n := w * h * layers * 4
	want := seededRandom(91, n)
	uploadVulkanImage(t, d, img, want)
	ex, err := ExportVulkan(d, img)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	im2, err := OpenVulkanImage(ctx10(t), d, ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer im2.Close()
	if err := d.Run(func(c *vulkan.Commands) error {
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, im2)
		return c.Err()
	}); err != nil {
		t.Fatal(err)
	}
	if l := im2.Layout(); l != vulkan.LayoutGeneral {
		t.Fatalf("layout after the acquire: %v", l)
	}
	down, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(n), Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	if err := d.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(im2, vulkan.LayoutTransferSrc)
		c.CopyImageToBuffer(down, im2, vulkan.BufferImageCopy{})
		c.TransitionImage(im2, vulkan.LayoutGeneral)
		return c.Err()
	}); err != nil {
		t.Fatal(err)
	}
	got := poisonedBytes(n)
	if err := down.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("texels the exporter wrote differ in the import")
	}
}
