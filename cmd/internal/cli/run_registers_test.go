package cli

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/internal/npy"
)

// TestRunCompushadyShader: the most common compushady shader, t0 in and
// u0 out, runs with --srv 0:… --uav 0:… (issue 9), and every output value
// is checked.
func TestRunCompushadyShader(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", `StructuredBuffer<float> a : register(t0);
RWStructuredBuffer<float> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { o[id.x] = a[id.x] * 2 + 0.5; }`)
	const n = 1024
	rng := rand.New(rand.NewPCG(5, 6))
	in := make([]float32, n)
	data := make([]byte, 4*n)
	for i := range in {
		in[i] = float32(rng.IntN(1<<20)) / 64
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(in[i]))
	}
	if err := npy.WriteFile(filepath.Join(dir, "a.npy"), npy.Array{Descr: "<f4", Shape: []int{n}, Data: data}); err != nil {
		t.Fatal(err)
	}
	rc, _, stderr := runCLI(t, dir, "k.hlsl", "--srv", "0:a.npy", "--uav", "0:4096", "--dispatch", "16", "--out", "o.npy")
	if rc != 0 {
		t.Fatalf("rc %d\n%s", rc, stderr)
	}
	for _, w := range []string{"2 resource(s)", "t0: a ←", "u0: o ←"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	a := readNPY(t, filepath.Join(dir, "o.npy"))
	if a.Descr != "<f4" || len(a.Shape) != 1 || a.Shape[0] != n {
		t.Fatalf("o.npy: %s %v", a.Descr, a.Shape)
	}
	for i := range n {
		if got, want := f32(a.Data, i), in[i]*2+0.5; got != want {
			t.Fatalf("o[%d] = %v, want %v", i, got, want)
		}
	}
	// Registers named with their class, and --out by register.
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--srv", "t0:a.npy", "--uav", "u0:4096", "--dispatch", "16", "--out", "u0=o2.npy")
	if rc != 0 {
		t.Fatalf("t0/u0: rc %d\n%s", rc, stderr)
	}
	if b := readNPY(t, filepath.Join(dir, "o2.npy")); f32(b.Data, n-1) != in[n-1]*2+0.5 {
		t.Errorf("o2[%d] = %v", n-1, f32(b.Data, n-1))
	}
	// --random 0 is ambiguous (t0 or u0) and says how to name it.
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--srv", "0:a.npy", "--uav", "0:4096", "--random", "0")
	if rc != 2 || !strings.Contains(stderr, "slot 0 is ambiguous") || !strings.Contains(stderr, "--srv 0:…") {
		t.Errorf("--random 0: rc %d\n%s", rc, stderr)
	}
	// A wrong class says which flag binds the resource.
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--uav", "0:4096", "--uav", "1:a.npy")
	if rc != 2 || !strings.Contains(stderr, "no read-write resource at slot 1") {
		t.Errorf("--uav 1: rc %d\n%s", rc, stderr)
	}
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--uav", "0:4096", "--cbv", "0:16")
	if rc != 2 || !strings.Contains(stderr, "no constant buffer at slot 0") || !strings.Contains(stderr, "t0 a (read-only buffer, bind with --srv 0:4096)") {
		t.Errorf("--cbv 0: rc %d\n%s", rc, stderr)
	}
}
