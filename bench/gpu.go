package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Options control a run.
type Options struct {
	Reps   int // repetitions per figure (median); 0 = 15
	Frames int // frames per throughput repetition; 0 = 2048
	Quick  bool
}

// Suite runs measurements on one Device and collects figures.
type Suite struct {
	D        *gfxcuda.Device
	O        Options
	R        Report
	Progress *Progress
}

func (s *Suite) add(f Figure) { s.R.Figures = append(s.R.Figures, f) }

// measure runs fn (which returns one sample) Reps times after one warm-up.
func (s *Suite) measure(fn func() (float64, error)) (float64, float64, int, error) {
	if _, err := fn(); err != nil { // warm-up
		return 0, 0, 0, err
	}
	var xs []float64
	for i := 0; i < s.O.Reps; i++ {
		v, err := fn()
		if err != nil {
			return 0, 0, 0, err
		}
		xs = append(xs, v)
	}
	m, sp := Summary(xs)
	return m, sp, len(xs), nil
}

// paired measures fn against base in the same repetitions, alternating
// which runs first, and records fn's median with the median of the
// per-repetition ratios fn/base (higher-is-better units): drift between
// two figures measured minutes apart (clocks, other tenants) cancels.
func (s *Suite) paired(group, name, unit, against string, base, fn func() (float64, error), target float64) error {
	if s.Progress != nil {
		s.Progress.Step(group + ": " + name)
	}
	if _, err := base(); err != nil { // warm-up
		return fmt.Errorf("%s / %s: %w", group, against, err)
	}
	if _, err := fn(); err != nil {
		return fmt.Errorf("%s / %s: %w", group, name, err)
	}
	var xs, rs []float64
	for i := 0; i < s.O.Reps; i++ {
		var b, v float64
		var err error
		if i%2 == 0 {
			if b, err = base(); err == nil {
				v, err = fn()
			}
		} else {
			if v, err = fn(); err == nil {
				b, err = base()
			}
		}
		if err != nil {
			return fmt.Errorf("%s / %s: %w", group, name, err)
		}
		if b <= 0 {
			return fmt.Errorf("%s / %s: %s measured %v", group, name, against, b)
		}
		xs, rs = append(xs, v), append(rs, v/b)
	}
	m, sp := Summary(xs)
	r, _ := Summary(rs)
	s.add(Figure{Group: group, Name: name, Value: m, Unit: unit, Reps: len(xs), Spread: sp,
		Against: against, Ratio: r, Target: target, Paired: true,
		Note: "ratio: median of per-repetition ratios, " + against + " run alternately in the same repetitions"})
	return nil
}

func (s *Suite) figure(group, name, unit string, fn func() (float64, error), mod func(*Figure)) error {
	if s.Progress != nil {
		s.Progress.Step(group + ": " + name)
	}
	m, sp, n, err := s.measure(fn)
	if err != nil {
		return fmt.Errorf("%s / %s: %w", group, name, err)
	}
	f := Figure{Group: group, Name: name, Value: m, Unit: unit, Reps: n, Spread: sp}
	if mod != nil {
		mod(&f)
	}
	s.add(f)
	return nil
}

// randomFill fills device memory at p with n random bytes (through host
// memory: Hopper compresses constant data, which would flatter copies).
func randomFill(ctx *cuda.Context, p cuda.DevicePtr, n uint64) error {
	const chunk = 16 << 20
	buf := make([]byte, min(n, chunk))
	r := rand.New(rand.NewPCG(1, 2))
	for off := uint64(0); off < n; off += chunk {
		m := min(chunk, n-off)
		for i := uint64(0); i+8 <= m; i += 8 {
			v := r.Uint64()
			for k := uint64(0); k < 8; k++ {
				buf[i+k] = byte(v >> (8 * k))
			}
		}
		if err := ctx.CopyHtoD(p.Add(off), buf[:m]); err != nil {
			return err
		}
	}
	return nil
}

