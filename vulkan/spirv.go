package vulkan

import (
	"slices"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// SPIR-V operands the pipeline code reads.
const (
	spvDecBinding = 33
	spvDecSet     = 34

	spvCapExtendedFormats = 49
	spvCapReadNoFormat    = 55
	spvCapWriteNoFormat   = 56
)

// spirvCapabilities lists the module's OpCapability operands, up to the
// first malformed instruction.
func spirvCapabilities(words []uint32) []uint32 {
	var caps []uint32
	_ = spirv.Instructions(words, func(_ int, op uint32, ops []uint32) bool {
		if op == spirv.OpCapability && len(ops) == 1 {
			caps = append(caps, ops[0])
		}
		return true
	})
	return caps
}

// imageTypeInfo is the OpTypeImage of a descriptor variable.
type imageTypeInfo struct {
	id      uint32 // the OpTypeImage result id
	format  uint32 // its declared SPIR-V image format (0: Unknown)
	sampled uint32 // 1: sampled, 2: storage
}

// storageImageTypes maps the binding key of every descriptor variable whose
// type is an image (through arrays) to that image type, from the
// instructions up to the first malformed one.
func storageImageTypes(words []uint32) map[uint64]imageTypeInfo {
	images := map[uint32]imageTypeInfo{}
	elem := map[uint32]uint32{}    // array type → element type
	pointee := map[uint32]uint32{} // pointer type → pointee
	vars := map[uint32]uint32{}    // variable → its pointer type
	set := map[uint32]uint32{}
	binding := map[uint32]uint32{}
	_ = spirv.Instructions(words, func(_ int, op uint32, ops []uint32) bool {
		switch {
		case op == spirv.OpTypeImage && len(ops) >= 8:
			images[ops[0]] = imageTypeInfo{id: ops[0], sampled: ops[6], format: ops[7]}
		case (op == spirv.OpTypeArray || op == spirv.OpTypeRuntimeArray) && len(ops) >= 2:
			elem[ops[0]] = ops[1]
		case op == spirv.OpTypePointer && len(ops) >= 3:
			pointee[ops[0]] = ops[2]
		case op == spirv.OpVariable && len(ops) >= 2:
			vars[ops[1]] = ops[0]
		case op == spirv.OpDecorate && len(ops) >= 3 && ops[1] == spvDecSet:
			set[ops[0]] = ops[2]
		case op == spirv.OpDecorate && len(ops) >= 3 && ops[1] == spvDecBinding:
			binding[ops[0]] = ops[2]
		}
		return true
	})
	out := map[uint64]imageTypeInfo{}
	for v, b := range binding {
		t := pointee[vars[v]]
		for range 4 { // arrays of arrays
			if e, ok := elem[t]; ok {
				t = e
			}
		}
		if img, ok := images[t]; ok {
			out[bindingKey(set[v], b)] = img
		}
	}
	return out
}

// spirvFormat returns the SPIR-V image format of a VkFormat, or 0
// (Unknown) when SPIR-V has none.
func spirvFormat(vkf uint32) uint32 {
	for f := spirv.FormatRgba32f; f <= spirv.FormatR64i; f++ {
		if uint32(f.VkFormat()) == vkf {
			return uint32(f)
		}
	}
	return 0
}

// extendedFormat reports whether a SPIR-V image format needs the
// StorageImageExtendedFormats capability.
func extendedFormat(f uint32) bool {
	return f >= 6 && f <= 20 || f >= 25 && f <= 29 || f >= 34 && f <= 39
}

// patchImageFormats returns a copy of words whose OpTypeImage instructions
// named in patch declare the given image formats, with the capabilities in
// caps, and StorageImageExtendedFormats for extended formats, added where
// the module lacks them. Instructions after a malformed one are copied
// unread.
func patchImageFormats(words []uint32, patch map[uint32]uint32, caps []uint32) []uint32 {
	out := slices.Clone(words)
	has := map[uint32]bool{}
	need := map[uint32]bool{}
	for _, c := range caps {
		need[c] = true
	}
	_ = spirv.Instructions(out, func(_ int, op uint32, ops []uint32) bool {
		switch {
		case op == spirv.OpCapability && len(ops) == 1:
			has[ops[0]] = true
		case op == spirv.OpTypeImage && len(ops) >= 8:
			if f, ok := patch[ops[0]]; ok {
				ops[7] = f // ops is a window on out: this patches the copy
				if extendedFormat(f) && ops[6] == 2 {
					need[spvCapExtendedFormats] = true
				}
			}
		}
		return true
	})
	var add []uint32
	for _, c := range []uint32{spvCapExtendedFormats, spvCapReadNoFormat, spvCapWriteNoFormat} {
		if need[c] && !has[c] {
			add = append(add, 2<<16|spirv.OpCapability, c)
		}
	}
	if len(add) == 0 {
		return out
	}
	return slices.Concat(out[:5], add, out[5:])
}
