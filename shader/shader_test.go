package shader

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// TestMain points the default cache at a temporary directory, so that tests
// and examples that do not set Options.CacheDir leave the user's cache
// alone.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gfxcuda-shader-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("GFXCUDA_CACHE_DIR", dir)
	os.Unsetenv("GFXCUDA_SHADER_CACHE")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func mustCompileFile(t *testing.T, path string, opts Options) *Module {
	t.Helper()
	m, err := CompileFile(path, opts)
	if err != nil {
		t.Fatalf("CompileFile(%s): %v", path, err)
	}
	return m
}

var wantHLSL = []Resource{
	{Name: "particles", TypeName: "particles", Kind: StorageBuffer, Set: 0, Binding: 0, ArraySize: 1,
		Stride: 16, Members: []Member{{Name: "@data"}}},
	{Name: "inputs", TypeName: "inputs", Kind: StorageBuffer, Set: 0, Binding: 1, ArraySize: 1, ReadOnly: true,
		Stride: 16, Members: []Member{{Name: "@data"}}},
	{Name: "raw", TypeName: "raw", Kind: StorageBuffer, Set: 0, Binding: 2, ArraySize: 1, ReadOnly: true,
		Stride: 4, Members: []Member{{Name: "@data"}}},
	{Name: "rawOut", TypeName: "rawOut", Kind: StorageBuffer, Set: 0, Binding: 3, ArraySize: 1,
		Stride: 4, Members: []Member{{Name: "@data"}}},
	{Name: "Params", TypeName: "Params", Kind: UniformBuffer, Set: 0, Binding: 4, ArraySize: 1, ReadOnly: true,
		Size: 72, Members: []Member{{Name: "xform", Offset: 0, Size: 64}, {Name: "scale", Offset: 64, Size: 4}, {Name: "count", Offset: 68, Size: 4}}},
	{Name: "tb", Kind: UniformTexelBuffer, Binding: 5, ArraySize: 1, ReadOnly: true,
		Dim: DimBuffer, Format: FormatRgba32f, SampledType: ScalarFloat},
	{Name: "rwtb", Kind: StorageTexelBuffer, Binding: 6, ArraySize: 1,
		Dim: DimBuffer, Format: FormatR32ui, SampledType: ScalarUint},
	{Name: "t1d", Kind: SampledImage, Binding: 7, ArraySize: 1, ReadOnly: true, Dim: Dim1D, SampledType: ScalarFloat},
	{Name: "t2d", Kind: SampledImage, Binding: 8, ArraySize: 1, ReadOnly: true, Dim: Dim2D, SampledType: ScalarFloat},
	{Name: "t3d", Kind: SampledImage, Binding: 9, ArraySize: 1, ReadOnly: true, Dim: Dim3D, SampledType: ScalarUint},
	{Name: "outImg", Kind: StorageImage, Binding: 10, ArraySize: 1, Dim: Dim2D, Format: FormatRgba32f, SampledType: ScalarFloat},
	{Name: "samp", Kind: Sampler, Binding: 11, ArraySize: 1, ReadOnly: true},
	{Name: "t2da", Kind: SampledImage, Set: 1, Binding: 12, ArraySize: 1, ReadOnly: true, Dim: Dim2D, Arrayed: true, SampledType: ScalarFloat},
	{Name: "texs", Kind: SampledImage, Set: 2, Binding: 3, ArraySize: 4, ReadOnly: true, Dim: Dim2D, SampledType: ScalarFloat},
}

var wantHLSLPush = &PushConstantBlock{Name: "pc", TypeName: "pc", Offset: 0, Size: 12,
	Members: []Member{{Name: "offset", Offset: 0, Size: 8}, {Name: "flags", Offset: 8, Size: 4}}}

