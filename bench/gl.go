package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
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

// firstDiff returns the index of the first byte where a and b differ, or
// -1 when they are equal.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
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

// GL → CUDA frame hand-off figures: GLFrameSteps measured figures (one
// needs GL_NV_timeline_semaphore), then the hand-off overheads derived from
// them, on 1080p RGBA8 frames that a GL compute shader writes and CUDA
// copies into a tensor.
const (
	GLFrameSteps = 7
	glBatch      = 32
	glFrameBytes = glTexW * glTexH * 4
)

// Names of the GL frame figures that others refer to.
const (
	glRenderOnly   = "render only: GL compute shader writes a 1080p RGBA8 frame (no CUDA)"
	glPerFrame     = "GL → CUDA per frame: render + map + copy + unmap (total)"
	glOverheadBase = "hand-off overhead per frame: map + copy + unmap each frame (total − render only)"
)

// glFrameNote says how frames are produced (every GL frame figure).
const glFrameNote = "frames: a GL compute shader writes every byte of each 1080p RGBA8 frame (8 MiB of " +
	"per-frame seeded hash values, incompressible), as a renderer's GPU pass would; the H100 runs GL " +
	"rasterization and clears on a small part of the chip but compute at speed, so the figures measure " +
	"the interop, not a slow fill path; timed loops run on the GL thread, as a renderer's do"

