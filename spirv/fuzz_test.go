package spirv

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

// spvWords builds a little-endian SPIR-V binary from a header and
// instructions given as (opcode, operands...) slices.
func spvWords(version, bound uint32, insts ...[]uint32) []byte {
	w := []uint32{spvMagic, version, 0, bound, 0}
	for _, in := range insts {
		w = append(w, uint32(len(in))<<16|in[0])
		w = append(w, in[1:]...)
	}
	return encodeWords(w)
}

func fuzzSeeds(f *testing.F) {
	// Compiled modules are checked the same way by package shader's
	// TestReflectRoundTrip; this package links no compiler.
	b, err := os.ReadFile("testdata/localsizeid.spv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	if sc, err := os.ReadFile("testdata/specconst.spv"); err == nil {
		f.Add(sc)
	}
	f.Add([]byte{})
	f.Add([]byte{0x03, 0x02, 0x23, 0x07})
	f.Add(spvWords(0x10000, 10))
	// A struct that contains itself, and a chain of nested structs.
	f.Add(spvWords(0x10300, 100,
		[]uint32{opTypeInt, 1, 32, 0},
		[]uint32{opTypeStruct, 2, 2, 1},
		[]uint32{opTypeStruct, 3, 2, 2, 2},
		[]uint32{opTypeStruct, 4, 3, 3, 3},
		[]uint32{OpTypePointer, 5, scStorageBuffer, 4},
		[]uint32{OpDecorate, 6, decBinding, 0},
		[]uint32{OpVariable, 5, 6, scStorageBuffer},
	))
	// A WorkgroupSize built-in and an array of descriptors.
	f.Add(spvWords(0x10000, 100,
		[]uint32{opEntryPoint, uint32(ModelGLCompute), 20, 0x6e69616d, 0},
		[]uint32{OpDecorate, 9, decBuiltIn, builtInWorkgroupSize},
		[]uint32{OpDecorate, 12, decDescriptorSet, 1},
		[]uint32{opTypeInt, 1, 32, 0},
		[]uint32{opConstant, 1, 2, 8},
		[]uint32{opTypeVector, 3, 1, 3},
		[]uint32{opConstantComposite, 3, 9, 2, 2, 2},
		[]uint32{opTypeSampler, 10},
		[]uint32{OpTypeArray, 11, 10, 2},
		[]uint32{OpTypePointer, 13, scUniformConstant, 11},
		[]uint32{OpVariable, 13, 12, scUniformConstant},
		[]uint32{opFunction, 1, 20, 0, 21},
		[]uint32{opLoad, 10, 22, 12},
		[]uint32{opFunctionEnd},
	))
}

func FuzzReflect(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Reflect(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		// Reflecting the normalised binary gives the same description.
		m2, err := Reflect(m.SPIRV)
		if err != nil {
			t.Fatalf("re-reflect: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-reflection differs:\n%+v\n%+v", m, m2)
		}
		for _, r := range m.Resources {
			if m.ResourceAt(r.Set, r.Binding) == nil || m.Resource(r.Name) == nil {
				t.Fatalf("lookup of %+v failed", r)
			}
		}
		_ = m.LocalSize()
		if w := m.Words(); len(w) != len(b)/4 || w[0] != spvMagic {
			t.Fatalf("Words: %d words, magic %#x", len(w), w[0])
		}
		// Stripping debug instructions keeps the module parseable.
		s, err := StripDebug(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Reflect(s); err != nil {
			t.Fatalf("stripped module: %v", err)
		}
		// Specialization constants: described, encoded, and a rewrite
		// keeps the module parseable and is idempotent.
		values := map[uint32]uint64{}
		for _, c := range m.SpecConstants {
			_ = c.String()
			if v, err := c.Encode(1); err == nil {
				values[c.ID] = v
			}
		}
		_ = m.LocalSizeWith(values)
		rw := Rewrites{EntryPoints: map[string]string{"main": "renamed"}, Names: map[string]string{"a": "bb"}, Required: []uint32{0, 3},
			Features: []string{"f"}, SpecNames: map[uint32]string{0: "s0", 3: "s3"}}
		r1, err := Rewrite(b, rw)
		if err != nil {
			t.Fatalf("Rewrite: %v", err)
		}
		if _, err := Reflect(r1); err != nil {
			t.Fatalf("rewritten module: %v", err)
		}
		if r2, err := Rewrite(r1, rw); err != nil || !reflect.DeepEqual(r1, r2) {
			t.Fatalf("a second rewrite changed the module: %v", err)
		}
	})
}

// TestReflectSeeds checks a few properties of the hand-made seeds.
func TestReflectSeeds(t *testing.T) {
	nested := spvWords(0x10300, 100,
		[]uint32{opTypeInt, 1, 32, 0},
		[]uint32{opTypeStruct, 2, 1, 1},
		[]uint32{opTypeStruct, 3, 2, 2},
		[]uint32{OpTypePointer, 5, scStorageBuffer, 3},
		[]uint32{OpDecorate, 6, decBinding, 7},
		[]uint32{OpVariable, 5, 6, scStorageBuffer},
	)
	m, err := Reflect(nested)
	if err != nil {
		t.Fatal(err)
	}
	// No entry points: every bound variable is listed. Without Offset
	// decorations members are packed.
	if len(m.Resources) != 1 || m.Resources[0].Binding != 7 || m.Resources[0].Size != 16 || m.Resources[0].Kind != StorageBuffer {
		t.Errorf("resources %+v", m.Resources)
	}
	// A deep chain of structs, each with two members of the one before,
	// takes linear time.
	insts := [][]uint32{{opTypeInt, 1, 32, 0}}
	for i := uint32(2); i < 200; i++ {
		insts = append(insts, []uint32{opTypeStruct, i, i - 1, i - 1})
	}
	insts = append(insts,
		[]uint32{OpTypePointer, 300, scUniform, 199},
		[]uint32{OpDecorate, 199, decBlock},
		[]uint32{OpDecorate, 301, decBinding, 0},
		[]uint32{OpVariable, 300, 301, scUniform})
	m, err = Reflect(spvWords(0x10300, 400, insts...))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Resources) != 1 || m.Resources[0].Kind != UniformBuffer {
		t.Errorf("resources %+v", m.Resources)
	}
}
