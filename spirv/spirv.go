package spirv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// SPIR-V numbers used by the parser, from the SPIR-V specification.
const (
	spvMagic        = 0x07230203
	spvMagicSwapped = 0x03022307
	spvMaxBound     = 0x3FFFFF // the universal limit on the <id> bound

	opSourceContinued    = 2
	opSource             = 3
	opSourceExtension    = 4
	opMemberName         = 6
	opString             = 7
	opLine               = 8
	opExtInstImport      = 11
	opExtInst            = 12
	opMemoryModel        = 14
	opEntryPoint         = 15
	opExecutionMode      = 16
	opTypeVoid           = 19
	opTypeBool           = 20
	opTypeInt            = 21
	opTypeFloat          = 22
	opTypeVector         = 23
	opTypeMatrix         = 24
	opTypeSampler        = 26
	opTypeSampledImage   = 27
	opTypeStruct         = 30
	opConstantTrue       = 41
	opConstantFalse      = 42
	opConstant           = 43
	opConstantComposite  = 44
	opSpecConstantTrue   = 48
	opSpecConstantFalse  = 49
	opSpecConstant       = 50
	opSpecConstComposite = 51
	opFunction           = 54
	opFunctionEnd        = 56
	opFunctionCall       = 57
	opImageTexelPointer  = 60
	opLoad               = 61
	opStore              = 62
	opCopyMemory         = 63
	opCopyMemorySized    = 64
	opArrayLength        = 68
	opMemberDecorate     = 72
	opDecorationGroup    = 73
	opGroupDecorate      = 74
	opGroupMemberDecor   = 75
	opVectorShuffle      = 79
	opCompositeExtract   = 81
	opCompositeInsert    = 82
	opImageSampleFirst   = 87 // OpImageSampleImplicitLod
	opImageWrite         = 99
	opGroupIAdd          = 264
	opGroupSMax          = 271
	opImageSparseFirst   = 305 // OpImageSparseSampleImplicitLod
	opImageSparseGather  = 315 // OpImageSparseDrefGather
	opNoLine             = 317
	opImageSparseRead    = 320
	opModuleProcessed    = 330
	opExecutionModeId    = 331
	opGroupNUIAdd        = 349 // OpGroupNonUniformIAdd
	opGroupNULogicalXor  = 364 // OpGroupNonUniformLogicalXor
	opLoopMerge          = 246
	opSelectionMerge     = 247
	opBranch             = 249
	opBranchConditional  = 250
	opSwitch             = 251
	opTypeAccelStruct    = 5341

	decSpecID        = 1
	decBlock         = 2
	decBufferBlock   = 3
	decRowMajor      = 4
	decArrayStride   = 6
	decMatrixStride  = 7
	decBuiltIn       = 11
	decNonWritable   = 24
	decNonReadable   = 25
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35

	builtInWorkgroupSize = 25

	modeLocalSize   = 17
	modeLocalSizeID = 38

	scUniformConstant = 0
	scUniform         = 2
	scPushConstant    = 9
	scStorageBuffer   = 12
)

// Opcodes of the SPIR-V instructions that Instructions' callers most often
// look for, from the SPIR-V specification: an instruction's first word holds
// its opcode in the low 16 bits and its word count in the high 16.
const (
	OpName             = 5
	OpExtension        = 10
	OpCapability       = 17
	OpTypeImage        = 25
	OpTypeArray        = 28
	OpTypeRuntimeArray = 29
	OpTypePointer      = 32
	OpVariable         = 59
	OpDecorate         = 71
)

// Version is the version word of a SPIR-V header: 0x00MMmm00 for
// version MM.mm.
type Version uint32

// Major is the major version number.
func (v Version) Major() int { return int(v>>16) & 0xff }

// Minor is the minor version number.
func (v Version) Minor() int { return int(v>>8) & 0xff }

// String returns "major.minor", for example "1.3".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major(), v.Minor()) }

// ErrInvalid is wrapped by the errors Decode, Reflect and StripDebug return
// for malformed SPIR-V binaries (and by package shader's Compile).
var ErrInvalid = errors.New("invalid SPIR-V")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// HasMagic reports whether b starts with the SPIR-V magic number, in either
// byte order.
func HasMagic(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	m := binary.LittleEndian.Uint32(b)
	return m == spvMagic || m == spvMagicSwapped
}

// Decode checks a SPIR-V binary's header (the magic number, version 1.0 to
// 1.6, an id bound within the universal limit, a zero schema) and returns its
// words in host order. It accepts either byte order. The instruction stream
// is checked by Reflect, not here.
func Decode(b []byte) ([]uint32, error) { return decodeWords(b) }