var wantGLSL = []Resource{
	{Name: "data", TypeName: "Data", Kind: StorageBuffer, Set: 0, Binding: 0, ArraySize: 1,
		Size: 16, Stride: 32, Members: []Member{{Name: "count", Offset: 0, Size: 4}, {Name: "items", Offset: 16, Size: 0}}},
	{Name: "Inp", TypeName: "Inp", Kind: StorageBuffer, Set: 0, Binding: 1, ArraySize: 1, ReadOnly: true,
		Stride: 4, Members: []Member{{Name: "vals", Offset: 0, Size: 0}}},
	{Name: "ubo", TypeName: "UBO", Kind: UniformBuffer, Set: 0, Binding: 2, ArraySize: 1, ReadOnly: true,
		Size: 112, Members: []Member{{Name: "m", Offset: 0, Size: 48}, {Name: "c", Offset: 48, Size: 12}, {Name: "arr", Offset: 64, Size: 48}}},
	{Name: "img", Kind: StorageImage, Set: 1, Binding: 0, ArraySize: 1, WriteOnly: true,
		Dim: Dim2D, Format: FormatRgba8, SampledType: ScalarFloat},
	{Name: "tex", Kind: CombinedImageSampler, Set: 1, Binding: 1, ArraySize: 1, ReadOnly: true, Dim: Dim2D, SampledType: ScalarFloat},
	{Name: "vol", Kind: StorageImage, Set: 1, Binding: 2, ArraySize: 1, ReadOnly: true,
		Dim: Dim3D, Format: FormatR32f, SampledType: ScalarFloat},
	{Name: "sepTex", Kind: SampledImage, Set: 1, Binding: 3, ArraySize: 1, ReadOnly: true, Dim: Dim2D, SampledType: ScalarFloat},
	{Name: "sepSamp", Kind: Sampler, Set: 1, Binding: 4, ArraySize: 1, ReadOnly: true},
	{Name: "utb", Kind: UniformTexelBuffer, Set: 1, Binding: 5, ArraySize: 1, ReadOnly: true, Dim: DimBuffer, SampledType: ScalarFloat},
	{Name: "stb", Kind: StorageTexelBuffer, Set: 1, Binding: 6, ArraySize: 1,
		Dim: DimBuffer, Format: FormatR32ui, SampledType: ScalarUint},
	{Name: "texArr", Kind: CombinedImageSampler, Set: 2, Binding: 0, ArraySize: 3, ReadOnly: true, Dim: Dim2D, SampledType: ScalarFloat},
}

var wantGLSLPush = &PushConstantBlock{Name: "pc", TypeName: "Push", Offset: 0, Size: 76,
	Members: []Member{{Name: "mvp", Offset: 0, Size: 64}, {Name: "scale", Offset: 64, Size: 8}, {Name: "n", Offset: 72, Size: 4}}}

func checkResources(t *testing.T, m *Module, want []Resource) {
	t.Helper()
	if len(m.Resources) != len(want) {
		var names []string
		for _, r := range m.Resources {
			names = append(names, r.Name)
		}
		t.Errorf("got %d resources %v, want %d", len(m.Resources), names, len(want))
	}
	for i := range want {
		w := &want[i]
		got := m.ResourceAt(w.Set, w.Binding)
		if got == nil {
			t.Errorf("no resource at set %d binding %d (%s)", w.Set, w.Binding, w.Name)
			continue
		}
		if !reflect.DeepEqual(*got, *w) {
			t.Errorf("resource %s:\n got %+v\nwant %+v", w.Name, *got, *w)
		}
		if byName := m.Resource(w.Name); byName != got {
			t.Errorf("Resource(%q) = %+v, want the one at (%d,%d)", w.Name, byName, w.Set, w.Binding)
		}
	}
}

