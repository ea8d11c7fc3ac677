package gl

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/internal/vkown"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// own is package vulkan's queue-family ownership transfers, which vulkan
// keeps for the hand-offs (see internal/vkown): here ReleaseToGL and
// AcquireFromGL.
var own = vkown.Get[*vulkan.Commands, *vulkan.Buffer, *vulkan.Image, vulkan.ImageLayout]()

// softMargin is how much larger than a GL buffer the Vulkan allocation
// under it must be on Mesa's llvmpipe (GL_EXT_memory_object_fd there
// rejects buffers closer than 48 bytes to the allocation's end); shared
// buffers are allocated with this much room on every driver.
const softMargin = 64

// doFD runs f (which takes ownership of fd) on the context's thread, and
// closes fd when f could not run (a closed context, the wrong thread).
func (c *Context) doFD(fd int, f func(e *egl.Context) error) error {
	ran := false
	err := c.do(func(e *egl.Context) error {
		ran = true
		return f(e)
	})
	if !ran {
		closeFD(fd)
	}
	return err
}

func (c *Context) needMemoryObject() error {
	if !c.Info().MemoryObject {
		return fmt.Errorf("%w: the GL context (%s) lacks GL_EXT_memory_object_fd, so it cannot import Vulkan memory; "+
			"use the NVIDIA driver's EGL or Mesa 20 or newer", ErrUnsupported, c.Info())
	}
	return nil
}

