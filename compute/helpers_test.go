package compute

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// openTest opens the best device with validation on; the test fails on
// any validation error. Without Vulkan it skips, or fails under
// GFXCUDA_REQUIRE_VULKAN=1.
func openTest(t testing.TB) *Device {
	t.Helper()
	syncValidation(t)
	on := true
	d, err := Open(Options{Validation: &on})
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
				t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: %v", err)
			}
			t.Skipf("Vulkan unavailable: %v", err)
		}
		t.Fatal(err)
	}
	// On Windows (tested under Wine) the layer is not required: no Windows
	// build of it is at hand there.
	if !d.Instance().ValidationEnabled() && os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" && runtime.GOOS != "windows" {
		t.Fatal("GFXCUDA_REQUIRE_VULKAN=1: the validation layer is not installed (apt install vulkan-validationlayers)")
	}
	t.Cleanup(func() {
		in := d.Instance()
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if msgs := in.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d validation error(s):\n%s", len(msgs), strings.Join(msgs, "\n"))
		}
	})
	return d
}

// syncValidation turns on the validation layer's synchronization checks
// for instances made during the test: a missing barrier fails the test.
func syncValidation(t testing.TB) {
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		t.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
}

// compile compiles src (HLSL or GLSL by its name's extension).
func compile(t testing.TB, d *Device, name, src string) *Kernel {
	t.Helper()
	k, err := d.Compile([]byte(src), shader.Options{Filename: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xCD
	}
	return b
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func u32bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// newBuffer makes a buffer filled with data.
func newBuffer(t testing.TB, d *Device, heap Heap, data []byte) *Buffer {
	t.Helper()
	b, err := d.Buffer(uint64(len(data)), heap)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Upload(data); err != nil {
		t.Fatal(err)
	}
	return b
}

func readback(t testing.TB, b *Buffer) []byte {
	t.Helper()
	out, err := b.Readback()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
