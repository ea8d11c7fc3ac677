package shader

import (
	"os"
	"testing"
)

func benchCompile(b *testing.B, file string, opts Options) {
	src, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	opts.Filename = file
	if _, err := Compile(src, opts); err != nil { // warm up glslang
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compile(src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileHLSL(b *testing.B) {
	benchCompile(b, "testdata/all.hlsl", Options{NoCache: true})
}

func BenchmarkCompileHLSLOptimized(b *testing.B) {
	benchCompile(b, "testdata/all.hlsl", Options{NoCache: true, Optimize: true})
}

func BenchmarkCompileGLSL(b *testing.B) {
	benchCompile(b, "testdata/all.comp", Options{NoCache: true})
}

func BenchmarkCompileCacheHit(b *testing.B) {
	benchCompile(b, "testdata/all.hlsl", Options{CacheDir: b.TempDir()})
}

func BenchmarkReflect(b *testing.B) {
	m, err := CompileFile("testdata/all.hlsl", Options{NoCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Reflect(m.SPIRV); err != nil {
			b.Fatal(err)
		}
	}
}

// The same ~100-line compute shader (an n-body step in shared-memory
// tiles) in WGSL, HLSL and GLSL: what each front end costs on top of
// glslang, uncached. WGSL is translated to GLSL first (package wgsl).

func BenchmarkCompileWGSL100(b *testing.B) {
	benchCompile(b, "testdata/bench100.wgsl", Options{NoCache: true})
}

func BenchmarkCompileHLSL100(b *testing.B) {
	benchCompile(b, "testdata/bench100.hlsl", Options{NoCache: true})
}

func BenchmarkCompileGLSL100(b *testing.B) {
	benchCompile(b, "testdata/bench100.comp", Options{NoCache: true})
}
