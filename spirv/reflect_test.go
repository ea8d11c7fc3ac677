package spirv

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

func TestLocalSizeID(t *testing.T) {
	b, err := os.ReadFile("testdata/localsizeid.spv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Reflect(b)
	if err != nil {
		t.Fatal(err)
	}
	ep := m.EntryPoint("main")
	if ep == nil || ep.LocalSize != [3]uint32{32, 2, 1} || ep.LocalSizeSpecID != [3]int32{-1, 5, 9} {
		t.Fatalf("entry point %+v", ep)
	}
	want := Resource{Name: "buf", TypeName: "Buf", Kind: StorageBuffer, Set: 4, Binding: 2, ArraySize: 1,
		Stride: 8, Members: []Member{{Name: "data"}}}
	if r := m.ResourceAt(4, 2); r == nil || !reflect.DeepEqual(*r, want) {
		t.Errorf("resource %+v, want %+v", r, want)
	}
	if m.Version.String() != "1.6" {
		t.Errorf("version %v", m.Version)
	}
}

// TestStripDebug strips a module with every kind of debug instruction and
// checks what is left: names kept, OpSource cut to its language and
// version, the rest gone; a NonSemantic module unchanged.
func TestStripDebug(t *testing.T) {
	name := func(id uint32, s string) []uint32 {
		w := []uint32{OpName, id}
		b := append([]byte(s), make([]byte, 4-len(s)%4)...)
		for i := 0; i < len(b); i += 4 {
			w = append(w, uint32(b[i])|uint32(b[i+1])<<8|uint32(b[i+2])<<16|uint32(b[i+3])<<24)
		}
		return w
	}
	in := spvWords(0x10300, 20,
		[]uint32{opString, 1, 0x612e61},         // "a.a"
		[]uint32{opSource, 5, 450, 1, 0x746f6f}, // GLSL 450, file 1, text "oot"
		[]uint32{opSourceContinued, 0x6161},
		name(6, "buf"),
		[]uint32{opModuleProcessed, 0x6f},
		[]uint32{opTypeInt, 2, 32, 0},
		[]uint32{opLine, 1, 3, 4},
		[]uint32{opNoLine},
	)
	want := spvWords(0x10300, 20,
		[]uint32{opSource, 5, 450},
		name(6, "buf"),
		[]uint32{opTypeInt, 2, 32, 0},
	)
	got, err := StripDebug(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stripped\n got %x\nwant %x", got, want)
	}
	// Idempotent.
	if again, err := StripDebug(got); err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("stripping twice: %x, %v", again, err)
	}
	// A module importing a NonSemantic set keeps its strings.
	ns := spvWords(0x10300, 20, name(1, "x"), append([]uint32{opExtInstImport, 3}, name(0, "NonSemantic.Shader")[2:]...),
		[]uint32{opString, 4, 0x61})
	if got, err := StripDebug(ns); err != nil || !reflect.DeepEqual(got, ns) {
		t.Errorf("NonSemantic module changed: %v", err)
	}
	// Malformed input is an error, not a silent copy.
	bad := append([]byte(nil), in...)
	bad[len(bad)-2] = 5 // OpNoLine claims 5 words
	if _, err := StripDebug(bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("truncated instruction: %v", err)
	}
	if _, err := StripDebug([]byte{1, 2, 3, 4}); !errors.Is(err, ErrInvalid) {
		t.Errorf("garbage: %v", err)
	}
}
