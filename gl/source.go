package gl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// A Source is an object of the caller's renderer, named as the renderer
// knows it: a texture, a renderbuffer, or what is attached to a
// framebuffer. Its size and format are asked from GL; CopyTo copies its
// current contents, on the GPU, into a texture of gfxcuda's (such as one
// over Vulkan memory, ImportImage: then Vulkan and CUDA see the frame),
// resolving multisampled ones. Nothing of the renderer's changes: no
// binding, no object (gfxcuda attaches the source to a framebuffer of its
// own for the copy and detaches it after). Sources need direct state
// access (GL 4.5, or ARB_direct_state_access).
type Source struct {
	c     *Context
	desc  egl.ObjectDesc
	f     format.Format
	what  string // how the caller named it, for messages
	depth bool   // a depth format: copied as R32Float (depth in [0, 1])
}

// ErrUnsupportedFormat is returned for a source whose internal format has
// no copy here (integer and stencil-only formats).
var ErrUnsupportedFormat = errors.New("gl: the object's format cannot be copied as a color frame")

// ErrBadSource is returned for an object that cannot be a Source: nothing
// attached, the default framebuffer, an unsupported target, no storage.
var ErrBadSource = errors.New("not a source gfxcuda can copy from")

// ErrNotObject is returned for a name that is not an object of that kind
// in the current context (deleted, or another context's).
var ErrNotObject = egl.ErrNotObject

// sourceFormat is the format frames of internal format f are copied into:
// RGBA8 for 8-bit (and smaller) fixed-point formats, RGBA16F and RGBA32F
// for float ones. A blit between these converts (a missing alpha reads 1).
func sourceFormat(f uint32) (format.Format, bool) {
	switch f {
	case 0x8058, 0x8051, 0x822B, 0x8229, 0x1908, 0x1907, 0x8059, 0x8C43, 0x8C41: // RGBA8 RGB8 RG8 R8 RGBA RGB RGB10_A2 SRGB8_ALPHA8 SRGB8
		return format.RGBA8UNorm, true
	case 0x881A, 0x881B, 0x822D, 0x822F, 0x8C3A: // RGBA16F RGB16F R16F RG16F R11F_G11F_B10F
		return format.RGBA16Float, true
	case 0x8814, 0x8815, 0x822E, 0x8230: // RGBA32F RGB32F R32F RG32F
		return format.RGBA32Float, true
	}
	return 0, false
}

// isDepthFormat reports whether f is a depth (or depth-stencil) format:
// such sources are copied as R32Float, depth in [0, 1].
func isDepthFormat(f uint32) bool {
	switch f {
	case 0x81A5, 0x81A6, 0x81A7, 0x8CAC, 0x88F0, 0x8CAD, 0x1902: // DEPTH_COMPONENT16/24/32/32F, DEPTH24_STENCIL8, DEPTH32F_STENCIL8, DEPTH_COMPONENT
		return true
	}
	return false
}

// Depth reports whether the source holds depth (a depth or depth-stencil
// format): its frames are R32Float, depth in [0, 1] as GL stores it.
func (s *Source) Depth() bool { return s.depth }

// TextureSource is texture name of the context (level 0 of a 2D,
// rectangle or multisampled 2D texture; layer 0 of an array).
func (c *Context) TextureSource(name uint32) (*Source, error) {
	return c.source(fmt.Sprintf("texture %d", name), func(e *egl.Context) (egl.ObjectDesc, error) {
		return e.DescribeTexture(name)
	})
}

// RenderbufferSource is renderbuffer name of the context.
func (c *Context) RenderbufferSource(name uint32) (*Source, error) {
	return c.source(fmt.Sprintf("renderbuffer %d", name), func(e *egl.Context) (egl.ObjectDesc, error) {
		return e.DescribeRenderbuffer(name)
	})
}

