// Command gfxcuda is the command-line face of gfxcuda: zero-copy GPU interop
// between Vulkan, OpenGL and CUDA on Linux.
//
//	gfxcuda devices [--json]   list GPUs in Vulkan and CUDA, paired by UUID
//	gfxcuda doctor  [--json]   check that Vulkan↔CUDA interop works, and say how to fix it
//	gfxcuda bench   [--json] [--png FILE] [--quick]   measure copies and hand-offs on the GPU
//	gfxcuda run     SHADER [flags]   run a compute shader: gfxcuda run k.hlsl --dispatch 16,1,1 --uav 0:4096 --out o.npy
//	gfxcuda demo    [--out DIR]      render frames with Vulkan, hand them to CUDA as tensors, write pictures
//	gfxcuda share / open TOKEN       a frame ring between two processes; --transport nccl: a link over NCCL between GPUs or hosts
//	gfxcuda version [--json]         print the version (gfxcuda --version too)
//
// The commands, with their tests, live in cmd/internal/cli, which the C
// library runs too (gfxcuda_cli_main: Python's `gfxcuda` command and
// `python -m gfxcuda`).
package main

import (
	"os"

	"github.com/gfxcuda/gfxcuda/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
