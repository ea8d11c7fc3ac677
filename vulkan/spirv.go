package vulkan

import (
	"slices"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// SPIR-V opcodes and operands the pipeline code reads.
const (
	spvOpCapability  = 17
	spvOpTypeImage   = 25
	spvOpTypeArray   = 28
	spvOpTypeRuntime = 29
	spvOpTypePointer = 32
	spvOpVariable    = 59
	spvOpDecorate    = 71
	spvDecBinding    = 33
	spvDecSet        = 34

	spvCapExtendedFormats = 49
	spvCapReadNoFormat    = 55
	spvCapWriteNoFormat   = 56
)

// spirvInsts calls f for every instruction after the header, with its
// opcode and operands, until f returns false.
func spirvInsts(words []uint32, f func(op uint32, ops []uint32) bool) {
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			return
		}
		if !f(words[i]&0xffff, words[i+1:i+n]) {
			return
		}
		i += n
	}
}

// spirvCapabilities lists the module's OpCapability operands.
func spirvCapabilities(words []uint32) []uint32 {
	var caps []uint32
	spirvInsts(words, func(op uint32, ops []uint32) bool {
		if op == spvOpCapability && len(ops) == 1 {
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
// type is an image (through arrays) to that image type.
func storageImageTypes(words []uint32) map[uint64]imageTypeInfo {
	images := map[uint32]imageTypeInfo{}
	elem := map[uint32]uint32{}    // array type → element type
	pointee := map[uint32]uint32{} // pointer type → pointee
	vars := map[uint32]uint32{}    // variable → its pointer type
	set := map[uint32]uint32{}
	binding := map[uint32]uint32{}
	spirvInsts(words, func(op uint32, ops []uint32) bool {
		switch {
		case op == spvOpTypeImage && len(ops) >= 8:
			images[ops[0]] = imageTypeInfo{id: ops[0], sampled: ops[6], format: ops[7]}
		case (op == spvOpTypeArray || op == spvOpTypeRuntime) && len(ops) >= 2:
			elem[ops[0]] = ops[1]
		case op == spvOpTypePointer && len(ops) >= 3:
			pointee[ops[0]] = ops[2]
		case op == spvOpVariable && len(ops) >= 2:
			vars[ops[1]] = ops[0]
		case op == spvOpDecorate && len(ops) >= 3 && ops[1] == spvDecSet:
			set[ops[0]] = ops[2]
		case op == spvOpDecorate && len(ops) >= 3 && ops[1] == spvDecBinding:
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
// the module lacks them.
func patchImageFormats(words []uint32, patch map[uint32]uint32, caps []uint32) []uint32 {
	out := slices.Clone(words)
	has := map[uint32]bool{}
	need := map[uint32]bool{}
	for _, c := range caps {
		need[c] = true
	}
	for i := 5; i < len(out); {
		n := int(out[i] >> 16)
		if n == 0 || i+n > len(out) {
			break
		}
		op := out[i] & 0xffff
		switch {
		case op == spvOpCapability && n == 2:
			has[out[i+1]] = true
		case op == spvOpTypeImage && n >= 9:
			if f, ok := patch[out[i+1]]; ok {
				out[i+8] = f
				if extendedFormat(f) && out[i+7] == 2 {
					need[spvCapExtendedFormats] = true
				}
			}
		}
		i += n
	}
	var add []uint32
	for _, c := range []uint32{spvCapExtendedFormats, spvCapReadNoFormat, spvCapWriteNoFormat} {
		if need[c] && !has[c] {
			add = append(add, 2<<16|spvOpCapability, c)
		}
	}
	if len(add) == 0 {
		return out
	}
	return slices.Concat(out[:5], add, out[5:])
}
