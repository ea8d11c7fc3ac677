package gfxcuda

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/kernels"
)

// TestKernelFallbackDecision checks, on the CPU, what a texture copy does
// when loading gfxcuda's kernels fails: driver-cannot-load-this errors fall
// back to the copy engine with one warning per process and a recorded
// reason; other errors are returned; success uses the kernel.
func TestKernelFallbackDecision(t *testing.T) {
	kernelState.mu.Lock()
	failed, warned, handler := kernelState.failed, kernelState.warned, kernelState.handler
	kernelState.failed, kernelState.warned, kernelState.handler = nil, false, nil
	kernelState.mu.Unlock()
	t.Cleanup(func() {
		kernelState.mu.Lock()
		kernelState.failed, kernelState.warned, kernelState.handler = failed, warned, handler
		kernelState.mu.Unlock()
	})
	var msgs []string
	SetWarningHandler(func(m string) { msgs = append(msgs, m) })

	load := func(code cuda.Result) error {
		// As Device.kernel wraps a failed cuModuleLoadData.
		return fmt.Errorf("interop: loading gfxcuda's kernels: %w", &cuda.Error{Op: "cuModuleLoadData", Code: code, Name: code.Error()})
	}
	if use, err := kernelFallback(0, nil); !use || err != nil {
		t.Fatalf("success: use %v err %v, want the kernel", use, err)
	}
	if KernelsUnavailable() != nil || kernelsFailed(0) != nil {
		t.Fatal("a failure is recorded after success")
	}
	for _, code := range []cuda.Result{cuda.ErrorOutOfMemory, cuda.ErrorInvalidContext, cuda.ErrorUnknown} {
		if use, err := kernelFallback(0, load(code)); use || !errors.Is(err, code) {
			t.Errorf("%v: use %v err %v, want the error returned", code, use, err)
		}
	}
	if use, err := kernelFallback(0, ErrClosed); use || !errors.Is(err, ErrClosed) {
		t.Errorf("ErrClosed: use %v err %v, want the error returned", use, err)
	}
	if len(msgs) != 0 || KernelsUnavailable() != nil {
		t.Fatalf("passing errors warned %q / recorded %v", msgs, KernelsUnavailable())
	}
	// CUDA_ERROR_UNSUPPORTED_PTX_VERSION: what an old driver says to new PTX.
	for i, code := range []cuda.Result{222, 218, 209, cuda.ErrorNotFound, cuda.ErrorMissingEntryPoint} {
		use, err := kernelFallback(i%2, load(code))
		if use || err != nil {
			t.Errorf("%v: use %v err %v, want the copy engine", code, use, err)
		}
	}
	if len(msgs) != 1 {
		t.Fatalf("%d warnings, want exactly 1: %q", len(msgs), msgs)
	}
	if !strings.Contains(msgs[0], "copy engine") || !strings.Contains(msgs[0], cuda.Result(222).Error()) {
		t.Errorf("warning %q does not say what happened and why", msgs[0])
	}
	if err := kernelsFailed(1); !errors.Is(err, cuda.ErrorNotFound) { // the last of device 1's failures
		t.Errorf("device 1's recorded reason: %v", err)
	}
	if err := KernelsUnavailable(); err == nil || !strings.Contains(err.Error(), "PTX ISA") {
		t.Errorf("KernelsUnavailable() = %v", err)
	}
	if kernelsFailed(2) != nil {
		t.Error("a device that never failed is recorded")
	}
}

// TestKernelsLoadOnThisDriver checks, on a GPU machine, that texture copies
// use gfxcuda's kernel rather than the fallback: the fallback keeps copies
// correct, so without this test a PTX the driver rejects would go unseen.
func TestKernelsLoadOnThisDriver(t *testing.T) {
	d := openDevice(t)
	use, err := d.useCopyKernel()
	if err != nil {
		t.Fatal(err)
	}
	if !use {
		t.Fatalf("texture copies fall back to the copy engine on this driver: %v", KernelsUnavailable())
	}
	for _, name := range []string{kernels.FillHash, kernels.XorU32, kernels.SurfXor, kernels.RGBA8ToF32, kernels.CheckHash, kernels.SurfLinear} {
		if _, err := d.kernel(name); err != nil {
			t.Errorf("kernel %s: %v", name, err)
		}
	}
}
