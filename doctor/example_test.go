package doctor_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/doctor"
)

// Run checks a machine and says how to fix each problem; OK reports whether
// Vulkan↔CUDA interop is possible.
func ExampleRun() {
	res := doctor.Run(gfxcuda.DiscoverDevices())
	for _, c := range res.Checks {
		fmt.Printf("[%s] %s: %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != doctor.Pass {
			fmt.Println("  fix:", c.Fix)
		}
	}
	fmt.Println("interop possible:", res.OK)
}

// Every run checks the Vulkan loader first, whatever the machine has.
func ExampleRun_firstCheck() {
	res := doctor.Run(gfxcuda.DiscoverDevices())
	fmt.Println(res.Checks[0].Name)
	// Output:
	// vulkan loader
}
