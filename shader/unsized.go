package shader

import (
	"encoding/binary"
	"regexp"
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

// SPIR-V opcodes and enumerants unsizeArrays uses.
const (
	spvOpName                   = 5
	spvOpExtension              = 10
	spvOpCapability             = 17
	spvOpTypeArray              = 28
	spvOpTypeRuntimeArray       = 29
	spvOpTypePointer            = 32
	spvOpVariable               = 59
	spvCapRuntimeDescriptorArry = 5302
)

// unsizeArrays rewrites the descriptor array variables of names in the
// SPIR-V words spv (little-endian bytes) into runtime-sized arrays. It
// returns spv unchanged when no variable needs it or the module is not
// what it expects.
func unsizeArrays(spv []byte, names map[string]bool) []byte {
	if len(names) == 0 || len(spv) < 20 || len(spv)%4 != 0 {
		return spv
	}
	w := make([]uint32, len(spv)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(spv[4*i:])
	}
	if w[0] != 0x07230203 {
		return spv
	}
	type ptr struct{ sc, pointee uint32 }
	named := map[uint32]bool{}
	arrays := map[uint32]uint32{} // OpTypeArray id → element type
	ptrs := map[uint32]ptr{}
	hasCap, hasExt := false, false
	lastCap := -1
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), w[i]&0xffff
		if n == 0 || i+n > len(w) {
			return spv
		}
		switch op {
		case spvOpName:
			if n >= 3 && names[spvString(w[i+2:i+n])] {
				named[w[i+1]] = true
			}
		case spvOpCapability:
			lastCap = i + n
			hasCap = hasCap || w[i+1] == spvCapRuntimeDescriptorArry
		case spvOpExtension:
			hasExt = hasExt || spvString(w[i+1:i+n]) == "SPV_EXT_descriptor_indexing"
		case spvOpTypeArray:
			arrays[w[i+1]] = w[i+2]
		case spvOpTypePointer:
			ptrs[w[i+1]] = ptr{w[i+2], w[i+3]}
		}
		i += n
	}
	if len(named) == 0 || lastCap < 0 {
		return spv
	}
	bound := w[3]
	var out []uint32
	out = append(out, w[:lastCap]...)
	changed := false
	if !hasCap {
		out = append(out, 2<<16|spvOpCapability, spvCapRuntimeDescriptorArry)
	}
	if !hasExt && w[1] < 0x00010500 {
		s := spvWords("SPV_EXT_descriptor_indexing")
		out = append(out, uint32(1+len(s))<<16|spvOpExtension)
		out = append(out, s...)
	}
	for i := lastCap; i < len(w); {
		n, op := int(w[i]>>16), w[i]&0xffff
		if op == spvOpVariable && n >= 4 && named[w[i+2]] {
			if p, ok := ptrs[w[i+1]]; ok {
				if elem, ok := arrays[p.pointee]; ok {
					rt, pt := bound, bound+1
					bound += 2
					out = append(out, 3<<16|spvOpTypeRuntimeArray, rt, elem)
					out = append(out, 4<<16|spvOpTypePointer, pt, p.sc, rt)
					v := append([]uint32(nil), w[i:i+n]...)
					v[1] = pt
					out = append(out, v...)
					changed = true
					i += n
					continue
				}
			}
		}
		out = append(out, w[i:i+n]...)
		i += n
	}
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

// spvString decodes a SPIR-V literal string.
func spvString(w []uint32) string {
	var b []byte
	for _, x := range w {
		for k := 0; k < 4; k++ {
			c := byte(x >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// spvWords encodes a SPIR-V literal string.
func spvWords(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}