// FramebufferSource is what attachment (egl.ColorAttachment0+i) of
// framebuffer fb holds: a texture or renderbuffer (fb < 0: the framebuffer
// bound for reading now). The object is looked up once: a renderer that
// attaches another object later needs a new Source. The default
// framebuffer (0) has no objects to copy from yet.
func (c *Context) FramebufferSource(fb int64, attachment uint32) (*Source, error) {
	n := uint32(fb)
	bound := ""
	if fb < 0 {
		err := c.do(func(e *egl.Context) error {
			var err error
			n, err = e.ReadFramebufferBinding()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("gl: the framebuffer bound for reading: %w", err)
		}
		bound = " (bound for reading)"
	}
	what := fmt.Sprintf("framebuffer %d%s, %s", n, bound, egl.AttachmentName(attachment))
	if n == 0 {
		return nil, fmt.Errorf("gl: %s: %w: the default framebuffer has no texture or renderbuffer to copy from; "+
			"render into a framebuffer object and pass its name", what, ErrBadSource)
	}
	return c.source(what, func(e *egl.Context) (egl.ObjectDesc, error) {
		d, ok, err := e.DescribeAttachment(n, attachment)
		if err != nil {
			return egl.ObjectDesc{}, err
		}
		if !ok {
			return egl.ObjectDesc{}, fmt.Errorf("%w: nothing is attached there", ErrBadSource)
		}
		return d, nil
	})
}

func (c *Context) source(what string, describe func(e *egl.Context) (egl.ObjectDesc, error)) (*Source, error) {
	var d egl.ObjectDesc
	err := c.do(func(e *egl.Context) error {
		var err error
		d, err = describe(e)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: %s: %w", what, err)
	}
	if d.Kind == egl.KindTexture {
		switch d.Target {
		case egl.Texture2DTarget, egl.TextureRectangle, egl.Texture2DMS, egl.Texture2DArray, 0x9102 /* 2D multisample array */ :
		default:
			return nil, fmt.Errorf("gl: %s: %w: a texture of target 0x%x; 2D, rectangle, array and multisampled 2D "+
				"textures can be copied", what, ErrBadSource, d.Target)
		}
	}
	f, ok := sourceFormat(d.InternalFormat)
	depth := false // depth formats: see isDepthFormat
	if !ok {
		if isDepthFormat(d.InternalFormat) {
			f, ok, depth = format.R32Float, true, true
		}
	}
	if !ok {
		return nil, fmt.Errorf("gl: %s (%v): %w; color formats RGBA8, RGB8, SRGB8(_ALPHA8), RGB10_A2, "+
			"RGBA16F, RGBA32F (and their 1- and 2-channel forms) can", what, d, ErrUnsupportedFormat)
	}
	if d.Width <= 0 || d.Height <= 0 {
		return nil, fmt.Errorf("gl: %s: %w: no storage (%dx%d): allocate it (glTexStorage2D, glRenderbufferStorage) first",
			what, ErrBadSource, d.Width, d.Height)
	}
	return &Source{c: c, desc: d, f: f, what: what, depth: depth}, nil
}

// Width and Height are the source's size in pixels.
func (s *Source) Width() int { return s.desc.Width }

// Height is the source's height in pixels.
func (s *Source) Height() int { return s.desc.Height }

// Samples is the source's sample count (0: not multisampled).
func (s *Source) Samples() int { return s.desc.Samples }

// Format is the format frames are copied into (TextureOptions of the
// destination): RGBA8UNorm, RGBA16Float or RGBA32Float; R32Float for
// depth.
func (s *Source) Format() format.Format { return s.f }

// InternalFormat is the source's GL internal format.
func (s *Source) InternalFormat() uint32 { return s.desc.InternalFormat }

// Desc is GL's description of the object.
func (s *Source) Desc() egl.ObjectDesc { return s.desc }

func (s *Source) String() string { return fmt.Sprintf("%s: %v", s.what, s.desc) }

// CopyTo copies the source's current contents into dst (a texture of this
// context of the source's size, e.g. ImportImage of a Vulkan image of
// Format()) on the GPU, resolving multisampled sources. It queues the
// copy; Finish (or a semaphore) orders it before another API's reads.
func (s *Source) CopyTo(dst *Texture) error {
	if dst.c != s.c {
		return fmt.Errorf("gl: Source.CopyTo: the texture belongs to another Context")
	}
	if dst.opts.Width != s.desc.Width || dst.opts.Height != s.desc.Height {
		return fmt.Errorf("gl: Source.CopyTo: %s is %dx%d, the texture %dx%d", s.what, s.desc.Width, s.desc.Height,
			dst.opts.Width, dst.opts.Height)
	}
	return s.c.do(func(e *egl.Context) error {
		fbs, err := s.c.blitFramebuffers(e)
		if err != nil {
			return err
		}
		if err := e.Blit(fbs.read, fbs.draw, s.desc, egl.Texture(dst.name), egl.ColorBufferBit); err != nil {
			if errors.Is(err, egl.GLError(0x0502)) { // GL_INVALID_OPERATION: the object went away
				if _, derr := s.redescribe(e); derr != nil {
					return fmt.Errorf("gl: %s: %w", s.what, derr)
				}
			}
			return fmt.Errorf("gl: copying %s: %w", s.what, err)
		}
		return nil
	})
}

// redescribe checks that the source is still the object it was.
func (s *Source) redescribe(e *egl.Context) (egl.ObjectDesc, error) {
	if s.desc.Kind == egl.KindRenderbuffer {
		return e.DescribeRenderbuffer(s.desc.Name)
	}
	return e.DescribeTexture(s.desc.Name)
}

// blitFBs are the two framebuffers of a Context's copies.
type blitFBs struct {
	c          *Context
	read, draw egl.Framebuffer
	once       sync.Once
}

func (b *blitFBs) close() error {
	var err error
	b.once.Do(func() {
		err = b.c.e.Do(func() error {
			return errors.Join(b.c.e.DeleteFramebuffer(b.read), b.c.e.DeleteFramebuffer(b.draw))
		})
	})
	return err
}

// blitFramebuffers returns the context's copy framebuffers, made on first
// use (on the context's thread) and deleted with the context.
func (c *Context) blitFramebuffers(e *egl.Context) (*blitFBs, error) {
	c.mu.Lock()
	b := c.blit
	c.mu.Unlock()
	if b != nil {
		return b, nil
	}
	r, err := e.CreateFramebuffer()
	if err != nil {
		return nil, err
	}
	d, err := e.CreateFramebuffer()
	if err != nil {
		e.DeleteFramebuffer(r)
		return nil, err
	}
	b = &blitFBs{c: c, read: r, draw: d}
	if err := c.add(b); err != nil {
		e.DeleteFramebuffer(r)
		e.DeleteFramebuffer(d)
		return nil, err
	}
	c.mu.Lock()
	c.blit = b
	c.mu.Unlock()
	return b, nil
}
