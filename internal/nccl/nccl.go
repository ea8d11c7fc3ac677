// Package nccl is the raw binding to NCCL (libnccl.so.2), NVIDIA's
// collective communication library, of which gfxcuda uses the point-to-point
// calls (ncclSend, ncclRecv) between GPUs of one host or of several.
//
// Like libcuda, the library is opened at run time (Load), so gfxcuda builds
// and runs without NCCL; only the calls that need it fail, with an error
// that says what was searched and how to install it. The search order:
//
//  1. $GFXCUDA_NCCL_LIBRARY, when set: that file only (a path, or a name for
//     the dynamic loader); nothing else is tried.
//  2. libnccl.so.2 through the dynamic loader (LD_LIBRARY_PATH, the ld.so
//     cache: the system's libnccl2 package, a CUDA install).
//  3. The nvidia-nccl Python wheel (pip install nvidia-nccl-cu12, which
//     PyTorch depends on): nvidia/nccl/lib/libnccl.so.2 under the
//     site-packages (or dist-packages) folders of lib/python3.* below
//     $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local, /usr, and the
//     parent of every $PATH folder (which covers a virtual environment
//     whose bin/ is on PATH without being activated).
//
// The library must be NCCL MinVersion or newer. This package reports raw
// ncclResult_t codes; package nccl turns them into errors and wraps the
// communicator in a type with a lifetime.
package nccl

