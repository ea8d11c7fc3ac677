package vulkan_test

import (
	"encoding/binary"
	"fmt"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ExampleDevice_NewComputePipeline builds a pipeline from a GLSL shader
// and records two dependent dispatches in one batch: Dispatch binds the
// buffer by name and inserts the barrier between them.
func ExampleDevice_NewComputePipeline() {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := in.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()

	m, err := shader.Compile([]byte(`#version 450
layout(local_size_x = 4) in;
layout(binding = 0) buffer Data { uint v[]; };
layout(push_constant) uniform PC { uint mul; uint add; } pc;
void main() { uint i = gl_GlobalInvocationID.x; v[i] = v[i] * pc.mul + pc.add + i; }`), shader.Options{Filename: "muladd.comp"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := d.NewComputePipeline(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range p.Resources() {
		fmt.Printf("set %d binding %d: %s %s, %d-byte elements\n", r.Set, r.Binding, r.Kind, r.Name, r.Stride)
	}
	buf, err := d.NewBuffer(vulkan.BufferOptions{Size: 16, Heap: vulkan.HeapReadback})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := buf.Upload(0, make([]byte, 16)); err != nil {
		fmt.Println(err)
		return
	}
	push := func(mul, add uint32) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, mul), add)
	}
	err = d.Run(func(c *vulkan.Commands) error {
		c.Dispatch(p, []vulkan.Binding{{Name: "v", Buffer: buf}}, push(1, 10), 1, 1, 1) // v = 10 + i
		c.Dispatch(p, []vulkan.Binding{{Name: "v", Buffer: buf}}, push(2, 0), 1, 1, 1)  // v = 2v + i
		return c.Err()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]byte, 16)
	buf.Readback(0, out)
	for i := range 4 {
		fmt.Print(binary.LittleEndian.Uint32(out[4*i:]), " ")
	}
	fmt.Println()
	// Output:
	// set 0 binding 0: StorageBuffer Data, 4-byte elements
	// 20 23 26 29
}
