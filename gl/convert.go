package gl

import (
	"errors"
	"fmt"
	"os"
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
	srcs := make([]convSource, len(views))
	for i, v := range views {
		if v == nil || v.c != t.c {
			return fmt.Errorf("gl: TensorConverter.Convert: view %d is not a texture of the converter's context", i)
		}
		srcs[i] = convSource{tex: v}
	}
	return t.convert("TensorConverter.Convert", l, srcs, dst, off, nil)
}

// ConvertTiles converts the first n tiles of atlas — cols × rows tiles of
// equal size, row by row from the texture's first row and column, as a
// tiled renderer draws its environments' views — into dst at byte off: a
// tensor of l.Shape(n, width/cols, height/rows), every option of l per
// tile (FlipY flips each tile). Bytes of dst outside it keep their values.
func (t *TensorConverter) ConvertTiles(l tensor.Layout, atlas *Texture, cols, rows, n int, dst *Buffer, off int) error {
	const what = "TensorConverter.ConvertTiles"
	if atlas == nil || atlas.c != t.c {
		return fmt.Errorf("gl: %s: the atlas is not a texture of the converter's context", what)
	}
	name := func() (uint32, bool, error) {
		name, err := atlas.liveName()
		if err != nil {
			return 0, false, fmt.Errorf("gl: %s: the atlas: %w", what, err)
		}
		return name, atlas.opts.Format == format.BGRA8UNorm, nil
	}
	return t.tiles(what, l, atlas.opts, name, cols, rows, n, dst, off)
}

// ConvertViewTiles converts the first n tiles of the current frame of view
// (a copy view, NewView, of a source of the converter's context: the
// renderer's framebuffer or texture holding cols × rows tiles of equal
// size, row by row from its first row and column) into dst at byte off,
// as ConvertTiles does: the frame read as it is where ConvertViews reads
// it so (readDirect), else copied into the view's texture first.
func (t *TensorConverter) ConvertViewTiles(l tensor.Layout, v *View, cols, rows, n int, dst *Buffer, off int) error {
	const what = "TensorConverter.ConvertViewTiles"
	if err := t.colourView(v); err != nil {
		return fmt.Errorf("gl: %s: the view %w", what, err)
	}
	name := func() (uint32, bool, error) {
		if err := t.prepareView(v); err != nil {
			return 0, false, fmt.Errorf("gl: %s: %w", what, err)
		}
		if readDirect(v.s) {
			return v.s.desc.Name, false, nil
		}
		name, err := v.st.GL.liveName()
		if err != nil {
			return 0, false, fmt.Errorf("gl: %s: %w", what, err)
		}
		return name, v.st.GL.opts.Format == format.BGRA8UNorm, nil
	}
	return t.tiles(what, l, v.st.GL.opts, name, cols, rows, n, dst, off)
}

