package shader

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanGLSL(t *testing.T) {
	src := "#version 450 // v\n" +
		"#define X \\\n  uniform float a; /* spans\n lines */ int\n" +
		"layout(binding = 1) /* c\n */ uniform float m; // uniform float z;\n" +
		"#line 40\n" +
		"float s = 1.5e+3; \"str;ing\" x\\\ny\n"
	var got []string
	var lines []int
	for _, tk := range scanGLSL([]byte(src)) {
		got = append(got, src[tk.start:tk.end])
		lines = append(lines, tk.line)
	}
	want := []string{"layout", "(", "binding", "=", "1", ")", "uniform", "float", "m", ";",
		"float", "s", "=", "1.5e+3", ";", `"str;ing"`, "x", "y"}
	wantLines := []int{5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 40, 40, 40, 40, 40, 40, 40, 41}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tokens\n got  %q\n want %q", got, want)
	}
	for i := range lines {
		if lines[i] != wantLines[i] {
			t.Errorf("token %q on line %d, want %d", got[i], lines[i], wantLines[i])
		}
	}
}

// TestNagaRewriteUnchanged checks that sources without the constructs, or
// with them only in comments, strings, directives, function bodies and
// blocks, come back as they were.
func TestNagaRewriteUnchanged(t *testing.T) {
	for _, src := range []string{
		"#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform U { float m; } u;\nvoid main() {}\n",
		"// layout(binding = 3) uniform float m;\n/* layout(binding = 3) uniform float m;\n */ void main() {}\n",
		"#define DECL layout(binding = 3) uniform float m;\n#error \"uniform float m;\"\nvoid main() {}\n",
		"layout(binding = 0) uniform B {\n  float m;\n};\nlayout(push_constant) uniform P { uint k; } pc;\n",
		"void main() { uniform float m; }\n", // not at file scope: glslang's to report
		"layout(binding = 0, r32ui) uniform uimage1D a;\nlayout(binding = 1, rgba8i) uniform iimage2D b;\n" +
			"layout(binding = 2, rgba8) uniform image2D c;\nlayout(binding = 3) uniform writeonly image2D d;\n",
		"layout(binding = 0) uniform sampler s;\nlayout(binding = 1) uniform texture2D t;\nlayout(binding = 2) uniform sampler2D st;\n" +
			"layout(binding = 3) uniform usampler2D us;\nlayout(binding = 4) uniform utexture1D ut;\n",
		"struct S { float a; };\nlayout(binding = 0) uniform struct T { float b; } t;\nS f(S s);\n",
		"uniform float f(float x);\nconst float k = 2.0;\nshared uint w[64];\n",
		"layout(binding = 3) uniform\n#ifdef A\nfloat\n#else\nint\n#endif\nm;\n", // split by directives
		"layout(binding = 3) uniform float m",                                    // no semicolon
		"",
	} {
		r := rewriteNagaGLSL([]byte(src))
		if string(r.src) != src {
			t.Errorf("rewrote %q\nto %q", src, r.src)
		}
	}
}

func TestNagaRewrite(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"layout(set = 0, binding = 3) uniform float multiplier;\n",
			"layout(set = 0, binding = 3) uniform _gfxcuda_loose_multiplier { float multiplier; };\n"},
		// Several, with arrays, precision, a struct type and a
		// declaration over lines.
		{"layout(binding = 1) uniform vec4 colors[3];\nlayout(binding = 2) uniform highp float[2] w; layout(set = 1, binding = 0) uniform S s;\n" +
			"layout(set = 2,\n       binding = 5)\nuniform\nmat4 // comment\n  xform ;\n",
			"layout(binding = 1) uniform _gfxcuda_loose_colors { vec4 colors[3]; };\nlayout(binding = 2) uniform highp _gfxcuda_loose_w { float[2] w; }; layout(set = 1, binding = 0) uniform _gfxcuda_loose_s { S s; };\n" +
				"layout(set = 2,\n       binding = 5)\nuniform\n_gfxcuda_loose_xform { mat4 // comment\n  xform ; };\n"},
		// Qualifiers in another order, several layouts, macros.
		{"#define B 4\nuniform layout(binding = B) int n; layout(set = 0) layout(binding = 7) uniform uvec2 _p;\n",
			"#define B 4\nuniform layout(binding = B) _gfxcuda_loose_n { int n; }; layout(set = 0) layout(binding = 7) uniform _gfxcuda_loose_p { uvec2 _p; };\n"},
		// A block name already in use gets a number.
		{"layout(binding = 0) uniform float m; float _gfxcuda_loose_m;\n",
			"layout(binding = 0) uniform _gfxcuda_loose_m2 { float m; }; float _gfxcuda_loose_m;\n"},
		// Push constants.
		{"layout(push_constant) uniform uint k;\n", "layout(push_constant) uniform _gfxcuda_loose_k { uint k; };\n"},
		// Images take their sampled type from the format.
		{"layout(set = 0, binding = 0, r32ui) uniform image1D output0;\n",
			"layout(set = 0, binding = 0, r32ui) uniform uimage1D output0;\n"},
		{"layout(rgba8i) layout(binding = 1) uniform readonly image2DArray a, b;\nlayout(binding = 2, rgba16f) writeonly uniform uimage3D c;\n" +
			"layout(binding = 3, R32I) uniform uimageBuffer d;\nlayout(binding = 4, rg16ui) uniform imageCubeArray e[2];\n",
			"layout(rgba8i) layout(binding = 1) uniform readonly iimage2DArray a, b;\nlayout(binding = 2, rgba16f) writeonly uniform image3D c;\n" +
				"layout(binding = 3, R32I) uniform iimageBuffer d;\nlayout(binding = 4, rg16ui) uniform uimageCubeArray e[2];\n"},
	} {
		r := rewriteNagaGLSL([]byte(c.src))
		if string(r.src) != c.want {
			t.Errorf("rewrote %q\n got  %q\n want %q", c.src, r.src, c.want)
		}
		if bytes.Count(r.src, []byte("\n")) != strings.Count(c.src, "\n") {
			t.Errorf("%q: line count changed", c.src)
		}
	}
}

