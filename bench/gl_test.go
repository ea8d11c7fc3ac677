package bench

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cuda/cudatest"
	"github.com/gfxcuda/gfxcuda/gl"
)

// needGL returns a GL context on the CUDA device ctx runs on, or skips:
// without CUDA (fails under GFXCUDA_REQUIRE_CUDA=1), without libEGL (fails
// under GFXCUDA_REQUIRE_GL=1).
func needGL(t *testing.T) (*cuda.Context, *gl.Context) {
	t.Helper()
	ctx := cudatest.Context(t)
	u, err := ctx.Device().UUID()
	if err != nil {
		t.Fatal(err)
	}
	c, err := openGL(u)
	if errors.Is(err, gl.ErrNoEGL) {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	t.Logf("GL: %v (UUID matched: %v)", c.Info(), c.Info().UUIDMatched)
	return ctx, c
}

// TestCUDAGLBuffer registers a GL buffer of random bytes with CUDA, maps it,
// copies it to the host through CUDA and compares every byte; then the same
// for a 1080p RGBA8 texture through its mapped CUDA array.
func TestCUDAGLBuffer(t *testing.T) {
	ctx, c := needGL(t)
	data := randomBytes(glBufferBytes, 99)
	texData := randomBytes(glTexW*glTexH*4, 98)
	got := make([]byte, len(data))
	gotTex := make([]byte, len(texData))
	stream, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	lin, err := ctx.Alloc(uint64(len(texData)))
	if err != nil {
		t.Fatal(err)
	}
	defer lin.Close()
	err = glCUDA(c, ctx, func() error {
		buf, err := newGLBuffer(c, ctx, data)
		if err != nil {
			return err
		}
		defer buf.close()
		if err := cuda.MapGL(nil, buf.res); err != nil {
			return err
		}
		p, size, err := buf.res.Pointer()
		if err == nil {
			if size != uint64(len(data)) {
				t.Errorf("mapped size %d, want %d", size, len(data))
			}
			err = ctx.CopyDtoH(got, p)
		}
		if err := errors.Join(err, cuda.UnmapGL(nil, buf.res)); err != nil {
			return err
		}
		if err := buf.mapCycles(10, false); err != nil {
			return err
		}

		tex, err := newGLTexture(c, ctx, glTexW, glTexH, texData)
		if err != nil {
			return err
		}
		defer tex.close()
		if err := cuda.MapGL(stream, tex.res); err != nil {
			return err
		}
		defer cuda.UnmapGL(stream, tex.res)
		a, err := tex.res.Array(0, 0)
		if err != nil {
			return err
		}
		if desc := a.Desc(); desc.Width != glTexW || desc.Height != glTexH || desc.Channels != 4 {
			t.Errorf("mapped array %+v, want %dx%d with 4 channels", desc, glTexW, glTexH)
		}
		if err := stream.CopyFromArray(cuda.ArrayCopy{Array: a, Ptr: lin.Ptr()}); err != nil {
			return err
		}
		if err := stream.Synchronize(); err != nil {
			return err
		}
		return ctx.CopyDtoH(gotTex, lin.Ptr())
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