func TestReflectHLSL(t *testing.T) {
	for _, opt := range []bool{false, true} {
		t.Run(fmt.Sprintf("optimize=%v", opt), func(t *testing.T) {
			m := mustCompileFile(t, "testdata/all.hlsl", Options{Optimize: opt, NoCache: true, FlatRegisters: true})
			if m.Version != 0x00010300 || m.Version.String() != "1.3" {
				t.Errorf("version %v (%#x), want 1.3", m.Version, uint32(m.Version))
			}
			want := []EntryPoint{{Name: "main", Model: ModelGLCompute, LocalSize: [3]uint32{8, 4, 2}, LocalSizeSpecID: [3]int32{-1, -1, -1}}}
			if !reflect.DeepEqual(m.EntryPoints, want) {
				t.Errorf("entry points %+v, want %+v", m.EntryPoints, want)
			}
			if ls := m.LocalSize(); ls != [3]uint32{8, 4, 2} {
				t.Errorf("LocalSize() = %v", ls)
			}
			checkResources(t, m, wantHLSL)
			if !reflect.DeepEqual(m.PushConstants, wantHLSLPush) {
				t.Errorf("push constants %+v, want %+v", m.PushConstants, wantHLSLPush)
			}
			if len(m.Warnings) != 0 {
				t.Errorf("warnings: %v", m.Warnings)
			}
			// The cbuffer is found by its type name too.
			if r := m.Resource("Params"); r == nil || r.Binding != 4 {
				t.Errorf("Resource(Params) = %+v", r)
			}
		})
	}
}

func TestReflectGLSL(t *testing.T) {
	for _, opt := range []bool{false, true} {
		t.Run(fmt.Sprintf("optimize=%v", opt), func(t *testing.T) {
			m := mustCompileFile(t, "testdata/all.comp", Options{Optimize: opt, NoCache: true})
			want := []EntryPoint{{Name: "main", Model: ModelGLCompute, LocalSize: [3]uint32{16, 8, 1}, LocalSizeSpecID: [3]int32{-1, -1, -1}}}
			if !reflect.DeepEqual(m.EntryPoints, want) {
				t.Errorf("entry points %+v, want %+v", m.EntryPoints, want)
			}
			checkResources(t, m, wantGLSL)
			if !reflect.DeepEqual(m.PushConstants, wantGLSLPush) {
				t.Errorf("push constants %+v, want %+v", m.PushConstants, wantGLSLPush)
			}
			// The statically unused buffer at set 3 is left out.
			if r := m.ResourceAt(3, 0); r != nil {
				t.Errorf("unused buffer reflected: %+v", r)
			}
			// Blocks are found by block (type) name as well as instance name.
			if r := m.Resource("Data"); r == nil || r.Name != "data" {
				t.Errorf("Resource(Data) = %+v", r)
			}
			if m.Resource("nonexistent") != nil || m.ResourceAt(9, 9) != nil {
				t.Error("lookup of a missing resource returned one")
			}
		})
	}
}

func TestSpecConstantLocalSize(t *testing.T) {
	m := mustCompileFile(t, "testdata/spec.comp", Options{NoCache: true})
	ep := m.EntryPoint("main")
	if ep == nil {
		t.Fatal("no entry point main")
	}
	// glslang gives local_size_*_id their own spec constants, defaulting
	// to 1, apart from the constant_id constants declared with the same IDs.
	if ep.LocalSize != [3]uint32{1, 4, 1} || ep.LocalSizeSpecID != [3]int32{3, -1, 7} {
		t.Errorf("LocalSize %v spec IDs %v, want [1 4 1] [3 -1 7]", ep.LocalSize, ep.LocalSizeSpecID)
	}
}

func TestVertexStage(t *testing.T) {
	m := mustCompileFile(t, "testdata/tri.vert", Options{NoCache: true})
	if len(m.EntryPoints) != 1 || m.EntryPoints[0].Model != ModelVertex {
		t.Fatalf("entry points %+v", m.EntryPoints)
	}
	if m.LocalSize() != [3]uint32{} {
		t.Errorf("vertex shader has a local size %v", m.LocalSize())
	}
	r := m.Resource("cam")
	if r == nil || r.Kind != UniformBuffer || r.Size != 64 || r.TypeName != "Camera" {
		t.Errorf("cam = %+v", r)
	}
}

