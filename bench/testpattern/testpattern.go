// Package testpattern makes frames whose every texel depends on the frame
// number, so that a consumer can tell a correct frame from a torn, stale,
// skipped or repeated one. The same hash (lowbias32) runs in a Vulkan
// compute shader (the producer), in gfxcuda's CUDA kernels (gfx_fill_hash,
// gfx_check_hash) and in Go. Its output is random-looking, so GPU memory
// compression cannot flatter timings.
package testpattern

import (
	_ "embed" // the shader's source
	"encoding/base64"

	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/spirv"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

//go:generate go run gen.go

// Shader writes texel i (= y·width + x) of an RGBA8 storage image as the
// four bytes of hash32(i ^ seed), little-endian: R is the low byte. It is
// compiled by go generate into module (shader_gen.go).
//
//go:embed testpattern.comp
var Shader string

// Seed is the seed of frame f.
func Seed(frame uint64) uint32 { return kernels.Hash32(uint32(frame) + 1) }

// Texel returns the expected texel i of a frame made with seed.
func Texel(i, seed uint32) uint32 { return kernels.Hash32(i ^ seed) }

// Push returns the push constants for a frame.
func Push(seed, width, height uint32) []byte {
	b := make([]byte, 12)
	for i, v := range []uint32{seed, width, height} {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	return b
}

// Producer is the compiled pattern shader on a device.
type Producer struct{ P *vulkan.Pipeline }

// NewProducer makes the precompiled shader into a pipeline.
func NewProducer(d *vulkan.Device) (*Producer, error) {
	b, err := base64.StdEncoding.DecodeString(module)
	if err != nil {
		return nil, err
	}
	m, err := spirv.Reflect(b)
	if err != nil {
		return nil, err
	}
	p, err := d.NewComputePipeline(m)
	if err != nil {
		return nil, err
	}
	return &Producer{P: p}, nil
}

// Record records frame f into img (width×height, RGBA8, storage usage).
func (p *Producer) Record(c *vulkan.Commands, img *vulkan.Image, frame uint64) {
	o := img.Options()
	c.Dispatch(p.P, []vulkan.Binding{{Binding: 0, Image: img}}, Push(Seed(frame), o.Width, o.Height), (o.Width+15)/16, (o.Height+15)/16, 1)
}

// Close frees the pipeline.
func (p *Producer) Close() error { return p.P.Close() }
