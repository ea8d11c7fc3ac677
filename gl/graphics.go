package gl

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/graphics"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// GL is a side of the face: Sources and Views are what package graphics
// asks of a graphics API, so gfxcuda.NewGraphicsSource takes a *Source.
var (
	_ graphics.Source = (*Source)(nil)
	_ graphics.View   = (*View)(nil)
)

// NewGraphicsView is NewView for the face (graphics.Source): the source's
// view on dev, in CUDA too when cu is not nil (the Context then works with
// cu: SetCUDA). Call it where the context is current.
func (s *Source) NewGraphicsView(dev *vulkan.Device, cu *cuda.Context) (graphics.View, error) {
	if dev == nil {
		return nil, fmt.Errorf("gl: %s: a view needs a Vulkan device", s.what)
	}
	if cu != nil {
		if err := s.c.SetCUDA(cu); err != nil {
			return nil, fmt.Errorf("gl: %s: %w", s.what, err)
		}
	}
	v, err := s.NewView(dev)
	if err != nil {
		return nil, err
	}
	return v, nil
}
