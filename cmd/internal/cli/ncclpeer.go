package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/gfxcuda/gfxcuda/bench"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// ncclPeerCmd is the hidden command `gfxcuda bench` starts for the NCCL
// link's two-rank figure: the receiving end on another GPU, with the
// control channel and the bare transfers' socket as descriptors 3 and 4.
const ncclPeerCmd = "__nccl-peer"

func runNCCLPeer(args []string, stderr io.Writer) int {
	if len(args) != 3 {
		fmt.Fprintln(stderr, "usage: gfxcuda __nccl-peer GPU-UUID FRAMES REPS")
		return 2
	}
	u, err := cuda.ParseUUID(args[0])
	frames, ferr := strconv.Atoi(args[1])
	reps, rerr := strconv.Atoi(args[2])
	if err != nil || ferr != nil || rerr != nil {
		fmt.Fprintln(stderr, "gfxcuda __nccl-peer: bad arguments")
		return 2
	}
	if err := bench.NCCLPeer(os.NewFile(3, "ctrl"), os.NewFile(4, "bare"), u, frames, reps); err != nil {
		fmt.Fprintf(stderr, "gfxcuda __nccl-peer: %v\n", err)
		return 1
	}
	return 0
}

// ncclPeer starts the hidden command in a new process.
func ncclPeer(ctrl, bare *os.File, gpu cuda.UUID, frames, reps int) (func() error, error) {
	cmd, err := selfCommand(ncclPeerCmd, gpu.String(), strconv.Itoa(frames), strconv.Itoa(reps))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.ExtraFiles = []*os.File{ctrl, bare}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Wait, nil
}
