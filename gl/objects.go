package gl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// Buffer is a GL buffer object: made by NewBuffer, over Vulkan memory, or
// the caller's own (WrapBuffer, never deleted here).
type Buffer struct {
	c     *Context
	name  uint32
	size  int
	owned bool
	mem   egl.MemoryObject // when the buffer is over imported memory

	mu     sync.Mutex
	closed bool
	extra  func() error // closes what the buffer holds besides GL objects
}

// Texture is a 2D GL texture of one level: made by NewTexture, over Vulkan
// memory, or the caller's own (WrapTexture, never deleted here).
type Texture struct {
	c      *Context
	name   uint32
	opts   TextureOptions
	gf     glFormat
	owned  bool
	mem    egl.MemoryObject
	mu     sync.Mutex
	closed bool
	extra  func() error
}

// TextureOptions describe a 2D texture.
type TextureOptions struct {
	Format        format.Format
	Width, Height int
}

// NewBuffer makes a buffer of size bytes (contents undefined).
func (c *Context) NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("gl: NewBuffer: size %d", size)
	}
	var id egl.Buffer
	err := c.do(func(e *egl.Context) (err error) {
		id, err = e.CreateBuffer(size, nil, egl.DynamicDraw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: NewBuffer(%d): %w", size, err)
	}
	b := &Buffer{c: c, name: uint32(id), size: size, owned: true}
	return b, c.addOrDelete(b)
}

// addOrDelete registers k with the context, or closes it when the context
// closed meanwhile.
func (c *Context) addOrDelete(k closer) error {
	if err := c.add(k); err != nil {
		k.close()
		return err
	}
	return nil
}

// WrapBuffer wraps buffer name of size bytes, made by the caller's
// renderer in this context (or one sharing objects with it). Close does not
// delete it.
func (c *Context) WrapBuffer(name uint32, size int) (*Buffer, error) {
	if name == 0 || size <= 0 {
		return nil, fmt.Errorf("gl: WrapBuffer(%d, %d): need a buffer name and its size", name, size)
	}
	b := &Buffer{c: c, name: name, size: size}
	return b, c.add(b)
}

// Name is the GL buffer name, for the caller's own GL calls.
func (b *Buffer) Name() uint32 { return b.name }

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Context is the buffer's context.
func (b *Buffer) Context() *Context { return b.c }

func (b *Buffer) check(off, n int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if off < 0 || n < 0 || off+n > b.size {
		return fmt.Errorf("gl: %d bytes at offset %d outside a %d-byte buffer", n, off, b.size)
	}
	return nil
}

// Upload writes data at offset off (glBufferSubData).
func (b *Buffer) Upload(off int, data []byte) error {
	if err := b.check(off, len(data)); err != nil {
		return err
	}
	return b.c.do(func(e *egl.Context) error {
		if b.mem == 0 {
			return e.BufferSubData(egl.Buffer(b.name), off, data)
		}
		// Over imported memory, through a GPU copy from a scratch buffer:
		// NVIDIA's GL keeps a host-side shadow of a buffer written with
		// glBufferSubData and serves later glGetBufferSubData from it,
		// missing what Vulkan or CUDA wrote to the memory since (seen on
		// the H100, driver 580, even after a semaphore wait and glFinish).
		tmp, err := e.CreateBuffer(len(data), data, egl.StaticDraw)
		if err != nil {
			return err
		}
		return errors.Join(e.CopyBuffer(egl.Buffer(b.name), tmp, off, 0, len(data)), e.DeleteBuffer(tmp))
	})
}

// Readback reads len(dst) bytes at offset off (glGetBufferSubData, or a
// mapping on OpenGL ES); it waits for the GL commands writing them, and
// after a hand-off to GL (CUDAToGL, Semaphore.Wait) for GL to pass the
// semaphore wait (glFinish).
func (b *Buffer) Readback(off int, dst []byte) error {
	if err := b.check(off, len(dst)); err != nil {
		return err
	}
	return b.c.do(func(e *egl.Context) error {
		if err := b.c.settle(e); err != nil {
			return err
		}
		if b.mem == 0 || len(dst) == 0 {
			return e.GetBufferSubData(egl.Buffer(b.name), off, dst)
		}
		// Over imported memory, through a GPU copy into a scratch buffer,
		// so the read sees the memory itself (see Upload).
		tmp, err := e.CreateBuffer(len(dst), nil, egl.StaticDraw)
		if err != nil {
			return err
		}
		err = e.CopyBuffer(tmp, egl.Buffer(b.name), 0, off, len(dst))
		if err == nil {
			err = e.GetBufferSubData(tmp, 0, dst)
		}
		return errors.Join(err, e.DeleteBuffer(tmp))
	})
}

// CopyFrom queues a GL copy of n bytes from src at srcOff to b at dstOff.
func (b *Buffer) CopyFrom(src *Buffer, dstOff, srcOff, n int) error {
	if err := b.check(dstOff, n); err != nil {
		return err
	}
	if err := src.check(srcOff, n); err != nil {
		return err
	}
	return b.c.do(func(e *egl.Context) error {
		return e.CopyBuffer(egl.Buffer(b.name), egl.Buffer(src.name), dstOff, srcOff, n)
	})
}

// Close deletes the buffer (unless wrapped) and what it was imported
// from. Idempotent.
func (b *Buffer) Close() error {
	b.c.remove(b)
	return b.close()
}

func (b *Buffer) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var err error
	if b.owned {
		err = b.c.e.Do(func() error {
			err := b.c.e.DeleteBuffer(egl.Buffer(b.name))
			if b.mem != 0 {
				err = errors.Join(err, b.c.e.DeleteMemoryObject(b.mem))
			}
			return err
		})
	}
	if b.extra != nil {
		err = errors.Join(err, b.extra())
	}
	return err
}

