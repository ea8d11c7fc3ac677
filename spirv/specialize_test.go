package spirv

import (
	"os"
	"reflect"
	"testing"
)

// specconst.spv is glslang's output for a compute shader with
// layout(local_size_x_id = 3, local_size_y = 2) and four
// layout(constant_id = N) constants: float scale = 1.5 (0), uint n = 7
// (1), bool flag = true (2), int neg = -3 (4); specconst.spvasm is its
// disassembly.
func TestSpecConstants(t *testing.T) {
	b, err := os.ReadFile("testdata/specconst.spv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Reflect(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []SpecConstant{
		{Name: "scale", ID: 0, Type: ScalarFloat, Bits: 32, Default: 0x3fc00000},
		{Name: "n", ID: 1, Type: ScalarUint, Bits: 32, Default: 7},
		{Name: "flag", ID: 2, Type: ScalarBool, Bits: 32, Default: 1},
		{Name: "", ID: 3, Type: ScalarUint, Bits: 32, Default: 1},
		{Name: "neg", ID: 4, Type: ScalarInt, Bits: 32, Default: 0xfffffffd},
	}
	if !reflect.DeepEqual(m.SpecConstants, want) {
		t.Fatalf("spec constants\n got %+v\nwant %+v", m.SpecConstants, want)
	}
	if s := m.SpecConstant("neg").String(); s != "neg (SpecId 4, int32, default -3)" {
		t.Errorf("String: %s", s)
	}
	if s := m.SpecConstant("scale").String(); s != "scale (SpecId 0, float32, default 1.5)" {
		t.Errorf("String: %s", s)
	}
	if m.SpecConstant("") != nil || m.SpecConstant("nope") != nil {
		t.Error("SpecConstant found a constant that is not there")
	}
	if ls := m.LocalSize(); ls != [3]uint32{1, 2, 1} {
		t.Errorf("LocalSize %v", ls)
	}
	if ls := m.LocalSizeWith(map[uint32]uint64{3: 64, 0: 9}); ls != [3]uint32{64, 2, 1} {
		t.Errorf("LocalSizeWith %v", ls)
	}
	if ls := m.LocalSizeWith(nil); ls != [3]uint32{1, 2, 1} {
		t.Errorf("LocalSizeWith(nil) %v", ls)
	}
}

// TestRewrite renames the entry point and names, marks constants as
// having no default, and checks that reflection sees it all and that a
// second rewrite changes nothing more.
func TestRewrite(t *testing.T) {
	b, err := os.ReadFile("testdata/specconst.spv")
	if err != nil {
		t.Fatal(err)
	}
	r := Rewrites{
		EntryPoints: map[string]string{"main": "doubled"},
		Names:       map[string]string{"n": "count", "data": "values", "main": "never"},
		Required:    []uint32{4, 1, 4},
		Features:    []string{"uniformBufferStandardLayout", "", "uniformBufferStandardLayout"},
		SpecNames:   map[uint32]string{3: "wgx", 0: "not_scale"},
	}
	out, err := Rewrite(b, r)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Reflect(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.EntryPoints) != 1 || m.EntryPoints[0].Name != "doubled" || m.EntryPoints[0].LocalSizeSpecID != [3]int32{3, -1, -1} {
		t.Errorf("entry points %+v", m.EntryPoints)
	}
	if !reflect.DeepEqual(m.Features, []string{"uniformBufferStandardLayout"}) {
		t.Errorf("Features %q", m.Features)
	}
	if c := m.SpecConstant("count"); c == nil || c.ID != 1 || !c.Required {
		t.Errorf("count: %+v", c)
	}
	if c := m.SpecConstant("neg"); c == nil || !c.Required || c.String() != "neg (SpecId 4, int32, no default)" {
		t.Errorf("neg: %+v", c)
	}
	if c := m.SpecConstant("scale"); c == nil || c.Required {
		t.Errorf("scale: %+v", c)
	}
	// The unnamed constant of local_size_x_id = 3 is named; scale keeps
	// its name.
	if c := m.SpecConstant("wgx"); c == nil || c.ID != 3 || m.SpecConstant("not_scale") != nil {
		t.Errorf("wgx: %+v; constants %+v", c, m.SpecConstants)
	}
	if res := m.ResourceAt(0, 0); res == nil || len(res.Members) != 1 || res.Members[0].Name != "values" {
		t.Errorf("resource %+v", res)
	}
	w, _ := decodeWords(out)
	names := map[string]bool{}
	_ = instructions(w, func(_ int, in inst) {
		if in.op == OpName {
			s, _ := DecodeString(in.ops[1:])
			names[s] = true
		}
	})
	if !names["doubled"] || names["main"] || names["never"] {
		t.Errorf("OpNames %v", names)
	}
	again, err := Rewrite(out, r)
	if err != nil || !reflect.DeepEqual(again, out) {
		t.Errorf("a second rewrite changed the module: %v", err)
	}
	stripped, err := StripDebug(out)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := Reflect(stripped); m == nil || !m.SpecConstant("count").Required {
		t.Error("StripDebug dropped the marks")
	}
	if _, err := Rewrite([]byte{1, 2, 3}, r); err == nil {
		t.Error("Rewrite of garbage succeeded")
	}
	if os.Getenv("SPIRV_VAL") != "" {
		if err := os.WriteFile(os.Getenv("SPIRV_VAL"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpecConstantEncode(t *testing.T) {
	for _, c := range []struct {
		sc   SpecConstant
		v    float64
		bits uint64
		err  bool
	}{
		{SpecConstant{Type: ScalarBool, Bits: 32}, 1, 1, false},
		{SpecConstant{Type: ScalarBool, Bits: 32}, 2, 0, true},
		{SpecConstant{Type: ScalarInt, Bits: 32}, -3, 0xfffffffd, false},
		{SpecConstant{Type: ScalarInt, Bits: 32}, 2147483648, 0, true},
		{SpecConstant{Type: ScalarInt, Bits: 32}, -2147483648, 0x80000000, false},
		{SpecConstant{Type: ScalarUint, Bits: 32}, 4294967295, 0xffffffff, false},
		{SpecConstant{Type: ScalarUint, Bits: 32}, -1, 0, true},
		{SpecConstant{Type: ScalarUint, Bits: 32}, 1.5, 0, true},
		{SpecConstant{Type: ScalarInt, Bits: 64}, -1, ^uint64(0), false},
		{SpecConstant{Type: ScalarFloat, Bits: 32}, 1.5, 0x3fc00000, false},
		{SpecConstant{Type: ScalarFloat, Bits: 32}, 1e300, 0, true},
		{SpecConstant{Type: ScalarFloat, Bits: 64}, 1.5, 0x3ff8000000000000, false},
		{SpecConstant{Type: ScalarFloat, Bits: 16}, 1.5, 0x3e00, false},
		{SpecConstant{Type: ScalarFloat, Bits: 16}, 70000, 0, true},
	} {
		bits, err := c.sc.Encode(c.v)
		if (err != nil) != c.err || bits != c.bits {
			t.Errorf("%s Encode(%v) = %#x, %v", c.sc.TypeName(), c.v, bits, err)
		}
		if err == nil {
			if s := c.sc.Format(bits); s == "" {
				t.Errorf("Format(%#x) empty", bits)
			}
		}
	}
	if _, err := (SpecConstant{Name: "wg", Type: ScalarUint, Bits: 32}).Encode(-4); err == nil ||
		err.Error() != "-4 for wg (uint32): out of the range of uint32 [0, 4294967295]" {
		t.Errorf("error: %v", err)
	}
}
