package gfxcuda

import (
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/kernels"
)

// Texture copies (CopyTo, CopyFrom) of textures with storage usage run
// gfxcuda's own surface kernel, which the driver JIT-compiles from embedded
// PTX. When a driver cannot load that PTX at all, the copies fall back to
// the copy engine (CUDA array copies: correct, slower) instead of failing,
// and gfxcuda says why once.

// kernelState records, per CUDA device ordinal, why gfxcuda's kernels do
// not load there; a device absent from it has not failed (yet).
var kernelState struct {
	mu      sync.Mutex
	failed  map[int]error
	warned  bool
	handler func(msg string) // nil: log.Print
}

// SetWarningHandler sets the function that receives gfxcuda's one-time
// warnings, such as texture copies falling back to the copy engine because
// the driver cannot load gfxcuda's kernels. nil restores the default, which
// writes the message with the standard log package (to stderr).
func SetWarningHandler(f func(msg string)) {
	kernelState.mu.Lock()
	defer kernelState.mu.Unlock()
	kernelState.handler = f
}

// KernelsUnavailable returns why texture copies use the copy engine instead
// of gfxcuda's kernels (on the first device where loading them failed), or
// nil when no load has failed.
func KernelsUnavailable() error {
	kernelState.mu.Lock()
	defer kernelState.mu.Unlock()
	for _, err := range kernelState.failed {
		return err
	}
	return nil
}

// kernelLoadUnsupported reports whether err, from loading gfxcuda's kernel
// module or looking up a kernel in it, means that this driver and GPU
// cannot run the kernels at all, as opposed to a passing failure (out of
// memory, a closed device) that the caller must see.
func kernelLoadUnsupported(err error) bool {
	var r cuda.Result
	if !errors.As(err, &r) {
		return false
	}
	switch r {
	case 200, // CUDA_ERROR_INVALID_IMAGE
		209,                         // CUDA_ERROR_NO_BINARY_FOR_GPU
		218,                         // CUDA_ERROR_INVALID_PTX
		221,                         // CUDA_ERROR_JIT_COMPILER_NOT_FOUND
		222,                         // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
		223,                         // CUDA_ERROR_JIT_COMPILATION_DISABLED
		cuda.ErrorNotFound,          // the kernel is not in the module
		cuda.ErrorMissingEntryPoint: // the driver lacks the module functions
		return true
	}
	return false
}

// kernelFallback decides what a copy does after loading the kernels on
// device ordinal dev returned err: use the kernel (err nil), fall back to
// the copy engine (the driver cannot load them; recorded, and warned about
// once per process), or fail with err.
func kernelFallback(dev int, err error) (useKernel bool, _ error) {
	if err == nil {
		return true, nil
	}
	if !kernelLoadUnsupported(err) {
		return false, err
	}
	reason := fmt.Errorf("interop: gfxcuda's CUDA kernels (PTX ISA %s, %s) do not load on CUDA device %d: %w",
		kernels.PTXVersion, kernels.PTXTarget, dev, err)
	kernelState.mu.Lock()
	if kernelState.failed == nil {
		kernelState.failed = map[int]error{}
	}
	kernelState.failed[dev] = reason
	warn := !kernelState.warned
	kernelState.warned = true
	handler := kernelState.handler
	kernelState.mu.Unlock()
	if warn {
		msg := "gfxcuda: texture copies fall back to the copy engine (slower): " + reason.Error() +
			"; updating the NVIDIA driver restores the kernel copies"
		if handler != nil {
			handler(msg)
		} else {
			log.Print(msg)
		}
	}
	return false, nil
}

// kernelsFailed returns the recorded reason the kernels do not load on
// device ordinal dev, or nil.
func kernelsFailed(dev int) error {
	kernelState.mu.Lock()
	defer kernelState.mu.Unlock()
	return kernelState.failed[dev]
}

// useCopyKernel reports whether texture copies on d can use gfxcuda's
// surface kernel, loading it on first use; false means the copy engine must
// do the copy. Errors other than the driver being unable to load the
// kernels are returned.
func (d *Device) useCopyKernel() (bool, error) {
	dev := d.ctx.Device().Ordinal()
	if kernelsFailed(dev) != nil {
		return false, nil
	}
	_, err := d.kernel(kernels.SurfLinear)
	return kernelFallback(dev, err)
}
