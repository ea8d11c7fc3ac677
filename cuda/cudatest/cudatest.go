// Package cudatest gives tests of packages above cuda the CUDA they need:
// the driver, or a skip with a one-line reason where there is none — a
// failure instead under GFXCUDA_REQUIRE_CUDA=1, which make gpu-test sets on
// the GPU machine, so that no GPU test passes there by skipping.
package cudatest

import (
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// Required reports whether GPU tests must run (GFXCUDA_REQUIRE_CUDA=1).
func Required() bool { return os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" }

// Init initializes the CUDA driver, or skips t (fails it when Required)
// saying why it cannot.
func Init(t testing.TB) {
	t.Helper()
	if err := cuda.Init(); err != nil {
		if Required() {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
}

// Context returns device 0's primary context, released at the test's end;
// without a driver, t is skipped (or failed, as Init).
func Context(t testing.TB) *cuda.Context {
	t.Helper()
	Init(t)
	d, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}
