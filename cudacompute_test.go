package gfxcuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// openShared opens a GPU both Vulkan and CUDA see, with validation on, as
// an interop device and a compute device on it; the test fails on
// validation errors. Without such a GPU the test is skipped with the
// reason, or fails under GFXCUDA_REQUIRE_CUDA=1.
func openShared(t *testing.T) (*Device, *compute.Device) {
	t.Helper()
	skip := func(err error) {
		t.Helper()
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_CUDA=1: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %s", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if err := cuda.Init(); err != nil {
		skip(err)
	}
	cds, err := cuda.Devices()
	if err != nil || len(cds) == 0 {
		skip(fmt.Errorf("no CUDA device: %v", err))
	}
	on := true
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-test", Validation: &on})
	if err != nil {
		skip(err)
	}
	t.Cleanup(func() {
		in.Close()
		if msgs := in.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d validation error(s):\n%s", len(msgs), strings.Join(msgs, "\n"))
		}
	})
	pds, err := in.PhysicalDevices()
	if err != nil {
		skip(err)
	}
	for _, cd := range cds {
		u, err := cd.UUID()
		if err != nil {
			t.Fatal(err)
		}
		for _, pd := range pds {
			if cuda.UUID(pd.DeviceUUID) != u {
				continue
			}
			vd, err := in.NewDevice(pd, vulkan.DeviceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := cd.PrimaryContext()
			if err != nil {
				t.Fatal(err)
			}
			idev, err := New(vd, ctx)
			if err != nil {
				t.Fatal(err)
			}
			d := idev.Compute()
			t.Cleanup(func() {
				d.Close()
				if err := idev.Close(); err != nil {
					t.Errorf("interop Close: %v", err)
				}
				vd.Close()
				ctx.Close()
			})
			return idev, d
		}
	}
	skip(fmt.Errorf("no Vulkan device has the UUID of a CUDA device"))
	return nil, nil
}

// hashShader writes hash32(i ^ seed) (lowbias32, as kernels.Hash32 and the
// CUDA kernels compute it) to every word of a buffer, or of an R32_UINT
// texture (i = y·width + x).
const hashShader = `
RWStructuredBuffer<uint> words : register(u0);
RWTexture2D<uint> tex : register(u1);
struct PC { uint seed; uint n; uint width; uint height; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
uint hash32(uint x) {
	x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
	return x;
}
[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	uint i = id.y * pc.width + id.x;
	if (id.x >= pc.width || id.y >= pc.height) return;
	if (i < pc.n) words[i] = hash32(i ^ pc.seed);
	tex[id.xy] = hash32(i ^ (pc.seed + 1));
}`

// transformShader reads what CUDA wrote, a buffer and a texture, and
// writes a function of both.
const transformShader = `
StructuredBuffer<uint> words : register(t0);
Texture2D<uint> tex : register(t1);
RWStructuredBuffer<uint2> outp : register(u2);
struct PC { uint width; uint height; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	if (id.x >= pc.width || id.y >= pc.height) return;
	uint i = id.y * pc.width + id.x;
	outp[i] = uint2(words[i] * 3u + 7u, tex.Load(int3(id.xy, 0)) ^ 0x5a5a5a5au);
}`

