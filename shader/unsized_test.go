package shader

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gfxcuda/gfxcuda/spirv"
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

// unsizeArrays rewrites a hand-made module's sized descriptor array
// variable named in names, and returns any malformed module (a bad
// header, a zero word count, an instruction past the end) unchanged: the
// very slice it was given.
func TestUnsizeArraysMalformed(t *testing.T) {
	bytesOf := func(w ...[]uint32) []byte {
		var b []byte
		for _, w := range w {
			for _, x := range w {
				b = binary.LittleEndian.AppendUint32(b, x)
			}
		}
		return b
	}
	name := spirv.EncodeString("bufs")
	head := []uint32{0x07230203, 0x10300, 0, 10, 0}
	capShader := []uint32{2<<16 | spirv.OpCapability, 1}
	decls := slices.Concat(
		[]uint32{uint32(2+len(name))<<16 | spirv.OpName, 5}, name, // OpName %5 "bufs"
		[]uint32{4<<16 | spirv.OpTypeArray, 3, 2, 9},   // %3: array of %2, length %9
		[]uint32{4<<16 | spirv.OpTypePointer, 4, 0, 3}, // %4: UniformConstant pointer to %3
	)
	variable := []uint32{4<<16 | spirv.OpVariable, 4, 5, 0} // %5
	names := map[string]bool{"bufs": true}

	ext := spirv.EncodeString("SPV_EXT_descriptor_indexing")
	want := bytesOf([]uint32{0x07230203, 0x10300, 0, 12, 0}, capShader,
		[]uint32{2<<16 | spirv.OpCapability, spvCapRuntimeDescriptorArray},
		[]uint32{uint32(1+len(ext))<<16 | spirv.OpExtension}, ext, decls,
		[]uint32{3<<16 | spirv.OpTypeRuntimeArray, 10, 2}, // %10: runtime array of %2
		[]uint32{4<<16 | spirv.OpTypePointer, 11, 0, 10},  // %11: pointer to %10
		[]uint32{4<<16 | spirv.OpVariable, 11, 5, 0})
	if got := unsizeArrays(bytesOf(head, capShader, decls, variable), names); !bytes.Equal(got, want) {
		t.Errorf("well-formed module:\n got %x\nwant %x", got, want)
	}

	for _, c := range []struct {
		name string
		spv  []byte
	}{
		{"zero word count", bytesOf(head, capShader, decls, []uint32{0}, variable)},
		{"past the end", bytesOf(head, capShader, decls, variable[:3])},
		{"bad magic", bytesOf([]uint32{0x07230204}, head[1:], capShader, decls, variable)},
		{"ragged length", append(bytesOf(head, capShader, decls, variable), 0)},
		{"short header", bytesOf(head[:4])},
		{"no OpCapability", bytesOf(head, decls, variable)},
	} {
		in := bytes.Clone(c.spv)
		got := unsizeArrays(c.spv, names)
		if len(got) != len(c.spv) || len(got) > 0 && &got[0] != &c.spv[0] || !bytes.Equal(c.spv, in) {
			t.Errorf("%s: got %x, want the input unchanged", c.name, got)
		}
	}
}
