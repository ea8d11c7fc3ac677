package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
)

// TestProgram runs the program of docs/render-to-pytorch.md with both
// converters. It needs a GPU shared by Vulkan and CUDA: without one it
// skips with the reason.
func TestProgram(t *testing.T) {
	for _, conv := range []gfxcuda.Converter{gfxcuda.ConverterCUDA, gfxcuda.ConverterVulkan} {
		t.Run(conv.String(), func(t *testing.T) {
			if !gfxcuda.HasCUDAConverterKernel() {
				skip(t, gfxcuda.ErrNoCUDAConverterKernel)
			}
			var out bytes.Buffer
			err := run(&out, conv)
			if errors.Is(err, gfxcuda.ErrNoSharedGPU) {
				skip(t, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "checked") {
				t.Errorf("output %q", out.String())
			}
		})
	}
}

// skip skips with err, or fails under GFXCUDA_REQUIRE_CUDA=1.
func skip(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
		t.Fatalf("CUDA required: %v", err)
	}
	t.Skipf("no CUDA: %v", err)
}

// TestDocEmbedsProgram checks that the page shows this very program.
func TestDocEmbedsProgram(t *testing.T) {
	checkEmbedded(t, "../../render-to-pytorch.md", "main.go")
}

func checkEmbedded(t *testing.T, doc, prog string) {
	src, err := os.ReadFile(prog)
	if os.IsNotExist(err) {
		t.Skipf("%s is not here (a test binary copied without its package's sources)", prog)
	}
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, append(append([]byte("```go\n"), src...), []byte("```")...)) {
		t.Errorf("%s does not show %s verbatim in a ```go block: copy it there", doc, prog)
	}
}
