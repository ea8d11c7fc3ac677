package gfxcuda

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestKernelOnSharedResources compiles a kernel on the face and binds
// shared textures and buffers to it directly; CUDA sees what it wrote.
func TestKernelOnSharedResources(t *testing.T) {
	d := openDevice(t)
	const w, h = 16, 8
	k, err := d.Compile([]byte(`#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D img;
layout(binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	imageStore(img, p, vec4(float(p.x) / 255.0, float(p.y) / 255.0, 0.0, 1.0));
	o[p.y * 16 + p.x] = uint(p.y * 16 + p.x) + pc.add;
}
`), ShaderOptions{Language: GLSL, Filename: "face.comp"})
	noErr(t, err)
	defer closeT(t, k)
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
	noErr(t, err)
	buf, err := d.NewBuffer(w * h * 4)
	noErr(t, err)
	for f := uint32(0); f < 2; f++ {
		noErr(t, k.Dispatch(w/8, h/8, 1, At(0, tex), At(1, buf), PushValues(f)))
	}
	got := readTensor(t, d, buf, buf.Size())
	for i := 0; i < w*h; i++ {
		if v := binary.LittleEndian.Uint32(got[4*i:]); v != uint32(i)+1 {
			t.Fatalf("o[%d] = %d, want %d", i, v, i+1)
		}
	}
	pix := readImage(t, d, tex, w*h*4)
	if pix[4*(3*w+5)] != 5 || pix[4*(3*w+5)+1] != 3 || pix[4*(3*w+5)+3] != 255 {
		t.Errorf("texel (5, 3) = %v", pix[4*(3*w+5):4*(3*w+5)+4])
	}
	// CUDA holds the buffer: the dispatch is refused.
	acc, err := d.ToCUDA(nil, buf)
	noErr(t, err)
	if err := k.Dispatch(w/8, h/8, 1, At(0, tex), At(1, buf), PushValues(uint32(0))); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("dispatch on a buffer CUDA holds: %v, want ErrHeldByCUDA", err)
	}
	noErr(t, acc.Done())
	noErr(t, k.Dispatch(w/8, h/8, 1, At(0, tex), At(1, buf), PushValues(uint32(0))))
	closeT(t, buf)
	other, err := d.NewBuffer(w * h * 4)
	noErr(t, err)
	if _, err := buf.ComputeResource(d.Compute()); !errors.Is(err, ErrClosed) {
		t.Errorf("view of a closed buffer: %v, want ErrClosed", err)
	}
	noErr(t, k.Dispatch(w/8, h/8, 1, At(0, tex), At(1, other), PushValues(uint32(0))))
}
