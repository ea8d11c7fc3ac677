// Command gfxcuda is the command-line face of gfxcuda: zero-copy GPU interop
// between Vulkan, OpenGL and CUDA on Linux.
//
//	gfxcuda devices [--json]   list GPUs in Vulkan and CUDA, paired by UUID
//	gfxcuda doctor  [--json]   check that Vulkan↔CUDA interop works, and say how to fix it
//	gfxcuda bench   [--json] [--png FILE] [--quick]   measure copies and hand-offs on the GPU
//	gfxcuda run     SHADER [flags]   run a compute shader: gfxcuda run k.hlsl --dispatch 16,1,1 --uav 0:4096 --out o.npy
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"devices": {"list GPUs in Vulkan and CUDA, paired by UUID", runDevices},
	"doctor":  {"check that Vulkan↔CUDA interop works here; exit 0 if it does", runDoctor},
	"bench":   {"measure copies and hand-offs between Vulkan and CUDA on this GPU", runBench},
	"run":     {"compile a compute shader, bind resources, dispatch it and write the results", runRun},
	"share":   {"produce frames into a ring other processes open with `gfxcuda open TOKEN`", runShare},
	"open":    {"consume and check the frames of a ring shared by `gfxcuda share`", runOpen},
	"demo":    {"render frames with Vulkan, hand them to CUDA as tensors, check them, time them, write pictures", runDemo},
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gfxcuda COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gfxcuda COMMAND -h' for a command's flags.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	if args[0] == ipcChildCmd {
		return runIPCChild(args[1:], stdout, stderr)
	}
	if args[0] == shareOpenChildCmd || args[0] == shareRingChildCmd {
		return runShareChild(args[0], args[1:], stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gfxcuda: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

// parseFlags parses a command's flags. It reports false, with the exit code,
// when the command should stop: 0 after -h or --help (the flag package
// printed the usage), 2 on bad flags.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}
