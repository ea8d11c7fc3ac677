package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/gfxcuda/gfxcuda"
)

// versionLine is what `gfxcuda version` and `gfxcuda --version` print:
// "gfxcuda 0.1.0 (go1.26.8 linux/amd64)".
func versionLine() string {
	return fmt.Sprintf("gfxcuda %s (%s %s/%s)", gfxcuda.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("version", `Prints gfxcuda's version (the same as the C library's gfxcuda_version() and
Python's gfxcuda.__version__), with the Go release that built this binary
and its OS and architecture. gfxcuda --version prints the same.`, stdout, stderr)
	asJSON := cl.fs.Bool("json", false, "print JSON: version, go, os, arch")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]string{
			"version": gfxcuda.Version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
		}, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	fmt.Fprintln(stdout, versionLine())
	return 0
}
