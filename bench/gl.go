package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/gl"
)

// GLGroup is the group of the CUDA–GL baseline figures.
const GLGroup = "baselines: CUDA–GL interop (what people use without gfxcuda)"

// CUDA–GL baseline sizes: an 8 MiB buffer and a 1080p RGBA8 texture.
const (
	glBufferBytes = 8 << 20
	glTexW        = 1920
	glTexH        = 1080
)

// glCUDA runs f on c's thread with ctx current there too: CUDA's GL
// interop calls act on the GL context current on the calling thread, and
// with ctx already current they switch no CUDA context per call.
func glCUDA(c *gl.Context, ctx *cuda.Context, f func() error) error {
	return c.Do(func() error { return ctx.Do(f) })
}

// openGL makes a headless GL context, on the GPU with this UUID when EGL
// can tell.
func openGL(uuid [16]byte) (*gl.Context, error) {
	c, err := gl.Open(gl.Options{DeviceUUID: &uuid})
	if err != nil {
		return nil, fmt.Errorf("no OpenGL context for the CUDA–GL baseline: %w", err)
	}
	return c, nil
}

// registerErr explains a failed registration of a GL object of c.
func registerErr(c *gl.Context, err error) error {
	if in := c.Info(); !in.UUIDMatched {
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

// glRegistered is a GL object registered with CUDA, as CUDA–GL interop
// users hold one: cuGraphicsGLRegister*, cuGraphicsMapResources and so on
// through package cuda's thin GLResource, not through package gl's
// Resource.
type glRegistered struct {
	buf *gl.Buffer
	tex *gl.Texture
	res *cuda.GLResource
}

// newGLBuffer creates a GL buffer holding data and registers it with CUDA.
// Call inside glCUDA.
func newGLBuffer(c *gl.Context, ctx *cuda.Context, data []byte) (*glRegistered, error) {
	b, err := c.NewBuffer(len(data))
	if err != nil {
		return nil, err
	}
	if err := errors.Join(b.Upload(0, data), c.Finish()); err != nil {
		b.Close()
		return nil, err
	}
	res, err := ctx.RegisterGLBuffer(b.Name(), cuda.GLReadWrite)
	if err != nil {
		b.Close()
		return nil, registerErr(c, err)
	}
	return &glRegistered{buf: b, res: res}, nil
}

// newGLTexture creates a w×h RGBA8 GL texture holding data and registers it
// with CUDA. Call inside glCUDA.
func newGLTexture(c *gl.Context, ctx *cuda.Context, w, h int, data []byte) (*glRegistered, error) {
	t, err := c.NewTexture(gl.TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
	if err != nil {
		return nil, err
	}
	if err := errors.Join(t.Upload(data), c.Finish()); err != nil {
		t.Close()
		return nil, err
	}
	res, err := ctx.RegisterGLImage(t.Name(), gl.Texture2D, cuda.GLReadWrite)
	if err != nil {
		t.Close()
		return nil, registerErr(c, err)
	}
	return &glRegistered{tex: t, res: res}, nil
}

// close unregisters and deletes. Call inside glCUDA.
func (g *glRegistered) close() error {
	err := g.res.Close()
	if g.buf != nil {
		err = errors.Join(err, g.buf.Close())
	}
	if g.tex != nil {
		err = errors.Join(err, g.tex.Close())
	}
	return err
}

// mapCycles runs n map + get + unmap cycles on the legacy default stream;
// get is cuGraphicsResourceGetMappedPointer (array false) or
// cuGraphicsSubResourceGetMappedArray (array true). Call inside glCUDA.
func (g *glRegistered) mapCycles(n int, array bool) error {
	for i := 0; i < n; i++ {
		if err := cuda.MapGL(nil, g.res); err != nil {
			return err
		}
		var err error
		if array {
			var a *cuda.Array
			if a, err = g.res.Array(0, 0); err == nil && a.Handle() == 0 {
				err = errors.New("cuGraphicsSubResourceGetMappedArray returned no array")
			}
		} else {
			var p cuda.DevicePtr
			var size uint64
			if p, size, err = g.res.Pointer(); err == nil && (p == 0 || size == 0) {
				err = fmt.Errorf("cuGraphicsResourceGetMappedPointer returned %#x, %d bytes", p, size)
			}
		}
		if err != nil {
			return errors.Join(err, cuda.UnmapGL(nil, g.res))
		}
		if err := cuda.UnmapGL(nil, g.res); err != nil {
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
	c, err := openGL(s.D.Vulkan().Physical().DeviceUUID)
	if err != nil {
		return err
	}
	defer c.Close()
	in := c.Info()
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
		err := glCUDA(c, ctx, func() error {
			b, err := c.NewBuffer(glBufferBytes)
			if err != nil {
				return err
			}
			defer b.Close()
			if err := errors.Join(b.Upload(0, bufData), c.Finish()); err != nil {
				return err
			}
			t0 := time.Now()
			res, err := ctx.RegisterGLBuffer(b.Name(), cuda.GLReadWrite)
			el = time.Since(t0)
			if err != nil {
				return registerErr(c, err)
			}
			return res.Close()
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
			err := glCUDA(c, ctx, func() error {
				t0 := time.Now()
				err := reg.mapCycles(iters, array)
				el = time.Since(t0)
				return err
			})
			return el.Seconds() * 1e6 / float64(iters), err
		}
	}
	var buf, tex *glRegistered
	if err := glCUDA(c, ctx, func() (err error) {
		if buf, err = newGLBuffer(c, ctx, bufData); err != nil {
			return err
		}
		tex, err = newGLTexture(c, ctx, glTexW, glTexH, texData)
		return err
	}); err != nil {
		return err
	}
	defer glCUDA(c, ctx, func() error {
		var err error
		if buf != nil {
			err = buf.close()
		}
		if tex != nil {
			err = errors.Join(err, tex.close())
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
	pat, err := c.NewPattern()
	if err != nil {
		return fmt.Errorf("GL frame figures: %w", err)
	}
	defer pat.Close()

	// Every frame gets its own seed; render is called on the GL thread.
	seed := rand.Uint32()
	render := func(b *gl.Buffer) (uint32, error) {
		fs := seed
		seed++
		return fs, pat.Fill(b, glFrameBytes, fs)
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
		gl.PatternBytes(want, fs)
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
