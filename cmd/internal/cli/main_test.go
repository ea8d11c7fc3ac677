package cli

import (
	"os"
	"testing"
)

// TestMain makes this test binary the gfxcuda command when a test runs it
// as one: GFXCUDA_AS_CLI=1 (tests that run documented shell commands,
// TestContainersLayout) or a hidden child command as its first argument
// (the share benchmarks' and probes' children, selfCommand). On every
// system: without it, a child would run the tests again.
func TestMain(m *testing.M) {
	// GFXCUDA_AS_CLI=1 makes this binary the gfxcuda command itself, for
	// tests that run documented shell commands (TestContainersLayout).
	if os.Getenv("GFXCUDA_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case ipcChildCmd, shareOpenChildCmd, shareRingChildCmd, ncclPeerCmd:
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
	os.Exit(m.Run())
}
