package gl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// A View is a Source's frames in Vulkan memory: a SharedTexture of the
// source's size and Format() on a Vulkan device (and, with a CUDA
// context, in CUDA as an array), made once. ToVulkan and ToCUDA copy the
// source's current contents into it on the GPU and hand it over; between
// them the renderer goes on with its own objects untouched.
type View struct {
	s      *Source
	st     *SharedTexture   // nil for an in-place view (reg)
	reg    *cuda.GLResource // an in-place view: the source's object registered with CUDA (NewGraphicsView)
	dev    *vulkan.Device
	mu     sync.Mutex
	inGL   bool // released to GL (external) by Vulkan
	inCUDA bool // handed to CUDA by ToCUDA: GL waits for CUDA before copying again
	closed bool
	// read and draw: the view's own framebuffers, the source attached to
	// read and the view's texture to draw once (the first copy): each copy
	// is then one blit.
	read, draw egl.Framebuffer
	attached   bool
	// A depth source's copy: a buffer its depth is read into as floats,
	// then unpacked into the view's R32F texture; for a multisampled
	// source, a depth texture of its format that the resolve blits into
	// first (draw's attachment).
	depthTex egl.Texture
	depthBuf egl.Buffer
	// topFirst: a depth view's copies put the top row first
	// (SetRowsTopFirst): the depth is unpacked into flipTex (R32F), then
	// blitted upside down into the view between the framebuffers
	// flipRead and flipDraw.
	topFirst           bool
	flipTex            egl.Texture
	flipRead, flipDraw egl.Framebuffer
}

// SetCUDA gives an adopted Context (Adopt(nil)) the CUDA context its
// hand-offs and CUDA views use. It may be set once; setting the same
// context again does nothing.
func (c *Context) SetCUDA(ctx *cuda.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cuda == ctx:
		return nil
	case c.cuda != nil:
		return fmt.Errorf("gl: the context already works with another CUDA context (one per GL context)")
	}
	c.cuda = ctx
	return nil
}

// NewView makes the source's view on dev: a SharedTexture that Vulkan, GL
// and (when the Context has a CUDA context: SetCUDA) CUDA see. It must be
// called where the context is current.
func (s *Source) NewView(dev *vulkan.Device) (*View, error) {
	st, err := s.c.NewSharedTexture(dev, TextureOptions{Format: s.f, Width: s.desc.Width, Height: s.desc.Height})
	if err != nil {
		return nil, fmt.Errorf("gl: view of %s: %w", s.what, err)
	}
	return &View{s: s, st: st, dev: dev}, nil
}

// Texture is the view's SharedTexture (Vulkan image, GL texture, CUDA
// array).
func (v *View) Texture() *SharedTexture { return v.st }

// Source is the object the view copies.
func (v *View) Source() *Source { return v.s }

