package shader

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const cacheSrc = `RWStructuredBuffer<float> data : register(u0);
cbuffer P : register(b1) { float k; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] *= k; }
`

// compileCounting compiles and reports how many times the compiler ran.
func compileCounting(t *testing.T, src string, opts Options) (*Module, int64) {
	t.Helper()
	before := compilerRuns.Load()
	m, err := Compile([]byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, compilerRuns.Load() - before
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.spvc"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestCacheHit(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Language: HLSL, CacheDir: dir}
	m1, n := compileCounting(t, cacheSrc, opts)
	if n != 1 || m1.Cached {
		t.Fatalf("first compile: %d compiler runs, cached=%v", n, m1.Cached)
	}
	if f := cacheFiles(t, dir); len(f) != 1 {
		t.Fatalf("cache files %v", f)
	}
	m2, n := compileCounting(t, cacheSrc, opts)
	if n != 0 || !m2.Cached {
		t.Fatalf("second compile: %d compiler runs, cached=%v", n, m2.Cached)
	}
	m2.Cached = false
	if !reflect.DeepEqual(m1, m2) {
		t.Errorf("cached module differs:\n%+v\n%+v", m1, m2)
	}

	// Anything in the key changes the entry.
	for name, o := range map[string]Options{
		"define":   {Language: HLSL, CacheDir: dir, Defines: map[string]string{"X": "1"}},
		"optimize": {Language: HLSL, CacheDir: dir, Optimize: true},
		"entry":    {Language: HLSL, CacheDir: dir, EntryPoint: "main2"},
	} {
		src := cacheSrc
		if name == "entry" {
			src = strings.Replace(src, "void main(", "void main2(", 1)
		}
		if _, n := compileCounting(t, src, o); n != 1 {
			t.Errorf("%s: %d compiler runs, want 1", name, n)
		}
	}
	if _, n := compileCounting(t, cacheSrc+"\n", opts); n != 1 {
		t.Errorf("changed source: %d compiler runs, want 1", n)
	}
	// Define order does not matter.
	d1 := Options{Language: HLSL, CacheDir: dir, Defines: map[string]string{"A": "1", "B": "2", "C": "3"}}
	compileCounting(t, cacheSrc, d1)
	for range 5 {
		d2 := Options{Language: HLSL, CacheDir: dir, Defines: map[string]string{"C": "3", "B": "2", "A": "1"}}
		if _, n := compileCounting(t, cacheSrc, d2); n != 0 {
			t.Errorf("same defines: %d compiler runs", n)
		}
	}
	// No temporary files are left behind.
	tmps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

func TestCacheDisabled(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Language: HLSL, CacheDir: dir}
	compileCounting(t, cacheSrc, opts)

	o := opts
	o.NoCache = true
	if m, n := compileCounting(t, cacheSrc, o); n != 1 || m.Cached {
		t.Errorf("NoCache: %d compiler runs, cached=%v", n, m.Cached)
	}
	t.Setenv("GFXCUDA_SHADER_CACHE", "off")
	if m, n := compileCounting(t, cacheSrc, opts); n != 1 || m.Cached {
		t.Errorf("GFXCUDA_SHADER_CACHE=off: %d compiler runs, cached=%v", n, m.Cached)
	}
	dir2 := t.TempDir()
	compileCounting(t, cacheSrc, Options{Language: HLSL, CacheDir: dir2})
	if f := cacheFiles(t, dir2); len(f) != 0 {
		t.Errorf("cache written while off: %v", f)
	}
}

func TestCacheDirEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub", "dir")
	t.Setenv("GFXCUDA_CACHE_DIR", dir)
	if CacheDir() != dir {
		t.Errorf("CacheDir() = %q, want %q", CacheDir(), dir)
	}
	compileCounting(t, cacheSrc, Options{Language: HLSL})
	if f := cacheFiles(t, dir); len(f) != 1 {
		t.Fatalf("cache files in $GFXCUDA_CACHE_DIR: %v", f)
	}
	if m, n := compileCounting(t, cacheSrc, Options{Language: HLSL}); n != 0 || !m.Cached {
		t.Errorf("second compile: %d runs", n)
	}
	t.Setenv("GFXCUDA_CACHE_DIR", "")
	if d := CacheDir(); d != "" && !strings.HasSuffix(d, filepath.Join("gfxcuda", "shaders")) {
		t.Errorf("default CacheDir() = %q", d)
	}
}

