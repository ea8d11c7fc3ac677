package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// kindName describes a resource for messages.
func kindName(r *shader.Resource) string { return compute.KindName(r) }

func example(k *compute.Kernel, r *shader.Resource) string {
	slot := slotText(k, r)
	switch r.Kind {
	case shader.Sampler:
		return "--sampler " + slot + ":linear:wrap"
	case shader.SampledImage, shader.StorageImage, shader.CombinedImageSampler:
		dims := map[shader.ImageDim]string{shader.Dim1D: "tex1d:rgba8_unorm:256", shader.Dim2D: "tex2d:rgba8_unorm:256x256",
			shader.Dim3D: "tex3d:rgba8_unorm:64x64x64"}[r.Dim]
		if dims == "" {
			dims = "tex2d:rgba8_unorm:256x256"
		}
		return class(r) + " " + slot + ":" + dims
	case shader.UniformBuffer:
		return fmt.Sprintf("--cbv %s:%d", slot, max(r.Size, 16))
	}
	return class(r) + " " + slot + ":4096"
}

// resourceTable lists the shader's resources for messages.
func resourceTable(k *compute.Kernel) string {
	rs := k.Resources()
	if len(rs) == 0 {
		return "the shader uses no resources"
	}
	var parts []string
	for i := range rs {
		r := &rs[i]
		parts = append(parts, fmt.Sprintf("%s %s (%s, bind with %s)", k.Register(r), r.Name, kindName(r), example(k, r)))
	}
	return "the shader's resources: " + strings.Join(parts, "; ")
}

var kindOfClass = map[shader.RegisterClass]string{
	shader.ClassSRV: "read-only resource", shader.ClassUAV: "read-write resource",
	shader.ClassCBV: "constant buffer", shader.ClassSampler: "sampler",
}

// errNoSizeOrFile is makeBuffer's error for a SPEC that is neither a size
// nor an existing file; the caller words it with the shader's declaration.
var errNoSizeOrFile = errors.New("neither a size nor an existing file")

// bufferWord says what kind of buffer r is, for messages.
func bufferWord(r *shader.Resource) string {
	switch r.Kind {
	case shader.UniformBuffer:
		return "constant buffer"
	case shader.UniformTexelBuffer, shader.StorageTexelBuffer:
		return "typed buffer"
	}
	return "buffer"
}

var lineComment = regexp.MustCompile(`//[^\n]*`)

// declaration is how the shader's source declares r, such as
// "RWStructuredBuffer<float> data" or "image2D dst"; when the source does
// not show it (an include, a block), what reflection says: "read-write
// buffer data".
func declaration(src []byte, r *shader.Resource) string {
	if r.Name != "" && len(src) > 0 {
		re := regexp.MustCompile(`([A-Za-z_]\w*(?:\s*<[^;{}()<>]*>)?)\s+` + regexp.QuoteMeta(r.Name) +
			`\s*(?:\[[^\]]*\]\s*)?(?::\s*register\b|;|\{)`)
		if m := re.FindSubmatch(lineComment.ReplaceAll(src, nil)); m != nil {
			typ := strings.Join(strings.Fields(string(m[1])), " ")
			switch typ {
			case "return", "in", "out", "inout", "uniform", "buffer", "readonly", "writeonly", "const", "static":
			default:
				return typ + " " + r.Name
			}
		}
	}
	return strings.TrimSpace(kindName(r) + " " + r.Name)
}
