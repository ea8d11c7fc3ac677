package gl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// TensorConverter converts textures into tensors on the GL side, with a GL
// compute shader: the same conversions as gfxcuda's CUDA and Vulkan
// converters (tensor.Layout: element type, NCHW or NHWC, 3 or 4 channels,
// flip, mean/std), written into a GL buffer. Into a buffer over memory GL
// shares with CUDA (NewSharedBuffer), the tensor is complete once GL is
// (Finish, or a fence), and CUDA runs nothing per frame: no switch of the
// GPU from the GL context to CUDA's for a kernel (see BENCHMARKS.md, "The
// floor"). It needs desktop OpenGL 4.3 or later (compute shaders).
type TensorConverter struct {
	c  *Context
	cv *egl.Converter

	mu     sync.Mutex
	closed bool
}

// NewTensorConverter compiles the converter's program in the context.
// Close (of the converter or the Context) deletes it.
func (c *Context) NewTensorConverter() (*TensorConverter, error) {
	var cv *egl.Converter
	err := c.do(func(_ *egl.Context) (err error) {
		cv, err = egl.NewConverter()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: NewTensorConverter: %w", err)
	}
	t := &TensorConverter{c: c, cv: cv}
	return t, c.addOrDelete(t)
}

// Convert queues the conversion of views — textures of this context, of
// one size, in one of tensor.Sources' formats — into dst at byte offset
// off (a multiple of 4): view v's elements start at off + v·l.Bytes(w, h),
// in the order l.Shape gives. Bytes of dst outside the tensor keep their
// values. A memory barrier follows for GL's later reads of dst; CUDA or
// Vulkan see the tensor once GL has finished (Finish, a fence, or a
// semaphore). It leaves the context's bindings as they were.
func (t *TensorConverter) Convert(l tensor.Layout, views []*Texture, dst *Buffer, off int) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("gl: TensorConverter.Convert: %w", err)
	}
	if len(views) == 0 {
		return errors.New("gl: TensorConverter.Convert: no views")
	}
	if dst == nil || dst.c != t.c {
		return errors.New("gl: TensorConverter.Convert: the destination is not a buffer of the converter's context")
	}
	o := views[0].opts
	for i, v := range views {
		if v == nil || v.c != t.c {
			return fmt.Errorf("gl: TensorConverter.Convert: view %d is not a texture of the converter's context", i)
		}
		if v.opts.Width != o.Width || v.opts.Height != o.Height {
			return fmt.Errorf("gl: TensorConverter.Convert: view %d is %dx%d, view 0 %dx%d: views of one tensor have one size",
				i, v.opts.Width, v.opts.Height, o.Width, o.Height)
		}
		if err := tensor.CheckSource(v.opts.Format); err != nil {
			return fmt.Errorf("gl: TensorConverter.Convert: view %d: %w", i, err)
		}
	}
	if off < 0 || off%4 != 0 {
		return fmt.Errorf("gl: TensorConverter.Convert: byte offset %d: want a multiple of 4", off)
	}
	per := int(l.Bytes(uint32(o.Width), uint32(o.Height)))
	if err := dst.check(off, per*len(views)); err != nil {
		return fmt.Errorf("gl: TensorConverter.Convert: %d views of %d bytes: %w", len(views), per, err)
	}
	var dt egl.ConvertDType
	switch l.DType {
	case format.Float32:
		dt = egl.ConvertFloat32
	case format.Float16:
		dt = egl.ConvertFloat16
	case format.Uint8:
		dt = egl.ConvertUint8
	}
	cl := egl.ConvertLayout{Width: o.Width, Height: o.Height, Channels: l.C(), Planar: l.Planar, FlipY: l.FlipY,
		DType: dt, Mean: l.Mean, Scale: l.Scale()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	return t.c.do(func(_ *egl.Context) error {
		for i, v := range views {
			v.mu.Lock()
			closed, name, bgra := v.closed, v.name, v.opts.Format == format.BGRA8UNorm
			v.mu.Unlock()
			if closed {
				return fmt.Errorf("gl: TensorConverter.Convert: view %d: %w", i, ErrClosed)
			}
			cl.SwapRB = bgra // BGRA8 frames are kept in RGBA8 textures, blue first
			if err := t.cv.Convert(egl.Texture(name), cl, i, egl.Buffer(dst.name), off); err != nil {
				return fmt.Errorf("gl: TensorConverter.Convert: view %d: %w", i, err)
			}
		}
		return nil
	})
}

// Close deletes the program. Idempotent.
func (t *TensorConverter) Close() error {
	t.c.remove(t)
	return t.close()
}

func (t *TensorConverter) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	return t.c.e.Do(t.cv.Delete)
}
