package gl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// Flags say how CUDA uses a registered object.
type Flags = cuda.GLFlags

// Registration flags.
const (
	ReadWrite    = cuda.GLReadWrite    // CUDA reads and writes (the default)
	ReadOnly     = cuda.GLReadOnly     // CUDA only reads
	WriteDiscard = cuda.GLWriteDiscard // CUDA overwrites everything; GL's contents are not carried in
	Surface      = cuda.GLSurface      // textures: the mapped array can back surface objects
)

// ErrNoCUDA is returned by Register when the Context has no CUDA context.
var ErrNoCUDA = errors.New("gl: no CUDA context: pass Options.CUDA to Open (or a context to Adopt)")

// Resource is a GL buffer or texture registered with CUDA
// (cuGraphicsGLRegisterBuffer/Image). Map makes it usable from CUDA.
type Resource struct {
	c   *Context
	buf *Buffer
	tex *Texture
	r   *cuda.GLResource

	mu     sync.Mutex
	closed bool
}

// RegisterBuffer registers a buffer with the Context's CUDA context.
func (c *Context) RegisterBuffer(b *Buffer, flags Flags) (*Resource, error) {
	if err := b.check(0, 0); err != nil {
		return nil, err
	}
	return c.register(&Resource{c: c, buf: b}, flags)
}

// RegisterTexture registers a texture with the Context's CUDA context.
// CUDA registers 1, 2 and 4-channel 8/16/32-bit integer and UNORM, 16-bit
// and 32-bit float textures; SNORM, sRGB and packed formats fail with an
// error naming the format.
func (c *Context) RegisterTexture(t *Texture, flags Flags) (*Resource, error) {
	if err := t.check(t.Bytes()); err != nil {
		return nil, err
	}
	return c.register(&Resource{c: c, tex: t}, flags)
}

func (c *Context) register(res *Resource, flags Flags) (*Resource, error) {
	if c.cuda == nil {
		return nil, ErrNoCUDA
	}
	err := c.do(func(_ *egl.Context) error {
		var err error
		if res.buf != nil {
			res.r, err = c.cuda.RegisterGLBuffer(res.buf.name, flags)
		} else {
			res.r, err = c.cuda.RegisterGLImage(res.tex.name, Texture2D, flags)
			if err != nil {
				err = fmt.Errorf("%v %dx%d texture: %w", res.tex.opts.Format, res.tex.opts.Width, res.tex.opts.Height, err)
			}
		}
		return err
	})
	if err != nil {
		if !c.Info().UUIDMatched {
			err = fmt.Errorf("%w (the GL context — %s — was not matched to the CUDA device: run `gfxcuda doctor`)", err, c.Info())
		}
		return nil, fmt.Errorf("gl: %w", err)
	}
	return res, c.addOrDelete(res)
}

// Buffer is the registered buffer, or nil for a texture.
func (r *Resource) Buffer() *Buffer { return r.buf }

// Texture is the registered texture, or nil for a buffer.
func (r *Resource) Texture() *Texture { return r.tex }

// Map maps rs for CUDA in one cuGraphicsMapResources call (ordered after
// GL's commands so far and before work later queued on s; nil s is the
// legacy default stream), runs f, and unmaps them in one call (GL's later
// commands see CUDA's work queued on s before the unmap), even when f
// fails. Inside f, Resource.Pointer, Array, CopyTo and CopyFrom use the
// mapping. f runs on the context's thread; GL must not use rs inside f.
func (c *Context) Map(s *cuda.Stream, f func() error, rs ...*Resource) error {
	raw := make([]*cuda.GLResource, len(rs))
	for i, r := range rs {
		if r == nil || r.c != c {
			return fmt.Errorf("gl: Map: resource %d is nil or of another context", i)
		}
		r.mu.Lock()
		closed := r.closed
		r.mu.Unlock()
		if closed {
			return ErrClosed
		}
		raw[i] = r.r
	}
	return c.do(func(_ *egl.Context) (err error) {
		if err := cuda.MapGL(s, raw...); err != nil {
			return fmt.Errorf("gl: Map: %w", err)
		}
		defer func() {
			if uerr := cuda.UnmapGL(s, raw...); uerr != nil && err == nil {
				err = fmt.Errorf("gl: Map: %w", uerr)
			}
		}()
		return f()
	})
}

// Pointer returns a mapped buffer's device address and size; valid inside
// Map only.
func (r *Resource) Pointer() (cuda.DevicePtr, uint64, error) {
	if r.buf == nil {
		return 0, 0, fmt.Errorf("gl: Pointer on a texture: use Array")
	}
	return r.r.Pointer()
}

// Array returns a mapped texture as a CUDA array; valid inside Map only.
func (r *Resource) Array() (*cuda.Array, error) {
	if r.tex == nil {
		return nil, fmt.Errorf("gl: Array on a buffer: use Pointer")
	}
	return r.r.Array(0, 0)
}

// CopyTo queues on s a copy of the object into CUDA memory at ptr: a
// buffer's bytes, or a texture's texels with rows pitch bytes apart (0:
// tightly packed). Inside Map it uses the mapping; outside, it maps,
// copies and unmaps.
func (r *Resource) CopyTo(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return r.copy(s, ptr, pitch, true)
}

// CopyFrom queues on s a copy from CUDA memory at ptr into the object (as
// CopyTo, the other way).
func (r *Resource) CopyFrom(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return r.copy(s, ptr, pitch, false)
}

func (r *Resource) copy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	if s == nil {
		return errors.New("gl: CopyTo/CopyFrom need a stream")
	}
	run := func() error {
		if r.buf != nil {
			p, n, err := r.r.Pointer()
			if err != nil {
				return err
			}
			n = min(n, uint64(r.buf.size))
			if to {
				return s.CopyDtoD(ptr, p, n)
			}
			return s.CopyDtoD(p, ptr, n)
		}
		a, err := r.r.Array(0, 0)
		if err != nil {
			return err
		}
		c := cuda.ArrayCopy{Array: a, Ptr: ptr, Pitch: pitch}
		if to {
			return s.CopyFromArray(c)
		}
		return s.CopyToArray(c)
	}
	if r.r.Mapped() {
		return run()
	}
	return r.c.Map(s, run, r)
}

// Close unregisters the object from CUDA (the GL object stays).
// Idempotent.
func (r *Resource) Close() error {
	r.c.remove(r)
	return r.close()
}

func (r *Resource) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return r.c.e.Do(r.r.Close)
}
