package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/doctor"
)

func runDoctor(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("doctor", doctorAbout, stdout, stderr)
	asJSON := cl.fs.Bool("json", false, "print JSON instead of text")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	res := doctor.Run(gfxcuda.DiscoverDevices())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		for _, c := range res.Checks {
			fmt.Fprintf(stdout, "[%-4s] %s: %s\n", c.Status, c.Name, c.Detail)
			if c.Fix != "" && c.Status != doctor.Pass {
				fmt.Fprintf(stdout, "       fix: %s\n", c.Fix)
			}
		}
		printLibraries(stdout, res.Libraries)
		printYouCanUse(stdout, res.YouCanUse)
		switch {
		case res.OK:
			fmt.Fprintln(stdout, "\nVulkan↔CUDA interop: possible")
		case runtime.GOOS == "windows":
			fmt.Fprintln(stdout, "\nVulkan↔CUDA interop: not supported on Windows yet (compute on Vulkan works: see above; docs/windows.md)")
		default:
			fmt.Fprintln(stdout, "\nVulkan↔CUDA interop: NOT possible (fix the FAIL lines above)")
		}
	}
	if !res.OK {
		return 1
	}
	return 0
}

// printLibraries prints the libraries loaded at run time, each with the
// file it was loaded from or where it was looked for.
func printLibraries(w io.Writer, libs []doctor.LoadedLibrary) {
	if len(libs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nLibraries loaded:")
	for _, l := range libs {
		fmt.Fprintf(w, "  - %s (%s): %s\n", l.Name, l.For, l.Detail())
	}
}

// printYouCanUse prints what works on this machine, each with what to try.
func printYouCanUse(w io.Writer, uses []doctor.Use) {
	if len(uses) == 0 {
		fmt.Fprintln(w, "\nYou can use: nothing yet (fix the FAIL lines above)")
		return
	}
	fmt.Fprintln(w, "\nYou can use here:")
	for _, u := range uses {
		fmt.Fprintf(w, "  - %s\n      try: %s\n", u.What, u.Try)
	}
}
