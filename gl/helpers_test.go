package gl

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cuda/cudatest"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// open makes a context, skipping without libEGL (failing under
// GFXCUDA_REQUIRE_GL=1).
func open(t testing.TB, o Options) *Context {
	t.Helper()
	if err := egl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
	c, err := Open(o)
	if err != nil {
		if o.Platform == PlatformSurfaceless && strings.Contains(err.Error(), "not offered") {
			t.Skip(err) // NVIDIA's EGL alone has no surfaceless platform
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// vkDevice opens a Vulkan device on the GPU GL runs on (by UUID), or the
// first device; skips without Vulkan (fails under GFXCUDA_REQUIRE_VULKAN=1).
func vkDevice(t testing.TB, c *Context) *vulkan.Device {
	t.Helper()
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-gl-test"})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: %v", err)
		}
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			t.Skipf("no Vulkan: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if msgs := in.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("validation errors:\n%s", strings.Join(msgs, "\n"))
		}
		in.Close()
	})
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	pd := pds[0]
	for _, p := range pds {
		for _, u := range c.Info().DeviceUUIDs {
			if p.DeviceUUID == u {
				pd = p
			}
		}
	}
	d, err := in.NewDevice(pd, vulkan.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// needCUDA returns the primary context of CUDA device 0, or skips with a
// one-line reason (fails under GFXCUDA_REQUIRE_CUDA=1).
func needCUDA(t testing.TB) *cuda.Context {
	t.Helper()
	return cudatest.Context(t)
}

// randomTexels returns n bytes of random texels of format f: float formats
// get finite random values (so no NaN is canonicalized on the way), others
// random bytes.
func randomTexels(f format.Format, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	in := f.Info()
	switch {
	case in.Kind == format.Float && in.BytesPerTexel/in.Channels == 4:
		for i := 0; i+4 <= n; i += 4 {
			v := math.Float32bits(float32(r.NormFloat64() * 1000))
			b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	case in.Kind == format.Float:
		for i := 0; i+2 <= n; i += 2 {
			// a finite half: exponent below 31
			v := uint16(r.Uint32()) &^ 0x7c00
			v |= uint16(r.IntN(31)) << 10
			b[i], b[i+1] = byte(v), byte(v>>8)
		}
	default:
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

func poison(b []byte) {
	for i := range b {
		b[i] = 0xA5 ^ byte(i*7)
	}
}

// firstDiff returns the index of the first differing byte, or -1.
func firstDiff(a, b []byte) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count fds: %v", err)
	}
	return len(ents)
}
