package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
)

// SamplesEnv names a copy of github.com/webgpu/webgpu-samples (a checkout,
// or a bare git repository such as the one `fetch` makes) whose compute
// shaders TestWGSLWebGPUSamples compiles and runs. The shaders are read
// from there, never copied into this repository.
const samplesEnv = "GFXCUDA_WEBGPU_SAMPLES"

// sampleSource reads a file of the samples' tree.
func sampleSource(t *testing.T, root, path string) string {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(root, path)); err == nil {
		return string(b)
	}
	out, err := exec.Command("git", "--git-dir", root, "show", "HEAD:"+path).Output()
	if err != nil {
		t.Fatalf("%s: %s is neither a checkout nor a git repository holding it: %v", path, root, err)
	}
	return string(out)
}

// TestWGSLWebGPUSamples is the trial of issue #22's "real WGSL compute
// shaders that others wrote": the compute shaders of the public WebGPU
// samples, compiled as a new user would (shader.Compile, the file's own
// text, the samples' own override values and string substitutions), run on
// random inputs set up as the samples' TypeScript does, and checked against
// Go references; the Cornell box's radiosity and ray tracer and the
// particles' simulation are compiled into pipelines only (their inputs are
// a scene built in TypeScript, and their output a picture).
func TestWGSLWebGPUSamples(t *testing.T) {
	root := os.Getenv(samplesEnv)
	if root == "" {
		t.Skip(samplesEnv + " is not set (a checkout or git mirror of github.com/webgpu/webgpu-samples)")
	}
	d := openTest(t)
	src := func(t *testing.T, paths ...string) string {
		var b strings.Builder
		for _, p := range paths {
			b.WriteString(sampleSource(t, root, p))
			b.WriteByte('\n')
		}
		return b.String()
	}
	kernel := func(t *testing.T, name, code, entry string, consts map[string]float64) *Kernel {
		t.Helper()
		m, err := shader.Compile([]byte(code), shader.Options{Filename: name, EntryPoint: entry, NoCache: true})
		if err != nil {
			t.Fatalf("compile %s (%s): %v", name, entry, err)
		}
		k, err := d.KernelWith(m, KernelOptions{EntryPoint: entry, Constants: consts})
		if err != nil {
			t.Fatalf("pipeline %s (%s): %v", name, entry, err)
		}
		t.Cleanup(func() { k.Close() })
		return k
	}
	buf := func(t *testing.T, data []byte) *Buffer {
		t.Helper()
		b := newBuffer(t, d, HeapDefault, data)
		t.Cleanup(func() { b.Close() })
		return b
	}
	tex := func(t *testing.T, w, h uint32, f format.Format, data []byte) *Texture {
		t.Helper()
		x, err := d.Texture2D(w, h, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		if data != nil {
			if err := x.Upload(data); err != nil {
				t.Fatal(err)
			}
		}
		return x
	}
	texBytes := func(t *testing.T, x *Texture) []byte {
		t.Helper()
		b, err := x.Readback()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dispatch := func(t *testing.T, k *Kernel, x, y, z uint32, args ...Arg) {
		t.Helper()
		if err := k.Dispatch(x, y, z, args...); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("gameOfLife/compute", func(t *testing.T) {
		const w, h = 64, 32 // the shader wraps with unsigned %, right for powers of two
		k := kernel(t, "compute.wgsl", src(t, "sample/gameOfLife/compute.wgsl"), "main", nil)
		r := newRand(1)
		cells := make([]uint32, w*h)
		for i := range cells {
			cells[i] = r.Uint32() & 1
		}
		next := buf(t, poison(4*w*h))
		dispatch(t, k, w/8, h/8, 1, // blockSize: its default, 8
			AtBinding(0, 0, buf(t, u32bytes([]uint32{w, h}))), AtBinding(0, 1, buf(t, u32bytes(cells))), AtBinding(0, 2, next))
		got := u32s(readback(t, next))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				n := uint32(0)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if dx != 0 || dy != 0 {
							n += cells[(y+dy+h)%h*w+(x+dx+w)%w]
						}
					}
				}
				want := uint32(0)
				if n == 3 || n == 2 && cells[y*w+x] == 1 {
					want = 1
				}
				if got[y*w+x] != want {
					t.Fatalf("cell (%d,%d): got %d, want %d", x, y, got[y*w+x], want)
				}
			}
		}
	})

	t.Run("imageBlur/blur", func(t *testing.T) {
		const w, h, filterDim, tileDim = 200, 150, 15, 128
		blockDim := uint32(tileDim - (filterDim - 1))
		k := kernel(t, "blur.wgsl", src(t, "sample/imageBlur/blur.wgsl"), "main", nil)
		r := newRand(2)
		in := randomBytes(r, 4*w*h)
		inTex := tex(t, w, h, format.RGBA8UNorm, in)
		smp, err := d.Sampler(FilterLinear, AddressClamp) // the sample's sampler
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { smp.Close() })
		params := make([]byte, 8)
		binary.LittleEndian.PutUint32(params, filterDim)
		binary.LittleEndian.PutUint32(params[4:], blockDim)
		for _, flip := range []uint32{0, 1} {
			out := tex(t, w, h, format.RGBA8UNorm, poison(4*w*h))
			gx, gy := (w+blockDim-1)/blockDim, uint32(h+3)/4
			if flip == 1 {
				gx, gy = (h+blockDim-1)/blockDim, uint32(w+3)/4
			}
			dispatch(t, k, gx, gy, 1, AtBinding(0, 0, smp), AtBinding(0, 1, buf(t, params)),
				AtBinding(1, 1, inTex), AtBinding(1, 2, out), AtBinding(1, 3, buf(t, u32bytes([]uint32{flip}))))
			got := texBytes(t, out)
			off := (filterDim - 1) / 2
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					for c := 0; c < 4; c++ {
						want := float32(1)
						if c < 3 {
							want = 0
							for f := 0; f < filterDim; f++ {
								sx, sy := min(max(x+f-off, 0), w-1), y
								if flip == 1 {
									sx, sy = x, min(max(y+f-off, 0), h-1)
								}
								want += float32(1.0/float32(filterDim)) * float32(in[4*(sy*w+sx)+c]) / 255
							}
						}
						g := got[4*(y*w+x)+c]
						if math.Abs(float64(g)-float64(want)*255) > 1 {
							t.Fatalf("flip %d: texel (%d,%d) channel %d: got %d, want %.2f", flip, x, y, c, g, want*255)
						}
					}
				}
			}
		}
	})

	t.Run("computeBoids/updateSprites", func(t *testing.T) {
		const n = 1024
		k := kernel(t, "updateSprites.wgsl", src(t, "sample/computeBoids/updateSprites.wgsl"), "main", nil)
		// The sample's parameters.
		p := []float32{0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005}
		r := newRand(3)
		in := make([]float32, 4*n)
		for i := 0; i < n; i++ {
			in[4*i], in[4*i+1] = 2*(r.Float32()-0.5), 2*(r.Float32()-0.5)
			in[4*i+2], in[4*i+3] = 2*(r.Float32()-0.5)*0.1, 2*(r.Float32()-0.5)*0.1
		}
		out := buf(t, poison(16*n))
		dispatch(t, k, n/64, 1, 1, AtBinding(0, 0, buf(t, f32bytes(p))), AtBinding(0, 1, buf(t, f32bytes(in))), AtBinding(0, 2, out))
		got := f32s(readback(t, out))
		bad := 0
		for i := 0; i < n; i++ {
			want, fragile := boid(in, p, i)
			for c := 0; c < 4; c++ {
				if g := got[4*i+c]; !(math.Abs(float64(g-want[c])) <= 1e-4) {
					if !fragile {
						t.Fatalf("particle %d component %d: got %v, want %v", i, c, g, want[c])
					}
					bad++
				}
			}
		}
		if bad > 8 {
			t.Fatalf("%d components differ on particles near a rule's threshold; expected a few at most", bad)
		}
	})

	t.Run("deferredRendering/lightUpdate", func(t *testing.T) {
		const n = 1000
		k := kernel(t, "lightUpdate.wgsl", src(t, "sample/deferredRendering/lightUpdate.wgsl"), "main", nil)
		r := newRand(4)
		lights := make([]float32, 8*n) // position vec4f, color vec3f, radius f32
		for i := range lights {
			lights[i] = 60*r.Float32() - 10
		}
		extent := []float32{-50, -20, -50, 0, 50, 50, 50, 0}
		lb := buf(t, f32bytes(lights))
		dispatch(t, k, (n+63)/64, 1, 1, AtBinding(0, 0, lb), AtBinding(0, 1, buf(t, u32bytes([]uint32{n - 7}))), AtBinding(0, 2, buf(t, f32bytes(extent))))
		got := f32s(readback(t, lb))
		for i := 0; i < n; i++ {
			want := slices.Clone(lights[8*i : 8*i+8])
			if i < n-7 {
				y := want[1] - 0.5 - 0.003*(float32(i)-64*float32(math.Floor(float64(float32(i)/64))))
				if y < extent[1] {
					y = extent[5]
				}
				want[1] = y
			}
			for c, v := range want {
				if math.Abs(float64(got[8*i+c]-v)) > 1e-4 {
					t.Fatalf("light %d word %d: got %v, want %v", i, c, got[8*i+c], v)
				}
			}
		}
	})

	t.Run("particles/probabilityMap", func(t *testing.T) {
		const w, h = 64, 32
		code := src(t, "sample/particles/probabilityMap.wgsl")
		r := newRand(5)
		img := randomBytes(r, 4*w*h)
		ubo := buf(t, u32bytes([]uint32{w}))
		// import_level: the alpha of every texel into buf_out.
		k := kernel(t, "probabilityMap.wgsl", code, "import_level", nil)
		weights := buf(t, poison(4*w*h))
		dispatch(t, k, (w+63)/64, h, 1, AtBinding(0, 0, ubo), AtBinding(0, 1, buf(t, poison(16))), AtBinding(0, 2, weights),
			AtBinding(0, 3, tex(t, w, h, format.RGBA8UNorm, img)))
		wts := f32s(readback(t, weights))
		for i := 0; i < w*h; i++ {
			if want := float32(img[4*i+3]) / 255; math.Abs(float64(wts[i]-want)) > 1e-6 {
				t.Fatalf("import_level: weight %d: got %v, want %v", i, wts[i], want)
			}
		}
		// export_level: 2x2 sums into the next level and its probabilities.
		k = kernel(t, "probabilityMap.wgsl", code, "export_level", nil)
		out := buf(t, poison(4*w*h))
		level := tex(t, w/2, h/2, format.RGBA8UNorm, poison(4*w/2*h/2))
		dispatch(t, k, (w/2+63)/64, h/2, 1, AtBinding(0, 0, ubo), AtBinding(0, 1, weights), AtBinding(0, 2, out), AtBinding(0, 3, level))
		sums, probs := f32s(readback(t, out)), texBytes(t, level)
		for y := 0; y < h/2; y++ {
			for x := 0; x < w/2; x++ {
				s := 2*x + 2*y*w
				a, b, c, dd := wts[s], wts[s+1], wts[s+w], wts[s+1+w]
				sum := a + b + c + dd
				if math.Abs(float64(sums[x+y*w]-sum/4)) > 1e-6 {
					t.Fatalf("export_level: sum (%d,%d): got %v, want %v", x, y, sums[x+y*w], sum/4)
				}
				for i, v := range []float32{a, a + b, a + b + c, sum} {
					want := float64(v/max(sum, 0.0001)) * 255
					if g := probs[4*(y*w/2+x)+i]; math.Abs(float64(g)-want) > 0.6 {
						t.Fatalf("export_level: probability (%d,%d)[%d]: got %d, want %.2f", x, y, i, g, want)
					}
				}
			}
		}
	})

	t.Run("primitivePicking/computePickPrimitive", func(t *testing.T) {
		const w, h = 40, 30
		k := kernel(t, "computePickPrimitive.wgsl", src(t, "sample/primitivePicking/computePickPrimitive.wgsl"), "main", nil)
		r := newRand(6)
		ids := randomBytes(r, 4*w*h)
		frame := make([]float32, 36) // two mat4x4f, pickCoord vec2f, pickedPrimitive u32, padding
		for i := range frame[:32] {
			frame[i] = r.Float32()
		}
		x, y := 17, 23
		frame[32], frame[33] = float32(x)+0.7, float32(y)+0.2
		fb := f32bytes(frame)
		binary.LittleEndian.PutUint32(fb[136:], 0xCDCDCDCD)
		fbuf := buf(t, fb)
		dispatch(t, k, 1, 1, 1, AtBinding(0, 0, fbuf), AtBinding(0, 1, tex(t, w, h, format.R32UInt, ids)))
		got := readback(t, fbuf)
		want := slices.Clone(fb)
		copy(want[136:140], ids[4*(y*w+x):])
		if !slices.Equal(got, want) {
			t.Fatalf("frame: got % x, want % x", got[128:], want[128:])
		}
	})

	t.Run("bitonicSort", func(t *testing.T) {
		const wg, n = 256, 2048 // global flips and disperses from block height 1024 up
		code := src(t, "sample/bitonicSort/atomicToZero.wgsl")
		counter := buf(t, u32bytes([]uint32{12345}))
		k := kernel(t, "atomicToZero.wgsl", code, "atomicToZero", nil)
		dispatch(t, k, 1, 1, 1, AtBinding(0, 3, counter))
		if c := u32s(readback(t, counter))[0]; c != 0 {
			t.Fatalf("atomicToZero: counter %d", c)
		}
		// The compute shader is a TypeScript template (NaiveBitonicCompute):
		// its text between the backquotes, with the workgroup size put in.
		ts := sampleSource(t, root, "sample/bitonicSort/bitonicCompute.ts")
		i := strings.Index(ts, "return `")
		j := strings.LastIndex(ts, "`;")
		if i < 0 || j < i {
			t.Fatal("bitonicCompute.ts: no template literal")
		}
		code = strings.NewReplacer("${workgroupSize * 2}", fmt.Sprint(2*wg), "${workgroupSize}", fmt.Sprint(wg)).Replace(ts[i+len("return `") : j])
		k = kernel(t, "bitonicCompute.wgsl", code, "computeMain", nil)
		r := newRand(7)
		data := make([]uint32, n)
		for i := range data {
			data[i] = r.Uint32() % 100000
		}
		want := slices.Clone(data)
		slices.Sort(want)
		in, out := buf(t, u32bytes(data)), buf(t, u32bytes(data))
		uni := make([]byte, 16)
		steps := 0
		for block := 2; block <= n; block *= 2 {
			for span := block; span >= 2; span /= 2 {
				algo := uint32(1) // local flip
				switch {
				case span == block && span > 2*wg:
					algo = 3 // global flip
				case span != block && span > 2*wg:
					algo = 4 // global disperse
				case span != block:
					algo = 2 // local disperse
				}
				binary.LittleEndian.PutUint32(uni[8:], algo)
				binary.LittleEndian.PutUint32(uni[12:], uint32(span))
				dispatch(t, k, n/(2*wg), 1, 1, AtBinding(0, 0, in), AtBinding(0, 1, out), AtBinding(0, 2, buf(t, uni)), AtBinding(0, 3, counter))
				cur := readback(t, out) // the sample copies output to input after each step
				if err := in.Upload(cur); err != nil {
					t.Fatal(err)
				}
				steps++
			}
		}
		if got := u32s(readback(t, out)); !slices.Equal(got, want) {
			t.Fatalf("after %d steps the data is not sorted: %v...", steps, got[:16])
		}
	})

	t.Run("cornell/tonemapper", func(t *testing.T) {
		const w, h = 96, 64
		code := strings.ReplaceAll(src(t, "sample/cornell/tonemapper.wgsl"), "{OUTPUT_FORMAT}", "rgba8unorm")
		k := kernel(t, "tonemapper.wgsl", code, "main", map[string]float64{"WorkgroupSizeX": 16, "WorkgroupSizeY": 16})
		if ls := k.LocalSize(); ls != [3]uint32{16, 16, 1} {
			t.Fatalf("LocalSize %v with the overrides 16x16", ls)
		}
		r := newRand(8)
		in := make([]float32, 4*w*h)
		for i := range in {
			in[i] = 4 * r.Float32()
		}
		inTex := tex(t, w, h, format.RGBA32Float, f32bytes(in))
		out := tex(t, w, h, format.RGBA8UNorm, poison(4*w*h))
		dispatch(t, k, w/16, h/16, 1, AtBinding(0, 0, inTex), AtBinding(0, 1, out))
		got := texBytes(t, out)
		for i := 0; i < w*h; i++ {
			for c := 0; c < 4; c++ {
				want := 1.0
				if c < 3 {
					v := float64(in[4*i+c]) * 0.5
					want = math.Pow(v/(1+v), 1/2.2)
				}
				if g := got[4*i+c]; math.Abs(float64(g)-want*255) > 0.6 {
					t.Fatalf("texel %d channel %d: got %d, want %.2f", i, c, g, want*255)
				}
			}
		}
	})

	// Compiled into pipelines with the samples' override values; not run.
	for _, c := range []struct {
		name   string
		files  []string
		entry  string
		consts map[string]float64
	}{
		{"cornell/radiosity", []string{"sample/cornell/radiosity.wgsl", "sample/cornell/common.wgsl"}, "radiosity",
			map[string]float64{"PhotonsPerWorkgroup": 256, "PhotonEnergy": 100000}},
		{"cornell/radiosity#accumulation_to_lightmap", []string{"sample/cornell/radiosity.wgsl", "sample/cornell/common.wgsl"}, "accumulation_to_lightmap",
			map[string]float64{"AccumulationToLightmapWorkgroupSizeX": 16, "AccumulationToLightmapWorkgroupSizeY": 16}},
		{"cornell/raytracer", []string{"sample/cornell/raytracer.wgsl", "sample/cornell/common.wgsl"}, "main",
			map[string]float64{"WorkgroupSizeX": 16, "WorkgroupSizeY": 16}},
		{"particles/particle#simulate", []string{"sample/particles/particle.wgsl"}, "simulate", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := kernel(t, filepath.Base(c.files[0]), src(t, c.files...), c.entry, c.consts)
			if len(k.Resources()) == 0 {
				t.Fatalf("%s: no resources reflected", c.name)
			}
		})
	}
}