func TestCacheCorrupt(t *testing.T) {
	corruptions := map[string]func([]byte) []byte{
		"empty":     func([]byte) []byte { return nil },
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"flipped":   func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
		"garbage":   func(b []byte) []byte { return []byte(strings.Repeat("not a cache entry ", 20)) },
		"magic":     func(b []byte) []byte { b[0] = 'X'; return b },
		"checksum":  func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
	}
	for name, corrupt := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Language: HLSL, CacheDir: dir}
			want, _ := compileCounting(t, cacheSrc, opts)
			files := cacheFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("cache files %v", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(files[0], corrupt(b), 0o644); err != nil {
				t.Fatal(err)
			}
			m, n := compileCounting(t, cacheSrc, opts)
			if n != 1 || m.Cached {
				t.Fatalf("corrupt entry used: %d compiler runs, cached=%v", n, m.Cached)
			}
			if !reflect.DeepEqual(m.Resources, want.Resources) || string(m.SPIRV) != string(want.SPIRV) {
				t.Error("recompiled module differs")
			}
			// The entry was rewritten and is good again.
			if m, n := compileCounting(t, cacheSrc, opts); n != 0 || !m.Cached {
				t.Errorf("after rewrite: %d compiler runs, cached=%v", n, m.Cached)
			}
		})
	}
}

func TestCacheEntryWithBadSPIRV(t *testing.T) {
	// A well-formed entry whose SPIR-V is not is ignored too.
	b := encodeEntry(&cacheEntry{filename: "x", spirv: []byte{1, 2, 3, 4}})
	if _, err := decodeEntry(b); err == nil {
		t.Error("entry with bad SPIR-V decoded")
	}
	good := encodeEntry(&cacheEntry{filename: "x", log: "l", deps: []cacheDep{{path: "/p"}},
		spirv: mustCompileFile(t, "testdata/tri.vert", Options{NoCache: true}).SPIRV})
	e, err := decodeEntry(good)
	if err != nil || e.filename != "x" || e.log != "l" || len(e.deps) != 1 || e.deps[0].path != "/p" {
		t.Errorf("round trip: %+v, %v", e, err)
	}
}

func TestCacheIncludeChange(t *testing.T) {
	dir := t.TempDir()
	cdir := t.TempDir()
	inc := filepath.Join(dir, "wg.hlsli")
	main := filepath.Join(dir, "main.hlsl")
	os.WriteFile(inc, []byte("#define WG 32\n"), 0o644)
	os.WriteFile(main, []byte("#include \"wg.hlsli\"\nRWStructuredBuffer<uint> o;\n[numthreads(WG,1,1)] void main(uint3 i : SV_DispatchThreadID) { o[i.x] = 1; }\n"), 0o644)
	opts := Options{CacheDir: cdir}
	run := func(wantWG uint32, wantCached bool) {
		t.Helper()
		m, err := CompileFile(main, opts)
		if err != nil {
			t.Fatal(err)
		}
		if m.LocalSize()[0] != wantWG || m.Cached != wantCached {
			t.Errorf("local size %v cached %v, want %d %v", m.LocalSize(), m.Cached, wantWG, wantCached)
		}
	}
	run(32, false)
	run(32, true)
	os.WriteFile(inc, []byte("#define WG 64\n"), 0o644)
	run(64, false)
	run(64, true)
	os.Remove(inc)
	if _, err := CompileFile(main, opts); err == nil {
		t.Error("compiled with its include file gone")
	}
}

func TestCacheUnwritable(t *testing.T) {
	// A cache directory that cannot be created does not fail compilation.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, n := compileCounting(t, cacheSrc, Options{Language: HLSL, CacheDir: filepath.Join(f, "sub")}); n != 1 {
		t.Errorf("%d compiler runs", n)
	}
}