// tiles checks and queues the conversion of n tiles of an atlas of size
// and format o, whose texture name (and whether it holds BGRA8 frames as
// RGBA8) name gives, on the GL thread, right before the dispatch.
func (t *TensorConverter) tiles(what string, l tensor.Layout, o TextureOptions, name func() (uint32, bool, error), cols, rows, n int,
	dst *Buffer, off int) error {
	if cols <= 0 || rows <= 0 || o.Width%cols != 0 || o.Height%rows != 0 {
		return fmt.Errorf("gl: %s: a %dx%d atlas does not divide into %d x %d tiles of equal size", what, o.Width, o.Height, cols, rows)
	}
	if n <= 0 || n > cols*rows {
		return fmt.Errorf("gl: %s: %d views from an atlas of %d x %d tiles: want 1 to %d", what, n, cols, rows, cols*rows)
	}
	w, h := o.Width/cols, o.Height/rows
	if err := l.Validate(); err != nil {
		return fmt.Errorf("gl: %s: %w", what, err)
	}
	if err := tensor.CheckSource(o.Format); err != nil {
		return fmt.Errorf("gl: %s: the atlas: %w", what, err)
	}
	if dst == nil || dst.c != t.c {
		return fmt.Errorf("gl: %s: the destination is not a buffer of the converter's context", what)
	}
	if off < 0 || off%4 != 0 {
		return fmt.Errorf("gl: %s: byte offset %d: want a multiple of 4", what, off)
	}
	per := int(l.Bytes(uint32(w), uint32(h)))
	if err := dst.check(off, per*n); err != nil {
		return fmt.Errorf("gl: %s: %d views of %d bytes: %w", what, n, per, err)
	}
	cl := egl.ConvertLayout{Width: w, Height: h, Channels: l.C(), Planar: l.Planar, FlipY: l.FlipY,
		DType: convertDType(l.DType), Mean: l.Mean, Scale: l.Scale()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	tex, bgra, err := name()
	if err != nil {
		return err
	}
	cl.SwapRB = bgra // BGRA8 frames are kept in RGBA8 textures, blue first
	return t.c.do(func(_ *egl.Context) error {
		if err := t.cv.ConvertTiles(egl.Texture(tex), cl, cols, n, egl.Buffer(dst.name), off); err != nil {
			return fmt.Errorf("gl: %s: %w", what, err)
		}
		return nil
	})
}

// liveName is the texture's GL name, or ErrClosed.
func (t *Texture) liveName() (uint32, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return 0, ErrClosed
	}
	return t.name, nil
}

// convertDType is the egl converter's code of an element type.
func convertDType(d format.DType) egl.ConvertDType {
	switch d {
	case format.Float16:
		return egl.ConvertFloat16
	case format.Uint8:
		return egl.ConvertUint8
	}
	return egl.ConvertFloat32
}

// ConvertViews copies the current frames of views (copies, NewView, of
// sources of the converter's context, of one size and colour format) into
// their textures and converts them into dst at byte off as Convert does:
// the renderer's frames into a tensor with GL work only (a blit and a
// dispatch per view), queued, not waited for. A view handed to CUDA
// (ToCUDA) or to Vulkan's side (ToVulkan) is for that API; depth views and
// CUDA's in-place views are not converted here yet.
func (t *TensorConverter) ConvertViews(l tensor.Layout, views []*View, dst *Buffer, off int) error {
	srcs := make([]convSource, len(views))
	for i, v := range views {
		if err := t.colourView(v); err != nil {
			return fmt.Errorf("gl: TensorConverter.ConvertViews: view %d %w", i, err)
		}
		srcs[i] = convSource{tex: v.st.GL, view: v}
		if readDirect(v.s) {
			srcs[i].direct = v.s.desc.Name
		}
	}
	return t.convert("TensorConverter.ConvertViews", l, srcs, dst, off, t.prepareView)
}

// colourView says why v cannot be converted on GL's side (nil: it can):
// not a view of the converter's context, CUDA's in-place view, or depth
// (ErrUnsupportedFormat). The error reads after "view ...".
func (t *TensorConverter) colourView(v *View) error {
	switch {
	case v == nil || !sameGL(v.s.c, t.c):
		return errors.New("is not a view of the converter's context")
	case v.st == nil:
		return fmt.Errorf("(of %s) is CUDA's in-place view: make a copy view (NewView)", v.s.what)
	case v.s.depth:
		return fmt.Errorf("(of %s) is depth: the GL-side conversion takes colour views: %w", v.s.what, ErrUnsupportedFormat)
	}
	return nil
}

// prepareView runs right before a view's dispatch: its copy of the
// source's current frame, or, for a texture read as it is, a check that
// the renderer has not deleted it.
func (t *TensorConverter) prepareView(v *View) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case v.closed:
		return ErrClosed
	case v.inCUDA:
		return fmt.Errorf("gl: the view of %s was handed to CUDA (ToCUDA): a view is for one API", v.s.what)
	}
	if readDirect(v.s) {
		return v.s.c.do(func(e *egl.Context) error {
			if ok, err := e.Alive(v.s.desc); err != nil || !ok {
				if err == nil {
					err = fmt.Errorf("%w: the renderer deleted it; make a new source for the object that replaces it", ErrNotObject)
				}
				return fmt.Errorf("gl: %s: %w", v.s.what, err)
			}
			return nil
		})
	}
	if err := v.toGLLocked(); err != nil {
		return err
	}
	return v.copyLocked()
}

