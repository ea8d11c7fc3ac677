package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestProgram runs the program of docs/compute-shaders.md on this machine's
// Vulkan device (lavapipe in CI).
func TestProgram(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") != "1" && strings.Contains(err.Error(), "Vulkan") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "checked") {
		t.Errorf("output %q", out.String())
	}
	t.Log(out.String())
}

// TestDocEmbedsProgram checks that the page shows this very program.
func TestDocEmbedsProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if os.IsNotExist(err) {
		t.Skip("main.go is not here (a test binary copied without its package's sources)")
	}
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("../../compute-shaders.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, append(append([]byte("```go\n"), src...), []byte("```")...)) {
		t.Error("docs/compute-shaders.md does not show main.go verbatim in a ```go block: copy it there")
	}
}
