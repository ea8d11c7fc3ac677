package gfxcuda_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The scenario from the Numba forum thread: memory allocated by a graphics
// API (here a Vulkan buffer), a CUDA kernel run on it in place, then the
// buffer used by Vulkan again, with no trip through host memory in between.
func Example_vulkanBufferCUDAKernel() {
	dev, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		fmt.Println("no GPU shared by Vulkan and CUDA:", err)
		return
	}
	defer dev.Close()

	const n = 1 << 20 // uint32 values
	buf, err := dev.NewBuffer(n * 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Vulkan side: fill the buffer with random values.
	in := make([]byte, n*4)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], rand.Uint32())
	}
	if err := buf.Vulkan().Upload(0, in); err != nil {
		fmt.Println(err)
		return
	}

	// CUDA side: a kernel xors every value in place. Map hands the buffer
	// to CUDA (GPU-side wait, no host sync) and back when the function returns.
	mod, err := dev.CUDA().LoadModule(kernels.PTX)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Close()
	xor, err := mod.Function(kernels.XorU32)
	if err != nil {
		fmt.Println(err)
		return
	}
	const key = 0x5bd1e995
	err = buf.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error {
		return xor.Launch(s, cuda.Dim3{X: 1024}, cuda.Dim3{X: 256}, 0, p, uint64(n), uint32(key))
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Vulkan side again: copy into a host-readable buffer. The submission
	// waits on the GPU for the kernel.
	rb, err := dev.Vulkan().NewBuffer(vulkan.BufferOptions{Size: n * 4, Heap: vulkan.HeapReadback})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rb.Close()
	err = dev.Run(func(c *vulkan.Commands) error {
		c.CopyBuffer(rb, buf.Vulkan(), 0, 0, n*4)
		return c.Err()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := rb.Map()
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < n; i++ {
		if binary.LittleEndian.Uint32(out[4*i:]) != binary.LittleEndian.Uint32(in[4*i:])^key {
			fmt.Println("mismatch at", i)
			return
		}
	}
	fmt.Println("verified", n, "values")
}

// TestExampleVulkanBufferCUDAKernel runs the example and checks what it
// printed (examples with machine-dependent output have no Output comment).
func TestExampleVulkanBufferCUDAKernel(t *testing.T) {
	if cuda.Init() != nil && os.Getenv("GFXCUDA_REQUIRE_CUDA") != "1" {
		t.Skip("no CUDA driver")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stdout := os.Stdout
	os.Stdout = w
	Example_vulkanBufferCUDAKernel()
	os.Stdout = stdout
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "verified 1048576 values" {
		t.Errorf("example printed %q", out)
	}
}
