package bench

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/cu"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// needGL returns a GL context on the CUDA device ctx runs on, or skips:
// without CUDA (fails under GFXCUDA_REQUIRE_CUDA=1), without libEGL (fails
// under GFXCUDA_REQUIRE_GL=1).
func needGL(t *testing.T) (*cuda.Context, *egl.Context) {
	t.Helper()
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	if err := egl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
	d, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.UUID()
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	gl, err := openGL(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gl.Close() })
	t.Logf("GL: %v (UUID matched: %v)", gl.Info(), gl.Info().UUIDMatched)
	return ctx, gl
}

// TestCUDAGLBuffer registers a GL buffer of random bytes with CUDA, maps it,
// copies it to the host through CUDA and compares every byte; then the same
// for a 1080p RGBA8 texture through its mapped CUDA array.
func TestCUDAGLBuffer(t *testing.T) {
	ctx, gl := needGL(t)
	data := randomBytes(glBufferBytes, 99)
	texData := randomBytes(glTexW*glTexH*4, 98)
	got := make([]byte, len(data))
	gotTex := make([]byte, len(texData))
	err := glCUDA(gl, ctx, func(h cu.Context) error {
		buf, err := newGLBuffer(gl, h, data)
		if err != nil {
			return err
		}
		defer buf.close(h)
		rs := []cu.GraphicsResource{buf.res}
		if err := cuErr("cuGraphicsMapResources", cu.GraphicsMapResources(h, rs, cu.Stream{})); err != nil {
			return err
		}
		p, size, r := cu.GraphicsResourceGetMappedPointer(h, buf.res)
		if err := cuErr("cuGraphicsResourceGetMappedPointer", r); err != nil {
			return err
		}
		if size != uint64(len(data)) {
			t.Errorf("mapped size %d, want %d", size, len(data))
		}
		err = ctx.CopyDtoH(got, cuda.DevicePtr(p))
		if err := errors.Join(err, cuErr("cuGraphicsUnmapResources", cu.GraphicsUnmapResources(h, rs, cu.Stream{}))); err != nil {
			return err
		}
		if err := buf.mapCycles(h, 10, false); err != nil {
			return err
		}

		tex, err := newGLTexture(gl, h, glTexW, glTexH, texData)
		if err != nil {
			return err
		}
		defer tex.close(h)
		rs = []cu.GraphicsResource{tex.res}
		if err := cuErr("cuGraphicsMapResources", cu.GraphicsMapResources(h, rs, cu.Stream{})); err != nil {
			return err
		}
		defer cu.GraphicsUnmapResources(h, rs, cu.Stream{})
		a, r := cu.GraphicsSubResourceGetMappedArray(h, tex.res, 0, 0)
		if err := cuErr("cuGraphicsSubResourceGetMappedArray", r); err != nil {
			return err
		}
		desc, r := cu.Array3DGetDescriptor(h, a)
		if err := cuErr("cuArray3DGetDescriptor", r); err != nil {
			return err
		}
		if desc.Width != glTexW || desc.Height != glTexH || desc.Channels != 4 {
			t.Errorf("mapped array %+v, want %dx%d with 4 channels", desc, glTexW, glTexH)
		}
		var pin runtime.Pinner
		pin.Pin(&gotTex[0])
		defer pin.Unpin()
		return cuErr("cuMemcpy3D", cu.MemcpyThreeD(h, &cu.Memcpy3D{
			SrcType: cu.MemoryTypeArr, SrcArray: a,
			DstType: cu.MemoryTypeHost, DstHost: unsafe.Pointer(&gotTex[0]), DstPitch: glTexW * 4, DstHeight: glTexH,
			WidthInBytes: glTexW * 4, Height: glTexH, Depth: 1,
		}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, data); i >= 0 {
		t.Fatalf("buffer byte %d: got %#x through CUDA, want %#x", i, got[i], data[i])
	}
	if i := firstDiff(gotTex, texData); i >= 0 {
		t.Fatalf("texture byte %d: got %#x through CUDA, want %#x", i, gotTex[i], texData[i])
	}
}

// TestGLBaseline runs the suite step (quick) and checks its figures.
func TestGLBaseline(t *testing.T) {
	needGL(t)
	d := openGPU(t)
	s := &Suite{D: d, O: Options{Reps: 3, Frames: 256, Quick: true}}
	if err := s.GLBaseline(); err != nil {
		t.Fatal(err)
	}
	want := []string{"register GL buffer with CUDA", "map + get pointer + unmap, 8 MiB buffer", "map + get array + unmap, 1080p RGBA8 texture"}
	if len(s.R.Figures) != len(want) {
		t.Fatalf("%d figures, want %d: %+v", len(s.R.Figures), len(want), s.R.Figures)
	}
	for i, f := range s.R.Figures {
		t.Logf("%s: %.3g %s (%s)", f.Name, f.Value, f.Unit, f.Note)
		if f.Group != GLGroup || f.Name != want[i] || !(f.Value > 0) {
			t.Errorf("figure %d: %+v", i, f)
		}
	}
}

// TestGLFrames runs the GL → CUDA frame figures (quick; every path checks
// the last frame CUDA received byte for byte) and checks their layout: the
// parts alone, the totals compared with map + unmap per frame, and the
// hand-off overheads (total − render only) with the ring's target on them.
func TestGLFrames(t *testing.T) {
	needGL(t)
	d := openGPU(t)
	s := &Suite{D: d, O: Options{Reps: 3, Frames: 512, Quick: true}}
	if err := s.GLFrames(); err != nil {
		t.Fatal(err)
	}
	s.R.Compare()
	byName := map[string]Figure{}
	measured, totals := 0, 0
	for _, f := range s.R.Figures {
		t.Logf("%s: %.4g %s, %.2f× vs %q (%s)", f.Name, f.Value, f.Unit, f.Ratio, f.Against, f.Note)
		byName[f.Name] = f
		if f.Group != GLGroup || f.Unit != "µs" || f.Reps != 3 {
			t.Errorf("figure %+v", f)
		}
		if !strings.HasPrefix(f.Name, "hand-off overhead") {
			measured++
			if !(f.Value > 0) {
				t.Errorf("%s: %v µs", f.Name, f.Value)
			}
		}
		if strings.HasSuffix(f.Name, "(total)") {
			totals++
		}
	}
	timeline := 0
	if _, ok := byName["GL → CUDA in batches of 32: gl.Ring, GPU semaphores (total)"]; ok {
		timeline = 1
	}
	if measured != GLFrameSteps-1+timeline || totals != 3+timeline {
		t.Fatalf("%d measured figures (%d totals), want %d", measured, totals, GLFrameSteps-1+timeline)
	}
	render := byName[glRenderOnly]
	base, ok := byName[glOverheadBase]
	if !ok || base.Value != byName[glPerFrame].Value-render.Value {
		t.Fatalf("baseline overhead %+v, want %v − %v", base, byName[glPerFrame].Value, render.Value)
	}
	overheads := 0
	for _, f := range s.R.Figures {
		if !strings.HasPrefix(f.Name, "hand-off overhead") {
			continue
		}
		overheads++
		if f.Name == glOverheadBase {
			continue
		}
		if f.Against != glOverheadBase || f.Ratio == 0 {
			t.Errorf("%s: compared with %q, ratio %v", f.Name, f.Against, f.Ratio)
		}
		if strings.Contains(f.Name, "gl.Ring") && (f.Target != 5 || f.Met == nil) {
			t.Errorf("%s: target %v, met %v", f.Name, f.Target, f.Met)
		}
	}
	if overheads != totals {
		t.Fatalf("%d overheads for %d totals", overheads, totals)
	}
}
