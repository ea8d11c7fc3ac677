package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/gfxcuda/gfxcuda/devices"
	"github.com/gfxcuda/gfxcuda/doctor"
)

func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	res := doctor.Run(devices.Discover())
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
		if res.OK {
			fmt.Fprintln(stdout, "\nVulkan↔CUDA interop: possible")
		} else {
			fmt.Fprintln(stdout, "\nVulkan↔CUDA interop: NOT possible (fix the FAIL lines above)")
		}
	}
	if !res.OK {
		return 1
	}
	return 0
}