// copyLocked copies the source's current contents into the view's GL
// texture: one blit between the view's framebuffers (attached on the first
// copy). A source its renderer deleted is an error naming it. v.mu is
// held.
func (v *View) copyLocked() error {
	return v.s.c.do(func(e *egl.Context) error {
		if !v.attached {
			if v.read == 0 {
				r, d, err := framebufferPair(e)
				if err != nil {
					return err
				}
				v.read, v.draw = r, d
			}
			dst := egl.ObjectDesc{Kind: egl.KindTexture, Name: v.st.GL.name, Width: v.s.desc.Width, Height: v.s.desc.Height}
			mask := uint32(egl.ColorBufferBit)
			draw := true // depth draws only into its resolve (depthTex)
			if v.s.depth {
				mask, draw = egl.DepthBufferBit, v.s.desc.Samples > 1
				if v.depthBuf == 0 {
					b, err := e.CreateBuffer(v.s.desc.Width*v.s.desc.Height*4, nil, egl.StreamCopy)
					if err != nil {
						return fmt.Errorf("gl: the depth copy of %s: %w", v.s.what, err)
					}
					v.depthBuf = b
				}
				if draw && v.depthTex == 0 {
					t, err := e.CreateTexture2D(v.s.desc.InternalFormat, v.s.desc.Width, v.s.desc.Height, 1)
					if err != nil {
						return fmt.Errorf("gl: the depth resolve of %s: %w", v.s.what, err)
					}
					v.depthTex = t
				}
				dst.Name = uint32(v.depthTex)
			}
			if err := e.Attach(v.read, true, v.s.desc, mask); err != nil {
				return fmt.Errorf("gl: %s: %w", v.s.what, err)
			}
			if draw {
				if err := e.Attach(v.draw, false, dst, mask); err != nil {
					return fmt.Errorf("gl: the view of %s: %w", v.s.what, err)
				}
			}
			v.attached = true
		} else if ok, err := e.Alive(v.s.desc); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: the renderer deleted it; make a new source for the object that replaces it", ErrNotObject)
			}
			return fmt.Errorf("gl: %s: %w", v.s.what, err)
		}
		w, h := v.s.desc.Width, v.s.desc.Height
		if !v.s.depth {
			if err := e.BlitAttached(v.read, v.draw, w, h, egl.ColorBufferBit, false); err != nil {
				return fmt.Errorf("gl: copying %s: %w", v.s.what, err)
			}
			return nil
		}
		// Depth: read as the renderer's own glReadPixels would (a
		// multisampled source resolved first by a blit, as renderers
		// resolve: no blit otherwise, which on some drivers rounds depth)
		// into the buffer as floats, then unpack into the view's R32F
		// texture — through flipTex and a colour blit that flips rows when
		// asked. All on the GPU.
		read := v.read
		if v.s.desc.Samples > 1 {
			if err := e.BlitAttached(v.read, v.draw, w, h, egl.DepthBufferBit, false); err != nil {
				return fmt.Errorf("gl: resolving the depth of %s: %w", v.s.what, err)
			}
			read = v.draw
		}
		if err := e.FramebufferToBuffer(read, w, h, egl.DepthComponent, egl.Float, v.depthBuf, 0); err != nil {
			return fmt.Errorf("gl: copying the depth of %s: %w", v.s.what, err)
		}
		if !v.topFirst {
			if err := e.BufferToTexture(egl.Texture(v.st.GL.name), w, h, egl.Red, egl.Float, v.depthBuf, 0); err != nil {
				return fmt.Errorf("gl: copying the depth of %s: %w", v.s.what, err)
			}
			return nil
		}
		if err := v.flipDepthLocked(e); err != nil {
			return fmt.Errorf("gl: copying the depth of %s: %w", v.s.what, err)
		}
		return nil
	})
}

// framebufferPair makes a read and a draw framebuffer (both or neither).
func framebufferPair(e *egl.Context) (read, draw egl.Framebuffer, err error) {
	if read, err = e.CreateFramebuffer(); err != nil {
		return 0, 0, err
	}
	if draw, err = e.CreateFramebuffer(); err != nil {
		e.DeleteFramebuffer(read)
		return 0, 0, err
	}
	return read, draw, nil
}

// flipDepthLocked unpacks the depth buffer into flipTex (R32F) and blits
// it into the view's texture upside down (a colour blit of floats: exact),
// making flipTex and its framebuffers on first use. v.mu is held.
func (v *View) flipDepthLocked(e *egl.Context) error {
	w, h := v.s.desc.Width, v.s.desc.Height
	if v.flipTex == 0 {
		t, err := e.CreateTexture2D(0x822E /* GL_R32F */, w, h, 1)
		if err != nil {
			return err
		}
		r, d, err := framebufferPair(e)
		if err != nil {
			e.DeleteTexture(t)
			return err
		}
		v.flipTex, v.flipRead, v.flipDraw = t, r, d
		src := egl.ObjectDesc{Kind: egl.KindTexture, Name: uint32(t), Width: w, Height: h, InternalFormat: 0x822E}
		dst := src
		dst.Name = v.st.GL.name
		if err := e.Attach(r, true, src, egl.ColorBufferBit); err != nil {
			return err
		}
		if err := e.Attach(d, false, dst, egl.ColorBufferBit); err != nil {
			return err
		}
	}
	if err := e.BufferToTexture(v.flipTex, w, h, egl.Red, egl.Float, v.depthBuf, 0); err != nil {
		return err
	}
	return e.BlitAttached(v.flipRead, v.flipDraw, w, h, egl.ColorBufferBit, true)
}

