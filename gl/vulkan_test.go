package gl

import (
	"fmt"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestSharedBuffer: one Vulkan allocation seen by GL, both ways, random
// bytes, every byte compared, for sizes that do and do not fill pages.
func TestSharedBuffer(t *testing.T) {
	for _, api := range []API{OpenGL, OpenGLES} {
		t.Run(api.String(), func(t *testing.T) {
			c := open(t, Options{API: api})
			d := vkDevice(t, c)
			for _, size := range []int{1, 48, 4096, 1<<20 + 3} {
				sb, err := c.NewSharedBuffer(d, size)
				if err != nil {
					t.Fatal(err)
				}
				if sb.Size() != size || sb.GL.Size() != size {
					t.Fatalf("sizes %d, %d, want %d", sb.Size(), sb.GL.Size(), size)
				}
				// Vulkan → GL.
				want := randomTexels(format.R8UNorm, size, uint64(size))
				if err := sb.Vulkan.Upload(0, want); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, size)
				poison(got)
				if err := sb.GL.Readback(0, got); err != nil {
					t.Fatal(err)
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%d bytes, Vulkan→GL: byte %d is %#x, want %#x", size, i, got[i], want[i])
				}
				// GL → Vulkan.
				want = randomTexels(format.R8UNorm, size, uint64(size)+1)
				if err := sb.GL.Upload(0, want); err != nil {
					t.Fatal(err)
				}
				if err := c.Finish(); err != nil {
					t.Fatal(err)
				}
				poison(got)
				if err := sb.Vulkan.Readback(0, got); err != nil {
					t.Fatal(err)
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%d bytes, GL→Vulkan: byte %d is %#x, want %#x", size, i, got[i], want[i])
				}
				if err := sb.Close(); err != nil {
					t.Fatal(err)
				}
				if err := sb.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestImportBufferMargin: a Vulkan buffer without the software driver's
// margin is refused with an explanation there, and imported elsewhere.
func TestImportBufferMargin(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	vb, err := d.NewBuffer(vulkan.BufferOptions{Size: 4096, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer vb.Close()
	b, err := c.ImportBuffer(vb, int(vb.AllocationSize()))
	if c.soft {
		if err == nil {
			t.Fatal("the software driver's margin was not enforced")
		}
		t.Log(err)
		b, err = c.ImportBuffer(vb, int(vb.AllocationSize())-48)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := randomTexels(format.R8UNorm, b.Size(), 77)
	if err := vb.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, b.Size())
	poison(got)
	if err := b.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("byte %d differs", i)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// uploadImage writes data into img through a staging buffer and releases
// it to GL and CUDA (external queue family, GENERAL layout), waiting for
// the copy.
func uploadImage(d *vulkan.Device, img *vulkan.Image, data []byte) error {
	st, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(len(data)), Heap: vulkan.HeapUpload})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Upload(0, data); err != nil {
		return err
	}
	return d.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(img, vulkan.LayoutTransferDst)
		c.CopyBufferToImage(img, st, vulkan.BufferImageCopy{})
		own.ReleaseImages(c, vulkan.LayoutGeneral, img)
		return c.Err()
	})
}

// downloadImage takes img back from GL (which has finished with it), reads
// its texels through a staging buffer, and releases it again.
func downloadImage(d *vulkan.Device, img *vulkan.Image, dst []byte) error {
	st, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(len(dst)), Heap: vulkan.HeapReadback})
	if err != nil {
		return err
	}
	defer st.Close()
	err = d.Run(func(c *vulkan.Commands) error {
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutTransferSrc, img)
		c.CopyImageToBuffer(st, img, vulkan.BufferImageCopy{})
		own.ReleaseImages(c, vulkan.LayoutGeneral, img)
		return c.Err()
	})
	if err != nil {
		return err
	}
	return st.Readback(0, dst)
}

// TestSharedTexture: Vulkan images imported into GL, both ways, in several
// formats, random texels, every texel compared.
func TestSharedTexture(t *testing.T) {
	for _, api := range []API{OpenGL, OpenGLES} {
		t.Run(api.String(), func(t *testing.T) {
			c := open(t, Options{API: api})
			d := vkDevice(t, c)
			fmts := []format.Format{format.RGBA8UNorm, format.R8UNorm, format.RG16UInt, format.R32Float, format.RGBA16Float, format.RGBA32UInt}
			if api == OpenGLES {
				// ES reads back through glReadPixels, which takes only a
				// few format/type pairs.
				fmts = []format.Format{format.RGBA8UNorm, format.RGBA32UInt}
			}
			for _, f := range fmts {
				t.Run(f.String(), func(t *testing.T) {
					const w, h = 97, 61
					st, err := c.NewSharedTexture(d, TextureOptions{Format: f, Width: w, Height: h})
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					n := st.GL.Bytes()
					want := randomTexels(f, n, uint64(f))
					if err := uploadImage(d, st.Vulkan, want); err != nil {
						t.Fatal(err)
					}
					got := make([]byte, n)
					poison(got)
					if err := st.GL.Readback(got); err != nil {
						t.Fatal(err)
					}
					if i := firstDiff(got, want); i >= 0 {
						texel := i / f.Info().BytesPerTexel
						t.Fatalf("Vulkan→GL: texel (%d,%d) byte %d: got %#x, want %#x", texel%w, texel/w, i, got[i], want[i])
					}
					if api == OpenGLES {
						return // ES: glTexSubImage2D into imported memory is covered by desktop GL
					}
					want = randomTexels(f, n, uint64(f)+100)
					if err := st.GL.Upload(want); err != nil {
						t.Fatal(err)
					}
					if err := c.Finish(); err != nil {
						t.Fatal(err)
					}
					poison(got)
					if err := downloadImage(d, st.Vulkan, got); err != nil {
						t.Fatal(err)
					}
					if i := firstDiff(got, want); i >= 0 {
						texel := i / f.Info().BytesPerTexel
						t.Fatalf("GL→Vulkan: texel (%d,%d) byte %d: got %#x, want %#x", texel%w, texel/w, i, got[i], want[i])
					}
				})
			}
		})
	}
}

// TestSharedCycles: a thousand shared buffers and textures made and
// closed leak no file descriptor.
func TestSharedCycles(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	n := 1000
	if testing.Short() {
		n = 100
	}
	// warm up: the first import may open driver files
	for i := 0; i < 3; i++ {
		sb, err := c.NewSharedBuffer(d, 256)
		if err != nil {
			t.Fatal(err)
		}
		sb.Close()
	}
	before := fdCount(t)
	for i := 0; i < n; i++ {
		sb, err := c.NewSharedBuffer(d, 256+i)
		if err != nil {
			t.Fatal(err)
		}
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			st, err := c.NewSharedTexture(d, TextureOptions{Format: format.RGBA8UNorm, Width: 16, Height: 16})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if after := fdCount(t); after > before {
		t.Fatalf("%d file descriptors leaked over %d cycles", after-before, n)
	}
	_ = fmt.Sprint
}
