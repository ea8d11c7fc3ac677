package main

// cli.go: gfxcuda's command line inside the library (gfxcuda_cli_main in
// cli.c, which keeps the caller's signal handling around it), for
// Python's `gfxcuda` command and `python -m gfxcuda`: no second copy of
// gfxcuda in a wheel.

/*
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/cmd/internal/cli"
)

// cArgs copies the C argument vector argv[0..argc-1].
func cArgs(argc C.int, argv **C.char) ([]string, error) {
	if argc < 0 {
		return nil, fmt.Errorf("argc is %d; it counts the strings of argv, 0 or more", int(argc))
	}
	if argc == 0 {
		return nil, nil
	}
	if argv == nil {
		return nil, fmt.Errorf("argv is NULL with argc %d", int(argc))
	}
	ptrs := unsafe.Slice(argv, int(argc))
	args := make([]string, len(ptrs))
	for i, p := range ptrs {
		if p == nil {
			return nil, fmt.Errorf("argv[%d] is NULL (argc %d); pass argc strings", i, int(argc))
		}
		args[i] = C.GoString(p)
	}
	return args, nil
}

// gfxCLIMain runs the command line argv[1:] (argv[0], the program's name,
// is not read) on the process's stdout and stderr, and returns its exit
// status. gfxcuda_cli_main (cli.c) calls it.
//
//export gfxCLIMain
func gfxCLIMain(argc C.int, argv **C.char) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			// What the binary's crash would print, without ending the
			// caller's process; 2 is the status a Go panic exits with.
			fmt.Fprintf(os.Stderr, "gfxcuda: internal error (please report): %v\n%s", r, debug.Stack())
			rc = 2
		}
	}()
	args, err := cArgs(argc, argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gfxcuda_cli_main: %v\n", err)
		return 2
	}
	if len(args) > 0 {
		args = args[1:]
	}
	return C.int(cli.Main(args, os.Stdout, os.Stderr))
}

//export gfxcuda_cli_set_command
func gfxcuda_cli_set_command(argc C.int, argv **C.char) C.int {
	return call(func() error {
		args, err := cArgs(argc, argv)
		if err != nil {
			return errorf(stInvalid, "gfxcuda_cli_set_command: %v", err)
		}
		if len(args) > 0 && args[0] == "" {
			return errorf(stInvalid, "gfxcuda_cli_set_command: argv[0] is empty; it names the program to run (Python: sys.executable)")
		}
		cli.SetCommand(args)
		return nil
	})
}