// SetRowsTopFirst says how a depth view's copies order rows: top row
// first (flipped from GL's order) or GL's (bottom row first, the default).
// Colour views ignore it: the converters flip colour.
func (v *View) SetRowsTopFirst(top bool) {
	v.mu.Lock()
	v.topFirst = top
	v.mu.Unlock()
}

// toGLLocked releases the image from Vulkan to GL (once: until ToVulkan
// takes it back). v.mu is held.
func (v *View) toGLLocked() error {
	if v.inGL {
		return nil
	}
	if err := v.dev.Run(func(c *vulkan.Commands) error {
		own.ReleaseImages(c, vulkan.LayoutGeneral, v.st.Vulkan)
		return nil
	}); err != nil {
		return fmt.Errorf("gl: handing the view of %s to GL: %w", v.s.what, err)
	}
	v.inGL = true
	return nil
}

// ToVulkan copies the source's current contents into the view and hands
// the image to Vulkan (layout GENERAL, the device's queue family). Vulkan
// work that used the image before must have finished (compute's waited
// dispatches have). Costs a GL copy, glFinish and two small Vulkan
// submissions, each waited.
func (v *View) ToVulkan() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return ErrClosed
	}
	if v.st == nil {
		return fmt.Errorf("gl: the view of %s is CUDA's in-place view: it has no Vulkan image (make a view without CUDA)", v.s.what)
	}
	if err := v.toGLLocked(); err != nil {
		return err
	}
	if err := v.copyLocked(); err != nil {
		return err
	}
	if err := v.s.c.Finish(); err != nil {
		return err
	}
	if err := v.dev.Run(func(c *vulkan.Commands) error {
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, v.st.Vulkan)
		return nil
	}); err != nil {
		return fmt.Errorf("gl: handing the view of %s to Vulkan: %w", v.s.what, err)
	}
	v.inGL = false
	return nil
}

// ToCUDA copies the source's current contents into the view and hands it
// to CUDA: work queued on s afterwards (nil: the legacy default stream)
// sees the frame in v.Texture().CUDA. Where GL has timeline semaphores
// (NVIDIA) the hand-offs wait on the GPU, elsewhere on the host (glFinish,
// the stream). The next ToCUDA makes GL wait for CUDA's work queued on its
// s before copying over the frame: use one stream per view. A view is for
// Vulkan (ToVulkan) or for CUDA, not both.
func (v *View) ToCUDA(s *cuda.Stream) error { return ToCUDA(s, v) }

// Image is the view's Vulkan image (Texture().Vulkan); nil for an
// in-place view (Direct).
func (v *View) Image() *vulkan.Image {
	if v.st == nil {
		return nil
	}
	return v.st.Vulkan
}

// Array is the view's CUDA array (Texture().CUDA); nil when the Context
// had no CUDA context when the view was made, and for an in-place view
// (Direct: UseInCUDA gives its array).
func (v *View) Array() *cuda.Array {
	if v.st == nil {
		return nil
	}
	return v.st.CUDA
}

// CUDAIdle tells the view that CUDA's work on its frame has finished (the
// caller waited for it, or an event recorded after it reports done): the
// next copy then need not make GL wait for CUDA on the GPU.
func (v *View) CUDAIdle() {
	v.mu.Lock()
	v.inCUDA = false
	v.mu.Unlock()
}