// boid computes particle i of updateSprites.wgsl in float32, and reports
// whether a rule's threshold or the wrap-around boundary is within
// rounding of its inputs (where the GPU may fairly branch the other way).
func boid(in, p []float32, i int) ([4]float32, bool) {
	dist := func(ax, ay, bx, by float32) float32 {
		dx, dy := ax-bx, ay-by
		return float32(math.Sqrt(float64(dx*dx + dy*dy)))
	}
	fragile := false
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }
	px, py, vx, vy := in[4*i], in[4*i+1], in[4*i+2], in[4*i+3]
	var cmx, cmy, cvx, cvy, colx, coly float32
	var cmn, cvn uint32
	for j := 0; j < len(in)/4; j++ {
		if j == i {
			continue
		}
		qx, qy, wx, wy := in[4*j], in[4*j+1], in[4*j+2], in[4*j+3]
		dd := dist(qx, qy, px, py)
		fragile = fragile || near(dd, p[1]) || near(dd, p[2]) || near(dd, p[3])
		if dd < p[1] {
			cmx, cmy = cmx+qx, cmy+qy
			cmn++
		}
		if dd < p[2] {
			colx, coly = colx-(qx-px), coly-(qy-py)
		}
		if dd < p[3] {
			cvx, cvy = cvx+wx, cvy+wy
			cvn++
		}
	}
	if cmn > 0 {
		cmx, cmy = cmx/float32(cmn)-px, cmy/float32(cmn)-py
	}
	if cvn > 0 {
		cvx, cvy = cvx/float32(cvn), cvy/float32(cvn)
	}
	vx += cmx*p[4] + colx*p[5] + cvx*p[6]
	vy += cmy*p[4] + coly*p[5] + cvy*p[6]
	l := float32(math.Sqrt(float64(vx*vx + vy*vy)))
	s := min(max(l, 0), 0.1)
	vx, vy = vx/l*s, vy/l*s
	px, py = px+vx*p[0], py+vy*p[0]
	for _, v := range []float32{px, py} {
		fragile = fragile || near(v, 1) || near(v, -1)
	}
	if px < -1 {
		px = 1
	}
	if px > 1 {
		px = -1
	}
	if py < -1 {
		py = 1
	}
	if py > 1 {
		py = -1
	}
	return [4]float32{px, py, vx, vy}, fragile
}
