package gfxcuda

import (
	"fmt"
	"net"
)

// errNoShareWindows refuses what needs Linux's memfds, mappings and
// socket pairs: sharing between processes and links are not supported on
// Windows yet.
var errNoShareWindows = fmt.Errorf("gfxcuda: sharing between processes and links are not supported on Windows yet (docs/windows.md): %w", ErrUnsupported)

func newControlBlock(int) (int, []byte, error) { return -1, nil, errNoShareWindows }

func mapShared(int, int) ([]byte, error) { return nil, errNoShareWindows }

func unmapShared([]byte) error { return nil }

func fileSize(int) (int, error) { return 0, errNoShareWindows }

func closeFDErr(int) error { return nil }

func livenessPair() ([2]int, error) { return [2]int{-1, -1}, errNoShareWindows }

func dupCloexec(int) (int, error) { return -1, errNoShareWindows }

func socketPair() (net.Conn, net.Conn, error) { return nil, nil, errNoShareWindows }