func TestEntryPointAndDefines(t *testing.T) {
	src := `RWStructuredBuffer<uint> o : register(u0);
[numthreads(WGX, 1, 1)] void mymain(uint3 id : SV_DispatchThreadID) { o[id.x] = VALUE; }`
	m, err := Compile([]byte(src), Options{Language: HLSL, EntryPoint: "mymain", NoCache: true,
		Defines: map[string]string{"WGX": "256", "VALUE": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	if ep := m.EntryPoint("mymain"); ep == nil || ep.LocalSize != [3]uint32{256, 1, 1} {
		t.Errorf("entry point %+v", m.EntryPoints)
	}
	// A define with an empty value is defined, as with -DNAME=.
	src2 := "#ifndef FLAG\n#error FLAG not defined\n#endif\n" + strings.ReplaceAll(src, "WGX", "1")
	if _, err := Compile([]byte(src2), Options{Language: HLSL, EntryPoint: "mymain", NoCache: true,
		Defines: map[string]string{"FLAG": "", "VALUE": "1"}}); err != nil {
		t.Errorf("empty define: %v", err)
	}
}

func TestCompileError(t *testing.T) {
	_, err := CompileFile("testdata/bad.hlsl", Options{NoCache: true})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v (%T), want *CompileError", err, err)
	}
	errs := ce.Errors()
	if len(errs) == 0 {
		t.Fatalf("no error diagnostics in %q", ce.Log)
	}
	d := errs[0]
	if d.File != "testdata/bad.hlsl" || d.Line != 6 || !strings.Contains(d.Message, "undefinedVariable") {
		t.Errorf("first diagnostic %+v, want testdata/bad.hlsl line 6 about undefinedVariable", d)
	}
	if !strings.HasPrefix(err.Error(), "testdata/bad.hlsl:6: ") {
		t.Errorf("Error() = %q", err.Error())
	}
	for _, d := range ce.Diagnostics {
		if strings.Contains(d.Message, "compilation terminated") || strings.Contains(d.Message, "generated") {
			t.Errorf("noise diagnostic kept: %+v", d)
		}
	}
}

func TestCompileErrorInInclude(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "helper.hlsli"), []byte("float f() {\n  return nope;\n}\n"), 0o644)
	main := filepath.Join(dir, "main.hlsl")
	os.WriteFile(main, []byte("#include \"helper.hlsli\"\nRWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() { b[0] = f(); }\n"), 0o644)
	_, err := CompileFile(main, Options{NoCache: true})
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Errors()) == 0 {
		t.Fatalf("err = %v", err)
	}
	d := ce.Errors()[0]
	if d.File != filepath.Join(dir, "helper.hlsli") || d.Line != 2 {
		t.Errorf("diagnostic %+v, want %s line 2", d, filepath.Join(dir, "helper.hlsli"))
	}
}

func TestMissingInclude(t *testing.T) {
	_, err := Compile([]byte("#include <nothere.h>\n[numthreads(1,1,1)] void main() {}"), Options{Language: HLSL, NoCache: true, Filename: "x.hlsl"})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "nothere.h") {
		t.Fatalf("err = %v", err)
	}
}

func TestIncludes(t *testing.T) {
	opts := Options{IncludeDirs: []string{"testdata/incdir"}, NoCache: true}
	m := mustCompileFile(t, "testdata/inc/main.hlsl", opts)
	if m.LocalSize() != [3]uint32{128, 1, 1} {
		t.Errorf("LocalSize %v, want [128 1 1] from common.hlsli", m.LocalSize())
	}
	// Without the include directory, <lib.hlsli> cannot be found.
	_, err := CompileFile("testdata/inc/main.hlsl", Options{NoCache: true})
	if err == nil || !strings.Contains(err.Error(), "lib.hlsli") {
		t.Errorf("err = %v, want one about lib.hlsli", err)
	}
}

