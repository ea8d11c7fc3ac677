package cli

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// ipcChildCmd is the hidden command `gfxcuda bench` starts to open an IPC
// handle in another process: it prints how long cuIpcOpenMemHandle took, in
// nanoseconds.
const ipcChildCmd = "__ipc-open"

func runIPCChild(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: gfxcuda __ipc-open HEX")
		return 2
	}
	raw, err := hex.DecodeString(args[0])
	if err != nil || len(raw) != len(cuda.IPCHandle{}) {
		fmt.Fprintln(stderr, "gfxcuda __ipc-open: bad handle")
		return 2
	}
	var h cuda.IPCHandle
	copy(h[:], raw)
	dev, err := cuda.GetDevice(0)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer ctx.Close()
	if err := ctx.Synchronize(); err != nil { // context creation is not part of the open
		fmt.Fprintln(stderr, err)
		return 1
	}
	t0 := time.Now()
	p, err := ctx.OpenIPCHandle(h)
	el := time.Since(t0)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	ctx.CloseIPCHandle(p)
	fmt.Fprintln(stdout, el.Nanoseconds())
	return 0
}

// ipcChild runs the hidden command in a new process.
func ipcChild(h cuda.IPCHandle) (time.Duration, error) {
	cmd, err := selfCommand(ipcChildCmd, hex.EncodeToString(h[:]))
	if err != nil {
		return 0, err
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("IPC child: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
	return time.Duration(ns), err
}
