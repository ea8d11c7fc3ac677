package shader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These sources crash glslang 12 if compiled; Compile must reject them.
func TestNumthreadsGuard(t *testing.T) {
	body := "RWStructuredBuffer<uint> o;\n%s void main(uint3 i : SV_DispatchThreadID) { o[i.x] = 1; }\n"
	bad := map[string]string{
		"undefined macro":      "[numthreads(WG, 1, 1)]",
		"undefined second arg": "[numthreads(64, Y, 1)]",
		"variable":             "uint n;\n[numthreads(n, 1, 1)]",
		"local const":          "void f() { const uint N = 4; }\n[numthreads(N, 1, 1)]",
		"declared after":       "[numthreads(N, 1, 1)] void g() {}\nstatic const uint N = 4;\n[numthreads(1, 1, 1)]",
		"const static":         "const static uint N = 8;\n[numthreads(N, 2, 1)]",
		"static":               "static uint N = 8;\n[numthreads(N, 2, 1)]",
	}
	for name, attr := range bad {
		src := strings.Replace(body, "%s", attr, 1)
		before := compilerRuns.Load()
		_, err := Compile([]byte(src), Options{Language: HLSL, Filename: "g.hlsl", NoCache: true})
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want *CompileError", name, err)
			continue
		}
		if compilerRuns.Load() != before {
			t.Errorf("%s: compiler ran", name)
		}
		d := ce.Diagnostics[0]
		wantLine := strings.Count(attr[:strings.Index(attr, "[numthreads")], "\n") + 2
		if d.File != "g.hlsl" || d.Line != wantLine || !strings.Contains(d.Message, "numthreads") {
			t.Errorf("%s: diagnostic %+v, want g.hlsl:%d", name, d, wantLine)
		}
	}
	good := map[string]string{
		"literals":     "[numthreads(64, 1, 1)]",
		"define":       "#define WG 32\n[numthreads(WG, 1, 1)]",
		"static const": "static const uint N = 8;\n[numthreads(N, 2, 1)]",
		"list":         "static const uint N = 8, M = 2;\n[numthreads(N, M, 1)]",
		"array":        "static const uint N[2] = {4, 2};\n[numthreads(N[0], N[1], 1)]",
		"float":        "static const float N = 8.0;\n[numthreads(N, 1, 1)]",
		"macro fn":     "#define F(x) x\n[numthreads(F(4), 2, 1)]",
		"const":        "const uint N = 8;\n[numthreads(N, 2, 1)]",
		"swizzle":      "static const uint2 S = uint2(4, 2);\n[numthreads(S.x, S.y, 1)]",
		"expression":   "static const uint N = 8;\n[numthreads(N * 2, uint(2), 1)]",
		"define value": "[numthreads(DEFINED, 1, 1)]",
	}
	for name, attr := range good {
		src := strings.Replace(body, "%s", attr, 1)
		if _, err := Compile([]byte(src), Options{Language: HLSL, NoCache: true, Defines: map[string]string{"DEFINED": "16"}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNumthreadsGuardInclude(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.hlsli"), []byte("// one\n// two\nstatic const uint K = 4;\n"), 0o644)
	main := filepath.Join(dir, "m.hlsl")
	os.WriteFile(main, []byte("#include \"a.hlsli\"\nRWStructuredBuffer<uint> o;\n\n[numthreads(K, Q, 1)] void main() { o[0] = 1; }\n"), 0o644)
	_, err := CompileFile(main, Options{NoCache: true})
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Diagnostics) != 1 {
		t.Fatalf("err = %v", err)
	}
	if d := ce.Diagnostics[0]; d.File != main || d.Line != 4 || !strings.Contains(d.Message, "'Q'") {
		t.Errorf("diagnostic %+v, want %s:4 about Q", d, main)
	}
}

func TestFindNumthreads(t *testing.T) {
	got := findNumthreads([]byte("// numthreads\n[ numthreads ( a, f(b, c) , 3 )] xnumthreads(9) numthreads"))
	if len(got) != 1 || len(got[0].args) != 3 || strings.TrimSpace(got[0].args[1]) != "f(b, c)" {
		t.Errorf("findNumthreads = %+v", got)
	}
	if n := argNames(" 64u + N.x * uint(2) - 0x10 "); len(n) != 1 || n[0] != "N" {
		t.Errorf("argNames = %v", n)
	}
}
