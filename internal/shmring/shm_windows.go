package shmring

import (
	"errors"
	"fmt"
)

// The cross-process ring rests on Linux's sealed memfds, shared mappings,
// futexes and Unix socket pairs: none of it exists on Windows yet (a
// section object shared as an NT handle is the plan, docs/windows.md).
// Every way in (New, Open) refuses with errWindows before any descriptor
// or mapping exists, so the rest below is never reached there.

// errWindows is the refusal of every ring made or opened on Windows.
var errWindows = fmt.Errorf("share: the cross-process ring is not supported on Windows yet (docs/windows.md): %w", errors.ErrUnsupported)

func newControlBlock(int) (int, []byte, error) { return -1, nil, errWindows }

func mapShared(int, int) ([]byte, error) { return nil, errWindows }

func unmapShared([]byte) error { return nil }

func fileSize(int) (int, error) { return 0, errWindows }

func closeFD(int) error { return nil }

func dupCloexec(int) (int, error) { return -1, errWindows }

func livenessPair() ([2]int, error) { return [2]int{-1, -1}, errWindows }
