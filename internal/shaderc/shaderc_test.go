package shaderc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const hlslSrc = `RWStructuredBuffer<float> buf : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { buf[id.x] = SCALE * buf[id.x]; }
`

const glslSrc = `#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { float v[]; };
void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
`

func checkSPIRV(t *testing.T, b []byte) {
	t.Helper()
	if len(b) < 20 || len(b)%4 != 0 {
		t.Fatalf("SPIR-V length %d", len(b))
	}
	if m := binary.LittleEndian.Uint32(b); m != 0x07230203 {
		t.Fatalf("magic %#x", m)
	}
}

func TestCompileHLSL(t *testing.T) {
	for _, opt := range []Optimization{OptimizeNone, OptimizeSize, OptimizePerformance} {
		r, err := Compile([]byte(hlslSrc), &Options{
			Language: HLSL, Kind: Compute, Filename: "a.hlsl", Env: EnvVulkan1_1,
			Optimization: opt, Macros: []Macro{{"SCALE", "2.0"}},
		})
		if err != nil {
			t.Fatalf("opt %d: %v", opt, err)
		}
		checkSPIRV(t, r.SPIRV)
		if v := binary.LittleEndian.Uint32(r.SPIRV[4:]); v != 0x00010300 {
			t.Errorf("SPIR-V version %#x, want 1.3 for Vulkan 1.1", v)
		}
	}
}

func TestCompileGLSL(t *testing.T) {
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Compile([]byte(glslSrc), &Options{Language: GLSL, Kind: Compute, Env: EnvVulkan1_2})
	if err != nil {
		t.Fatal(err)
	}
	checkSPIRV(t, r.SPIRV)
	if v := binary.LittleEndian.Uint32(r.SPIRV[4:]); v != 0x00010500 {
		t.Errorf("SPIR-V version %#x, want 1.5 for Vulkan 1.2", v)
	}
}

func TestCompileError(t *testing.T) {
	_, err := Compile([]byte("#version 450\nvoid main() {\n  undefined_thing = 1;\n}\n"),
		&Options{Language: GLSL, Kind: Compute, Filename: "bad.comp"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	if e.Status != StatusCompilationError || e.Errors == 0 {
		t.Errorf("status %v errors %d", e.Status, e.Errors)
	}
	if !strings.Contains(e.Log, "bad.comp:3: error:") {
		t.Errorf("log %q lacks bad.comp:3: error:", e.Log)
	}
}

func TestWarnings(t *testing.T) {
	src := "#version 450\n#extension GL_FOO_bar : warn\nlayout(local_size_x=1) in;\nvoid main() {}\n"
	r, err := Compile([]byte(src), &Options{Language: GLSL, Kind: Compute, Filename: "w.comp"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Warnings == 0 || !strings.Contains(r.Log, "w.comp:2: warning:") {
		t.Errorf("warnings %d log %q", r.Warnings, r.Log)
	}
	_, err = Compile([]byte(src), &Options{Language: GLSL, Kind: Compute, Filename: "w.comp", WarningsAsErrors: true})
	if err == nil {
		t.Error("warnings as errors: no error")
	}
}

func TestInclude(t *testing.T) {
	files := map[string]string{
		"/inc/common.hlsli": "#include \"scale.hlsli\"\n",
		"/inc/scale.hlsli":  "#define SCALE 3.0\n",
	}
	var calls []string
	inc := func(req string, typ IncludeType, from string, depth int) (string, []byte, error) {
		calls = append(calls, fmt.Sprintf("%s|%d|%s|%d", req, typ, from, depth))
		name := "/inc/" + req
		s, ok := files[name]
		if !ok {
			return "", nil, fmt.Errorf("no such file %q", req)
		}
		return name, []byte(s), nil
	}
	src := "#include <common.hlsli>\n" + hlslSrc
	if _, err := Compile([]byte(src), &Options{Language: HLSL, Filename: "main.hlsl", Include: inc}); err != nil {
		t.Fatal(err)
	}
	want := []string{"common.hlsli|1|main.hlsl|1", "scale.hlsli|0|/inc/common.hlsli|2"}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("include calls %q, want %q", calls, want)
	}
	_, err := Compile([]byte("#include \"missing.h\"\n"+hlslSrc), &Options{Language: HLSL, Filename: "main.hlsl", Include: inc})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing include: %v", err)
	}
	_, err = Compile([]byte("#include \"missing.h\"\n"+hlslSrc), &Options{Language: HLSL, Filename: "main.hlsl"})
	if err == nil {
		t.Error("include without resolver: no error")
	}
}

func TestBadKind(t *testing.T) {
	if _, err := Compile(nil, &Options{Kind: Kind(99)}); err == nil {
		t.Error("no error for unknown kind")
	}
	if _, err := Compile(nil, &Options{Language: Language(7)}); err == nil {
		t.Error("no error for unknown language")
	}
}

func TestEmptySource(t *testing.T) {
	for _, src := range []string{"", " \n\t"} {
		if _, err := Compile([]byte(src), &Options{Language: GLSL}); err == nil {
			t.Errorf("empty GLSL %q compiled", src)
		}
	}
}

func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, lang := glslSrc, GLSL
			if i%2 == 0 {
				src, lang = strings.ReplaceAll(hlslSrc, "SCALE", "2.0"), HLSL
			}
			if _, err := Compile([]byte(src), &Options{Language: lang, Env: EnvVulkan1_1}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseTwice(t *testing.T) {
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Close()
	if _, err := c.Compile([]byte(glslSrc), nil); err == nil {
		t.Error("closed compiler compiled")
	}
}

func TestVersion(t *testing.T) {
	v := Version()
	if !strings.Contains(v, "glslang") || !strings.Contains(v, "SPIRV-Tools") {
		t.Errorf("Version() = %q", v)
	}
	t.Log(v)
}

func TestPreprocess(t *testing.T) {
	r, err := Preprocess([]byte("#define WG 64\n[numthreads(WG, 1, 1)] void main() {}\n"), &Options{Language: HLSL})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(r.SPIRV); !strings.Contains(s, "numthreads(64") || strings.Count(s, "\n") < 2 {
		t.Errorf("preprocessed text %q", s)
	}
}
