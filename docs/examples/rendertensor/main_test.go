package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// TestProgram runs the program of docs/render-to-pytorch.md. It needs a GPU
// shared by Vulkan and CUDA.
func TestProgram(t *testing.T) {
	if err := cuda.Init(); err != nil || !gfxcuda.HasCUDAConverterKernel() {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required: %v (kernel present: %v)", err, gfxcuda.HasCUDAConverterKernel())
		}
		if err == nil {
			err = gfxcuda.ErrNoCUDAConverterKernel
		}
		t.Skipf("no CUDA: %v", err)
	}
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "checked") {
		t.Errorf("output %q", out.String())
	}
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
