//go:build ignore

// gen writes vkformats.go from the Khronos header: go generate ./format
// (or go run gen.go [-header PATH]).
package main

import (
	"flag"
	"log"
	"os"

	"github.com/gfxcuda/gfxcuda/format/internal/vkgen"
)

func main() {
	header := flag.String("header", vkgen.DefaultHeader, "path of vulkan_core.h (Debian: libvulkan-dev)")
	out := flag.String("o", "vkformats.go", "output file")
	flag.Parse()
	h, err := os.ReadFile(*header)
	if err != nil {
		log.Fatal(err)
	}
	src, err := vkgen.Generate(h)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
