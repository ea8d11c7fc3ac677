package gl

import (
	"errors"
	"fmt"
	"os"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/graphics"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// GL is a side of the face: Sources and Views are what package graphics
// asks of a graphics API, so gfxcuda.NewGraphicsSource takes a *Source.
var (
	_ graphics.Source       = (*Source)(nil)
	_ graphics.View         = (*View)(nil)
	_ graphics.TensorWriter = (*View)(nil)
)

// directOff turns CUDA's in-place reads of registrable sources off
// (GFXCUDA_GL_DIRECT=0): every frame is then copied into shared memory
// first, as for other sources (for comparing the two).
var directOff = os.Getenv("GFXCUDA_GL_DIRECT") == "0"

// NewGraphicsView is NewView for the face (graphics.Source): the source's
// view on dev, in CUDA too when cu is not nil (the Context then works with
// cu: SetCUDA). Call it where the context is current.
//
// For CUDA (cu not nil), a source CUDA can register as it is — a 2D or
// rectangle texture (level 0) or renderbuffer, not multisampled, of
// internal format RGBA8, RGBA16F or RGBA32F — gets a view that CUDA reads
// in place: the object is registered with CUDA once
// (cuGraphicsGLRegisterImage) and each UseInCUDA maps it, with no copy
// (GFXCUDA_GL_DIRECT=0 turns this off). Such a view has no Vulkan image
// and no Array outside UseInCUDA. Other sources, and views without CUDA,
// are copies into memory GL, Vulkan and CUDA share (NewView).
func (s *Source) NewGraphicsView(dev *vulkan.Device, cu *cuda.Context) (graphics.View, error) {
	if dev == nil {
		return nil, fmt.Errorf("gl: %s: a view needs a Vulkan device", s.what)
	}
	if cu != nil {
		if err := s.c.SetCUDA(cu); err != nil {
			return nil, fmt.Errorf("gl: %s: %w", s.what, err)
		}
		if target, ok := s.registrable(); ok && !directOff {
			if v, err := s.directView(dev, cu, target); err == nil {
				return v, nil
			}
			// CUDA refused the object (a driver's limit): copy it instead.
		}
	}
	v, err := s.NewView(dev)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// registrable says whether CUDA can read the source's object in place,
// with the converter's formats, and the target to register it with.
func (s *Source) registrable() (uint32, bool) {
	d := s.desc
	if s.depth || d.Samples > 1 || d.Level != 0 || d.Layer != 0 {
		return 0, false
	}
	switch d.InternalFormat {
	case 0x8058, 0x881A, 0x8814: // RGBA8, RGBA16F, RGBA32F: the converter's sources as they are
	default:
		return 0, false
	}
	if d.Kind == egl.KindRenderbuffer {
		return egl.KindRenderbuffer, true
	}
	switch d.Target {
	case egl.Texture2DTarget, egl.TextureRectangle:
		return d.Target, true
	}
	return 0, false
}

// directView registers the source's object with cu (surface access, read
// only where the driver takes it).
func (s *Source) directView(dev *vulkan.Device, cu *cuda.Context, target uint32) (*View, error) {
	var r *cuda.GLResource
	err := s.c.do(func(e *egl.Context) error {
		var err error
		if r, err = cu.RegisterGLImage(s.desc.Name, target, cuda.GLSurface|cuda.GLReadOnly); err != nil {
			r, err = cu.RegisterGLImage(s.desc.Name, target, cuda.GLSurface)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: registering %s with CUDA: %w", s.what, err)
	}
	return &View{s: s, reg: r, dev: dev}, nil
}

// Direct reports whether CUDA reads the view's source in place (a
// registered object: no copy) rather than a copy of it.
func (v *View) Direct() bool { return v.reg != nil }

// UseInCUDA hands the current frames of v and of more (views of the same
// context, each a *View) to CUDA with one synchronization and runs f with
// their CUDA arrays, in that order, for f to queue work reading them on s
// (nil: the legacy default stream); then it gives them back to GL, whose
// later commands wait for that work on the GPU. Copies (NewView) are
// copied first (as ToCUDA); in-place views (Direct) are mapped for f and
// unmapped after it. The arrays of in-place views are valid inside f
// only. Call it where the context is current.
func (v *View) UseInCUDA(s *cuda.Stream, f func(arrays []*cuda.Array) error, more ...graphics.View) error {
	all := make([]*View, 0, 1+len(more))
	all = append(all, v)
	for i, m := range more {
		gv, ok := m.(*View)
		if !ok || gv == nil {
			return fmt.Errorf("gl: UseInCUDA: view %d is not an OpenGL view (%T)", i+1, m)
		}
		all = append(all, gv)
	}
	var copies []*View
	var regs []*cuda.GLResource
	c := v.s.c
	for i, w := range all {
		if !sameGL(w.s.c, c) {
			return fmt.Errorf("gl: UseInCUDA: view %d is of another GL context than view 0", i)
		}
		w.mu.Lock()
		closed := w.closed
		w.mu.Unlock()
		if closed {
			return fmt.Errorf("gl: UseInCUDA: view %d: %w", i, ErrClosed)
		}
		if w.reg != nil {
			regs = append(regs, w.reg)
		} else {
			copies = append(copies, w)
		}
	}
	if len(copies) > 0 {
		if err := ToCUDA(s, copies...); err != nil {
			return err
		}
	}
	arrays := make([]*cuda.Array, len(all))
	if len(regs) == 0 {
		for i, w := range all {
			arrays[i] = w.st.CUDA
		}
		return f(arrays)
	}
	return c.do(func(e *egl.Context) (err error) {
		for _, w := range all {
			if w.reg == nil {
				continue
			}
			if ok, aerr := e.Alive(w.s.desc); aerr != nil || !ok {
				if aerr == nil {
					aerr = fmt.Errorf("%w: the renderer deleted it; make a new source for the object that replaces it", ErrNotObject)
				}
				return fmt.Errorf("gl: %s: %w", w.s.what, aerr)
			}
		}
		if err := cuda.MapGL(s, regs...); err != nil {
			return fmt.Errorf("gl: UseInCUDA: %w", err)
		}
		defer func() {
			if uerr := cuda.UnmapGL(s, regs...); uerr != nil {
				err = errors.Join(err, fmt.Errorf("gl: UseInCUDA: %w", uerr))
			}
		}()
		for i, w := range all {
			if w.reg == nil {
				arrays[i] = w.st.CUDA
				continue
			}
			if arrays[i], err = w.reg.Array(0, 0); err != nil {
				return fmt.Errorf("gl: %s in CUDA: %w", w.s.what, err)
			}
		}
		return f(arrays)
	})
}

// maxImports is how many Vulkan buffers a Context keeps GL buffers over
// for WriteTensors (a ring's or a cache's few outputs); older ones are
// deleted.
const maxImports = 8

// WriteTensors converts the current frames of v and of more (copy views,
// NewView, of this context, one size and colour format) into dst — an
// Exportable Vulkan buffer, typically a face Buffer CUDA shares — from
// byte off, with GL's compute shaders (TensorConverter.ConvertViews), and
// waits on the host for GL to finish: Vulkan and CUDA then see the
// tensor. GL buffers over dst's memory are made on first use and kept (the
// last maxImports buffers). Call it where the context is current.
func (v *View) WriteTensors(l tensor.Layout, dst *vulkan.Buffer, off uint64, more ...graphics.View) error {
	views := make([]*View, 0, 1+len(more))
	views = append(views, v)
	for i, m := range more {
		mv, ok := m.(*View)
		if !ok || mv == nil {
			return fmt.Errorf("gl: View.WriteTensors: view %d is %T, not a gl view", i+1, m)
		}
		if !sameGL(mv.s.c, v.s.c) {
			return fmt.Errorf("gl: View.WriteTensors: view %d is of another GL context", i+1)
		}
		views = append(views, mv)
	}
	c := v.s.c
	tc, gb, err := c.writeTarget("View.WriteTensors", dst, off)
	if err != nil {
		return err
	}
	if err := tc.ConvertViews(l, views, gb, int(off)); err != nil {
		return err
	}
	return c.Finish()
}

// WriteTiles converts the first n tiles of v's current frame (cols × rows
// tiles of equal size, row by row from its first row and column) into dst
// (Exportable) from byte off with GL's compute shaders
// (TensorConverter.ConvertViewTiles: one dispatch for every view where the
// layout allows), and waits on the host for GL, as WriteTensors does.
func (v *View) WriteTiles(l tensor.Layout, cols, rows, n int, dst *vulkan.Buffer, off uint64) error {
	c := v.s.c
	tc, gb, err := c.writeTarget("View.WriteTiles", dst, off)
	if err != nil {
		return err
	}
	if err := tc.ConvertViewTiles(l, v, cols, rows, n, gb, int(off)); err != nil {
		return err
	}
	return c.Finish()
}

// writeTarget is tensorTarget for View.WriteTensors and WriteTiles, with
// dst and off checked.
func (c *Context) writeTarget(what string, dst *vulkan.Buffer, off uint64) (*TensorConverter, *Buffer, error) {
	if dst == nil {
		return nil, nil, fmt.Errorf("gl: %s: no destination buffer", what)
	}
	tc, gb, err := c.tensorTarget(dst)
	if err != nil {
		return nil, nil, fmt.Errorf("gl: %s: %w", what, err)
	}
	if off > uint64(gb.size) {
		return nil, nil, fmt.Errorf("gl: %s: offset %d past the %d-byte buffer", what, off, gb.size)
	}
	return tc, gb, nil
}

// tensorTarget returns the context's tensor converter (made on first use)
// and a GL buffer over dst's memory (imported on first use; the least
// recently used of more than maxImports is deleted).
func (c *Context) tensorTarget(dst *vulkan.Buffer) (*TensorConverter, *Buffer, error) {
	c.mu.Lock()
	tc := c.tconv
	c.mu.Unlock()
	if tc == nil {
		var err error
		if tc, err = c.NewTensorConverter(); err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		if c.tconv == nil {
			c.tconv = tc
		} else {
			defer tc.Close()
			tc = c.tconv
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	for i, im := range c.imports {
		if im.vb == dst {
			c.imports = append(append(c.imports[:i:i], c.imports[i+1:]...), im) // most recent last
			c.mu.Unlock()
			return tc, im.gb, nil
		}
	}
	c.mu.Unlock()
	size := dst.Size()
	if c.soft && dst.AllocationSize() > 48 {
		// llvmpipe reads 48 bytes past a buffer's end (ImportBuffer): the
		// GL buffer leaves them out when the allocation has no margin.
		size = min(size, dst.AllocationSize()-48)
	}
	gb, err := c.ImportBuffer(dst, int(size))
	if err != nil {
		return nil, nil, err
	}
	var old *Buffer
	c.mu.Lock()
	c.imports = append(c.imports, importedBuffer{dst, gb})
	if len(c.imports) > maxImports {
		old = c.imports[0].gb
		c.imports = c.imports[1:]
	}
	c.mu.Unlock()
	if old != nil {
		if err := old.Close(); err != nil {
			return nil, nil, err
		}
	}
	return tc, gb, nil
}
