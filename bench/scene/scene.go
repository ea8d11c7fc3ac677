// Package scene is the renderer of gfxcuda's demo and benchmarks: a Vulkan
// compute shader that ray-traces an animated scene (three spheres circling
// and bouncing over a checkered floor, lit by a sun, with shadows and one
// reflection) into RGBA8 storage images. It draws one camera's view per
// dispatch (the demo's cameras), or the views of many environments into one
// atlas in one dispatch, each environment at its own scene time and camera
// angle (the tiled renderers of robot learning, whose steps are thousands
// of small views). Everything moves with a period of Period seconds of
// scene time. It uses public APIs only (shader, vulkan).
package scene

import (
	_ "embed" // the shader's source
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Source is the renderer's GLSL compute shader. Environment e of a
// dispatch draws scene time Time + e·TimeStep from camera angle Camera +
// e·CameraStep into tile z (its index in the dispatch) of the image:
// column z % cols, row z / cols, counted from the image's first row and
// column.
//
//go:embed scene.comp
var Source string

// Period is the scene's period in seconds of scene time.
const Period = 4.0

// Renderer is the compiled shader on a device.
type Renderer struct {
	pipe *vulkan.Pipeline
	vd   *vulkan.Device
	buf  *vulkan.Pipeline // the variant drawing into a buffer atlas, made on first use
}

// New compiles the shader (in process, a few tens of milliseconds) and
// makes its pipeline on vd.
func New(vd *vulkan.Device) (*Renderer, error) {
	m, err := shader.Compile([]byte(Source), shader.Options{Language: shader.GLSL, Filename: "scene.comp", Optimize: true})
	if err != nil {
		return nil, fmt.Errorf("scene: %w", err)
	}
	p, err := vd.NewComputePipeline(m)
	if err != nil {
		return nil, fmt.Errorf("scene: %w", err)
	}
	return &Renderer{pipe: p, vd: vd}, nil
}

// Envs says which environments a dispatch draws and how they differ.
type Envs struct {
	// Time and Camera are environment 0's scene time (seconds) and camera
	// angle (radians around the scene).
	Time, Camera float32
	// TimeStep and CameraStep are added per environment: environment e
	// draws Time + e·TimeStep from Camera + e·CameraStep.
	TimeStep, CameraStep float32
	// First is the first environment's number (e counts from it).
	First uint32
}

func (r *Renderer) push(e Envs, w, h, cols uint32) []byte {
	b := make([]byte, 32)
	binary.LittleEndian.PutUint32(b[0:], math.Float32bits(e.Time))
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(e.Camera))
	binary.LittleEndian.PutUint32(b[8:], math.Float32bits(e.TimeStep))
	binary.LittleEndian.PutUint32(b[12:], math.Float32bits(e.CameraStep))
	binary.LittleEndian.PutUint32(b[16:], w)
	binary.LittleEndian.PutUint32(b[20:], h)
	binary.LittleEndian.PutUint32(b[24:], cols)
	binary.LittleEndian.PutUint32(b[28:], e.First)
	return b
}

// Record records one view of scene time t from camera angle camera into
// img (RGBA8, storage usage), the whole image.
func (r *Renderer) Record(c *vulkan.Commands, img *vulkan.Image, t, camera float32) {
	o := img.Options()
	c.Dispatch(r.pipe, []vulkan.Binding{{Binding: 0, Image: img}}, r.push(Envs{Time: t, Camera: camera}, o.Width, o.Height, 1),
		(o.Width+7)/8, (o.Height+7)/8, 1)
}

// RecordTilesToBuffer is RecordTiles into an atlas held in buffer b:
// width × height RGBA8 texels (UNORM, red first), row after row, what
// tensorconv's RecordTilesFromBuffer reads. The buffer variant of the
// shader is compiled on the first call.
func (r *Renderer) RecordTilesToBuffer(c *vulkan.Commands, b *vulkan.Buffer, width, height uint32, cols, rows, n int, e Envs) error {
	if cols <= 0 || rows <= 0 || width == 0 || height == 0 || int(width)%cols != 0 || int(height)%rows != 0 {
		return fmt.Errorf("scene: a %dx%d atlas does not divide into %d x %d tiles", width, height, cols, rows)
	}
	if n <= 0 || n > cols*rows || n > 65535 {
		return fmt.Errorf("scene: %d environments in %d x %d tiles (at most %d, and 65,535)", n, cols, rows, cols*rows)
	}
	if b == nil || b.Size() < 4*uint64(width)*uint64(height) {
		return fmt.Errorf("scene: a %dx%d atlas needs a buffer of %d bytes", width, height, 4*uint64(width)*uint64(height))
	}
	if r.buf == nil {
		m, err := shader.Compile([]byte(Source), shader.Options{Language: shader.GLSL, Filename: "scene.comp", Optimize: true,
			Defines: map[string]string{"ATLAS_BUFFER": "1"}})
		if err != nil {
			return fmt.Errorf("scene: %w", err)
		}
		if r.buf, err = r.vd.NewComputePipeline(m); err != nil {
			return fmt.Errorf("scene: %w", err)
		}
	}
	w, h := width/uint32(cols), height/uint32(rows)
	c.Dispatch(r.buf, []vulkan.Binding{{Binding: 0, Buffer: b}}, r.push(e, w, h, uint32(cols)), (w+7)/8, (h+7)/8, uint32(n))
	return c.Err()
}

// RecordTiles records n environments' views into the atlas img (RGBA8,
// storage usage), in one dispatch: cols × rows tiles of width / cols ×
// height / rows texels (both exact), environment First + z in tile z
// (column z % cols, row z / cols). Tiles past n are left as they are.
func (r *Renderer) RecordTiles(c *vulkan.Commands, img *vulkan.Image, cols, rows, n int, e Envs) error {
	o := img.Options()
	if cols <= 0 || rows <= 0 || int(o.Width)%cols != 0 || int(o.Height)%rows != 0 {
		return fmt.Errorf("scene: a %dx%d atlas does not divide into %d x %d tiles", o.Width, o.Height, cols, rows)
	}
	if n <= 0 || n > cols*rows || n > 65535 {
		return fmt.Errorf("scene: %d environments in %d x %d tiles (at most %d, and 65,535)", n, cols, rows, cols*rows)
	}
	w, h := o.Width/uint32(cols), o.Height/uint32(rows)
	c.Dispatch(r.pipe, []vulkan.Binding{{Binding: 0, Image: img}}, r.push(e, w, h, uint32(cols)), (w+7)/8, (h+7)/8, uint32(n))
	return c.Err()
}

// Close frees the pipeline. Idempotent.
func (r *Renderer) Close() error {
	if r == nil || r.pipe == nil {
		return nil
	}
	err := r.pipe.Close()
	if r.buf != nil {
		err = errors.Join(err, r.buf.Close())
	}
	r.pipe, r.buf = nil, nil
	return err
}