// eventTimed times what queue puts on stream st with CUDA events.
func eventTimed(ctx *cuda.Context, st *cuda.Stream, queue func() error) (time.Duration, error) {
	a, err := ctx.NewEvent(cuda.EventDefault)
	if err != nil {
		return 0, err
	}
	defer a.Close()
	b, err := ctx.NewEvent(cuda.EventDefault)
	if err != nil {
		return 0, err
	}
	defer b.Close()
	if err := a.Record(st); err != nil {
		return 0, err
	}
	if err := queue(); err != nil {
		return 0, err
	}
	if err := b.Record(st); err != nil {
		return 0, err
	}
	if err := b.Synchronize(); err != nil {
		return 0, err
	}
	return cuda.Elapsed(a, b)
}

// CopyBandwidth: Vulkan-imported memory ↔ CUDA memory against native
// cuMemcpyDtoD, 256 MiB of random data, CUDA events.
func (s *Suite) CopyBandwidth() error {
	const n = 256 << 20
	ctx := s.D.CUDA()
	vb, err := s.D.NewBuffer(n)
	if err != nil {
		return err
	}
	defer vb.Close()
	a, err := ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := randomFill(ctx, a.Ptr(), n); err != nil {
		return err
	}
	acc, err := s.D.ToCUDA(nil, vb)
	if err != nil {
		return err
	}
	st := acc.Stream()
	if err := st.CopyDtoD(vb.Ptr(), a.Ptr(), n); err != nil { // random contents in the shared buffer too
		return err
	}
	gbps := func(dst, src cuda.DevicePtr) func() (float64, error) {
		return func() (float64, error) {
			d, err := eventTimed(ctx, st, func() error { return st.CopyDtoD(dst, src, n) })
			return 2 * n / d.Seconds() / 1e9, err // read + write
		}
	}
	const g = "copy bandwidth (256 MiB, random data, read+write)"
	if err := s.figure(g, "native cuMemcpyDtoD", "GB/s", gbps(b.Ptr(), a.Ptr()), nil); err != nil {
		return err
	}
	target := func(f *Figure) { f.Against, f.Target = "native cuMemcpyDtoD", 0.95 }
	if err := s.figure(g, "Vulkan-imported → CUDA", "GB/s", gbps(b.Ptr(), vb.Ptr()), target); err != nil {
		return err
	}
	if err := s.figure(g, "CUDA → Vulkan-imported", "GB/s", gbps(vb.Ptr(), a.Ptr()), target); err != nil {
		return err
	}
	return acc.Done()
}

// OneTime measures importing 256 MiB of Vulkan memory into CUDA.
func (s *Suite) OneTime() error {
	const n = 256 << 20
	return s.figure("one-time costs", "export + import 256 MiB Vulkan buffer into CUDA", "ms", func() (float64, error) {
		vb, err := s.D.Vulkan().NewBuffer(vulkan.BufferOptions{Size: n, Exportable: true})
		if err != nil {
			return 0, err
		}
		defer vb.Close()
		t0 := time.Now()
		fd, err := vb.ExportFD()
		if err != nil {
			return 0, err
		}
		ext, err := s.D.CUDA().ImportMemoryFD(fd, vb.AllocationSize(), vb.Dedicated())
		if err != nil {
			return 0, err
		}
		mb, err := ext.MapBuffer(0, n)
		if err != nil {
			ext.Close()
			return 0, err
		}
		el := time.Since(t0)
		mb.Close()
		ext.Close()
		return float64(el.Microseconds()) / 1000, nil
	}, nil)
}

// TextureToTensor measures getting a texture into a CUDA tensor per frame:
// one hand-off per frame, batched hand-offs of 32 frames, and the host
// round trip people use without interop.
func (s *Suite) TextureToTensor() error {
	cases := []struct {
		name string
		f    format.Format
		w, h uint32
	}{{"1080p RGBA8", format.RGBA8UNorm, 1920, 1080}, {"4K RGBA8", format.RGBA8UNorm, 3840, 2160},
		{"1080p RGBA32F", format.RGBA32Float, 1920, 1080}, {"4K RGBA32F", format.RGBA32Float, 3840, 2160}}
	if s.O.Quick {
		cases = cases[:1]
	}
	for _, c := range cases {
		if err := s.textureCase(c.name, c.f, c.w, c.h); err != nil {
			return err
		}
	}
	return nil
}

