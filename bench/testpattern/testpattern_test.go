package testpattern

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
)

// TestGeneratedUpToDate compiles Shader as gen.go does (same options) and
// checks that shader_gen.go holds that module: run
// go generate ./bench/testpattern after changing testpattern.comp. With
// another compiler version the SPIR-V may differ legitimately, so the
// comparison is skipped there. (Package tensorpass's test checks the
// pattern's texels on a real device.)
func TestGeneratedUpToDate(t *testing.T) {
	if c := shader.CompilerVersion(); c != compiler {
		t.Skipf("compiler here is %q, shader_gen.go was made by %q", c, compiler)
	}
	m, err := shader.Compile([]byte(Shader), shader.Options{Language: shader.GLSL, Filename: "testpattern.comp", Optimize: true, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := base64.StdEncoding.DecodeString(module)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, m.SPIRV) {
		t.Error("shader_gen.go is not what testpattern.comp compiles to: run go generate ./bench/testpattern")
	}
}

func TestPush(t *testing.T) {
	b := Push(0x04030201, 0x08070605, 0x0c0b0a09)
	if !bytes.Equal(b, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {
		t.Errorf("Push = %v", b)
	}
}
