package bench

import (
	"errors"
	"os"
)

// filePair refuses on Windows: the NCCL groups run on Linux only.
func filePair() (*os.File, *os.File, error) {
	return nil, nil, errors.New("bench: the NCCL groups need Unix socket pairs: not supported on Windows yet")
}