// Close frees the view (GL, CUDA and Vulkan). Idempotent; call it where
// the context is current.
func (v *View) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil
	}
	v.closed = true
	var err error
	if v.reg != nil {
		// Unregistered where the context is current (elsewhere the
		// registration goes with the context).
		err = v.s.c.do(func(*egl.Context) error { return v.reg.Close() })
		if errors.Is(err, ErrWrongThread) {
			err = nil
		}
		return err
	}
	if v.read != 0 {
		// The framebuffers hold the source: deleted first (where the
		// context is current; elsewhere they go with the context).
		err = v.s.c.do(func(e *egl.Context) error {
			err := errors.Join(e.DeleteFramebuffer(v.read), e.DeleteFramebuffer(v.draw))
			if v.depthBuf != 0 {
				err = errors.Join(err, e.DeleteBuffer(v.depthBuf))
			}
			if v.depthTex != 0 {
				err = errors.Join(err, e.DeleteTexture(v.depthTex))
			}
			if v.flipTex != 0 {
				err = errors.Join(err, e.DeleteTexture(v.flipTex), e.DeleteFramebuffer(v.flipRead), e.DeleteFramebuffer(v.flipDraw))
			}
			return err
		})
		if errors.Is(err, ErrWrongThread) {
			err = nil
		}
	}
	return errors.Join(err, v.st.Close())
}

// sameGL reports whether a and b are one GL context: the same Context, or
// Contexts adopted separately from one renderer's context.
func sameGL(a, b *Context) bool {
	return a == b || a.e.Native() == b.e.Native() && b.e.Native() != 0
}

// ToCUDA copies the sources of views (of one Context, each once) into
// their views and hands them all to CUDA with one synchronization: work
// queued on s afterwards sees every frame (the batched form of
// View.ToCUDA, for renderers that draw several cameras or environments
// per step). GL first waits for CUDA's work queued on s so far when a view
// was handed to CUDA before.
func ToCUDA(s *cuda.Stream, views ...*View) error {
	if len(views) == 0 {
		return nil
	}
	c := views[0].s.c
	seen := make(map[*View]bool, len(views))
	for i, v := range views {
		if !sameGL(v.s.c, c) {
			return fmt.Errorf("gl: ToCUDA: view %d is of another GL context than view 0", i)
		}
		if seen[v] {
			return fmt.Errorf("gl: ToCUDA: view %d is given twice", i)
		}
		seen[v] = true
	}
	for _, v := range views {
		v.mu.Lock()
		defer v.mu.Unlock()
	}
	var back, all []*Texture
	for i, v := range views {
		if v.closed {
			return fmt.Errorf("gl: ToCUDA: view %d: %w", i, ErrClosed)
		}
		if v.st == nil {
			return fmt.Errorf("gl: ToCUDA: the view of %s is read in place: use UseInCUDA", v.s.what)
		}
		if v.st.CUDA == nil {
			return fmt.Errorf("gl: view of %s: %w", v.s.what, ErrNoCUDA)
		}
		if err := v.toGLLocked(); err != nil {
			return err
		}
		if v.inCUDA {
			back = append(back, v.st.GL)
		}
		all = append(all, v.st.GL)
	}
	h := views[0].st.h // one pair of semaphores orders them all
	if len(back) > 0 {
		if err := h.toGL(s, nil, back); err != nil {
			return fmt.Errorf("gl: ToCUDA: CUDA to GL: %w", err)
		}
		for _, v := range views {
			v.inCUDA = false
		}
	}
	for _, v := range views {
		if err := v.copyLocked(); err != nil {
			return err
		}
	}
	if err := h.toCUDA(s, nil, all); err != nil {
		return fmt.Errorf("gl: ToCUDA: GL to CUDA: %w", err)
	}
	for _, v := range views {
		v.inCUDA = true
	}
	return nil
}
