package tensorpass

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/testpattern"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// vulkanOnly opens the first Vulkan device (lavapipe in CI) with validation.
func vulkanOnly(t *testing.T) *vulkan.Device {
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	pds, err := inst.PhysicalDevices()
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vd.Close()
		if msgs := inst.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d validation errors, first: %s", len(msgs), msgs[0])
		}
		inst.Close()
	})
	return vd
}

// halfToFloat decodes an IEEE half.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch exp {
	case 0:
		return math.Float32frombits(sign) + float32(man)/1024/16384*float32(1-2*int(h>>15))
	case 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | man<<13)
}

// TestTensorPass renders the test pattern and converts it into every tensor
// layout on a real Vulkan device, checking every element against Go.
func TestTensorPass(t *testing.T) {
	vd := vulkanOnly(t)
	const w, h = 36, 10
	img, err := vd.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(format.RGBA8UNorm), Width: w, Height: h,
		Usage: vulkan.ImageStorage | vulkan.ImageTransferSrc})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	prod, err := testpattern.NewProducer(vd)
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	frame := rand.Uint64() // a different pattern on every run
	t.Logf("frame %d", frame)
	seed := testpattern.Seed(frame)
	texel := func(i, c int) uint8 { return uint8(testpattern.Texel(uint32(i), seed) >> (8 * c)) }

	f32, f16, u8 := format.Float32, format.Float16, format.Uint8
	for _, l := range []Layout{
		{DType: f32}, {DType: f32, Planar: true}, {DType: f32, Channels: 3, Planar: true},
		{DType: f16}, {DType: f16, Planar: true}, {DType: f16, Channels: 3},
		{DType: u8}, {DType: u8, Planar: true}, {DType: u8, Channels: 3},
	} {
		pass, err := New(vd, l)
		if err != nil {
			t.Fatalf("%+v: %v", l, err)
		}
		n := l.Bytes(w, h)
		out, err := vd.NewBuffer(vulkan.BufferOptions{Size: n, Heap: vulkan.HeapReadback})
		if err != nil {
			t.Fatal(err)
		}
		m, err := out.Map()
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = 0xCD
		}
		err = vd.Run(func(c *vulkan.Commands) error {
			prod.Record(c, img, frame)
			return pass.Record(c, img, out)
		})
		if err != nil {
			t.Fatalf("%+v: %v", l, err)
		}
		ch := l.channels()
		bad := 0
		for i := 0; i < w*h && bad < 5; i++ {
			for c := 0; c < ch; c++ {
				idx := i*ch + c
				if l.Planar {
					idx = c*w*h + i
				}
				want := texel(i, c)
				var ok bool
				switch l.DType {
				case f32:
					got := math.Float32frombits(binary.LittleEndian.Uint32(m[4*idx:]))
					// UNORM→float may be off by an ulp (the Vulkan spec allows it).
					ok = math.Abs(float64(got)-float64(want)/255) <= 1e-6
				case f16:
					got := halfToFloat(binary.LittleEndian.Uint16(m[2*idx:]))
					ok = math.Abs(float64(got)-float64(want)/255) <= 1.0/2048
				case u8:
					ok = m[idx] == want
				}
				if !ok {
					bad++
					t.Errorf("%+v: texel %d channel %d wrong (want byte %d)", l, i, c, want)
				}
			}
		}
		if err := out.Close(); err != nil {
			t.Error(err)
		}
		if err := pass.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestBadLayout checks that layouts the pass cannot write are refused with
// an error naming what is wrong, before any shader is compiled.
func TestBadLayout(t *testing.T) {
	vd := vulkanOnly(t)
	for _, c := range []struct {
		l    Layout
		want string
	}{
		{Layout{DType: format.Float32, Channels: 2}, "2 channels"},
		{Layout{DType: format.Int16}, "int16"},
		{Layout{}, "DType{0,0,0}"},
	} {
		p, err := New(vd, c.l)
		if err == nil {
			p.Close()
			t.Errorf("%+v accepted", c.l)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to mention %q", c.l, err, c.want)
		}
	}
	if n := (Layout{DType: format.Float16, Channels: 3}).Bytes(8, 2); n != 8*2*3*2 {
		t.Errorf("Bytes = %d", n)
	}
}