func (s *Suite) textureCase(name string, f format.Format, w, h uint32) error {
	const batch = 32
	d := s.D
	ctx := d.CUDA()
	texs := make([]*gfxcuda.Texture, batch)
	res := make([]gfxcuda.Resource, batch)
	for i := range texs {
		t, err := d.NewTexture(gfxcuda.TextureOptions{Format: f, Width: w, Height: h})
		if err != nil {
			return err
		}
		defer t.Close()
		texs[i], res[i] = t, t
	}
	n := texs[0].RowBytes() * uint64(h)
	tensor, err := ctx.Alloc(n * batch)
	if err != nil {
		return err
	}
	defer tensor.Close()
	// Random texels: fill the tensor, copy it into every texture.
	if err := randomFill(ctx, tensor.Ptr(), n*batch); err != nil {
		return err
	}
	acc, err := d.ToCUDA(nil, res...)
	if err != nil {
		return err
	}
	for i, t := range texs {
		if err := t.CopyFrom(acc.Stream(), tensor.Ptr().Add(uint64(i)*n), 0); err != nil {
			return err
		}
	}
	acc.Done()
	g := "texture → CUDA tensor per frame: " + name
	frames := s.O.Frames / 8
	perFrame := func(b int) func() (float64, error) {
		return func() (float64, error) {
			t0 := time.Now()
			for done := 0; done < frames; done += b {
				acc, err := d.ToCUDA(nil, res[:b]...)
				if err != nil {
					return 0, err
				}
				for i := 0; i < b; i++ {
					if err := texs[i].CopyTo(acc.Stream(), tensor.Ptr().Add(uint64(i)*n), 0); err != nil {
						return 0, err
					}
				}
				if err := acc.Done(); err != nil {
					return 0, err
				}
			}
			if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil { // Vulkan has it back
				return 0, err
			}
			return float64(time.Since(t0).Microseconds()) / float64(frames), nil
		}
	}
	if err := s.figure(g, "host round trip (Vulkan → staging → cuMemcpyHtoD)", "µs", s.hostRoundTrip(texs[0], tensor.Ptr(), n), nil); err != nil {
		return err
	}
	base := "host round trip (Vulkan → staging → cuMemcpyHtoD)"
	if err := s.figure(g, "gfxcuda, one hand-off per frame", "µs", perFrame(1), func(f *Figure) { f.Against = base }); err != nil {
		return err
	}
	return s.figure(g, "gfxcuda, hand-offs of 32 frames", "µs", perFrame(batch), func(f *Figure) {
		f.Against = base
		if name == "1080p RGBA8" {
			f.Target = 30
		}
	})
}

// hostRoundTrip is what people do without interop: copy the image into
// host-visible memory, wait for Vulkan, copy it into the CUDA tensor.
func (s *Suite) hostRoundTrip(t *gfxcuda.Texture, dst cuda.DevicePtr, n uint64) func() (float64, error) {
	d := s.D
	return func() (float64, error) {
		stage, err := d.Vulkan().NewBuffer(vulkan.BufferOptions{Size: n, Heap: vulkan.HeapReadback})
		if err != nil {
			return 0, err
		}
		defer stage.Close()
		m, err := stage.Map()
		if err != nil {
			return 0, err
		}
		const frames = 16
		t0 := time.Now()
		for i := 0; i < frames; i++ {
			err := d.Run(func(c *vulkan.Commands) error {
				c.TransitionImage(t.Vulkan(), vulkan.LayoutTransferSrc)
				c.CopyImageToBuffer(stage, t.Vulkan(), vulkan.BufferImageCopy{})
				c.TransitionImage(t.Vulkan(), vulkan.LayoutGeneral)
				return c.Err()
			})
			if err != nil {
				return 0, err
			}
			if err := d.CUDA().CopyHtoD(dst, m); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(t0).Microseconds()) / frames, nil
	}
}