func TestNagaRewriteNotes(t *testing.T) {
	src := "#version 450\n" +
		"uniform float nobinding;\n" +
		"layout(binding = 1) uniform float a, b;\n" +
		"layout(binding = 2) uniform float init = 1.0;\n" +
		"layout(binding = 3) uniform invariant float inv;\n"
	r := rewriteNagaGLSL([]byte(src))
	if string(r.src) != src {
		t.Errorf("rewrote %q", r.src)
	}
	for line, want := range map[int]string{2: "needs layout(binding = N)", 3: "on its own", 4: "initializer", 5: "cannot be invariant"} {
		if !strings.Contains(r.notes[line], want) {
			t.Errorf("note on line %d = %q, want it to say %q", line, r.notes[line], want)
		}
	}
}

func compileNaga(t *testing.T, src string) (*Module, error) {
	t.Helper()
	return Compile([]byte(src), Options{Language: GLSL, NagaGLSL: true, NoCache: true, Filename: "naga.comp"})
}

func TestNagaCompile(t *testing.T) {
	src := `#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 3) uniform float multiplier;
layout(set = 1, binding = 0) uniform vec3 v3;
layout(set = 1, binding = 1) uniform float arr[3];
layout(binding = 0, r32ui) uniform image1D img;
layout(binding = 1, std430) buffer O { float o[]; };
void main() {
	o[0] = multiplier * v3.y + arr[2];
	imageStore(img, 0, imageLoad(img, 0) * 3);
}
`
	if _, err := Compile([]byte(src), Options{Language: GLSL, NoCache: true}); err == nil ||
		!strings.Contains(err.Error(), "non-opaque uniforms outside a block") {
		t.Fatalf("without NagaGLSL: err = %v", err)
	}
	m, err := compileNaga(t, src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]uint32]Resource{
		{0, 3}: {Kind: UniformBuffer, Size: 4, Members: []Member{{Name: "multiplier", Offset: 0, Size: 4}}},
		{1, 0}: {Kind: UniformBuffer, Size: 12, Members: []Member{{Name: "v3", Offset: 0, Size: 12}}},
		{1, 1}: {Kind: UniformBuffer, Size: 48, Members: []Member{{Name: "arr", Offset: 0, Size: 48}}},
	}
	seen := 0
	for _, r := range m.Resources {
		switch {
		case r.Kind == StorageImage:
			if r.Set != 0 || r.Binding != 0 || r.Format != FormatR32ui || r.SampledType != ScalarUint {
				t.Errorf("image %+v, want r32ui of uint at 0.0", r)
			}
			seen++
		case r.Kind == UniformBuffer:
			w, ok := want[[2]uint32{r.Set, r.Binding}]
			if !ok || r.Size != w.Size || len(r.Members) != 1 || r.Members[0] != w.Members[0] {
				t.Errorf("uniform buffer %+v, want %+v", r, w)
			}
			seen++
		}
	}
	if seen != 4 {
		t.Errorf("%d resources checked, want 4: %+v", seen, m.Resources)
	}
}

