package bench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/internal/cu"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// GLGroup is the group of the CUDA–GL baseline figures.
const GLGroup = "baselines: CUDA–GL interop (what people use without gfxcuda)"

// CUDA–GL baseline sizes: an 8 MiB buffer and a 1080p RGBA8 texture.
const (
	glBufferBytes = 8 << 20
	glTexW        = 1920
	glTexH        = 1080
)

// cuErr turns a raw CUresult into a *cuda.Error naming op.
func cuErr(op string, r cu.Result) error {
	if r == cu.Success {
		return nil
	}
	e := &cuda.Error{Op: op, Code: cuda.Result(r), Name: cuda.Result(r).Error()}
	if d, ok := cu.ErrorString(r); ok {
		e.Description = d
	}
	return e
}

// glCUDA runs f on gl's thread with ctx current there too: CUDA's GL
// interop calls act on the GL context current on the calling thread. h is
// ctx's raw handle.
func glCUDA(gl *egl.Context, ctx *cuda.Context, f func(h cu.Context) error) error {
	return gl.Do(func() error {
		return ctx.Do(func() error {
			h, r := cu.CtxGetCurrent()
			if err := cuErr("cuCtxGetCurrent", r); err != nil {
				return err
			}
			return f(h)
		})
	})
}

// openGL makes a headless GL context, on the GPU with this UUID when EGL
// can tell.
func openGL(uuid [16]byte) (*egl.Context, error) {
	gl, err := egl.New(egl.Options{DeviceUUID: &uuid})
	if err != nil {
		return nil, fmt.Errorf("no OpenGL context for the CUDA–GL baseline: %w", err)
	}
	return gl, nil
}