// GLFrames measures handing frames from GL to CUDA, per frame: first the
// parts alone (GL producing a frame; the older copy-based producer; CUDA
// copying a frame), then three hand-off paths in full — map + copy + unmap
// of a registered buffer each frame (what CUDA–GL interop users do), a
// package gl Ring (frames in Vulkan memory shared by GL and CUDA; host
// fences, and GPU semaphores where GL has them), and one
// cuGraphicsMapResources call per batch of 32 registered buffers — and
// last each path's hand-off overhead: its total minus the render-only
// cost. Goal (on the overheads): the ring ≥ 5× cheaper per frame than map
// + unmap per frame. The last frame CUDA received in each path is
// compared byte for byte with what GL wrote.
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
	var pat *egl.Pattern
	if err := c.Do(func() (err error) { pat, err = egl.NewPattern(); return err }); err != nil {
		return fmt.Errorf("GL frame figures: %w", err)
	}
	defer c.Do(pat.Delete)

	// Every frame gets its own seed; render is called on the GL thread.
	seed := rand.Uint32()
	render := func(b *gl.Buffer) (uint32, error) {
		fs := seed
		seed++
		return fs, pat.Fill(egl.Buffer(b.Name()), glFrameBytes, fs)
	}
	got, want := make([]byte, glFrameBytes), make([]byte, glFrameBytes)
	// check compares the tensor (not timed) with the frame of seed fs.
	check := func(fs uint32) error {
		for i := range got {
			got[i] = 0xA5
		}
		if err := ctx.CopyDtoH(got, tensor.Ptr()); err != nil {
			return err
		}
		egl.PatternBytes(want, fs)
		if i := firstDiff(got, want); i >= 0 {
			return fmt.Errorf("the frame CUDA received differs from GL's at byte %d: got %#x, want %#x", i, got[i], want[i])
		}
		return nil
	}
	frames := max(s.O.Frames/8, 2*glBatch)
	frames -= frames % glBatch
	perFrame := func(el time.Duration) float64 { return el.Seconds() * 1e6 / float64(frames) }
	finish := func() error { return errors.Join(c.Finish(), stream.Synchronize()) }
	// timed runs loop on the GL thread, then waits for GL and CUDA, and
	// checks the tensor against the last frame's seed (lastSeed ≠ nil).
	timed := func(loop func() error, lastSeed *uint32) func() (float64, error) {
		return func() (float64, error) {
			var el time.Duration
			err := c.Do(func() error {
				t0 := time.Now()
				if err := loop(); err != nil {
					return err
				}
				if err := finish(); err != nil {
					return err
				}
				el = time.Since(t0)
				return nil
			})
			if err == nil && lastSeed != nil {
				err = check(*lastSeed)
			}
			return perFrame(el), err
		}
	}
	last := func() Figure { return s.R.Figures[len(s.R.Figures)-1] }
	withNote := func(extra string) func(*Figure) {
		return func(f *Figure) { f.Note = note + "; " + extra }
	}

	// 1. The parts alone: GL producing frames, no CUDA.
	target, err := c.NewBuffer(glFrameBytes)
	if err != nil {
		return err
	}
	var lastSeed uint32
	err = s.figure(GLGroup, glRenderOnly, "µs", timed(func() (err error) {
		for i := 0; i < frames && err == nil; i++ {
			_, err = render(target)
		}
		return err
	}, nil), withNote(glFrameNote+"; subtracted from the totals below to give the hand-off overheads"))
	if err != nil {
		return err
	}
	render0 := last()
	const sources = 2
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
	err = s.figure(GLGroup, "render only: glCopyBufferSubData of a random 1080p frame (no CUDA; not used below)", "µs", timed(func() error {
		for i := 0; i < frames; i++ {
			if err := target.CopyFrom(src[i%sources], 0, 0, glFrameBytes); err != nil {
				return err
			}
		}
		return nil
	}, nil), withNote("the frame source of earlier runs, for comparison: GL's buffer copy path on this GPU"))
	if err != nil {
		return err
	}
	other, err := ctx.Alloc(glFrameBytes)
	if err != nil {
		return err
	}
	defer other.Close()
	if err := randomFill(ctx, other.Ptr(), glFrameBytes); err != nil {
		return err
	}
	err = s.figure(GLGroup, "consume only: CUDA copies a 1080p frame (no GL)", "µs", timed(func() error {
		for i := 0; i < frames; i++ {
			if err := stream.CopyDtoD(tensor.Ptr(), other.Ptr(), glFrameBytes); err != nil {
				return err
			}
		}
		return nil
	}, nil), withNote("the consumer's work per frame in every path below (part of their hand-off overheads)"))
	if err != nil {
		return err
	}

	// 2. Map + copy + unmap each frame.
	reg, err := c.RegisterBuffer(target, gl.ReadOnly)
	if err != nil {
		return err
	}
	err = s.figure(GLGroup, glPerFrame, "µs", timed(func() error {
		for i := 0; i < frames; i++ {
			fs, err := render(target)
			if err != nil {
				return err
			}
			if err := reg.CopyTo(stream, tensor.Ptr(), 0); err != nil {
				return err
			}
			lastSeed = fs
		}
		return nil
	}, &lastSeed), withNote("what CUDA–GL interop users do; raw total, render included"))
	if err != nil {
		return err
	}
	totals := []Figure{last()}

	// 3. The ring.
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
		err = s.figure(GLGroup, name, "µs", timed(func() error {
			for i := 0; i < frames; i++ {
				_, b, err := ring.Next()
				if err != nil {
					return err
				}
				fs, err := render(b)
				if err != nil {
					return err
				}
				if err := ring.Submit(); err != nil {
					return err
				}
				lastSeed = fs
				if (i+1)%glBatch == 0 {
					if _, err := ring.Consume(stream, consume); err != nil {
						return err
					}
				}
			}
			return nil
		}, &lastSeed), func(f *Figure) {
			f.Against = glPerFrame
			f.Note = note + "; raw total, render included (the goal applies to the overhead below)"
		})
		if err == nil {
			totals = append(totals, last())
		}
		return err
	}
	if err := ringFigure(fmt.Sprintf("GL → CUDA in batches of %d: gl.Ring, host fences (total)", glBatch), false); err != nil {
		return err
	}

	// 4. One map call per batch of registered buffers.
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
	err = s.figure(GLGroup, fmt.Sprintf("GL → CUDA in batches of %d: one map of %d registered buffers (total)", glBatch, glBatch), "µs", timed(func() error {
		for i := 0; i < frames; i += glBatch {
			for k := 0; k < glBatch; k++ {
				fs, err := render(bufs[k])
				if err != nil {
					return err
				}
				lastSeed = fs
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
				return err
			}
		}
		return nil
	}, &lastSeed), func(f *Figure) { f.Against, f.Note = glPerFrame, note+"; raw total, render included" })
	if err != nil {
		return err
	}
	totals = append(totals, last())

	// 5. The ring ordered on the GPU (timeline semaphores), where GL has them.
	if c.Info().TimelineSemaphore {
		if err := ringFigure(fmt.Sprintf("GL → CUDA in batches of %d: gl.Ring, GPU semaphores (total)", glBatch), true); err != nil {
			return err
		}
	}

	// 6. Hand-off overheads: each total minus the render-only cost.
	for i, t := range totals {
		f := Figure{Group: GLGroup, Unit: "µs", Reps: t.Reps, Value: t.Value - render0.Value}
		if i == 0 {
			f.Name = glOverheadBase
		} else {
			f.Name = strings.Replace(strings.TrimSuffix(t.Name, " (total)"), "GL → CUDA in batches", "hand-off overhead per frame, batches", 1) + " (total − render only)"
			f.Against = glOverheadBase
			if strings.Contains(t.Name, "gl.Ring") {
				f.Target = 5
			}
		}
		if f.Value > 0 {
			// The totals' p10–p90 spread, relative to the overhead.
			f.Spread = t.Spread * t.Value / f.Value
		}
		f.Note = fmt.Sprintf("derived: %.1f µs total − %.1f µs render only; includes the CUDA copy of each frame", t.Value, render0.Value)
		if f.Value <= 0 {
			f.Note += "; below the noise of the two measurements"
		}
		s.add(f)
	}
	return nil
}