// TestNagaCompileErrors checks that errors point at the user's lines.
func TestNagaCompileErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		line int
		want string
	}{
		{"#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 3) uniform float m;\nlayout(binding = 0, r32ui) uniform image1D img;\n" +
			"void main() {\n\tfloat x = m;\n\tundefined_thing = x;\n}\n", 7, "undefined_thing"},
		// As Python's glsl.compile gives it.
		{"#version 450\n#line 1\nlayout(local_size_x = 1) in;\nlayout(set = 0,\n binding = 3) uniform\n float m;\nvoid main() {\n\tfloat x = m +;\n}\n", 6, "syntax error"},
		{"#version 450\nlayout(local_size_x = 1) in;\n\nuniform float nobinding;\nvoid main() {}\n", 4, "needs layout(binding = N)"},
		{"#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 1) uniform float a,\n  b;\nvoid main() {}\n", 3, "on its own"},
	} {
		_, err := compileNaga(t, c.src)
		var ce *CompileError
		if !errors.As(err, &ce) || len(ce.Errors()) == 0 {
			t.Fatalf("%q: err = %v, want a CompileError", c.src, err)
		}
		d := ce.Errors()[0]
		if d.File != "naga.comp" || d.Line != c.line || !strings.Contains(d.Message, c.want) {
			t.Errorf("%q: first error %+v, want naga.comp line %d saying %q", c.src, d, c.line, c.want)
		}
	}
}

// TestNagaIncludeAndCache rewrites an included file, and checks that the
// cached result of a NagaGLSL compilation is not used without it.
func TestNagaIncludeAndCache(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.comp")
	os.WriteFile(main, []byte("#version 450\n#extension GL_GOOGLE_include_directive : require\n#ifdef BAD\n#include \"u.glsl\"\n#else\n"+
		"layout(binding = 2) uniform float scale;\n#endif\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer O { float o[]; };\nvoid main() { o[0] = scale; }\n"), 0o644)
	inc := filepath.Join(dir, "inc.comp")
	os.WriteFile(inc, []byte("#version 450\n#extension GL_GOOGLE_include_directive : require\nlayout(local_size_x = 1) in;\n#include \"u.glsl\"\n"+
		"layout(binding = 0) buffer O { float o[]; };\nvoid main() { o[0] = scale; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "u.glsl"), []byte("// uniforms\nlayout(binding = 2) uniform float scale;\n"), 0o644)
	cache := t.TempDir()
	m, err := CompileFile(inc, Options{NagaGLSL: true, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Resources) != 2 {
		t.Errorf("resources %+v", m.Resources)
	}
	if _, err := CompileFile(inc, Options{CacheDir: cache}); err == nil {
		t.Error("without NagaGLSL, the cached NagaGLSL result was used")
	}
	if m, err := CompileFile(inc, Options{NagaGLSL: true, CacheDir: cache}); err != nil || !m.Cached {
		t.Errorf("second NagaGLSL compilation: cached %v, err %v", m != nil && m.Cached, err)
	}
	// An error in an included file gets its note.
	os.WriteFile(filepath.Join(dir, "u.glsl"), []byte("// uniforms\nlayout(binding = 2) uniform float scale;\nuniform float bad;\n"), 0o644)
	_, err = CompileFile(main, Options{NagaGLSL: true, NoCache: true, Defines: map[string]string{"BAD": ""}})
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Errors()) == 0 {
		t.Fatalf("err = %v", err)
	}
	d := ce.Errors()[0]
	if d.File != filepath.Join(dir, "u.glsl") || d.Line != 3 || !strings.Contains(d.Message, "needs layout(binding = N)") {
		t.Errorf("error %+v, want u.glsl line 3 with the note", d)
	}
	// Without BAD the include is inactive and the main file's own
	// declaration compiles.
	if _, err := CompileFile(main, Options{NagaGLSL: true, NoCache: true}); err != nil {
		t.Error(err)
	}
}

// FuzzNagaRewrite checks that the rewrite never changes the number of
// lines, and that a source it leaves alone is returned as it was.
func FuzzNagaRewrite(f *testing.F) {
	for _, s := range []string{
		"layout(set = 0, binding = 3) uniform float m;\n",
		"layout(binding = 0, r32ui) uniform image1D i;\n/* x */ // y\n#define A \\\n b\n",
		"uniform float a, b; uniform float c = 1.0; \"str\\\"ing\n\" uniform",
		"layout(binding=1) uniform vec4 v[2][3]; { uniform float x; } layout(",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r := rewriteNagaGLSL([]byte(src))
		if bytes.Count(r.src, []byte("\n")) != strings.Count(src, "\n") {
			t.Fatalf("line count changed: %q -> %q", src, r.src)
		}
		if !strings.Contains(src, "uniform") && string(r.src) != src {
			t.Fatalf("rewrote a source without uniforms: %q -> %q", src, r.src)
		}
	})
}
