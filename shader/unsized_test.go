package shader

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// HLSL arrays declared without a size become runtime-sized arrays of
// descriptors, as DXC makes them; sized ones stay sized; the result is
// valid SPIR-V.
func TestUnsizedHLSLArrays(t *testing.T) {
	src := `
// Buffer<uint> commented[];
Buffer<uint> inputs[] : register(t0);
Buffer<uint> sized[1] : register(t8);
RWBuffer<uint> outputs[];

[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
	outputs[0][tid.x] = inputs[tid.x][0] + sized[0][0];
}`
	for _, opt := range []bool{false, true} {
		m, err := Compile([]byte(src), Options{Filename: "unsized.hlsl", NoCache: true, Optimize: opt})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]uint32{"inputs": 0, "outputs": 0, "sized": 1}
		for _, r := range m.Resources {
			n, ok := want[r.Name]
			if !ok {
				continue
			}
			if r.ArraySize != n {
				t.Errorf("optimize=%v: %s has ArraySize %d, want %d", opt, r.Name, r.ArraySize, n)
			}
			delete(want, r.Name)
		}
		if len(want) > 0 && !opt {
			t.Errorf("resources not found: %v", want)
		}
		val, err := exec.LookPath("spirv-val")
		if err != nil {
			t.Log("spirv-val not installed: validity not checked")
			continue
		}
		p := filepath.Join(t.TempDir(), "m.spv")
		words := m.Words()
		bin := make([]byte, 4*len(words))
		for i, x := range words {
			binary.LittleEndian.PutUint32(bin[4*i:], x)
		}
		if err := os.WriteFile(p, bin, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(val, "--target-env", "vulkan1.1", p).CombinedOutput(); err != nil {
			t.Fatalf("optimize=%v: spirv-val: %v\n%s", opt, err, out)
		}
	}
}