// convSource is a texture a conversion reads, and the view it is the copy
// of (nil for a texture converted as it is). direct, when not 0, is the
// view's source's own texture, read instead of the copy (readDirect).
type convSource struct {
	tex    *Texture
	view   *View
	direct uint32
}

// readDirect says whether the GL-side conversion reads the source's own
// texture as it is, with no copy: a 2D texture (level 0, layer 0, not
// multisampled) of internal format RGBA8, RGBA16F or RGBA32F, the
// converter's formats, as CUDA reads such objects in place.
// GFXCUDA_GL_COPY=1 copies every source first.
func readDirect(s *Source) bool {
	if glCopyAlways {
		return false
	}
	t, ok := s.registrable()
	return ok && t == egl.Texture2DTarget && s.desc.Kind == egl.KindTexture
}

var glCopyAlways = os.Getenv("GFXCUDA_GL_COPY") == "1"

// convert checks and queues the conversion of srcs; prepare (when not nil)
// runs for each source's view first, outside the GL thread.
func (t *TensorConverter) convert(what string, l tensor.Layout, srcs []convSource, dst *Buffer, off int, prepare func(*View) error) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("gl: %s: %w", what, err)
	}
	if len(srcs) == 0 {
		return fmt.Errorf("gl: %s: no views", what)
	}
	if dst == nil || !sameGL(dst.c, t.c) {
		return fmt.Errorf("gl: %s: the destination is not a buffer of the converter's context", what)
	}
	o := srcs[0].tex.opts
	for i, sv := range srcs {
		v := sv.tex
		if v.opts.Width != o.Width || v.opts.Height != o.Height {
			return fmt.Errorf("gl: %s: view %d is %dx%d, view 0 %dx%d: views of one tensor have one size",
				what, i, v.opts.Width, v.opts.Height, o.Width, o.Height)
		}
		if err := tensor.CheckSource(v.opts.Format); err != nil {
			return fmt.Errorf("gl: %s: view %d: %w", what, i, err)
		}
	}
	if off < 0 || off%4 != 0 {
		return fmt.Errorf("gl: %s: byte offset %d: want a multiple of 4", what, off)
	}
	per := int(l.Bytes(uint32(o.Width), uint32(o.Height)))
	if err := dst.check(off, per*len(srcs)); err != nil {
		return fmt.Errorf("gl: %s: %d views of %d bytes: %w", what, len(srcs), per, err)
	}
	cl := egl.ConvertLayout{Width: o.Width, Height: o.Height, Channels: l.C(), Planar: l.Planar, FlipY: l.FlipY,
		DType: convertDType(l.DType), Mean: l.Mean, Scale: l.Scale()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	for i, sv := range srcs {
		if prepare != nil && sv.view != nil {
			if err := prepare(sv.view); err != nil {
				return fmt.Errorf("gl: %s: view %d: %w", what, i, err)
			}
		}
		v := sv.tex
		v.mu.Lock()
		closed, name, bgra := v.closed, v.name, v.opts.Format == format.BGRA8UNorm
		v.mu.Unlock()
		if closed {
			return fmt.Errorf("gl: %s: view %d: %w", what, i, ErrClosed)
		}
		if sv.direct != 0 {
			name, bgra = sv.direct, false
		}
		cl.SwapRB = bgra // BGRA8 frames are kept in RGBA8 textures, blue first
		err := t.c.do(func(_ *egl.Context) error {
			return t.cv.Convert(egl.Texture(name), cl, i, egl.Buffer(dst.name), off)
		})
		if err != nil {
			return fmt.Errorf("gl: %s: view %d: %w", what, i, err)
		}
	}
	return nil
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