/*
#cgo linux LDFLAGS: -ldl
#include <stdlib.h>
#include <string.h>
#include "nccl.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// Result is an ncclResult_t.
type Result int32

// Results.
const (
	Success            Result = 0
	UnhandledCudaError Result = 1
	SystemError        Result = 2
	InternalError      Result = 3
	InvalidArgument    Result = 4
	InvalidUsage       Result = 5
	RemoteError        Result = 6
	InProgress         Result = 7
	NotLoaded          Result = C.GFX_NCCL_NOT_LOADED
)

// UniqueIDSize is the size of an ncclUniqueId.
const UniqueIDSize = C.GFX_NCCL_UNIQUE_ID_BYTES

// MinVersion is the oldest NCCL accepted, as NCCL codes versions
// (major*10000 + minor*100 + patch): 2.18.1. Point-to-point calls exist
// since 2.7, but 2.18 is the first release whose ncclCommAbort reliably
// ends a communicator blocked in a send or receive whose peer died (the
// endpoints abort on a dead peer), and the oldest NCCL of the CUDA 12
// PyTorch wheels (torch 2.1).
const MinVersion = 21801

// EnvLibrary names the environment variable that overrides the search.
const EnvLibrary = "GFXCUDA_NCCL_LIBRARY"

// ErrNotFound is wrapped by Load's error when no NCCL library could be
// opened; ErrTooOld when the library is older than MinVersion; ErrSymbols
// when the file opened lacks NCCL's entry points.
var (
	ErrNotFound = errors.New("NCCL library (libnccl.so.2) not found")
	ErrTooOld   = errors.New("NCCL library too old")
	ErrSymbols  = errors.New("not an NCCL library: entry points missing")
)

// Comm is an ncclComm_t as an integer (never a Go pointer).
type Comm uintptr

// UniqueID is an ncclUniqueId.
type UniqueID [UniqueIDSize]byte

var (
	loadOnce sync.Once
	loadErr  error
	libPath  string
	version  int
)

// Load opens NCCL (see the package comment for where it looks), checks its
// version and resolves the entry points. It runs once; later calls return
// the first result.
func Load() error {
	loadOnce.Do(func() {
		libPath, version, loadErr = load(Candidates())
	})
	return loadErr
}

// Library returns the path or name NCCL was loaded from ("" before a
// successful Load) and its version code.
func Library() (string, int) { return libPath, version }

// Candidates lists the files Load tries, in order.
func Candidates() []string {
	if p := os.Getenv(EnvLibrary); p != "" {
		return []string{p}
	}
	out := []string{"libnccl.so.2"}
	seen := map[string]bool{}
	var roots []string
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(v); p != "" {
			roots = append(roots, p)
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(h, ".local"))
	}
	roots = append(roots, "/usr/local", "/usr")
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" && filepath.IsAbs(d) {
			roots = append(roots, filepath.Dir(d))
		}
	}
	for _, r := range roots {
		for _, pkgs := range []string{"site-packages", "dist-packages"} {
			m, _ := filepath.Glob(filepath.Join(r, "lib", "python3*", pkgs, "nvidia", "nccl", "lib", "libnccl.so.2"))
			for _, f := range m {
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// load opens the first of names that loads, checks it and binds it.
func load(names []string) (string, int, error) {
	var reasons []string
	for _, n := range names {
		lib, err := dl.Open(n)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		v, err := bind(lib)
		if err != nil {
			return "", v, err
		}
		return n, v, nil
	}
	how := "install NCCL 2.18 or newer: the libnccl2 package (NVIDIA's CUDA repository), or `pip install nvidia-nccl-cu12`; or set " + EnvLibrary + " to the path of libnccl.so.2"
	if os.Getenv(EnvLibrary) != "" {
		how = "fix " + EnvLibrary + " (it must name libnccl.so.2 of NCCL 2.18 or newer), or unset it to search the usual places"
	}
	return "", 0, fmt.Errorf("%w: tried %s (%s); %s", ErrNotFound, strings.Join(names, ", "), strings.Join(reasons, "; "), how)
}

var symbols = []string{"ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy",
	"ncclCommAbort", "ncclCommGetAsyncError", "ncclSend", "ncclRecv", "ncclGroupStart", "ncclGroupEnd",
	"ncclGetErrorString"}

func bind(lib *dl.Library) (int, error) {
	var p []unsafe.Pointer
	var missing []string
	for _, s := range symbols {
		f, err := lib.Sym(s)
		if err != nil {
			missing = append(missing, s)
		}
		p = append(p, f)
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("%w: %s lacks %s; point %s at libnccl.so.2 of NCCL 2.18 or newer", ErrSymbols, lib.Name(), strings.Join(missing, ", "), EnvLibrary)
	}
	// The version is checked before binding: a refused library is never
	// called again.
	var v C.int
	if r := Result(C.gfx_nccl_call_version(p[0], &v)); r != Success {
		return 0, fmt.Errorf("%s: ncclGetVersion failed with ncclResult_t %d", lib.Name(), r)
	}
	if int(v) < MinVersion {
		return int(v), fmt.Errorf("%w: %s is NCCL %s; gfxcuda needs %s or newer (update libnccl2 or nvidia-nccl-cu12, or point %s at a newer libnccl.so.2)",
			ErrTooOld, lib.Name(), VersionString(int(v)), VersionString(MinVersion), EnvLibrary)
	}
	C.gfx_nccl_load(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10])
	return int(v), nil
}

// VersionString spells an NCCL version code: 22803 → "2.28.3". Codes below
// 10000 are the old scheme (major*1000 + minor*100 + patch) of NCCL < 2.9.
func VersionString(v int) string {
	if v < 10000 {
		return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
}

// ErrorString is ncclGetErrorString's text for r ("" when unknown).
func ErrorString(r Result) string {
	if r == NotLoaded {
		return "NCCL not loaded"
	}
	s := C.gfx_ncclGetErrorString(C.ncclResult_t(r))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// GetUniqueID is ncclGetUniqueId.
func GetUniqueID() (UniqueID, Result) {
	var id C.ncclUniqueId
	r := Result(C.gfx_ncclGetUniqueId(&id))
	var out UniqueID
	copy(out[:], C.GoBytes(unsafe.Pointer(&id), UniqueIDSize))
	return out, r
}

// CommInitRank is ncclCommInitRank: it blocks until all nranks ranks have
// joined. The CUDA device is the one of the context current on the calling
// thread.
func CommInitRank(nranks int, id UniqueID, rank int) (Comm, Result) {
	var cid C.ncclUniqueId
	C.memcpy(unsafe.Pointer(&cid), unsafe.Pointer(&id[0]), UniqueIDSize)
	var c C.uintptr_t
	r := Result(C.gfx_ncclCommInitRank(&c, C.int(nranks), &cid, C.int(rank)))
	return Comm(c), r
}

// CommDestroy is ncclCommDestroy.
func CommDestroy(c Comm) Result { return Result(C.gfx_ncclCommDestroy(C.uintptr_t(c))) }

// CommAbort is ncclCommAbort.
func CommAbort(c Comm) Result { return Result(C.gfx_ncclCommAbort(C.uintptr_t(c))) }

// CommGetAsyncError is ncclCommGetAsyncError: the communicator's
// asynchronous error (Success, or InProgress while it is being set up).
func CommGetAsyncError(c Comm) (Result, Result) {
	var e C.ncclResult_t
	r := Result(C.gfx_ncclCommGetAsyncError(C.uintptr_t(c), &e))
	return Result(e), r
}

// Send is ncclSend of n bytes at device address p to rank peer on stream
// (a CUstream handle).
func Send(p uint64, n uint64, peer int, c Comm, stream uintptr) Result {
	return Result(C.gfx_ncclSend(C.uint64_t(p), C.size_t(n), C.int(peer), C.uintptr_t(c), C.uintptr_t(stream)))
}

// Recv is ncclRecv of n bytes into device address p from rank peer on
// stream.
func Recv(p uint64, n uint64, peer int, c Comm, stream uintptr) Result {
	return Result(C.gfx_ncclRecv(C.uint64_t(p), C.size_t(n), C.int(peer), C.uintptr_t(c), C.uintptr_t(stream)))
}

// GroupStart is ncclGroupStart. Groups are per OS thread: start and end
// one on the same locked thread.
func GroupStart() Result { return Result(C.gfx_ncclGroupStart()) }

// GroupEnd is ncclGroupEnd.
func GroupEnd() Result { return Result(C.gfx_ncclGroupEnd()) }
