package slotring

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// interopDevice is a Device shared by Vulkan and CUDA; the test skips
// without one (fails under GFXCUDA_REQUIRE_CUDA=1).
func interopDevice(t *testing.T) *gfxcuda.Device {
	t.Helper()
	d, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("GPU required: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// toDevice copies src to dst and waits until the device holds it.
func toDevice(ctx *cuda.Context, dst cuda.DevicePtr, src []byte) error {
	if err := ctx.CopyHtoD(dst, src); err != nil {
		return err
	}
	return ctx.Synchronize()
}

// poisonedBytes is n bytes of 0xA5: what a copy that did not run leaves.
func poisonedBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xA5
	}
	return b
}

// TestGPURingSlots: New allocates slots of a granule or more
// with CUDA (when rounding wastes at most a quarter), smaller or wasteful
// sizes with Vulkan; a frame of random bytes written into each kind of
// slot reads back byte for byte through a CUDA consumer in this process.
func TestGPURingSlots(t *testing.T) {
	d := interopDevice(t)
	g, err := d.CUDA().Granularity()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    uint64
		cuda bool
	}{{4096, false}, {g, true}, {1920 * 1080 * 4, true}, {g + 1, false}} {
		r, err := New(d, Options{SlotBytes: tc.n, Slots: 2})
		if err != nil {
			t.Fatalf("%d bytes: %v", tc.n, err)
		}
		for i, s := range r.Slots() {
			if s.Buffer().FromCUDA() != tc.cuda || s.Size() != tc.n {
				t.Errorf("%d-byte slot %d: from CUDA %v, size %d; want %v, %d", tc.n, i, s.Buffer().FromCUDA(), s.Size(), tc.cuda, tc.n)
			}
		}
		cc, err := gfxcuda.OpenCUDAConsumer(ctx10(t), d.CUDA(), r.Token())
		if err != nil {
			t.Fatal(err)
		}
		slot, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		want := seededRandom(tc.n, int(tc.n))
		if err := toDevice(d.CUDA(), r.Slots()[slot].Buffer().Ptr(), want); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Publish(ctx10(t), slot, nil, nil); err != nil {
			t.Fatal(err)
		}
		st, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		f, err := cc.Next(ctx10(t), st)
		if err != nil {
			t.Fatal(err)
		}
		got := poisonedBytes(int(tc.n))
		if err := d.CUDA().CopyDtoH(got, cc.Ptr(f)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d-byte slots: the frame read through the consumer differs", tc.n)
		}
		if err := errors.Join(cc.Release(f, st), cc.Close(), st.Close(), r.Close()); err != nil {
			t.Fatal(err)
		}
	}
}