func TestWarnings(t *testing.T) {
	src := "#version 450\n#extension GL_FOO_bar : warn\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
	dir := t.TempDir()
	m, err := Compile([]byte(src), Options{Filename: "w.comp", CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) == 0 || m.Warnings[0].Severity != SeverityWarning || m.Warnings[0].Line != 2 || m.Warnings[0].File != "w.comp" {
		t.Fatalf("warnings %+v", m.Warnings)
	}
	// A cache hit brings the warnings back, under the current file name.
	m2, err := Compile([]byte(src), Options{Filename: "other.comp", CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !m2.Cached || len(m2.Warnings) != len(m.Warnings) || m2.Warnings[0].File != "other.comp" {
		t.Errorf("cached: %v warnings %+v", m2.Cached, m2.Warnings)
	}
}

func TestLanguageDetection(t *testing.T) {
	hlsl := []byte("RWStructuredBuffer<uint> o;\n[numthreads(1,1,1)] void main() { o[0] = 1; }\n")
	glsl := []byte("#version 450\nlayout(local_size_x=1) in;\nvoid main() {}\n")
	cases := []struct {
		src      []byte
		filename string
		lang     Language
		ok       bool
	}{
		{hlsl, "x.hlsl", HLSL, true},
		{hlsl, "x.HLSLI", HLSL, true},
		{glsl, "x.glsl", GLSL, true},
		{glsl, "x.comp", GLSL, true},
		{hlsl, "", HLSL, true},
		{glsl, "", GLSL, true},
		{glsl, "shader.txt", GLSL, true},
		{[]byte("void main() {}"), "", 0, false},
	}
	for _, c := range cases {
		lang, err := detectLanguage(c.src, Options{Filename: c.filename})
		if (err == nil) != c.ok || (c.ok && lang != c.lang) {
			t.Errorf("detectLanguage(%q) = %v, %v; want %v ok=%v", c.filename, lang, err, c.lang, c.ok)
		}
		if c.ok {
			if _, err := Compile(c.src, Options{Filename: c.filename, NoCache: true}); err != nil {
				t.Errorf("Compile(%q): %v", c.filename, err)
			}
		}
	}
	if _, err := Compile(hlsl, Options{Language: Language(42)}); err == nil {
		t.Error("unknown language accepted")
	}
	if _, err := Compile(hlsl, Options{Language: HLSL, Stage: Stage(42)}); err == nil {
		t.Error("unknown stage accepted")
	}
	if _, err := Compile([]byte("  \n"), Options{Language: HLSL}); err == nil {
		t.Error("empty source accepted")
	}
}

func TestSPIRVInput(t *testing.T) {
	m := mustCompileFile(t, "testdata/all.comp", Options{NoCache: true})
	dir := t.TempDir()
	spv := filepath.Join(dir, "all.spv")
	if err := os.WriteFile(spv, m.SPIRV, 0o644); err != nil {
		t.Fatal(err)
	}
	before := compilerRuns.Load()
	m2, err := CompileFile(spv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if compilerRuns.Load() != before {
		t.Error("SPIR-V input ran the compiler")
	}
	checkResources(t, m2, wantGLSL)
	// The magic number is recognised whatever the file is called.
	if _, err := Compile(m.SPIRV, Options{Filename: "x.hlsl"}); err != nil {
		t.Error(err)
	}
	if _, err := Compile(m.SPIRV, Options{EntryPoint: "nothere"}); err == nil {
		t.Error("missing entry point accepted")
	}

	// Big-endian SPIR-V is accepted and returned little-endian.
	be := make([]byte, len(m.SPIRV))
	for i := 0; i < len(be); i += 4 {
		be[i], be[i+1], be[i+2], be[i+3] = m.SPIRV[i+3], m.SPIRV[i+2], m.SPIRV[i+1], m.SPIRV[i]
	}
	m3, err := Compile(be, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(m3.SPIRV) != string(m.SPIRV) {
		t.Error("big-endian input not normalised")
	}
	w := m.Words()
	if w[0] != 0x07230203 || len(w) != len(m.SPIRV)/4 {
		t.Errorf("Words() = %#x..., %d words", w[0], len(w))
	}

	bad := func(name string, mutate func(b []byte) []byte) {
		b := mutate(append([]byte(nil), m.SPIRV...))
		if _, err := Compile(b, Options{Language: SPIRV}); !errors.Is(err, ErrInvalidSPIRV) {
			t.Errorf("%s: err = %v, want ErrInvalidSPIRV", name, err)
		}
	}
	bad("short", func(b []byte) []byte { return b[:16] })
	bad("odd length", func(b []byte) []byte { return b[:len(b)-1] })
	bad("magic", func(b []byte) []byte { b[0] = 0; return b })
	bad("version 2.0", func(b []byte) []byte { b[6] = 2; return b })
	bad("version 1.9", func(b []byte) []byte { b[5] = 9; return b })
	bad("bound 0", func(b []byte) []byte { copy(b[12:], []byte{0, 0, 0, 0}); return b })
	bad("bound huge", func(b []byte) []byte { copy(b[12:], []byte{0, 0, 0, 0x7f}); return b })
	bad("schema", func(b []byte) []byte { b[16] = 1; return b })
	bad("truncated instruction", func(b []byte) []byte { b[len(b)-2] = 2; return b })
	bad("zero word count", func(b []byte) []byte { copy(b[20:], []byte{0, 0, 0, 0}); return b })
}

func TestConcurrentCompile(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			file := []string{"testdata/all.hlsl", "testdata/all.comp"}[i%2]
			m, err := CompileFile(file, Options{CacheDir: dir, Optimize: i%4 < 2, NoCache: i%3 == 0})
			if err != nil {
				errs <- err
				return
			}
			want := [][]Resource{wantHLSL, wantGLSL}[i%2]
			if len(m.Resources) != len(want) {
				errs <- fmt.Errorf("%s: %d resources", file, len(m.Resources))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStripDebug checks that an optimised module carries no debug
// instructions beyond names: stripping it again changes nothing. Package
// spirv tests StripDebug itself.
func TestStripDebug(t *testing.T) {
	m := mustCompileFile(t, "testdata/all.hlsl", Options{Optimize: true, NoCache: true})
	again, err := spirv.StripDebug(m.SPIRV)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, m.SPIRV) {
		t.Errorf("optimized module keeps debug instructions: %d bytes, %d stripped", len(m.SPIRV), len(again))
	}
	if m.Resource("params") == nil && m.Resource("Params") == nil {
		t.Error("stripping lost the resource names")
	}
	unopt := mustCompileFile(t, "testdata/all.hlsl", Options{NoCache: true})
	t.Logf("SPIR-V size: %d bytes unoptimised, %d optimised", len(unopt.SPIRV), len(m.SPIRV))
}

// TestReflectRoundTrip reflects every compiled test module again from its
// binary, as package spirv's fuzz test does for hand-made ones: the same
// description, lookups that find each resource, and a module that stays
// parseable once stripped.
func TestReflectRoundTrip(t *testing.T) {
	for name, m := range allModules(t) {
		for _, b := range [][]byte{m.SPIRV, m.SPIRV[:len(m.SPIRV)/2]} {
			r, err := spirv.Reflect(b)
			if err != nil {
				if !errors.Is(err, spirv.ErrInvalid) {
					t.Errorf("%s: error %v does not wrap spirv.ErrInvalid", name, err)
				}
				continue
			}
			r2, err := spirv.Reflect(r.SPIRV)
			if err != nil || !reflect.DeepEqual(r, r2) {
				t.Errorf("%s: re-reflection differs (%v)", name, err)
			}
			for _, res := range r.Resources {
				if r.ResourceAt(res.Set, res.Binding) == nil || r.Resource(res.Name) == nil {
					t.Errorf("%s: lookup of %+v failed", name, res)
				}
			}
			s, err := spirv.StripDebug(b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := spirv.Reflect(s); err != nil {
				t.Errorf("%s: stripped module: %v", name, err)
			}
		}
		want := *m
		want.Warnings, want.Cached = nil, false
		if r, err := spirv.Reflect(m.SPIRV); err != nil || !reflect.DeepEqual(*r, want) {
			t.Errorf("%s: spirv.Reflect differs from Compile's reflection (%v)", name, err)
		}
	}
}

// tool returns the path of an external program or skips the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

func allModules(t *testing.T) map[string]*Module {
	t.Helper()
	mods := map[string]*Module{}
	for _, f := range []string{"testdata/all.hlsl", "testdata/all.comp", "testdata/spec.comp", "testdata/tri.vert", "testdata/inc/main.hlsl"} {
		for _, opt := range []bool{false, true} {
			mods[fmt.Sprintf("%s optimize=%v", f, opt)] = mustCompileFile(t, f,
				Options{Optimize: opt, NoCache: true, IncludeDirs: []string{"testdata/incdir"}})
		}
	}
	return mods
}

func TestSPIRVVal(t *testing.T) {
	val := tool(t, "spirv-val")
	dir := t.TempDir()
	for name, m := range allModules(t) {
		f := filepath.Join(dir, "m.spv")
		if err := os.WriteFile(f, m.SPIRV, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(val, "--target-env", "vulkan1.1", f).CombinedOutput()
		if err != nil {
			t.Errorf("%s: spirv-val: %v\n%s", name, err, out)
		}
	}
}

// TestCrossCheckDisassembly compares reflection with what spirv-dis prints:
// every reflected resource's set, binding and variable name, and each entry
// point's LocalSize execution mode.
func TestCrossCheckDisassembly(t *testing.T) {
	dis := tool(t, "spirv-dis")
	nameRE := regexp.MustCompile(`^\s*OpName %(\d+) "(.*)"$`)
	decoRE := regexp.MustCompile(`^\s*OpDecorate %(\d+) (Binding|DescriptorSet) (\d+)$`)
	lsRE := regexp.MustCompile(`^\s*OpExecutionMode %\d+ LocalSize (\d+) (\d+) (\d+)$`)
	dir := t.TempDir()
	for name, m := range allModules(t) {
		f := filepath.Join(dir, "m.spv")
		if err := os.WriteFile(f, m.SPIRV, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(dis, "--raw-id", "--no-color", f).Output()
		if err != nil {
			t.Fatalf("%s: spirv-dis: %v", name, err)
		}
		names := map[string]string{}
		type sb struct{ set, binding int }
		binds := map[string]*sb{}
		var localSize []string
		for _, line := range strings.Split(string(out), "\n") {
			if mm := nameRE.FindStringSubmatch(line); mm != nil {
				names[mm[1]] = mm[2]
			}
			if mm := decoRE.FindStringSubmatch(line); mm != nil {
				b := binds[mm[1]]
				if b == nil {
					b = &sb{}
					binds[mm[1]] = b
				}
				v, _ := strconv.Atoi(mm[3])
				if mm[2] == "Binding" {
					b.binding = v
				} else {
					b.set = v
				}
			}
			if mm := lsRE.FindStringSubmatch(line); mm != nil {
				localSize = mm[1:]
			}
		}
		disByBinding := map[sb]string{}
		for id, b := range binds {
			disByBinding[*b] = names[id]
		}
		for _, r := range m.Resources {
			varName, ok := disByBinding[sb{int(r.Set), int(r.Binding)}]
			if !ok {
				t.Errorf("%s: %s at (%d,%d) not in the disassembly", name, r.Name, r.Set, r.Binding)
			} else if varName != "" && varName != r.Name {
				t.Errorf("%s: disassembly names (%d,%d) %q, reflection %q", name, r.Set, r.Binding, varName, r.Name)
			}
		}
		if extra := len(disByBinding) - len(m.Resources); extra != 0 && !(strings.HasPrefix(name, "testdata/all.comp") && extra == 1) {
			t.Errorf("%s: disassembly has %d bound variables, reflection %d", name, len(disByBinding), len(m.Resources))
		}
		if localSize != nil {
			want := fmt.Sprint(localSize)
			if got := fmt.Sprint(m.EntryPoints[0].LocalSize); m.EntryPoints[0].LocalSizeSpecID == [3]int32{-1, -1, -1} && got != want {
				t.Errorf("%s: LocalSize %s, disassembly %s", name, got, want)
			}
		}
	}
}

// TestSelfContained checks that the test binary does not depend on a
// shared shaderc, glslang or SPIRV-Tools library.
func TestSelfContained(t *testing.T) {
	ldd := tool(t, "ldd")
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(ldd, exe).CombinedOutput()
	if err != nil {
		t.Skipf("ldd: %v: %s", err, out)
	}
	for _, lib := range []string{"shaderc", "glslang", "SPIRV", "SPIRV-Tools"} {
		if strings.Contains(string(out), lib) {
			t.Errorf("binary links %s dynamically:\n%s", lib, out)
		}
	}
	t.Logf("ldd:\n%s", out)
}

func TestParseDiagnostics(t *testing.T) {
	log := "a.hlsl:3: error: 'x' : undeclared identifier\n" +
		"a.hlsl:3: error: '' : compilation terminated \n" +
		"dir/b.glsl:10:5: warning: something odd\n" +
		"a.hlsl: error: Linking compute stage: Missing entry point\n" +
		"stray line\n" +
		"a.hlsl: a.hlsl(7): error at column 61, HLSL parsing failed.\n" +
		"2 errors generated.\n"
	got := parseDiagnostics(log)
	want := []Diagnostic{
		{File: "a.hlsl", Line: 3, Severity: SeverityError, Message: "'x' : undeclared identifier"},
		{File: "dir/b.glsl", Line: 10, Column: 5, Severity: SeverityWarning, Message: "something odd"},
		{File: "a.hlsl", Severity: SeverityError, Message: "Linking compute stage: Missing entry point"},
		{Message: "stray line"},
		{File: "a.hlsl", Line: 7, Column: 61, Severity: SeverityError, Message: "HLSL parsing failed."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	e := &CompileError{Diagnostics: want}
	wantErr := "a.hlsl:3: 'x' : undeclared identifier\n" +
		"dir/b.glsl:10:5: warning: something odd\n" +
		"a.hlsl: Linking compute stage: Missing entry point\n" +
		"stray line\n" +
		"a.hlsl:7:61: HLSL parsing failed."
	if e.Error() != wantErr {
		t.Errorf("Error() = %q, want %q", e.Error(), wantErr)
	}
}

func TestStrings(t *testing.T) {
	if UniformBuffer.String() != "UniformBuffer" || ConstantBuffer != UniformBuffer || SeparateImage != SampledImage {
		t.Error("kind names")
	}
	if StorageBuffer.VkDescriptorType() != 7 || Sampler.VkDescriptorType() != 0 || ResourceKind(99).VkDescriptorType() != -1 {
		t.Error("VkDescriptorType")
	}
	if FormatRgba32f.VkFormat() != 109 || FormatR32ui.String() != "R32ui" || ImageFormat(1000).String() != "ImageFormat(1000)" {
		t.Error("formats")
	}
	if Dim2D.String() != "2D" || ModelGLCompute.String() != "GLCompute" || HLSL.String() != "HLSL" || StageCompute.String() != "compute" {
		t.Error("names")
	}
	if !StorageBuffer.IsBuffer() || StorageImage.IsBuffer() || !StorageTexelBuffer.IsImage() || Sampler.IsImage() {
		t.Error("IsBuffer/IsImage")
	}
}
