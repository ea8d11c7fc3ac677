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
