package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cmd/internal/cli"
)

// TestCLIMainChild is gfxcuda_cli_main in a process of its own (this test
// binary, started by runLibCLI): it installs a caller's own SIGINT and
// SIGTERM handlers, as Python has, runs gfxcuda_cli_main with the
// tab-separated arguments of GFXCUDA_LIB_CLI_ARGS, writes what became of
// the handlers to GFXCUDA_LIB_CLI_REPORT and exits with the status.
func TestCLIMainChild(t *testing.T) {
	args, ok := os.LookupEnv("GFXCUDA_LIB_CLI_ARGS")
	if !ok {
		return // only as a child
	}
	if !cInstallSignalHandlers() {
		fmt.Fprintln(os.Stderr, "sigaction failed")
		os.Exit(99)
	}
	var argv []string
	if args != "" {
		argv = strings.Split(args, "\t")
	}
	rc := cCLIMain(argv)
	report := fmt.Sprintf("changed=%d caught=%d", cSignalHandlersChanged(), cCaughtSignal())
	if err := os.WriteFile(os.Getenv("GFXCUDA_LIB_CLI_REPORT"), []byte(report), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	os.Exit(rc)
}

// runLibCLI runs gfxcuda_cli_main with args in a child (TestCLIMainChild)
// and returns its exit status, stdout, stderr and report.
func runLibCLI(t *testing.T, args ...string) (rc int, stdout, stderr, report string) {
	t.Helper()
	reportPath := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIMainChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GFXCUDA_LIB_CLI_ARGS="+strings.Join(args, "\t"), "GFXCUDA_LIB_CLI_REPORT="+reportPath)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(reportPath)
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), string(b)
}

// TestCLIMain: gfxcuda_cli_main is the gfxcuda command: version, --help,
// devices (the output cli.Main gives here), usage errors (exit 2, the
// message on stderr), bad argument vectors refused in their own words;
// it returns the status without exiting the process, and leaves the
// caller's signal handlers as they were (flags and mask too). (Signals
// during a command: python/tests/test_cli_main.py, where the library is
// loaded into Python as in use; this test binary is a Go program, whose
// runtime handles signals otherwise.)
func TestCLIMain(t *testing.T) {
	for _, c := range []struct {
		args           []string
		rc             int
		stdout, stderr string // prefixes ("" anything)
	}{
		{[]string{"version"}, 0, "gfxcuda " + gfxcuda.Version + " (go", ""},
		{[]string{"--version"}, 0, "gfxcuda " + gfxcuda.Version + " (go", ""},
		{[]string{"--help"}, 0, "usage: gfxcuda COMMAND [flags] [ARGS]\n", ""},
		{[]string{"run", "--nosuchflag"}, 2, "", "gfxcuda run: unknown flag --nosuchflag\nusage: gfxcuda run [flags] SHADER\n"},
		{[]string{"devcies"}, 2, "", `gfxcuda: unknown command "devcies"; did you mean devices?`},
		{nil, 2, "", "gfxcuda: no command given\n"},
		{[]string{"version", "<NULL>"}, 2, "", "gfxcuda_cli_main: argv[2] is NULL (argc 3); pass argc strings\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			rc, stdout, stderr, report := runLibCLI(t, c.args...)
			if rc != c.rc || !strings.HasPrefix(stdout, c.stdout) || !strings.HasPrefix(stderr, c.stderr) {
				t.Errorf("exit %d, want %d\nstdout %q, want it to start with %q\nstderr %q, want it to start with %q", rc, c.rc, stdout, c.stdout, stderr, c.stderr)
			}
			if c.rc == 0 && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
			if report != "changed=0 caught=0" {
				t.Errorf("after gfxcuda_cli_main: %q, want the caller's handlers as they were (changed=0) and no signal caught", report)
			}
		})
	}
	t.Run("devices --json", func(t *testing.T) {
		var want, wantErr bytes.Buffer
		wantRC := cli.Main([]string{"devices", "--json"}, &want, &wantErr)
		rc, stdout, stderr, _ := runLibCLI(t, "devices", "--json")
		// A GPU's free memory moves between the two runs (other processes
		// allocate): compared without it.
		free := regexp.MustCompile(`"free_memory": [0-9]+`)
		if rc != wantRC || free.ReplaceAllString(stdout, "") != free.ReplaceAllString(want.String(), "") || stderr != wantErr.String() {
			t.Errorf("gfxcuda_cli_main devices --json: exit %d\n%s%s\ncli.Main: exit %d\n%s%s", rc, stdout, stderr, wantRC, want.String(), wantErr.String())
		}
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" && !strings.Contains(stdout, `"name"`) {
			t.Errorf("devices --json lists no Vulkan device:\n%s", stdout)
		}
	})
}
