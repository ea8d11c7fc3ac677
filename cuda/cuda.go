// Package cuda is gfxcuda's binding to the CUDA driver API.
//
// libcuda.so.1 is loaded at run time the first time any function here is
// used; no CUDA toolkit is needed to build. On a machine without an NVIDIA
// driver every function returns an error for which
// errors.Is(err, ErrNoDriver) is true, and nothing panics.
//
// Work happens in a device's primary context, the one the CUDA runtime,
// PyTorch, CuPy and Numba use too, so memory allocated here is usable by
// them directly. Every call makes its context current on the OS thread it
// runs on for the duration of the call and then restores the thread's
// previous context, so goroutines need not lock themselves to threads and a
// caller's own current context (PyTorch's on another GPU, say) is never
// changed; code that calls other CUDA libraries can use Context.Do to run
// with the context current.
//
// Every object is safe for concurrent use, and Close is idempotent and may
// race with other calls: it waits for the calls in progress on the object
// and makes later ones fail with ErrClosed. Work already queued on the GPU
// is not tracked: do not free memory that queued work still uses. Streams
// made by other libraries are used through WrapStream; raw handles
// (Handle, Ptr) are borrowed, valid until Close. Host waits take a
// context.Context (Stream.Wait, Event.Wait); the Synchronize methods block
// without a timeout. See docs/embedding.md.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ErrNoDriver is matched (errors.Is) by every error caused by the NVIDIA
// driver being absent or unusable: libcuda.so.1 missing, cuInit failing.
var ErrNoDriver = errors.New("cuda: no usable NVIDIA CUDA driver")

// ErrClosed is returned when an object is used after Close.
var ErrClosed = errors.New("cuda: use of closed object")

// ErrNotPinned is returned when an asynchronous copy is given host memory
// that was not allocated with Context.AllocHost.
var ErrNotPinned = errors.New("cuda: asynchronous copies need pinned host memory from Context.AllocHost")

// Result is a CUresult code. It implements error, so callers can test for a
// specific code with errors.Is(err, cuda.ErrorOutOfMemory).
type Result int32

// CUresult codes that callers commonly branch on (values from cuda.h).
const (
	Success                       Result = 0
	ErrorInvalidValue             Result = 1
	ErrorOutOfMemory              Result = 2
	ErrorNotInitialized           Result = 3
	ErrorDeinitialized            Result = 4
	ErrorNoDevice                 Result = 100
	ErrorInvalidDevice            Result = 101
	ErrorInvalidContext           Result = 201
	ErrorInvalidHandle            Result = 400
	ErrorPeerAccessUnsupported    Result = 217 // no peer access between these devices (topology)
	ErrorNotFound                 Result = 500
	ErrorNotReady                 Result = 600
	ErrorIllegalAddress           Result = 700
	ErrorPeerAccessAlreadyEnabled Result = 704
	ErrorNotSupported             Result = 801
	ErrorUnknown                  Result = 999
	ErrorMissingEntryPoint        Result = Result(cu.MissingEntry) // gfxcuda's own: the driver lacks the function
)