// TestCUDAHandOff: a compute shader writes a shared buffer and texture,
// CUDA reads them in place and checks every element on the GPU; CUDA
// writes them, a compute shader reads and transforms them, and Go checks
// the result.
func TestCUDAHandOff(t *testing.T) {
	idev, d := openShared(t)
	const w, h = 333, 77
	const n = w * h
	ctx := idev.CUDA()
	ib, err := idev.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	itex, err := idev.NewTexture(TextureOptions{Format: format.R32UInt, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	buf := d.WrapBuffer(ib.Vulkan())
	tex, err := d.WrapTexture(itex.Vulkan())
	if err != nil {
		t.Fatal(err)
	}
	mod, err := ctx.LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close()
	check, _ := mod.Function(kernels.CheckHash)
	fill, _ := mod.Function(kernels.FillHash)
	surfXor, _ := mod.Function(kernels.SurfXor)
	counters, err := ctx.Alloc(16) // errors (uint64), first bad index (uint32)
	if err != nil {
		t.Fatal(err)
	}
	defer counters.Close()
	scratch, err := ctx.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	checkOnGPU := func(s *cuda.Stream, p cuda.DevicePtr, seed uint32) error {
		if err := s.Memset32(counters.Ptr(), 0, 2); err != nil {
			return err
		}
		if err := s.Memset32(counters.Ptr().Add(8), 0xffffffff, 1); err != nil {
			return err
		}
		return check.Launch(s, cuda.Dim3{X: (n + 255) / 256}, cuda.Dim3{X: 256}, 0, p, uint64(n), seed, counters.Ptr(), counters.Ptr().Add(8))
	}
	readCounters := func(what string) {
		t.Helper()
		if err := idev.Stream().Synchronize(); err != nil {
			t.Fatal(err)
		}
		c := make([]byte, 16)
		if err := ctx.CopyDtoH(c, counters.Ptr()); err != nil {
			t.Fatal(err)
		}
		if bad := binary.LittleEndian.Uint64(c); bad != 0 {
			t.Fatalf("%s: CUDA found %d wrong words, the first at %d", what, bad, binary.LittleEndian.Uint32(c[8:]))
		}
	}

	r := newRand(7)
	write := compile(t, d, "hash.hlsl", hashShader)
	read := compile(t, d, "transform.hlsl", transformShader)
	for round := range 3 {
		// Vulkan writes; CUDA reads both in place.
		seed := r.Uint32()
		if err := write.Dispatch((w+15)/16, (h+15)/16, 1, compute.At(0, buf), compute.At(1, tex), compute.PushValues(seed, uint32(n), uint32(w), uint32(h))); err != nil {
			t.Fatal(err)
		}
		err := ib.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return checkOnGPU(s, p, seed) })
		if err != nil {
			t.Fatal(err)
		}
		readCounters("buffer written by Vulkan")
		err = itex.Map(nil, func(_ *cuda.Array, s *cuda.Stream) error {
			if err := itex.CopyTo(s, scratch.Ptr(), 0); err != nil {
				return err
			}
			return checkOnGPU(s, scratch.Ptr(), seed+1)
		})
		if err != nil {
			t.Fatal(err)
		}
		readCounters("texture written by Vulkan")

		// CUDA writes both; Vulkan reads and transforms.
		seed2, key := r.Uint32(), r.Uint32()
		err = ib.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error {
			return fill.Launch(s, cuda.Dim3{X: (n + 255) / 256}, cuda.Dim3{X: 256}, 0, p, uint64(n), seed2)
		})
		if err != nil {
			t.Fatal(err)
		}
		surf, err := itex.Surface()
		if err != nil {
			t.Fatal(err)
		}
		err = itex.Map(nil, func(_ *cuda.Array, s *cuda.Stream) error {
			return surfXor.Launch(s, cuda.Dim3{X: (w + 15) / 16, Y: (h + 15) / 16}, cuda.Dim3{X: 16, Y: 16}, 0,
				surf, uint32(w), uint32(h), uint32(0), uint32(4), key)
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Buffer(8*n, compute.HeapDefault)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Upload(poison(8 * n)); err != nil {
			t.Fatal(err)
		}
		if err := read.Dispatch((w+15)/16, (h+15)/16, 1, compute.At(0, buf), compute.At(1, tex), compute.At(2, out), compute.PushValues(uint32(w), uint32(h))); err != nil {
			t.Fatal(err)
		}
		got := u32s(readback(t, out))
		for i := range uint32(n) {
			a, b := kernels.Hash32(i^seed2)*3+7, kernels.Hash32(i^(seed+1))^key^0x5a5a5a5a
			if got[2*i] != a || got[2*i+1] != b {
				t.Fatalf("round %d: out[%d] = %#x %#x, want %#x %#x", round, i, got[2*i], got[2*i+1], a, b)
			}
		}
		out.Close()
	}
}

// TestCUDABatch: a batch of dispatches on shared memory, handed to CUDA
// once, with CUDA's result read back by the next batch.
func TestCUDABatch(t *testing.T) {
	idev, d := openShared(t)
	const n = 1 << 16
	ib, err := idev.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	buf := d.WrapBuffer(ib.Vulkan())
	inc := compile(t, d, "inc.hlsl", `
RWStructuredBuffer<uint> v : register(u0);
[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { v[id.x] += id.x + 1; }`)
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mod, err := idev.CUDA().LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close()
	xor, _ := mod.Function(kernels.XorU32)
	want := make([]uint32, n)
	if err := buf.Upload(make([]byte, 4*n)); err != nil {
		t.Fatal(err)
	}
	for round := range 4 {
		for range 100 {
			b.Dispatch(inc, n/256, 1, 1, compute.At(0, buf))
		}
		if err := b.Submit(); err != nil {
			t.Fatal(err)
		}
		key := uint32(0x9e3779b9) * uint32(round+1)
		// ToCUDA orders CUDA after the submitted batch on the GPU; the host
		// does not wait here.
		err := ib.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error {
			return xor.Launch(s, cuda.Dim3{X: n / 256}, cuda.Dim3{X: 256}, 0, p, uint64(n), key)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Wait(); err != nil {
			t.Fatal(err)
		}
		b.Reset()
		for i := range want {
			want[i] = (want[i] + 100*uint32(i+1)) ^ key
		}
	}
	got := u32s(readback(t, buf))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("v[%d] = %#x, want %#x", i, got[i], want[i])
		}
	}
}

