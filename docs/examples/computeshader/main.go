// Command computeshader runs an HLSL compute shader on any Vulkan GPU
// (lavapipe included) with package compute: no descriptor layouts, the
// buffer bound by its register. See docs/compute-shaders.md.
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

const src = `
struct PC { float scale; float bias; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
RWStructuredBuffer<float> data : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	data[id.x] = data[id.x] * pc.scale + pc.bias;
}
`

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer) error {
	dev, err := compute.Open(compute.Options{}) // the best GPU, or $GFXCUDA_DEVICE
	if err != nil {
		return err
	}
	defer dev.Close()

	const n = 1024
	in := make([]float32, n)
	raw := make([]byte, 4*n)
	for i := range in {
		in[i] = rand.Float32()
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(in[i]))
	}
	buf, err := dev.Buffer(4*n, compute.HeapDefault)
	if err != nil {
		return err
	}
	defer buf.Close()
	if err := buf.Upload(raw); err != nil {
		return err
	}

	k, err := dev.Compile([]byte(src), shader.Options{Filename: "scale.hlsl"})
	if err != nil {
		return err // a *shader.CompileError names file:line
	}
	if err := k.Dispatch(n/64, 1, 1, compute.At(0, buf), compute.PushValues(float32(3), float32(0.5))); err != nil {
		return err
	}
	res, err := buf.Readback()
	if err != nil {
		return err
	}
	for i := range in {
		got := math.Float32frombits(binary.LittleEndian.Uint32(res[4*i:]))
		if want := in[i]*3 + 0.5; math.Abs(float64(got-want)) > 1e-6 {
			return fmt.Errorf("element %d: got %g, want %g", i, got, want)
		}
	}
	fmt.Fprintf(out, "%d floats scaled on %s: checked\n", n, dev)
	return nil
}
