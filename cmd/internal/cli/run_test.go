package cli

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/internal/npy"
	"github.com/gfxcuda/gfxcuda/shader"
)

// needVulkan skips the test without a Vulkan device (fails instead under
// GFXCUDA_REQUIRE_VULKAN=1).
func needVulkan(t *testing.T) {
	t.Helper()
	// The validation layer's synchronization checks too: a missing barrier
	// fails the run.
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		t.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
	if _, err := compute.Devices(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
}

// runCLI runs gfxcuda with args in dir and returns the exit status and
// output. Validation is on: its errors make run fail.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	rc := run(append([]string{"run", "--validation"}, args...), &out, &errb)
	return rc, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readNPY(t *testing.T, path string) npy.Array {
	t.Helper()
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func f32(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }

// TestRunBuffer runs the documented form: a zero-filled read-write buffer
// at slot 0, 16 workgroups, the result as .npy with the shader's dtype.
func TestRunBuffer(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", `
RWStructuredBuffer<float> outp : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { outp[id.x] += id.x * 0.25 + 1; }`)
	rc, stdout, stderr := runCLI(t, dir, "k.hlsl", "--dispatch", "16,1,1", "--uav", "0:4096", "--out", "o.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	if stdout != "" || !strings.Contains(stderr, "wrote o.npy") || !strings.Contains(stderr, "dispatched 16×1×1") {
		t.Errorf("stdout %q, stderr:\n%s", stdout, stderr)
	}
	a := readNPY(t, filepath.Join(dir, "o.npy"))
	if a.Descr != "<f4" || len(a.Shape) != 1 || a.Shape[0] != 1024 {
		t.Fatalf("o.npy: %s %v", a.Descr, a.Shape)
	}
	for i := range 1024 {
		if v, want := f32(a.Data, i), float32(i)*0.25+1; v != want {
			t.Fatalf("o[%d] = %v, want %v", i, v, want)
		}
	}
	// SPIR-V from a file.
	m, err := shader.Compile([]byte(`#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer O { float outp[]; };
void main() { outp[gl_GlobalInvocationID.x] = 2.0; }`), shader.Options{Filename: "two.comp"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "two.spv", string(m.SPIRV))
	rc, _, stderr = runCLI(t, dir, "two.spv", "--dispatch", "2", "--uav", "outp:512", "--out", "two.npy")
	if a := readNPY(t, filepath.Join(dir, "two.npy")); rc != 0 || a.Descr != "<f4" || a.Shape[0] != 128 || f32(a.Data, 127) != 2 {
		t.Errorf("SPIR-V: rc %d, %s %v\n%s", rc, a.Descr, a.Shape, stderr)
	}
	// --batch repeats the dispatch in one submission; -q is silent;
	// without --out the values are summarized on stdout.
	rc, stdout, stderr = runCLI(t, dir, "k.hlsl", "--dispatch", "16", "--uav", "0:4k", "--batch", "4", "-q")
	if rc != 0 || stderr != "" || !strings.HasPrefix(stdout, "u0 outp <f4 (1024,): [4 5 6 7 8 9 10 11 ...]") {
		t.Errorf("--batch 4: rc %d, stdout %q, stderr %q", rc, stdout, stderr)
	}
}

// TestRunInputs binds an .npy input, random bytes, a constant buffer from
// a file and push constants, in GLSL.
func TestRunInputs(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.comp", `#version 450
layout(local_size_x = 32) in;
layout(std140, binding = 0) uniform P { float scale; } p;
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Raw { uint words[]; };
layout(std430, binding = 3) writeonly buffer Out { vec2 y[]; };
layout(std430, binding = 4) writeonly buffer Copy { uint copied[]; };
layout(push_constant) uniform PC { float add; } pc;
void main() {
	uint i = gl_GlobalInvocationID.x;
	y[i] = vec2(x[i] * p.scale + pc.add, float(i));
	copied[i] = words[i];
}`)
	xs := make([]byte, 4*64)
	for i := range 64 {
		binary.LittleEndian.PutUint32(xs[4*i:], math.Float32bits(float32(i)-10))
	}
	if err := npy.WriteFile(filepath.Join(dir, "x.npy"), npy.Array{Descr: "<f4", Shape: []int{64}, Data: xs}); err != nil {
		t.Fatal(err)
	}
	scale := make([]byte, 16)
	binary.LittleEndian.PutUint32(scale, math.Float32bits(3))
	writeFile(t, dir, "p.bin", string(scale))
	push := make([]byte, 4)
	binary.LittleEndian.PutUint32(push, math.Float32bits(0.5))
	writeFile(t, dir, "push.bin", string(push))
	rc, _, stderr := runCLI(t, dir, "k.comp", "--threads", "64", "--cbv", "0:p.bin", "--srv", "1:x.npy", "--random", "2:256",
		"--uav", "3:512", "--uav", "Copy:256", "--push", "@push.bin", "--out", "3=y.npy", "--out", "copied=c.npy", "--out", "2=r.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	y := readNPY(t, filepath.Join(dir, "y.npy"))
	if y.Descr != "<f4" || len(y.Shape) != 2 || y.Shape[0] != 64 || y.Shape[1] != 2 {
		t.Fatalf("y.npy: %s %v", y.Descr, y.Shape)
	}
	for i := range 64 {
		if a, b := f32(y.Data, 2*i), f32(y.Data, 2*i+1); a != (float32(i)-10)*3+0.5 || b != float32(i) {
			t.Fatalf("y[%d] = (%v, %v)", i, a, b)
		}
	}
	r, c := readNPY(t, filepath.Join(dir, "r.npy")), readNPY(t, filepath.Join(dir, "c.npy"))
	if r.Descr != "<u4" || !bytes.Equal(r.Data, c.Data) || bytes.Equal(r.Data, make([]byte, 256)) {
		t.Errorf("random input %s %v not copied (or not random)", r.Descr, r.Shape)
	}
	// The same seed gives the same bytes; hex push constants work too.
	rc, _, stderr = runCLI(t, dir, "k.comp", "--threads", "64", "--cbv", "0:p.bin", "--srv", "1:x.npy", "--random", "2:256",
		"--uav", "3:512", "--uav", "4:256", "--push", "0000003f", "--out", "4=c2.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	if c2 := readNPY(t, filepath.Join(dir, "c2.npy")); !bytes.Equal(c2.Data, c.Data) {
		t.Error("--random is not reproducible with the default seed")
	}
}

// TestRunRandomSeedOrder checks that several --random slots get the same
// bytes from run to run with one seed (they were once filled in a map's
// random order).
func TestRunRandomSeedOrder(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.comp", `#version 450
layout(local_size_x = 1) in;
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) readonly buffer B { uint b[]; };
layout(binding = 2) readonly buffer C { uint c[]; };
layout(binding = 3) readonly buffer D { uint d[]; };
layout(binding = 4) buffer O { uint o[]; };
void main() { o[0] = a[0] + b[0] + c[0] + d[0]; }`)
	var first [][]byte
	for run := range 4 {
		rc, _, stderr := runCLI(t, dir, "k.comp", "--seed", "7", "--random", "0:64", "--random", "1:64", "--random", "2:64",
			"--random", "3:64", "--uav", "4:4", "--out", "0=a.npy", "--out", "1=b.npy", "--out", "2=c.npy", "--out", "3=d.npy")
		if rc != 0 {
			t.Fatalf("rc %d\n%s", rc, stderr)
		}
		var got [][]byte
		for _, n := range []string{"a", "b", "c", "d"} {
			got = append(got, readNPY(t, filepath.Join(dir, n+".npy")).Data)
		}
		if run == 0 {
			first = got
			if bytes.Equal(got[0], got[1]) {
				t.Fatal("two slots got the same random bytes")
			}
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], first[i]) {
				t.Fatalf("run %d: slot %d's random bytes differ from the first run's with the same --seed", run, i)
			}
		}
	}
}

// TestRunTexture writes a texture and saves it as PNG and .npy.
func TestRunTexture(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "grad.hlsl", `
RWTexture2D<float4> img : register(u1);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) { img[id.xy] = float4(id.x, id.y, 255 - id.x, 255) / 255.0; }`)
	rc, _, stderr := runCLI(t, dir, "grad.hlsl", "--threads", "256,256", "--uav", "1:tex2d:rgba8_unorm:256x256", "--out", "1=o.png", "--out", "img=o.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "o.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Fatalf("PNG of %v", b)
	}
	for _, p := range [][2]int{{0, 0}, {17, 200}, {255, 3}} {
		r, g, b, a := img.At(p[0], p[1]).RGBA()
		if r>>8 != uint32(p[0]) || g>>8 != uint32(p[1]) || b>>8 != uint32(255-p[0]) || a>>8 != 255 {
			t.Errorf("pixel %v = %d %d %d %d", p, r>>8, g>>8, b>>8, a>>8)
		}
	}
	a := readNPY(t, filepath.Join(dir, "o.npy"))
	if a.Descr != "|u1" || len(a.Shape) != 3 || a.Shape[0] != 256 || a.Shape[1] != 256 || a.Shape[2] != 4 || a.Data[4*(256*7+5)+1] != 7 {
		t.Errorf("o.npy: %s %v", a.Descr, a.Shape)
	}
	// A PNG as input, sampled through a combined image sampler (GLSL).
	writeFile(t, dir, "copy.comp", `#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	imageStore(dst, p, texelFetch(src, p, 0).bgra);
}`)
	rc, _, stderr = runCLI(t, dir, "copy.comp", "--dispatch", "16,16", "--srv", "0:o.png", "--sampler", "0:point:clamp",
		"--uav", "1:tex2d::256x256", "--out", "swapped.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	s := readNPY(t, filepath.Join(dir, "swapped.npy"))
	for i := 0; i < len(a.Data); i += 4 {
		if s.Data[i] != a.Data[i+2] || s.Data[i+2] != a.Data[i] || s.Data[i+1] != a.Data[i+1] {
			t.Fatalf("texel %d: %v, want the swap of %v", i/4, s.Data[i:i+4], a.Data[i:i+4])
		}
	}
}

// TestRunErrors checks that mistakes name the flag and say what to do.
func TestRunErrors(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", `
cbuffer P : register(b0) { float4 k; };
StructuredBuffer<float> inp : register(t1);
RWStructuredBuffer<float> outp : register(u2);
RWTexture2D<float4> img : register(u3);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { outp[id.x] = inp[id.x] * k.x; img[id.xy] = k; }`)
	writeFile(t, dir, "bad.hlsl", "[numthreads(1,1,1)]\nvoid main() {\n  nope = 1;\n}\n")
	ok := []string{"k.hlsl", "--cbv", "0:16", "--srv", "1:4096", "--uav", "2:4096", "--uav", "3:tex2d:rgba8_unorm:8x8"}
	with := func(extra ...string) []string { return append(append([]string{}, ok...), extra...) }
	if rc, _, stderr := runCLI(t, dir, with("--dispatch", "16", "--out", "2=o.npy")...); rc != 0 {
		t.Fatalf("good run: rc %d\n%s", rc, stderr)
	}
	cases := []struct {
		args []string
		rc   int
		want []string
	}{
		{nil, 2, []string{"no shader given"}},
		{[]string{"k.hlsl", "--uav", "7:4096"}, 2, []string{"--uav 7:4096", "no read-write resource at slot 7", "u2 outp (read-write buffer, bind with --uav 2:4096)"}},
		{[]string{"k.hlsl", "--uav", "1:4096"}, 2, []string{"--uav 1:4096", "inp", "bind it with --srv"}},
		{[]string{"k.hlsl", "--cbv", "0:8"}, 2, []string{"--cbv 0:8", "P needs at least 16 bytes", "k at 0, 16 bytes"}},
		{[]string{"k.hlsl", "--srv", "1:4097"}, 2, []string{"--srv 1:4097", "4-byte elements", "use 4096 or 4100"}},
		{[]string{"k.hlsl", "--cbv", "0:16"}, 2, []string{"nothing binds", "t1 inp", "--srv 1:4096", "u3 img", "--uav 3:tex2d"}},
		{with("--dispatch", "1,x"), 2, []string{"--dispatch 1,x", "X[,Y[,Z]]"}},
		{with("--dispatch", "1,70000,1"), 2, []string{"--dispatch 1,70000,1", "in y exceed", "maxComputeWorkGroupCount"}},
		{with("--out", "o.npy"), 2, []string{"--out o.npy", "say which: --out 2=o.npy"}},
		{with("--out", "2=o.png"), 2, []string{"--out 2=o.png", "write it as .npy"}},
		{with("--out", "9=o.npy"), 2, []string{"--out 9=o.npy", "no resource at slot 9"}},
		{with("--push", "01000000"), 2, []string{"--push", "no push constants"}},
		{with("--uav", "3:tex3d:rgba8_unorm:8x8x8"), 2, []string{"slot 3 is bound already"}},
		{[]string{"k.hlsl", "--uav", "3:tex3d:rgba8_unorm:8x8x8"}, 2, []string{"--uav 3:tex3d", "2D texture", "use tex2d"}},
		{[]string{"k.hlsl", "--uav", "3:tex2d:rgba8_unorm:8x8x2"}, 2, []string{"takes 2 dimension"}},
		{[]string{"k.hlsl", "--uav", "3:tex2d:nosuchformat:8x8"}, 2, []string{"nosuchformat"}},
		{[]string{"k.hlsl", "--srv", "1:missing.npy"}, 2, []string{"--srv 1:missing.npy", "neither a size nor an existing file"}},
		{with("--random", "5:16"), 2, []string{"--random 5:16", "no resource at slot 5"}},
		{with("--random", "1:64"), 2, []string{"--random 1:64", "4096 bytes"}},
		{with("--batch", "0"), 2, []string{"--batch 0"}},
		{with("--device", "no such device"), 2, []string{"--device no such device", "devices here:"}},
		{with("--bogus"), 2, []string{"unknown flag --bogus"}},
		{[]string{"bad.hlsl"}, 1, []string{"bad.hlsl:3:", "nope"}},
		{[]string{"nofile.hlsl"}, 1, []string{"nofile.hlsl"}},
	}
	for _, c := range cases {
		rc, _, stderr := runCLI(t, dir, c.args...)
		if rc != c.rc {
			t.Errorf("%v: rc %d, want %d\n%s", c.args, rc, c.rc, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
	}
}