func compile(t testing.TB, d *compute.Device, name, src string) *compute.Kernel {
	t.Helper()
	k, err := d.Compile([]byte(src), shader.Options{Filename: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xCD
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

func readback(t testing.TB, b *compute.Buffer) []byte {
	t.Helper()
	out, err := b.Readback()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestComputeViews: compute views of a shared texture and buffer on the
// Device's compute device share their memory; a compute device of another
// Vulkan device is refused with ErrOtherDevice.
func TestComputeViews(t *testing.T) {
	d := openDevice(t)
	cd := d.Compute()
	b, err := d.NewBuffer(256)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cb, err := b.ComputeBuffer(cd)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	if cb.Size() < 256 {
		t.Fatalf("view of %d bytes", cb.Size())
	}
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	ct, err := tex.ComputeTexture(cd)
	if err != nil {
		t.Fatal(err)
	}
	defer ct.Close()
	if ct.Width() != 8 || ct.Height() != 4 {
		t.Fatalf("view of %dx%d", ct.Width(), ct.Height())
	}
	other := openDevice(t)
	if _, err := tex.ComputeTexture(other.Compute()); !errors.Is(err, ErrOtherDevice) {
		t.Errorf("a view on another device: %v, want ErrOtherDevice", err)
	}
	if _, err := b.ComputeBuffer(other.Compute()); !errors.Is(err, ErrOtherDevice) {
		t.Errorf("a view on another device: %v, want ErrOtherDevice", err)
	}
}

// TestNewCompute: NewCompute gives a compute.Device of its own on the
// Device's Vulkan device, apart from Compute's, closed by its caller.
func TestNewCompute(t *testing.T) {
	d := openDevice(t)
	cd := d.NewCompute()
	if cd == d.Compute() || cd.Vulkan() != d.Vulkan() {
		t.Error("NewCompute returned Compute's device, or one on another Vulkan device")
	}
	b, err := cd.Buffer(16, compute.HeapUpload)
	if err != nil {
		t.Fatal(err)
	}
	noErr(t, b.Close())
	noErr(t, cd.Close())
}
