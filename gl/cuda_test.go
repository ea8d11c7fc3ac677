package gl

import (
	"fmt"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// These tests need CUDA and a GL driver on the same GPU (the H100 under
// `make gpu-test`); they skip with a one-line reason without a CUDA driver.

func openCUDA(t *testing.T) (*Context, *cuda.Context, *cuda.Stream) {
	t.Helper()
	ctx := needCUDA(t)
	c := open(t, Options{CUDA: ctx})
	t.Logf("GL: %v; matched to CUDA by %q", c.Info(), c.Info().MatchedBy)
	if !c.Info().UUIDMatched {
		t.Fatalf("the GL context (%v) is not on the CUDA device", c.Info())
	}
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c, ctx, s
}

func alloc(t *testing.T, ctx *cuda.Context, n int) *cuda.DeviceMemory {
	t.Helper()
	m, err := ctx.Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// fromDevice reads n bytes of device memory (poisoned first).
func fromDevice(t *testing.T, ctx *cuda.Context, p cuda.DevicePtr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	poison(b)
	if err := ctx.CopyDtoH(b, p); err != nil {
		t.Fatal(err)
	}
	return b
}

func same(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%s: byte %d of %d: got %#x, want %#x", what, i, len(want), got[i], want[i])
	}
}

// TestCUDABuffer: GL → CUDA and CUDA → GL through a registered buffer,
// also one the caller made (registered by GL name).
func TestCUDABuffer(t *testing.T) {
	c, ctx, s := openCUDA(t)
	const n = 8<<20 + 5
	b, err := c.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	want := randomTexels(format.R8UNorm, n, 1)
	if err := b.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	ro, err := c.RegisterBuffer(b, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	dev := alloc(t, ctx, n)
	err = c.Map(s, func() error {
		p, size, err := ro.Pointer()
		if err != nil {
			return err
		}
		if size < n || p == 0 {
			t.Errorf("mapped %d bytes at %#x", size, p)
		}
		return ro.CopyTo(s, dev.Ptr(), 0)
	}, ro)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	same(t, "GL→CUDA", fromDevice(t, ctx, dev.Ptr(), n), want)
	ro.Close()

	// CUDA → GL, write-discard, on a buffer wrapped by name.
	wb, err := c.WrapBuffer(b.Name(), n)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := c.RegisterBuffer(wb, WriteDiscard)
	if err != nil {
		t.Fatal(err)
	}
	want = randomTexels(format.R8UNorm, n, 2)
	if err := ctx.CopyHtoD(dev.Ptr(), want); err != nil {
		t.Fatal(err)
	}
	if err := wd.CopyFrom(s, dev.Ptr(), 0); err != nil { // maps, copies, unmaps
		t.Fatal(err)
	}
	got := make([]byte, n)
	poison(got)
	if err := b.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	same(t, "CUDA→GL", got, want)
	if err := wd.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCUDATexture: GL ↔ CUDA through registered textures of several
// formats, random texels, every byte compared both ways.
func TestCUDATexture(t *testing.T) {
	c, ctx, s := openCUDA(t)
	for _, f := range []format.Format{format.RGBA8UNorm, format.R8UNorm, format.RG8UInt, format.R16UInt,
		format.RG16Float, format.RGBA16Float, format.R32Float, format.RGBA32Float, format.RGBA32UInt, format.BGRA8UNorm} {
		t.Run(f.String(), func(t *testing.T) {
			const w, h = 331, 127
			tex, err := c.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
			if err != nil {
				t.Fatal(err)
			}
			defer tex.Close()
			n := tex.Bytes()
			want := randomTexels(f, n, uint64(f))
			if err := tex.Upload(want); err != nil {
				t.Fatal(err)
			}
			r, err := c.RegisterTexture(tex, ReadWrite)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			dev := alloc(t, ctx, n)
			err = c.Map(s, func() error {
				a, err := r.Array()
				if err != nil {
					return err
				}
				if d := a.Desc(); d.Width != w || d.Height != h || int(d.ElementSize()) != f.Info().BytesPerTexel {
					t.Errorf("mapped array %+v for %v %dx%d", d, f, w, h)
				}
				return r.CopyTo(s, dev.Ptr(), 0)
			}, r)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
			same(t, "GL→CUDA", fromDevice(t, ctx, dev.Ptr(), n), want)

			want = randomTexels(f, n, uint64(f)+7)
			if err := ctx.CopyHtoD(dev.Ptr(), want); err != nil {
				t.Fatal(err)
			}
			if err := r.CopyFrom(s, dev.Ptr(), 0); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, n)
			poison(got)
			if err := tex.Readback(got); err != nil {
				t.Fatal(err)
			}
			same(t, "CUDA→GL", got, want)
		})
	}
}

// TestCUDAMapMany maps ten buffers and two textures in one call.
func TestCUDAMapMany(t *testing.T) {
	c, ctx, s := openCUDA(t)
	var rs []*Resource
	var want [][]byte
	for i := 0; i < 10; i++ {
		b, err := c.NewBuffer(4096 + i)
		if err != nil {
			t.Fatal(err)
		}
		data := randomTexels(format.R8UNorm, b.Size(), uint64(i))
		b.Upload(0, data)
		r, err := c.RegisterBuffer(b, ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		rs, want = append(rs, r), append(want, data)
	}
	for i := 0; i < 2; i++ {
		tex, err := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 64, Height: 32 + i})
		if err != nil {
			t.Fatal(err)
		}
		data := randomTexels(format.RGBA8UNorm, tex.Bytes(), uint64(50+i))
		tex.Upload(data)
		r, err := c.RegisterTexture(tex, ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		rs, want = append(rs, r), append(want, data)
	}
	devs := make([]*cuda.DeviceMemory, len(rs))
	for i := range rs {
		devs[i] = alloc(t, ctx, len(want[i]))
	}
	err := c.Map(s, func() error {
		for i, r := range rs {
			if err := r.CopyTo(s, devs[i].Ptr(), 0); err != nil {
				return err
			}
		}
		return nil
	}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	s.Synchronize()
	for i := range rs {
		same(t, "resource", fromDevice(t, ctx, devs[i].Ptr(), len(want[i])), want[i])
	}
	if _, _, err := rs[0].Pointer(); err == nil {
		t.Fatal("Pointer outside Map succeeded")
	}
}

// TestVulkanGLCUDA: one allocation written by Vulkan, read by GL, written
// by GL, read by CUDA, written by CUDA, read by Vulkan and GL; and an image
// written by Vulkan, read by GL and by CUDA.
func TestVulkanGLCUDA(t *testing.T) {
	c, ctx, _ := openCUDA(t)
	d := vkDevice(t, c)
	const n = 4<<20 + 9
	sb, err := c.NewSharedBuffer(d, n)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	got := make([]byte, n)
	want := randomTexels(format.R8UNorm, n, 1)
	seeds := []seed{{"seed 1 (Vulkan's upload)", want}}
	if err := sb.Vulkan.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	poison(got)
	if err := sb.GL.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	same(t, "Vulkan→GL", got, want)
	want = randomTexels(format.R8UNorm, n, 2)
	seeds = append(seeds, seed{"seed 2 (GL's upload)", want})
	if err := sb.GL.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	if err := sb.GLToCUDA(nil); err != nil {
		t.Fatal(err)
	}
	same(t, "GL→CUDA", fromDevice(t, ctx, sb.CUDA.Ptr(), n), want)
	// CUDA writes on a non-blocking stream, hands the buffer to GL without
	// a host wait (on NVIDIA), and GL reads: it must see CUDA's bytes, not
	// what it wrote itself before.
	want = randomTexels(format.R8UNorm, n, 3)
	seeds = append(seeds, seed{"seed 3 (CUDA's copy)", want})
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host, err := ctx.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	copy(host.Bytes(), want)
	if err := s.CopyHtoD(sb.CUDA.Ptr(), host.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := sb.CUDAToGL(s); err != nil {
		t.Fatal(err)
	}
	poison(got)
	if err := sb.GL.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Errorf("CUDA→GL: byte %d of %d: got %#x, want %#x; GL's Readback saw %s", i, n, got[i], want[i], whichSeed(got, seeds))
		diagnoseToGL(t, c, ctx, s, sb, seeds)
		t.FailNow()
	}
	poison(got)
	if err := sb.Vulkan.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	same(t, "CUDA→Vulkan", got, want)
	probeUnsettledRead(t, c, s, sb, host)
	// GL overwrites it again, CUDA reads it on the stream.
	want = randomTexels(format.R8UNorm, n, 4)
	if err := sb.GL.Upload(0, want); err != nil {
		t.Fatal(err)
	}
	if err := sb.GLToCUDA(s); err != nil {
		t.Fatal(err)
	}
	poison(host.Bytes())
	if err := s.CopyDtoH(host.Bytes(), sb.CUDA.Ptr()); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	same(t, "GL→CUDA (stream)", host.Bytes(), want)

	for _, f := range []format.Format{format.RGBA8UNorm, format.R32Float, format.RGBA16Float} {
		st, err := c.NewSharedTexture(d, TextureOptions{Format: f, Width: 257, Height: 99})
		if err != nil {
			t.Fatal(err)
		}
		tn := st.GL.Bytes()
		twant := randomTexels(f, tn, uint64(f))
		if err := uploadImage(d, st.Vulkan, twant); err != nil {
			t.Fatal(err)
		}
		tgot := make([]byte, tn)
		poison(tgot)
		if err := st.GL.Readback(tgot); err != nil {
			t.Fatal(err)
		}
		same(t, f.String()+" Vulkan→GL", tgot, twant)
		dev := alloc(t, ctx, tn)
		if err := s.CopyFromArray(cuda.ArrayCopy{Array: st.CUDA, Ptr: dev.Ptr()}); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		same(t, f.String()+" Vulkan→CUDA", fromDevice(t, ctx, dev.Ptr(), tn), twant)
		// CUDA writes the texture, hands it to GL, GL reads it.
		twant = randomTexels(f, tn, uint64(f)+100)
		if err := ctx.CopyHtoD(dev.Ptr(), twant); err != nil {
			t.Fatal(err)
		}
		if err := s.CopyToArray(cuda.ArrayCopy{Array: st.CUDA, Ptr: dev.Ptr()}); err != nil {
			t.Fatal(err)
		}
		if err := st.CUDAToGL(s); err != nil {
			t.Fatal(err)
		}
		poison(tgot)
		if err := st.GL.Readback(tgot); err != nil {
			t.Fatal(err)
		}
		same(t, f.String()+" CUDA→GL", tgot, twant)
		st.Close()
	}
}

// TestRingCUDA: GL renders (copies) random frames into the ring; CUDA
// copies each batch out on a stream; every byte of every frame compared.
// Host fences and CUDA events order the two.
func TestRingCUDA(t *testing.T) { ringCUDA(t, false) }

// TestRingCUDAGPUSync: the same, ordered on the GPU with timeline
// semaphores shared by Vulkan, GL and CUDA (NVIDIA's GL).
func TestRingCUDAGPUSync(t *testing.T) { ringCUDA(t, true) }

func ringCUDA(t *testing.T, gpuSync bool) {
	c, ctx, s := openCUDA(t)
	d := vkDevice(t, c)
	const frameBytes = 1<<20 + 16
	const frames = 96
	r, err := c.NewRing(RingOptions{Vulkan: d, FrameBytes: frameBytes, Batch: 8, GPUSync: gpuSync})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var src []*Buffer
	var want [][]byte
	for i := 0; i < 3; i++ {
		b, _ := c.NewBuffer(frameBytes)
		data := randomTexels(format.R8UNorm, frameBytes, uint64(i+10))
		b.Upload(0, data)
		src, want = append(src, b), append(want, data)
	}
	out := alloc(t, ctx, frames*frameBytes)
	produced := 0
	for produced < frames {
		for k := 0; k < 8; k++ {
			_, buf, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if err := buf.CopyFrom(src[produced%3], 0, 0, frameBytes); err != nil {
				t.Fatal(err)
			}
			r.Submit()
			produced++
		}
		_, err := r.Consume(s, func(fs []Frame) error {
			for _, f := range fs {
				if err := s.CopyDtoD(out.Ptr().Add(uint64(f.Index*frameBytes)), f.Buffer.CUDA.Ptr(), frameBytes); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Synchronize()
	all := fromDevice(t, ctx, out.Ptr(), frames*frameBytes)
	for i := 0; i < frames; i++ {
		same(t, "frame", all[i*frameBytes:(i+1)*frameBytes], want[i%3])
	}
}

// TestRegisterCycles: registering and unregistering a thousand times
// leaves nothing behind.
func TestRegisterCycles(t *testing.T) {
	c, _, _ := openCUDA(t)
	b, err := c.NewBuffer(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		r, err := c.RegisterBuffer(b, ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Map(nil, func() error { _, _, err := r.Pointer(); return err }, r); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// seed names the bytes one step of a test wrote.
type seed struct {
	name  string
	bytes []byte
}

// whichSeed says which of seeds b holds: one name when every byte
// matches, else how many bytes match each (and the poison).
func whichSeed(b []byte, seeds []seed) string {
	for _, s := range seeds {
		if firstDiff(b, s.bytes) < 0 {
			return s.name
		}
	}
	p := make([]byte, len(b))
	poison(p)
	all := append(seeds[:len(seeds):len(seeds)], seed{"poison (nothing written)", p})
	out := "a mix:"
	for _, s := range all {
		k, first := 0, -1
		for i := range b {
			if i < len(s.bytes) && b[i] == s.bytes[i] {
				k++
				if first < 0 {
					first = i
				}
			}
		}
		out += fmt.Sprintf(" %s %d/%d bytes (first at %d);", s.name, k, len(b), first)
	}
	return out
}

// diagnoseToGL runs after GL read stale bytes following CUDAToGL: it reads
// the buffer again through GL (raw glGetBufferSubData, then after
// glFinish, then after a host wait for CUDA's stream), through Vulkan and
// through CUDA, and reports the shared timeline semaphore's value as
// Vulkan and GL see it at each step, so that one GPU run tells apart: GL's
// read not ordered behind the semaphore wait (GL right after glFinish is
// fresh), a wait that does not wait (glFinish returns before the
// semaphore reaches the value), and GL reading other memory than CUDA
// and Vulkan (GL stale even after the stream's host wait).
func diagnoseToGL(t *testing.T, c *Context, ctx *cuda.Context, s *cuda.Stream, sb *SharedBuffer, seeds []seed) {
	t.Helper()
	n := sb.GL.Size()
	rs := sb.h.rs
	sem := func() string {
		if rs == nil {
			return "no hand-off semaphores (host path)"
		}
		vk, err := rs.vkCUDA.Value()
		var typ uint32
		var glv uint64
		gerr := c.do(func(e *egl.Context) (err error) {
			typ, glv, err = e.SemaphoreInfo(rs.glCUDA)
			return err
		})
		kind := fmt.Sprintf("%#x", typ)
		if typ == egl.SemaphoreTypeTimeline {
			kind = "TIMELINE_NV"
		}
		return fmt.Sprintf("CUDA signalled value %d; Vulkan reads the counter as %d (err %v); GL's import: type %s, TIMELINE_SEMAPHORE_VALUE_NV %d (err %v)",
			rs.cuValue, vk, err, kind, glv, gerr)
	}
	glRaw := func() string {
		b := make([]byte, n)
		poison(b)
		if err := c.do(func(e *egl.Context) error { return e.GetBufferSubData(egl.Buffer(sb.GL.Name()), 0, b) }); err != nil {
			return "error " + err.Error()
		}
		return whichSeed(b, seeds)
	}
	t.Logf("diagnosis, right after the failed read: %s", sem())
	t.Logf("  GL (raw glGetBufferSubData, no glFinish): %s", glRaw())
	b := make([]byte, n)
	poison(b)
	if err := sb.Vulkan.Readback(0, b); err != nil {
		t.Logf("  Vulkan: error %v", err)
	} else {
		t.Logf("  Vulkan (stream not waited for): %s", whichSeed(b, seeds))
	}
	if err := c.Finish(); err != nil {
		t.Logf("  glFinish: %v", err)
	}
	t.Logf("after glFinish: %s", sem())
	t.Logf("  GL after glFinish: %s", glRaw())
	if err := s.Synchronize(); err != nil {
		t.Logf("  cuStreamSynchronize: %v", err)
	}
	t.Logf("after cuStreamSynchronize: %s", sem())
	t.Logf("  GL after the stream's host wait: %s", glRaw())
	if err := c.Finish(); err == nil {
		t.Logf("  GL after the stream's host wait and another glFinish: %s", glRaw())
	}
	poison(b)
	if err := sb.Vulkan.Readback(0, b); err != nil {
		t.Logf("  Vulkan: error %v", err)
	} else {
		t.Logf("  Vulkan after the stream's host wait: %s", whichSeed(b, seeds))
	}
	poison(b)
	if err := ctx.CopyDtoH(b, sb.CUDA.Ptr()); err != nil {
		t.Logf("  CUDA: error %v", err)
	} else {
		t.Logf("  CUDA after the stream's host wait: %s", whichSeed(b, seeds))
	}
}

// probeUnsettledRead logs (does not judge) whether GL's raw
// glGetBufferSubData, issued right after CUDAToGL without the glFinish
// that Readback adds, already sees CUDA's bytes: it tells whether the
// driver orders host reads behind a GPU-side semaphore wait.
func probeUnsettledRead(t *testing.T, c *Context, s *cuda.Stream, sb *SharedBuffer, host *cuda.HostMemory) {
	t.Helper()
	if sb.h.rs == nil {
		return // host path: CUDAToGL waited for the stream
	}
	n := sb.GL.Size()
	old := randomTexels(format.R8UNorm, n, 30)
	if err := sb.GL.Upload(0, old); err != nil {
		t.Fatal(err)
	}
	if err := sb.GLToCUDA(s); err != nil {
		t.Fatal(err)
	}
	fresh := randomTexels(format.R8UNorm, n, 31)
	copy(host.Bytes(), fresh)
	if err := s.CopyHtoD(sb.CUDA.Ptr(), host.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := sb.CUDAToGL(s); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	poison(b)
	if err := c.do(func(e *egl.Context) error { return e.GetBufferSubData(egl.Buffer(sb.GL.Name()), 0, b) }); err != nil {
		t.Fatal(err)
	}
	seeds := []seed{{"GL's bytes from before (stale)", old}, {"CUDA's bytes (fresh)", fresh}}
	t.Logf("probe: a raw glGetBufferSubData right after CUDAToGL, without glFinish, saw %s", whichSeed(b, seeds))
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
}