// Error returns the CUresult's name, as the driver reports it.
func (r Result) Error() string {
	if r == ErrorMissingEntryPoint {
		return "GFXCUDA_MISSING_ENTRY_POINT"
	}
	if name, ok := cu.ErrorName(cu.Result(r)); ok {
		return name
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Error is a failed driver call: which call, its CUresult, and the driver's
// name and description of that code.
type Error struct {
	Op          string // the driver function, e.g. "cuMemAlloc"
	Code        Result
	Name        string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Description string // e.g. "out of memory"
}

func (e *Error) Error() string {
	if e.Description != "" {
		return fmt.Sprintf("cuda: %s: %s (%s)", e.Op, e.Name, e.Description)
	}
	return fmt.Sprintf("cuda: %s: %s", e.Op, e.Name)
}

// Unwrap returns the Result, for errors.Is(err, cuda.ErrorOutOfMemory).
func (e *Error) Unwrap() error { return e.Code }

// check turns a raw result into an error (nil on success).
func check(op string, r cu.Result) error {
	switch r {
	case cu.Success:
		return nil
	case cu.NotLoaded:
		return noDriver(cu.Load())
	case cu.MissingEntry:
		return &Error{Op: op, Code: ErrorMissingEntryPoint, Name: "GFXCUDA_MISSING_ENTRY_POINT",
			Description: "the installed NVIDIA driver does not provide " + op + "; update the driver"}
	}
	e := &Error{Op: op, Code: Result(r)}
	e.Name = Result(r).Error()
	if d, ok := cu.ErrorString(r); ok {
		e.Description = d
	}
	return e
}

// NoDriverError explains why the driver could not be used. It matches
// ErrNoDriver with errors.Is.
type NoDriverError struct {
	Reason string // what went wrong
	Fix    string // what to do about it
	Err    error  // the underlying error
}

func (e *NoDriverError) Error() string {
	return "cuda: no usable NVIDIA driver: " + e.Reason
}

// Is reports whether target is ErrNoDriver.
func (e *NoDriverError) Is(target error) bool { return target == ErrNoDriver }

// Unwrap returns the underlying error.
func (e *NoDriverError) Unwrap() error { return e.Err }

func noDriver(err error) error {
	if err == nil {
		err = errors.New("driver not loaded")
	}
	var le *cu.LoadError
	if errors.As(err, &le) {
		switch le.Stage {
		case "dlopen":
			if runtime.GOOS == "windows" {
				return &NoDriverError{Reason: "nvcuda.dll not found", Err: err,
					Fix: "install the NVIDIA driver (it provides nvcuda.dll in System32); CUDA interop on Windows is not supported yet (docs/windows.md)"}
			}
			return &NoDriverError{Reason: "libcuda.so.1 not found", Err: err,
				Fix: "install the NVIDIA driver (it provides libcuda.so.1), or add its directory (e.g. /usr/local/nvidia/lib64) to LD_LIBRARY_PATH"}
		case "cuInit":
			name := fmt.Sprintf("CUresult %d", le.Result)
			if n, ok := cu.ErrorName(le.Result); ok {
				name = n
			}
			fix := "check that the NVIDIA kernel module is loaded (nvidia-smi) and that the user may open /dev/nvidia*"
			switch le.Result {
			case cu.ErrNoDevice:
				fix = "no CUDA-capable GPU is visible: check nvidia-smi and CUDA_VISIBLE_DEVICES"
			case 35: // CUDA_ERROR_INSUFFICIENT_DRIVER
				fix = "the kernel driver is older than libcuda.so.1: install matching driver packages"
			case 803: // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
				fix = "libcuda.so.1 and the kernel module come from different driver versions: reinstall the driver or reboot after an upgrade"
			case 304: // CUDA_ERROR_OPERATING_SYSTEM
				name = "CUDA_ERROR_OPERATING_SYSTEM"
				if why := foreignProc(); why != "" {
					name += " (/proc belongs to another PID namespace)"
					fix = why
				}
			}
			return &NoDriverError{Reason: "cuInit failed: " + name, Fix: fix, Err: Result(le.Result)}
		}
		return &NoDriverError{Reason: le.Error(), Fix: "install a newer NVIDIA driver (CUDA 12 or later)", Err: err}
	}
	return &NoDriverError{Reason: err.Error(), Err: err}
}

// foreignProc says why cuInit fails in a process whose /proc belongs to
// another PID namespace (a process started in a new PID namespace without
// a /proc of its own), or "" when /proc is this process's: the NVIDIA
// driver reads it, and cuInit then fails with CUDA_ERROR_OPERATING_SYSTEM.
func foreignProc() string {
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return ""
	}
	if pid, err := strconv.Atoi(self); err != nil || pid == os.Getpid() {
		return ""
	}
	return fmt.Sprintf("this process is pid %d in its PID namespace but pid %s in the /proc mounted here: that /proc belongs to another PID namespace, "+
		"and the NVIDIA driver needs its own namespace's; mount one in a mount namespace of the process's own, as container runtimes do "+
		"(unshare --pid --fork --mount-proc; or unshare --mount and mount -t proc proc /proc)", os.Getpid(), self)
}

// Init loads the driver and calls cuInit. It is called by every function of
// this package, so calling it is only needed to learn early whether CUDA is
// usable. It is safe to call repeatedly and concurrently.
func Init() error {
	if err := cu.Load(); err != nil {
		return noDriver(err)
	}
	return nil
}

// Version is a CUDA version, e.g. 13.0 for 13000.
type Version struct{ Major, Minor int }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// DriverVersion returns the CUDA version the driver supports.
func DriverVersion() (Version, error) {
	if err := Init(); err != nil {
		return Version{}, err
	}
	v, r := cu.DriverGetVersion()
	if err := check("cuDriverGetVersion", r); err != nil {
		return Version{}, err
	}
	return Version{v / 1000, v % 1000 / 10}, nil
}

// LibraryPath is the file name libcuda was loaded as, or "" when it was not.
func LibraryPath() string { return cu.Library() }
