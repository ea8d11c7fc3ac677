package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

var (
	selfMu   sync.Mutex
	selfArgv []string // SetCommand's; nil: os.Executable()
)

// SetCommand sets the command that runs this command line in a new
// process: some commands run hidden helper commands of their own in other
// processes (bench opens memory shared by another process), as argv[0]
// with argv[1:] and then the helper's arguments. nil (the default) runs
// this process's executable with the helper's arguments alone, which is
// right for a program that passes its arguments to Main (the gfxcuda
// binary, a C program whose main calls gfxcuda_cli_main); Python's gfxcuda
// sets its interpreter with "-m gfxcuda".
func SetCommand(argv []string) {
	selfMu.Lock()
	defer selfMu.Unlock()
	selfArgv = append([]string(nil), argv...)
}

// selfCommand is the command that runs the hidden command args of this
// command line in a new process (SetCommand).
func selfCommand(args ...string) (*exec.Cmd, error) {
	selfMu.Lock()
	argv := selfArgv
	selfMu.Unlock()
	if len(argv) > 0 {
		if argv[0] == "" {
			return nil, errors.New("the command that runs gfxcuda in a new process names no program (SetCommand)")
		}
		return exec.Command(argv[0], append(append([]string(nil), argv[1:]...), args...)...), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to run it again: %w", err)
	}
	return exec.Command(exe, args...), nil
}
