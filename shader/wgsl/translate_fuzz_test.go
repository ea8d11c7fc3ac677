package wgsl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// translateSeeds returns valid and invalid programs to start fuzzing from:
// the repository's WGSL test programs, the invalid programs of
// check_test.go and a few more.
func translateSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	for _, glob := range []string{"../testdata/*.wgsl", "../../compute/testdata/wgsl/*.wgsl"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				seeds = append(seeds, b)
			}
		}
	}
	for _, c := range invalidPrograms {
		src := c.src
		if !c.noHead {
			src = head + src
		}
		seeds = append(seeds, []byte(src))
	}
	for _, s := range fuzzSeeds {
		seeds = append(seeds, []byte(s))
	}
	seeds = append(seeds, []byte(`enable f16;
struct S { @align(16) a: f16, @size(12) b: vec2<f32>, c: array<mat2x2<f32>, 2> }
@group(0) @binding(0) var<uniform> u: S;
@group(0) @binding(1) var<storage, read_write> o: array<atomic<u32>>;
override n: u32 = 8;
var<workgroup> w: array<f32, n * 2u>;
@compute @workgroup_size(n)
fn main(@builtin(local_invocation_index) i: u32) {
    w[i] = f32(u.b.x) + f32(u.a);
    var k = 0u;
    loop {
        switch k { case 1u: { continue; } default: {} }
        continuing { k++; break if k > 3u; }
    }
    let p = &w[i % 2u];
    *p += 1.0;
    _ = atomicCompareExchangeWeak(&o[i], 0u, workgroupUniformLoad(&w)[0] > 0.0);
}`))
	return seeds
}

// FuzzTranslate checks that Translate never panics, never hangs, and
// returns either GLSL or an ErrorList of well-formed errors.
func FuzzTranslate(f *testing.F) {
	for _, s := range translateSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkTranslate(t, data)
	})
}

func checkTranslate(t *testing.T, data []byte) {
	t.Helper()
	start := time.Now()
	res, err := Translate(data, Options{Filename: "fuzz.wgsl"})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Translate took %v", d)
	}
	if err == nil {
		if res == nil || !strings.HasPrefix(res.GLSL, "#version 450\n") || !strings.Contains(res.GLSL, "void main()") {
			t.Fatalf("no error and no GLSL: %+v", res)
		}
		return
	}
	if res != nil {
		t.Errorf("both a result and an error")
	}
	list, ok := err.(ErrorList)
	if !ok || len(list) == 0 {
		t.Fatalf("error %T %v, want a non-empty ErrorList", err, err)
	}
	// WGSL line breaks include \r, \v, \f, U+0085, U+2028 and U+2029.
	lines := 1
	for _, sep := range []string{"\n", "\r", "\v", "\f", "\u0085", "\u2028", "\u2029"} {
		lines += strings.Count(string(data), sep)
	}
	for _, e := range list {
		if e == nil {
			t.Fatal("nil *Error in the list")
		}
		if e.Rule == ruleInternal {
			t.Fatalf("internal error: %v\n%q", e, data)
		}
		if e.File != "fuzz.wgsl" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
			t.Errorf("malformed error %+v", e)
		}
		if e.Line > lines+1 {
			t.Errorf("error line %d past the end (%d lines): %v", e.Line, lines, e)
		}
	}
}

// TestTranslateFuzzSeeds runs the seeds, and truncations and small
// mutations of them, as a plain test.
func TestTranslateFuzzSeeds(t *testing.T) {
	seeds := translateSeeds(t)
	muts := []string{"", "1", "u", "(", ")", "{", "}", ";", "<", ">", "&", "*", ".x", "[0]", "f16", "-", "@"}
	n := 0
	for _, s := range seeds {
		checkTranslate(t, s)
		for cut := 1; cut < len(s); cut += max(1, len(s)/40) {
			checkTranslate(t, s[:cut])
			m := muts[n%len(muts)]
			n++
			mutated := append(append(append([]byte{}, s[:cut]...), m...), s[cut+1:]...)
			checkTranslate(t, mutated)
		}
	}
}