// Latency measures one hand-off at a time with no work: the bare context
// switch (semaphores driven directly) and the library's ToCUDA + Done.
func (s *Suite) Latency() error {
	d := s.D
	vk := d.Vulkan()
	ctx := d.CUDA()
	const g = "hand-off latency, one frame at a time (Vulkan → CUDA → Vulkan, no work)"
	// Bare: two exported timeline semaphores, an empty Vulkan submit that
	// signals, a CUDA wait + signal, the next Vulkan submit waits.
	mk := func() (*vulkan.Semaphore, *cuda.ExternalSemaphore, error) {
		v, err := vk.NewTimelineSemaphore(0, true)
		if err != nil {
			return nil, nil, err
		}
		fd, err := v.ExportFD()
		if err != nil {
			v.Close()
			return nil, nil, err
		}
		c, err := ctx.ImportSemaphoreFD(fd, true)
		if err != nil {
			v.Close()
			return nil, nil, err
		}
		return v, c, nil
	}
	v1, c1, err := mk()
	if err != nil {
		return err
	}
	defer v1.Close()
	defer c1.Close()
	v2, c2, err := mk()
	if err != nil {
		return err
	}
	defer v2.Close()
	defer c2.Close()
	st, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return err
	}
	defer st.Close()
	var val uint64
	var cmds []*vulkan.Commands
	defer func() {
		for _, c := range cmds {
			c.Close()
		}
	}()
	// next returns a Commands whose last submission has finished, like the
	// library's own pool: no host waits.
	next := func() (*vulkan.Commands, error) {
		for _, c := range cmds {
			if c.Done() {
				return c, c.Reset()
			}
		}
		c, err := vk.NewCommands()
		if err == nil {
			cmds = append(cmds, c)
		}
		return c, err
	}
	iters := s.O.Frames / 8
	bare := func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < iters; i++ {
			c, err := next()
			if err != nil {
				return 0, err
			}
			val++
			var wait []vulkan.SemaphoreValue
			if val > 1 {
				wait = []vulkan.SemaphoreValue{{Semaphore: v2, Value: val - 1}}
			}
			if err := c.Submit(vulkan.SubmitOptions{Wait: wait, Signal: []vulkan.SemaphoreValue{{Semaphore: v1, Value: val}}}); err != nil {
				return 0, err
			}
			if err := c1.Wait(st, val); err != nil {
				return 0, err
			}
			if err := c2.Signal(st, val); err != nil {
				return 0, err
			}
		}
		if err := st.Synchronize(); err != nil {
			return 0, err
		}
		for _, c := range cmds {
			c.Wait(-1)
		}
		return float64(time.Since(t0).Microseconds()) / float64(iters), nil
	}
	if err := s.figure(g, "bare context switch (raw semaphores)", "µs", bare, nil); err != nil {
		return err
	}
	b, err := d.NewBuffer(4096)
	if err != nil {
		return err
	}
	defer b.Close()
	lib := func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < iters; i++ {
			acc, err := d.ToCUDA(nil, b)
			if err != nil {
				return 0, err
			}
			if err := acc.Done(); err != nil {
				return 0, err
			}
		}
		if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
			return 0, err
		}
		return float64(time.Since(t0).Microseconds()) / float64(iters), nil
	}
	return s.figure(g, "gfxcuda ToCUDA + Done", "µs", lib, func(f *Figure) {
		f.Against, f.Target = "bare context switch (raw semaphores)", 1/1.1
	})
}

// IPCOpen measures opening a CUDA IPC handle of a 256 MiB allocation in
// another process; child runs that process and returns the time the open
// took there.
func (s *Suite) IPCOpen(child func(h cuda.IPCHandle) (time.Duration, error)) error {
	const n = 256 << 20
	m, err := s.D.CUDA().Alloc(n)
	if err != nil {
		return err
	}
	defer m.Close()
	h, err := s.D.CUDA().IPCHandle(m.Ptr())
	if err != nil {
		return err
	}
	return s.figure("one-time costs", ipcOpenName, "ms", func() (float64, error) {
		d, err := child(h)
		return float64(d.Microseconds()) / 1000, err
	}, nil)
}