// NewTexture makes an immutable 2D texture of one level (contents
// undefined).
func (c *Context) NewTexture(o TextureOptions) (*Texture, error) {
	gf, err := glFormatOf(o.Format)
	if err != nil {
		return nil, err
	}
	if o.Width <= 0 || o.Height <= 0 {
		return nil, fmt.Errorf("gl: NewTexture: size %dx%d", o.Width, o.Height)
	}
	var id egl.Texture
	err = c.do(func(e *egl.Context) (err error) {
		id, err = e.CreateTexture2D(gf.internal, o.Width, o.Height, 1)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: NewTexture(%v %dx%d): %w", o.Format, o.Width, o.Height, err)
	}
	t := &Texture{c: c, name: uint32(id), opts: o, gf: gf, owned: true}
	return t, c.addOrDelete(t)
}

// WrapTexture wraps the caller's 2D texture name, whose format and size o
// describes. Close does not delete it.
func (c *Context) WrapTexture(name uint32, o TextureOptions) (*Texture, error) {
	gf, err := glFormatOf(o.Format)
	if err != nil {
		return nil, err
	}
	if name == 0 || o.Width <= 0 || o.Height <= 0 {
		return nil, fmt.Errorf("gl: WrapTexture(%d, %dx%d): need a texture name and its size", name, o.Width, o.Height)
	}
	t := &Texture{c: c, name: name, opts: o, gf: gf}
	return t, c.add(t)
}

// Name is the GL texture name.
func (t *Texture) Name() uint32 { return t.name }

// Options returns the texture's format and size.
func (t *Texture) Options() TextureOptions { return t.opts }

// Context is the texture's context.
func (t *Texture) Context() *Context { return t.c }

// Bytes is the size of the texture's texels, tightly packed.
func (t *Texture) Bytes() int {
	return t.opts.Width * t.opts.Height * t.opts.Format.Info().BytesPerTexel
}

func (t *Texture) check(n int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	if n != t.Bytes() {
		return fmt.Errorf("gl: %d bytes for a %dx%d %v texture of %d bytes", n, t.opts.Width, t.opts.Height, t.opts.Format, t.Bytes())
	}
	return nil
}

// Upload replaces every texel with data, rows tightly packed, bytes as the
// format stores them.
func (t *Texture) Upload(data []byte) error {
	if err := t.check(len(data)); err != nil {
		return err
	}
	return t.c.do(func(e *egl.Context) error {
		return e.TextureSubImage2D(egl.Texture(t.name), 0, t.opts.Width, t.opts.Height, t.gf.format, t.gf.typ, data)
	})
}

// Readback reads every texel into dst (rows tightly packed).
func (t *Texture) Readback(dst []byte) error {
	if err := t.check(len(dst)); err != nil {
		return err
	}
	return t.c.do(func(e *egl.Context) error {
		if err := t.c.settle(e); err != nil {
			return err
		}
		return e.GetTextureImage2D(egl.Texture(t.name), 0, t.opts.Width, t.opts.Height, t.gf.format, t.gf.typ, dst)
	})
}

// Close deletes the texture (unless wrapped) and what it was imported
// from. Idempotent.
func (t *Texture) Close() error {
	t.c.remove(t)
	return t.close()
}

func (t *Texture) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	var err error
	if t.owned {
		err = t.c.e.Do(func() error {
			err := t.c.e.DeleteTexture(egl.Texture(t.name))
			if t.mem != 0 {
				err = errors.Join(err, t.c.e.DeleteMemoryObject(t.mem))
			}
			return err
		})
	}
	if t.extra != nil {
		err = errors.Join(err, t.extra())
	}
	return err
}

// CopyFromTexture queues a GPU copy of t's texels (rows tightly packed)
// into b at offset off: how a renderer puts a rendered frame into a Ring
// slot or a registered buffer without a trip through host memory.
func (b *Buffer) CopyFromTexture(t *Texture, off int) error {
	if err := b.check(off, t.Bytes()); err != nil {
		return err
	}
	if err := t.check(t.Bytes()); err != nil {
		return err
	}
	return b.c.do(func(e *egl.Context) error {
		return e.TextureToBuffer(egl.Texture(t.name), t.opts.Width, t.opts.Height, t.gf.format, t.gf.typ, egl.Buffer(b.name), off, b.size-off)
	})
}
