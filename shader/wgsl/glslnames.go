package wgsl

import (
	"strconv"
	"strings"
)

// glslReserved holds the identifiers a WGSL name must not keep in GLSL:
// GLSL 4.60 keywords and reserved words, built-in types, and built-in
// functions (which the translation calls even where the WGSL does not).
var glslReserved = map[string]bool{}

func init() {
	words := `
attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly atomic_uint
layout centroid flat smooth noperspective patch sample invariant precise break continue do for while switch
case default if else subroutine in out inout int void bool true false float double discard return
lowp mediump highp precision struct common partition active asm class union enum typedef template this
resource goto inline noinline public static extern external interface long short half fixed unsigned
superp input output filter sizeof cast namespace using main demote
vec2 vec3 vec4 dvec2 dvec3 dvec4 bvec2 bvec3 bvec4 ivec2 ivec3 ivec4 uvec2 uvec3 uvec4 hvec2 hvec3 hvec4
fvec2 fvec3 fvec4 uint mat2 mat3 mat4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4
dmat2 dmat3 dmat4 dmat2x2 dmat2x3 dmat2x4 dmat3x2 dmat3x3 dmat3x4 dmat4x2 dmat4x3 dmat4x4
float16_t float32_t float64_t int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t
f16vec2 f16vec3 f16vec4 f32vec2 f32vec3 f32vec4 f64vec2 f64vec3 f64vec4 i8vec2 i8vec3 i8vec4 u8vec2 u8vec3 u8vec4
i16vec2 i16vec3 i16vec4 u16vec2 u16vec3 u16vec4 i32vec2 i32vec3 i32vec4 u32vec2 u32vec3 u32vec4
i64vec2 i64vec3 i64vec4 u64vec2 u64vec3 u64vec4 f16mat2 f16mat3 f16mat4 f16mat2x2 f16mat2x3 f16mat2x4
f16mat3x2 f16mat3x3 f16mat3x4 f16mat4x2 f16mat4x3 f16mat4x4 int64_t uint64_t
sampler sampler1D sampler2D sampler3D samplerCube sampler1DShadow sampler2DShadow samplerCubeShadow
sampler1DArray sampler2DArray sampler1DArrayShadow sampler2DArrayShadow samplerCubeArray samplerCubeArrayShadow
isampler1D isampler2D isampler3D isamplerCube isampler1DArray isampler2DArray isamplerCubeArray
usampler1D usampler2D usampler3D usamplerCube usampler1DArray usampler2DArray usamplerCubeArray
sampler2DRect sampler2DRectShadow isampler2DRect usampler2DRect samplerBuffer isamplerBuffer usamplerBuffer
sampler2DMS isampler2DMS usampler2DMS sampler2DMSArray isampler2DMSArray usampler2DMSArray samplerShadow
texture1D texture2D texture3D textureCube texture1DArray texture2DArray textureCubeArray textureBuffer
texture2DMS texture2DMSArray texture2DRect itexture1D itexture2D itexture3D itextureCube itexture1DArray
itexture2DArray itextureCubeArray itexture2DMS itexture2DMSArray utexture1D utexture2D utexture3D
utextureCube utexture1DArray utexture2DArray utextureCubeArray utexture2DMS utexture2DMSArray
image1D image2D image3D imageCube image1DArray image2DArray imageCubeArray image2DMS image2DMSArray
imageBuffer image2DRect iimage1D iimage2D iimage3D iimageCube iimage1DArray iimage2DArray iimageCubeArray
iimage2DMS iimage2DMSArray iimageBuffer iimage2DRect uimage1D uimage2D uimage3D uimageCube uimage1DArray
uimage2DArray uimageCubeArray uimage2DMS uimage2DMSArray uimageBuffer uimage2DRect subpassInput
isubpassInput usubpassInput subpassInputMS isubpassInputMS usubpassInputMS accelerationStructureEXT
rayQueryEXT
radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2 log2 sqrt
inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step smoothstep
isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat fma frexp ldexp packUnorm2x16
packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16 unpackSnorm2x16 unpackUnorm4x8 unpackSnorm4x8
packHalf2x16 unpackHalf2x16 packDouble2x32 unpackDouble2x32 packFloat2x16 unpackFloat2x16 length distance
dot cross normalize faceforward reflect refract matrixCompMult outerProduct transpose determinant inverse
lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not uaddCarry usubBorrow
umulExtended imulExtended bitfieldExtract bitfieldInsert bitfieldReverse bitCount findLSB findMSB
textureSize textureQueryLod textureQueryLevels textureSamples texture textureProj textureLod textureOffset
texelFetch texelFetchOffset textureProjOffset textureLodOffset textureProjLod textureProjLodOffset
textureGrad textureGradOffset textureProjGrad textureProjGradOffset textureGather textureGatherOffset
textureGatherOffsets imageSize imageSamples imageLoad imageStore imageAtomicAdd imageAtomicMin
imageAtomicMax imageAtomicAnd imageAtomicOr imageAtomicXor imageAtomicExchange imageAtomicCompSwap
atomicAdd atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExchange atomicCompSwap atomicLoad
atomicStore atomicCounter atomicCounterIncrement atomicCounterDecrement barrier memoryBarrier
memoryBarrierAtomicCounter memoryBarrierBuffer memoryBarrierShared memoryBarrierImage groupMemoryBarrier
controlBarrier subgroupBarrier subgroupMemoryBarrier subgroupElect subgroupAll subgroupAny subgroupAllEqual
subgroupBroadcast subgroupBroadcastFirst subgroupBallot subgroupInverseBallot subgroupBallotBitExtract
subgroupBallotBitCount subgroupBallotInclusiveBitCount subgroupBallotExclusiveBitCount subgroupBallotFindLSB
subgroupBallotFindMSB subgroupShuffle subgroupShuffleXor subgroupShuffleUp subgroupShuffleDown subgroupAdd
subgroupMul subgroupMin subgroupMax subgroupAnd subgroupOr subgroupXor subgroupInclusiveAdd
subgroupInclusiveMul subgroupExclusiveAdd subgroupExclusiveMul dFdx dFdy fwidth interpolateAtCentroid
interpolateAtSample interpolateAtOffset EmitVertex EndPrimitive EmitStreamVertex EndStreamPrimitive
anyInvocation allInvocations allInvocationsEqual
`
	for _, w := range strings.Fields(words) {
		glslReserved[w] = true
	}
}

// needsRename reports whether a WGSL identifier cannot be used as is in
// GLSL.
func needsRename(name string) bool {
	if glslReserved[name] || strings.HasPrefix(name, "gl_") || strings.Contains(name, "__") ||
		strings.HasPrefix(name, "_w") || name == "" {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return true // GLSL identifiers are ASCII
		}
	}
	return false
}

// renamed is the GLSL spelling of a name that needs renaming: "_wr_" and
// the name with runs of underscores collapsed (GLSL reserves "__") and
// non-ASCII characters spelled uXXXX.
func renamed(name string) string {
	var b strings.Builder
	b.WriteString("_wr_")
	prev := true // suppress a leading underscore after the prefix
	for _, r := range name {
		if r == '_' {
			if prev {
				continue
			}
			prev = true
			b.WriteByte('_')
			continue
		}
		prev = false
		if r >= 0x80 {
			b.WriteString("u" + strconv.FormatInt(int64(r), 16))
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	return strings.TrimSuffix(s, "_")
}
