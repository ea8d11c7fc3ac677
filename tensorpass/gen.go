//go:build ignore

// gen compiles tensor.comp into shaders_gen.go: go generate ./tensorpass.
package main

import (
	"log"
	"os"

	"github.com/gfxcuda/gfxcuda/tensorpass/internal/gen"
)

func main() {
	src, err := os.ReadFile("tensor.comp")
	if err != nil {
		log.Fatal(err)
	}
	out, err := gen.Generate(src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("shaders_gen.go", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
