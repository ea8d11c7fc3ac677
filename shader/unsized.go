package shader

import (
	"encoding/binary"
	"regexp"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// HLSL resource arrays declared without a size (Buffer<uint> bufs[];
// RWTexture2D<float4> images[] : register(u0);) are what bindless shaders
// index. DXC makes them runtime-sized arrays of descriptors; glslang's HLSL
// front end sizes them by the largest constant index it sees, 1 when they
// are indexed dynamically, which would make any element past the first out
// of bounds. unsizeArrays gives such variables the runtime-sized array
// type DXC gives them (OpTypeRuntimeArray, capability
// RuntimeDescriptorArray, extension SPV_EXT_descriptor_indexing), so that
// reflection reports them as runtime-sized (ArraySize 0) and a bindless
// pipeline (compute.KernelOptions.Bindless) sizes them.

// unsizedDecl matches a global declaration of an array without a size,
// ended by a register binding, semantic, initializer-free ';'.
var unsizedDecl = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*\]\s*[:;]`)

// unsizedNames returns the names declared as arrays without a size in
// HLSL source (comments removed first).
func unsizedNames(src []byte) map[string]bool {
	var names map[string]bool
	for _, m := range unsizedDecl.FindAllSubmatch(stripComments(src), -1) {
		if names == nil {
			names = map[string]bool{}
		}
		names[string(m[1])] = true
	}
	return names
}

// stripComments replaces // and /* */ comments with spaces (string
// literals are rare in HLSL and not treated specially).
func stripComments(src []byte) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	for i := 0; i+1 < len(out); i++ {
		switch {
		case out[i] == '/' && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(j > i+1 && out[j-1] == '*' && out[j] == '/'); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			if j < len(out) {
				out[j] = ' '
			}
			i = j
		}
	}
	return out
}

// spvCapRuntimeDescriptorArray is SPIR-V's RuntimeDescriptorArray
// capability.
const spvCapRuntimeDescriptorArray = 5302

// unsizeArrays rewrites the descriptor array variables of names in the
// SPIR-V words spv (little-endian bytes) into runtime-sized arrays. It
// returns spv unchanged when no variable needs it or the module is not
// what it expects (a header spirv.Decode rejects, a malformed instruction
// stream, no OpCapability).
func unsizeArrays(spv []byte, names map[string]bool) []byte {
	if len(names) == 0 {
		return spv
	}
	w, err := spirv.Decode(spv)
	if err != nil {
		return spv
	}
	type ptr struct{ sc, pointee uint32 }
	named := map[uint32]bool{}
	arrays := map[uint32]uint32{} // OpTypeArray id → element type
	ptrs := map[uint32]ptr{}
	hasCap, hasExt := false, false
	lastCap := -1 // the word after the last OpCapability
	err = spirv.Instructions(w, func(pos int, op uint32, ops []uint32) bool {
		switch op {
		case spirv.OpName:
			if len(ops) >= 2 {
				if s, _ := spirv.DecodeString(ops[1:]); names[s] {
					named[ops[0]] = true
				}
			}
		case spirv.OpCapability:
			lastCap = pos + 1 + len(ops)
			hasCap = hasCap || len(ops) >= 1 && ops[0] == spvCapRuntimeDescriptorArray
		case spirv.OpExtension:
			s, _ := spirv.DecodeString(ops)
			hasExt = hasExt || s == "SPV_EXT_descriptor_indexing"
		case spirv.OpTypeArray:
			if len(ops) >= 2 {
				arrays[ops[0]] = ops[1]
			}
		case spirv.OpTypePointer:
			if len(ops) >= 3 {
				ptrs[ops[0]] = ptr{ops[1], ops[2]}
			}
		}
		return true
	})
	if err != nil || len(named) == 0 || lastCap < 0 {
		return spv
	}
	bound := w[3]
	var out []uint32
	out = append(out, w[:lastCap]...)
	changed := false
	if !hasCap {
		out = append(out, 2<<16|spirv.OpCapability, spvCapRuntimeDescriptorArray)
	}
	if !hasExt && w[1] < 0x00010500 {
		s := spirv.EncodeString("SPV_EXT_descriptor_indexing")
		out = append(out, uint32(1+len(s))<<16|spirv.OpExtension)
		out = append(out, s...)
	}
	_ = spirv.Instructions(w, func(pos int, op uint32, ops []uint32) bool {
		if pos < lastCap {
			return true
		}
		inst := w[pos : pos+1+len(ops)]
		if op == spirv.OpVariable && len(ops) >= 3 && named[ops[1]] {
			if p, ok := ptrs[ops[0]]; ok {
				if elem, ok := arrays[p.pointee]; ok {
					rt, pt := bound, bound+1
					bound += 2
					out = append(out, 3<<16|spirv.OpTypeRuntimeArray, rt, elem)
					out = append(out, 4<<16|spirv.OpTypePointer, pt, p.sc, rt)
					out = append(out, inst[0], pt)
					out = append(out, inst[2:]...)
					changed = true
					return true
				}
			}
		}
		out = append(out, inst...)
		return true
	})
	if !changed {
		return spv
	}
	out[3] = bound
	b := make([]byte, 4*len(out))
	for i, x := range out {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