// decodeWords turns a SPIR-V binary of either byte order into host words and
// checks its header: the magic number, version 1.0 to 1.6, a non-zero id
// bound within the universal limit, and a zero schema.
func decodeWords(b []byte) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, invalidf("length %d is not a multiple of 4", len(b))
	}
	if len(b) < 20 {
		return nil, invalidf("%d bytes is shorter than the 20-byte header", len(b))
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	switch w[0] {
	case spvMagic:
	case spvMagicSwapped:
		for i := range w {
			w[i] = bits.ReverseBytes32(w[i])
		}
	default:
		return nil, invalidf("bad magic number %#08x", w[0])
	}
	v := Version(w[1])
	if v&0xff0000ff != 0 || v.Major() != 1 || v.Minor() > 6 {
		return nil, invalidf("unsupported version word %#08x", w[1])
	}
	if w[3] == 0 || w[3] > spvMaxBound+1 {
		return nil, invalidf("id bound %d out of range", w[3])
	}
	if w[4] != 0 {
		return nil, invalidf("non-zero schema %d", w[4])
	}
	return w, nil
}

// encodeWords returns w as little-endian bytes.
func encodeWords(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// inst is one instruction: its opcode and the words after the first.
type inst struct {
	op  uint32
	ops []uint32
}

// instructions calls fn for every instruction of w, as Instructions does,
// with the opcode and operands as an inst.
func instructions(w []uint32, fn func(pos int, in inst)) error {
	return Instructions(w, func(pos int, op uint32, ops []uint32) bool {
		fn(pos, inst{op: op, ops: ops})
		return true
	})
}

// Instructions walks the instruction stream of a module's words, as Decode
// returns them (the five header words first, which it skips and does not
// check). It calls fn for each instruction with the index in words of its
// first word, its opcode, and its operands: the words after the first, a
// subslice of words, so that fn may patch them in place. It stops early,
// returning nil, when fn returns false. An instruction with a zero word
// count or one that runs past the end of words stops the walk with an error
// wrapping ErrInvalid, after fn has seen every instruction before it.
func Instructions(words []uint32, fn func(pos int, op uint32, operands []uint32) bool) error {
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 {
			return invalidf("zero word count at word %d", i)
		}
		if n > len(words)-i {
			return invalidf("instruction at word %d runs past the end", i)
		}
		if !fn(i, words[i]&0xffff, words[i+1:i+n]) {
			return nil
		}
		i += n
	}
	return nil
}

// DecodeString decodes a SPIR-V literal string (nul-terminated UTF-8 packed
// into words, first byte in the lowest bits) from the start of words,
// returning it and the number of words it occupies. A string lacking its
// terminator takes all of words.
func DecodeString(words []uint32) (string, int) {
	var b []byte
	for i, x := range words {
		for k := 0; k < 4; k++ {
			c := byte(x >> (8 * k))
			if c == 0 {
				return string(b), i + 1
			}
			b = append(b, c)
		}
	}
	return string(b), len(words)
}

// EncodeString encodes s as a SPIR-V literal string: its bytes, a
// terminating nul, and zero padding to whole words, first byte in the
// lowest bits of the first word. DecodeString reverses it.
func EncodeString(s string) []uint32 {
	w := make([]uint32, len(s)/4+1)
	for i := 0; i < len(s); i++ {
		w[i/4] |= uint32(s[i]) << (8 * (i % 4))
	}
	return w
}

// StripDebug returns b, in little-endian order, without the line information
// and embedded source text that compilers' debug modes add (OpString,
// OpLine, OpNoLine, OpSourceContinued, OpModuleProcessed, and the file and
// text operands of OpSource), keeping OpName and OpMemberName so that
// reflection still finds resources by name. Modules that import a
// NonSemantic instruction set, which may refer to OpString results, are
// returned unchanged. It fails, wrapping ErrInvalid, on a malformed binary.
func StripDebug(b []byte) ([]byte, error) {
	w, err := decodeWords(b)
	if err != nil {
		return nil, err
	}
	if err := instructions(w, func(int, inst) {}); err != nil {
		return nil, err
	}
	return encodeWords(stripDebug(w)), nil
}

// stripDebug removes the line information and embedded source text that
// shaderc's debug mode adds (OpString, OpLine, OpNoLine, OpSourceContinued,
// OpModuleProcessed, and the file and text operands of OpSource), keeping
// OpName and OpMemberName. Modules that import a NonSemantic instruction
// set, which may refer to OpString results, are returned unchanged.
func stripDebug(w []uint32) []uint32 {
	nonSemantic := false
	_ = instructions(w, func(_ int, in inst) {
		if in.op == opExtInstImport && len(in.ops) > 1 {
			name, _ := DecodeString(in.ops[1:])
			if len(name) >= 12 && name[:12] == "NonSemantic." {
				nonSemantic = true
			}
		}
	})
	if nonSemantic {
		return w
	}
	out := make([]uint32, 5, len(w))
	copy(out, w[:5])
	err := instructions(w, func(pos int, in inst) {
		switch in.op {
		case opString, opLine, opNoLine, opSourceContinued, opModuleProcessed:
			return
		case opSource:
			if len(in.ops) > 2 {
				out = append(out, 3<<16|opSource, in.ops[0], in.ops[1])
				return
			}
		}
		out = append(out, w[pos:pos+1+len(in.ops)]...)
	})
	if err != nil {
		return w
	}
	return out
}
