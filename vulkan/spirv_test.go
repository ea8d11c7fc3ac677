package vulkan

import (
	"maps"
	"slices"
	"testing"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// TestSPIRVScansMalformed runs the pipeline code's SPIR-V scans on a
// storage image module, well-formed and with a zero word count at two
// places: each scan reads the instructions before the fault and none
// after, silently, and patchImageFormats copies the rest unread.
func TestSPIRVScansMalformed(t *testing.T) {
	head := []uint32{0x07230203, 0x10300, 0, 10, 0}
	capShader := []uint32{2<<16 | spirv.OpCapability, 1}
	image := []uint32{9<<16 | spirv.OpTypeImage, 3, 2, 1, 0, 0, 0, 2, 0} // %3: 2D storage image, format Unknown
	decls := []uint32{
		4<<16 | spirv.OpTypePointer, 4, 0, 3, // %4: UniformConstant pointer to %3
		4<<16 | spirv.OpVariable, 4, 5, 0, // %5
		4<<16 | spirv.OpDecorate, 5, spvDecSet, 0,
		4<<16 | spirv.OpDecorate, 5, spvDecBinding, 1,
	}
	capWrite := []uint32{2<<16 | spirv.OpCapability, spvCapWriteNoFormat}
	zero := []uint32{0} // a zero word count
	const rg16f = 7     // an extended format

	patched := slices.Clone(image)
	patched[8] = rg16f
	addCaps := func(caps ...uint32) []uint32 {
		var w []uint32
		for _, c := range caps {
			w = append(w, 2<<16|spirv.OpCapability, c)
		}
		return w
	}
	storage := map[uint64]imageTypeInfo{bindingKey(0, 1): {id: 3, sampled: 2}}

	for _, c := range []struct {
		name   string
		words  []uint32
		caps   []uint32
		images map[uint64]imageTypeInfo
		patch  []uint32 // patchImageFormats(words, {%3: rg16f}, [WriteWithoutFormat])
	}{{
		name:   "well-formed",
		words:  slices.Concat(head, capShader, image, decls, capWrite),
		caps:   []uint32{1, spvCapWriteNoFormat},
		images: storage,
		patch:  slices.Concat(head, addCaps(spvCapExtendedFormats), capShader, patched, decls, capWrite),
	}, {
		name:   "fault before the image",
		words:  slices.Concat(head, capShader, zero, image, decls, capWrite),
		caps:   []uint32{1},
		images: map[uint64]imageTypeInfo{},
		patch:  slices.Concat(head, addCaps(spvCapWriteNoFormat), capShader, zero, image, decls, capWrite),
	}, {
		name:   "fault after the decorations",
		words:  slices.Concat(head, capShader, image, decls, zero, capWrite),
		caps:   []uint32{1},
		images: storage,
		patch:  slices.Concat(head, addCaps(spvCapExtendedFormats, spvCapWriteNoFormat), capShader, patched, decls, zero, capWrite),
	}, {
		name:   "truncated",
		words:  slices.Concat(head, capShader, image, decls, capWrite[:1]),
		caps:   []uint32{1},
		images: storage,
		patch:  slices.Concat(head, addCaps(spvCapExtendedFormats, spvCapWriteNoFormat), capShader, patched, decls, capWrite[:1]),
	}} {
		in := slices.Clone(c.words)
		if got := spirvCapabilities(c.words); !slices.Equal(got, c.caps) {
			t.Errorf("%s: spirvCapabilities = %v, want %v", c.name, got, c.caps)
		}
		if got := storageImageTypes(c.words); !maps.Equal(got, c.images) {
			t.Errorf("%s: storageImageTypes = %v, want %v", c.name, got, c.images)
		}
		got := patchImageFormats(c.words, map[uint32]uint32{3: rg16f}, []uint32{spvCapWriteNoFormat})
		if !slices.Equal(got, c.patch) {
			t.Errorf("%s: patchImageFormats =\n%#x, want\n%#x", c.name, got, c.patch)
		}
		if !slices.Equal(c.words, in) {
			t.Errorf("%s: patchImageFormats changed its input", c.name)
		}
	}
}