// ImportBuffer makes a GL buffer of size bytes over the memory of an
// Exportable Vulkan buffer, from its start: GL and Vulkan then read and
// write the same bytes. The Vulkan buffer must outlive the GL one. With
// Mesa's llvmpipe the allocation must be at least 48 bytes larger than
// size; NewSharedBuffer allocates with that room.
func (c *Context) ImportBuffer(vb *vulkan.Buffer, size int) (*Buffer, error) {
	if err := c.needMemoryObject(); err != nil {
		return nil, err
	}
	if size <= 0 || uint64(size) > vb.Size() {
		return nil, fmt.Errorf("gl: ImportBuffer: %d bytes of a %d-byte Vulkan buffer", size, vb.Size())
	}
	if c.soft && vb.AllocationSize() < uint64(size)+48 {
		return nil, fmt.Errorf("gl: ImportBuffer: %s needs the Vulkan allocation (%d bytes) at least 48 bytes larger than the GL buffer (%d bytes): "+
			"make the Vulkan buffer larger, or use NewSharedBuffer", c.Info().Renderer, vb.AllocationSize(), size)
	}
	fd, err := vb.ExportFD()
	if err != nil {
		return nil, fmt.Errorf("gl: ImportBuffer: %w", err)
	}
	var mem egl.MemoryObject
	var id egl.Buffer
	err = c.doFD(fd, func(e *egl.Context) error {
		var err error
		if mem, err = e.ImportMemoryFD(fd, vb.AllocationSize(), vb.Dedicated()); err != nil {
			return err
		}
		if id, err = e.BufferFromMemory(mem, size); err != nil {
			e.DeleteMemoryObject(mem)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: ImportBuffer(%d bytes of a %d-byte allocation): %w", size, vb.AllocationSize(), err)
	}
	b := &Buffer{c: c, name: uint32(id), size: size, owned: true, mem: mem}
	return b, c.addOrDelete(b)
}

// ImportImage makes a GL texture over the memory of an Exportable 2D
// Vulkan image of one layer (optimal tiling). Without semaphores, order
// Vulkan's and GL's work on the host (wait for one before the other
// starts) and leave the image in LayoutGeneral for GL.
func (c *Context) ImportImage(img *vulkan.Image) (*Texture, error) {
	if err := c.needMemoryObject(); err != nil {
		return nil, err
	}
	o := img.Options()
	if (o.Dim != vulkan.Image2D && o.Dim != 0) || o.Layers > 1 || o.Depth > 1 {
		return nil, fmt.Errorf("gl: ImportImage: only 2D images of one layer")
	}
	to := TextureOptions{Format: format.Format(o.Format), Width: int(o.Width), Height: int(o.Height)}
	gf, err := glFormatOf(to.Format)
	if err != nil {
		return nil, err
	}
	fd, err := img.ExportFD()
	if err != nil {
		return nil, fmt.Errorf("gl: ImportImage: %w", err)
	}
	var mem egl.MemoryObject
	var id egl.Texture
	err = c.doFD(fd, func(e *egl.Context) error {
		var err error
		if mem, err = e.ImportMemoryFD(fd, img.AllocationSize(), true); err != nil {
			return err
		}
		if id, err = e.TextureFromMemory(mem, gf.internal, to.Width, to.Height); err != nil {
			e.DeleteMemoryObject(mem)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: ImportImage(%v %dx%d): %w", to.Format, to.Width, to.Height, err)
	}
	t := &Texture{c: c, name: uint32(id), opts: to, gf: gf, owned: true, mem: mem}
	return t, c.addOrDelete(t)
}

// SharedBuffer is one allocation seen by Vulkan, GL and (when the Context
// has a CUDA context) CUDA. Hand it between CUDA and GL with CUDAToGL and
// GLToCUDA: GL reliably sees CUDA's writes only after CUDAToGL.
type SharedBuffer struct {
	Vulkan *vulkan.Buffer
	GL     *Buffer
	// CUDA is the allocation mapped into CUDA, nil without a CUDA context.
	CUDA *cuda.MappedBuffer
	ext  *cuda.ExternalMemory
	h    *handoff
}

// NewSharedBuffer allocates an exportable Vulkan buffer of size bytes on
// dev (with room for drivers' import margins), and imports it into GL and
// into the Context's CUDA context. dev must be on the GPU GL runs on.
// Close (of the SharedBuffer, its GL Buffer or the Context) frees all.
func (c *Context) NewSharedBuffer(dev *vulkan.Device, size int) (*SharedBuffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("gl: NewSharedBuffer: size %d", size)
	}
	if err := c.needMemoryObject(); err != nil {
		return nil, err
	}
	vb, err := dev.NewBuffer(vulkan.BufferOptions{Size: uint64(size) + softMargin, Exportable: true})
	if err != nil {
		return nil, fmt.Errorf("gl: NewSharedBuffer: %w", err)
	}
	sb := &SharedBuffer{Vulkan: vb, h: &handoff{c: c, dev: dev}}
	if c.cuda != nil {
		if err := sb.importCUDA(c.cuda, size); err != nil {
			vb.Close()
			return nil, err
		}
	}
	b, err := c.ImportBuffer(vb, size)
	if err != nil {
		sb.closeCUDA()
		vb.Close()
		return nil, err
	}
	b.mu.Lock()
	b.extra = func() error { return errors.Join(sb.h.close(), sb.closeCUDA(), vb.Close()) }
	b.mu.Unlock()
	sb.GL = b
	return sb, nil
}

func (sb *SharedBuffer) importCUDA(ctx *cuda.Context, size int) error {
	fd, err := sb.Vulkan.ExportFD()
	if err != nil {
		return fmt.Errorf("gl: NewSharedBuffer: %w", err)
	}
	ext, err := ctx.ImportMemoryFD(fd, sb.Vulkan.AllocationSize(), sb.Vulkan.Dedicated())
	if err != nil {
		return fmt.Errorf("gl: NewSharedBuffer: importing into CUDA: %w", err)
	}
	m, err := ext.MapBuffer(0, uint64(size))
	if err != nil {
		ext.Close()
		return fmt.Errorf("gl: NewSharedBuffer: %w", err)
	}
	sb.ext, sb.CUDA = ext, m
	return nil
}

func (sb *SharedBuffer) closeCUDA() error {
	if sb.ext == nil {
		return nil
	}
	err := errors.Join(sb.CUDA.Close(), sb.ext.Close())
	sb.ext = nil
	return err
}

// Size is the buffer's size in bytes (as asked of NewSharedBuffer).
func (sb *SharedBuffer) Size() int { return sb.GL.size }

// Close frees the buffer in GL, CUDA and Vulkan. Idempotent.
func (sb *SharedBuffer) Close() error { return sb.GL.Close() }

// SharedTexture is one image seen by Vulkan, GL and (with a CUDA context)
// CUDA, as a CUDA array.
type SharedTexture struct {
	Vulkan *vulkan.Image
	GL     *Texture
	CUDA   *cuda.Array // nil without a CUDA context
	ext    *cuda.ExternalMemory
	h      *handoff
}

// NewSharedTexture allocates an exportable 2D Vulkan image on dev and
// imports it into GL and the Context's CUDA context (as a CUDA array with
// surface access).
func (c *Context) NewSharedTexture(dev *vulkan.Device, o TextureOptions) (*SharedTexture, error) {
	if err := c.needMemoryObject(); err != nil {
		return nil, err
	}
	in, ok := format.Lookup(o.Format)
	if !ok {
		return nil, fmt.Errorf("gl: NewSharedTexture: unknown format %v", o.Format)
	}
	img, err := dev.NewImage(vulkan.ImageOptions{Format: uint32(o.Format), Width: uint32(o.Width), Height: uint32(o.Height), Exportable: true})
	if err != nil {
		return nil, fmt.Errorf("gl: NewSharedTexture: %w", err)
	}
	st := &SharedTexture{Vulkan: img, h: &handoff{c: c, dev: dev}}
	if c.cuda != nil {
		if !in.CUDAArrayCapable() {
			img.Close()
			return nil, fmt.Errorf("gl: NewSharedTexture: CUDA arrays cannot hold %s", in.Name)
		}
		fd, err := img.ExportFD()
		if err != nil {
			img.Close()
			return nil, fmt.Errorf("gl: NewSharedTexture: %w", err)
		}
		ext, err := c.cuda.ImportMemoryFD(fd, img.AllocationSize(), true)
		if err != nil {
			img.Close()
			return nil, fmt.Errorf("gl: NewSharedTexture: importing into CUDA: %w", err)
		}
		u := img.Options().Usage
		arr, err := ext.MapArray(0, cuda.ArrayDesc{Width: uint64(o.Width), Height: uint64(o.Height), Format: cuda.ArrayFormat(in.CUDAFormat),
			Channels: uint32(in.CUDAChannels), Surface: u&vulkan.ImageStorage != 0, ColorTarget: u&vulkan.ImageColorAttachment != 0})
		if err != nil {
			ext.Close()
			img.Close()
			return nil, fmt.Errorf("gl: NewSharedTexture: %w", err)
		}
		st.ext, st.CUDA = ext, arr
	}
	t, err := c.ImportImage(img)
	if err != nil {
		st.closeCUDA()
		img.Close()
		return nil, err
	}
	t.mu.Lock()
	t.extra = func() error { return errors.Join(st.h.close(), st.closeCUDA(), img.Close()) }
	t.mu.Unlock()
	st.GL = t
	return st, nil
}

func (st *SharedTexture) closeCUDA() error {
	if st.ext == nil {
		return nil
	}
	err := st.ext.Close() // closes the mapped array too
	st.ext = nil
	return err
}

// Close frees the texture in GL, CUDA and Vulkan. Idempotent.
func (st *SharedTexture) Close() error { return st.GL.Close() }

// ReleaseToGL records, in Vulkan commands, the hand-off of the image to GL
// and CUDA: ownership moves to VK_QUEUE_FAMILY_EXTERNAL in the GENERAL
// layout, the layout GL and CUDA expect. Submit the commands and wait for
// them before GL uses the texture.
func (st *SharedTexture) ReleaseToGL(c *vulkan.Commands) {
	own.ReleaseImages(c, vulkan.LayoutGeneral, st.Vulkan)
}

// AcquireFromGL records taking the image back from GL and CUDA (after
// their work on it finished: Context.Finish, or a stream synchronized),
// moving it to newLayout.
func (st *SharedTexture) AcquireFromGL(c *vulkan.Commands, newLayout vulkan.ImageLayout) {
	own.AcquireImages(c, vulkan.LayoutGeneral, newLayout, st.Vulkan)
}

// ReleaseToGL records the hand-off of the buffer to GL and CUDA
// (ownership to VK_QUEUE_FAMILY_EXTERNAL after every earlier write).
func (sb *SharedBuffer) ReleaseToGL(c *vulkan.Commands) { own.ReleaseBuffers(c, sb.Vulkan) }

// AcquireFromGL records taking the buffer back from GL and CUDA.
func (sb *SharedBuffer) AcquireFromGL(c *vulkan.Commands) { own.AcquireBuffers(c, sb.Vulkan) }
