package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// List the CUDA devices, or say why there are none.
func ExampleDevices() {
	devs, err := cuda.Devices()
	if errors.Is(err, cuda.ErrNoDriver) {
		fmt.Println("CUDA unavailable")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range devs {
		in, err := d.Info()
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%d: %s (sm_%d%d) %s\n", in.Ordinal, in.Name, in.ComputeMajor, in.ComputeMinor, in.UUID)
	}
}

// Copy a buffer to the GPU and back in the primary context.
func ExampleContext_CopyHtoD() {
	dev, err := cuda.GetDevice(0)
	if err != nil {
		fmt.Println("no CUDA device")
		return
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	mem, err := ctx.Alloc(5)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	ctx.CopyHtoD(mem.Ptr(), []byte("hello"))
	out := make([]byte, 5)
	ctx.CopyDtoH(out, mem.Ptr())
	fmt.Println(string(out))
}

// Queue work on the stream another library (PyTorch, CuPy) is using, then
// wait for it with a deadline. handle is, for example,
// torch.cuda.current_stream().cuda_stream; 0 is the legacy default stream.
func ExampleWrapStream() {
	dev, err := cuda.GetDevice(0)
	if err != nil {
		fmt.Println("no CUDA device")
		return
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	var handle uintptr // from the other library
	s, err := cuda.WrapStream(ctx, handle)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close() // stops using the stream; never destroys it
	mem, err := ctx.Alloc(1 << 20)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	if err := s.Memset32(mem.Ptr(), 0x3f800000, 1<<18); err != nil {
		fmt.Println(err)
		return
	}
	wait, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.Wait(wait); err != nil {
		fmt.Println(err)
	}
}