// registerErr explains a failed cuGraphicsGL* registration.
func registerErr(gl *egl.Context, op string, r cu.Result) error {
	err := cuErr(op, r)
	if in := gl.Info(); !in.UUIDMatched {
		return fmt.Errorf("%w: the GL context (%s) was not matched to the CUDA device by UUID; CUDA can only "+
			"register objects of a GL context on its own GPU: on NVIDIA machines point glvnd at NVIDIA's EGL, "+
			"e.g. export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/egl_vendor.d/10_nvidia.json", err, in)
	}
	return err
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// glRegistered is a GL object of gl registered with CUDA.
type glRegistered struct {
	gl  *egl.Context
	buf egl.Buffer
	tex egl.Texture
	res cu.GraphicsResource
}

// newGLBuffer creates a GL buffer holding data and registers it with CUDA.
// Call inside glCUDA.
func newGLBuffer(gl *egl.Context, h cu.Context, data []byte) (*glRegistered, error) {
	b, err := gl.CreateBuffer(len(data), nil, egl.DynamicDraw)
	if err != nil {
		return nil, err
	}
	if err := gl.BufferSubData(b, 0, data); err != nil {
		gl.DeleteBuffer(b)
		return nil, err
	}
	if err := gl.Finish(); err != nil {
		gl.DeleteBuffer(b)
		return nil, err
	}
	res, r := cu.GraphicsGLRegisterBuffer(h, uint32(b), cu.GraphicsRegisterNone)
	if r != cu.Success {
		gl.DeleteBuffer(b)
		return nil, registerErr(gl, "cuGraphicsGLRegisterBuffer", r)
	}
	return &glRegistered{gl: gl, buf: b, res: res}, nil
}

// newGLTexture creates a w×h RGBA8 GL texture holding data and registers it
// with CUDA. Call inside glCUDA.
func newGLTexture(gl *egl.Context, h cu.Context, w, ht int, data []byte) (*glRegistered, error) {
	t, err := gl.CreateTexture2D(egl.RGBA8, w, ht, 1)
	if err != nil {
		return nil, err
	}
	if err := gl.TextureSubImage2D(t, 0, w, ht, egl.RGBA, egl.UnsignedByte, data); err != nil {
		gl.DeleteTexture(t)
		return nil, err
	}
	if err := gl.Finish(); err != nil {
		gl.DeleteTexture(t)
		return nil, err
	}
	res, r := cu.GraphicsGLRegisterImage(h, uint32(t), egl.Texture2D, cu.GraphicsRegisterNone)
	if r != cu.Success {
		gl.DeleteTexture(t)
		return nil, registerErr(gl, "cuGraphicsGLRegisterImage", r)
	}
	return &glRegistered{gl: gl, tex: t, res: res}, nil
}

// close unregisters and deletes. Call inside glCUDA.
func (g *glRegistered) close(h cu.Context) error {
	err := cuErr("cuGraphicsUnregisterResource", cu.GraphicsUnregisterResource(h, g.res))
	if g.buf != 0 {
		err = errors.Join(err, g.gl.DeleteBuffer(g.buf))
	}
	if g.tex != 0 {
		err = errors.Join(err, g.gl.DeleteTexture(g.tex))
	}
	return err
}

// mapCycles runs n map + get + unmap cycles on the legacy default stream;
// get is cuGraphicsResourceGetMappedPointer (array false) or
// cuGraphicsSubResourceGetMappedArray (array true). Call inside glCUDA.
func (g *glRegistered) mapCycles(h cu.Context, n int, array bool) error {
	rs := []cu.GraphicsResource{g.res}
	for i := 0; i < n; i++ {
		if err := cuErr("cuGraphicsMapResources", cu.GraphicsMapResources(h, rs, cu.Stream{})); err != nil {
			return err
		}
		if array {
			a, r := cu.GraphicsSubResourceGetMappedArray(h, g.res, 0, 0)
			if r == cu.Success && a.IsNil() {
				r = cu.ErrUnknown
			}
			if err := cuErr("cuGraphicsSubResourceGetMappedArray", r); err != nil {
				cu.GraphicsUnmapResources(h, rs, cu.Stream{})
				return err
			}
		} else {
			p, size, r := cu.GraphicsResourceGetMappedPointer(h, g.res)
			if r == cu.Success && (p == 0 || size == 0) {
				r = cu.ErrUnknown
			}
			if err := cuErr("cuGraphicsResourceGetMappedPointer", r); err != nil {
				cu.GraphicsUnmapResources(h, rs, cu.Stream{})
				return err
			}
		}
		if err := cuErr("cuGraphicsUnmapResources", cu.GraphicsUnmapResources(h, rs, cu.Stream{})); err != nil {
			return err
		}
	}
	return nil
}

// GLBaseline measures what people use without gfxcuda: NVIDIA's CUDA–GL
// interop (as in Warp's OpenGL interop). A GL buffer and a GL texture are
// registered with CUDA once (cuGraphicsGLRegisterBuffer/Image); each frame
// maps them (cuGraphicsMapResources), gets the pointer or array and unmaps.
// Figures: the registration (one-time, ms) and µs per map + get + unmap
// cycle, compared with gfxcuda's ToCUDA + Done (Suite.Latency).
func (s *Suite) GLBaseline() error {
	ctx := s.D.CUDA()
	gl, err := openGL(s.D.Vulkan().Physical().DeviceUUID)
	if err != nil {
		return err
	}
	defer gl.Close()
	in := gl.Info()
	note := "GL: " + in.Renderer + ", " + in.Version
	if !in.UUIDMatched {
		note += " (GL device not matched to CUDA's by UUID)"
	}
	setNote := func(f *Figure) { f.Note = note }
	against := func(f *Figure) {
		f.Against = "gfxcuda ToCUDA + Done"
		f.Note = note
	}
	bufData := randomBytes(glBufferBytes, 11)
	texData := randomBytes(glTexW*glTexH*4, 12)

	err = s.figure(GLGroup, "register GL buffer with CUDA", "ms", func() (float64, error) {
		var el time.Duration
		err := glCUDA(gl, ctx, func(h cu.Context) error {
			b, err := gl.CreateBuffer(glBufferBytes, bufData, egl.DynamicDraw)
			if err != nil {
				return err
			}
			defer gl.DeleteBuffer(b)
			if err := gl.Finish(); err != nil {
				return err
			}
			t0 := time.Now()
			res, r := cu.GraphicsGLRegisterBuffer(h, uint32(b), cu.GraphicsRegisterNone)
			el = time.Since(t0)
			if r != cu.Success {
				return registerErr(gl, "cuGraphicsGLRegisterBuffer", r)
			}
			return cuErr("cuGraphicsUnregisterResource", cu.GraphicsUnregisterResource(h, res))
		})
		return el.Seconds() * 1e3, err
	}, setNote)
	if err != nil {
		return err
	}

	iters := max(s.O.Frames/8, 16)
	cycles := func(reg *glRegistered, array bool) func() (float64, error) {
		return func() (float64, error) {
			var el time.Duration
			err := glCUDA(gl, ctx, func(h cu.Context) error {
				t0 := time.Now()
				err := reg.mapCycles(h, iters, array)
				el = time.Since(t0)
				return err
			})
			return el.Seconds() * 1e6 / float64(iters), err
		}
	}
	var buf, tex *glRegistered
	if err := glCUDA(gl, ctx, func(h cu.Context) (err error) {
		if buf, err = newGLBuffer(gl, h, bufData); err != nil {
			return err
		}
		tex, err = newGLTexture(gl, h, glTexW, glTexH, texData)
		return err
	}); err != nil {
		return err
	}
	defer glCUDA(gl, ctx, func(h cu.Context) error {
		var err error
		if buf != nil {
			err = buf.close(h)
		}
		if tex != nil {
			err = errors.Join(err, tex.close(h))
		}
		return err
	})
	if err := s.figure(GLGroup, "map + get pointer + unmap, 8 MiB buffer", "µs", cycles(buf, false), against); err != nil {
		return err
	}
	return s.figure(GLGroup, "map + get array + unmap, 1080p RGBA8 texture", "µs", cycles(tex, true), against)
}

// GL → CUDA frame hand-off figures: GLFrameSteps figures, on 1080p RGBA8
// frames of random bytes that GL writes (a buffer copy, as a renderer's
// readback into a buffer would) and CUDA copies into a tensor.
const (
	GLFrameSteps = 4
	glBatch      = 32
	glFrameBytes = glTexW * glTexH * 4
)

// GLFrames measures handing frames from GL to CUDA three ways, per frame:
// map + copy + unmap of a registered buffer each frame (what CUDA–GL
// interop users do), a package gl Ring (frames in Vulkan memory shared by
// GL and CUDA, one GL fence and one CUDA event per batch of 32), and one
// cuGraphicsMapResources call per batch of 32 registered buffers. Goal: the
// ring ≥ 5× cheaper per frame than map + unmap per frame.
func (s *Suite) GLFrames() error {
	ctx := s.D.CUDA()
	c, err := gl.Open(gl.Options{CUDA: ctx})
	if err != nil {
		return fmt.Errorf("no OpenGL context for the GL frame figures: %w", err)
	}
	defer c.Close()
	in := c.Info()
	note := "GL: " + in.Renderer + ", " + in.Version
	if !in.UUIDMatched {
		note += " (GL device not matched to CUDA's)"
	}
	stream, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return err
	}
	defer stream.Close()
	tensor, err := ctx.Alloc(glFrameBytes)
	if err != nil {
		return err
	}
	defer tensor.Close()
	// Random source frames in GL.
	const sources = 4
	var src []*gl.Buffer
	for i := 0; i < sources; i++ {
		b, err := c.NewBuffer(glFrameBytes)
		if err != nil {
			return err
		}
		if err := b.Upload(0, randomBytes(glFrameBytes, uint64(20+i))); err != nil {
			return err
		}
		src = append(src, b)
	}
	frames := max(s.O.Frames/8, 2*glBatch)
	frames -= frames % glBatch
	perFrame := func(start time.Time) float64 { return time.Since(start).Seconds() * 1e6 / float64(frames) }
	finish := func() error { return errors.Join(c.Finish(), stream.Synchronize()) }

	// 1. map + copy + unmap per frame.
	target, err := c.NewBuffer(glFrameBytes)
	if err != nil {
		return err
	}
	reg, err := c.RegisterBuffer(target, gl.ReadOnly)
	if err != nil {
		return err
	}
	const baseline = "GL → CUDA per frame: render + map + copy + unmap"
	err = s.figure(GLGroup, baseline, "µs", func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < frames; i++ {
			if err := target.CopyFrom(src[i%sources], 0, 0, glFrameBytes); err != nil {
				return 0, err
			}
			if err := reg.CopyTo(stream, tensor.Ptr(), 0); err != nil {
				return 0, err
			}
		}
		if err := finish(); err != nil {
			return 0, err
		}
		return perFrame(t0), nil
	}, func(f *Figure) { f.Note = note + "; 1080p RGBA8 frames of random bytes" })
	if err != nil {
		return err
	}

	// 2. the ring.
	consume := func(fs []gl.Frame) error {
		for _, f := range fs {
			if err := stream.CopyDtoD(tensor.Ptr(), f.Buffer.CUDA.Ptr(), glFrameBytes); err != nil {
				return err
			}
		}
		return nil
	}
	ringFigure := func(name string, gpuSync bool) error {
		ring, err := c.NewRing(gl.RingOptions{Vulkan: s.D.Vulkan(), FrameBytes: glFrameBytes, Batch: glBatch, Slots: 2 * glBatch, GPUSync: gpuSync})
		if err != nil {
			return err
		}
		defer ring.Close()
		return s.figure(GLGroup, name, "µs", func() (float64, error) {
			t0 := time.Now()
			for i := 0; i < frames; i++ {
				_, b, err := ring.Next()
				if err != nil {
					return 0, err
				}
				if err := b.CopyFrom(src[i%sources], 0, 0, glFrameBytes); err != nil {
					return 0, err
				}
				if err := ring.Submit(); err != nil {
					return 0, err
				}
				if (i+1)%glBatch == 0 {
					if _, err := ring.Consume(stream, consume); err != nil {
						return 0, err
					}
				}
			}
			if err := finish(); err != nil {
				return 0, err
			}
			return perFrame(t0), nil
		}, func(f *Figure) {
			f.Against, f.Target, f.Note = baseline, 5, note
		})
	}
	if err := ringFigure(fmt.Sprintf("GL → CUDA in batches of %d: gl.Ring (shared Vulkan memory, host fences)", glBatch), false); err != nil {
		return err
	}

	// 3. one map call per batch of registered buffers.
	var regs []*gl.Resource
	var bufs []*gl.Buffer
	for i := 0; i < glBatch; i++ {
		b, err := c.NewBuffer(glFrameBytes)
		if err != nil {
			return err
		}
		r, err := c.RegisterBuffer(b, gl.ReadOnly)
		if err != nil {
			return err
		}
		bufs, regs = append(bufs, b), append(regs, r)
	}
	err = s.figure(GLGroup, fmt.Sprintf("GL → CUDA in batches of %d: one map of %d registered buffers", glBatch, glBatch), "µs", func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < frames; i += glBatch {
			for k := 0; k < glBatch; k++ {
				if err := bufs[k].CopyFrom(src[(i+k)%sources], 0, 0, glFrameBytes); err != nil {
					return 0, err
				}
			}
			err := c.Map(stream, func() error {
				for _, r := range regs {
					if err := r.CopyTo(stream, tensor.Ptr(), 0); err != nil {
						return err
					}
				}
				return nil
			}, regs...)
			if err != nil {
				return 0, err
			}
		}
		if err := finish(); err != nil {
			return 0, err
		}
		return perFrame(t0), nil
	}, func(f *Figure) { f.Against, f.Note = baseline, note })
	if err != nil {
		return err
	}

	// 4. the ring ordered on the GPU (timeline semaphores), where GL has them.
	if !c.Info().TimelineSemaphore {
		return nil
	}
	return ringFigure(fmt.Sprintf("GL → CUDA in batches of %d: gl.Ring (shared Vulkan memory, GPU semaphores)", glBatch), true)
}
