package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"strconv"
	"strings"
)

// This file is the checker's model of WGSL types: scalars, vectors,
// matrices, arrays, structures, atomics, pointers, references, textures and
// samplers, with the specification's layout rules ("Memory Layout").

type typeKind uint8

const (
	kInvalid typeKind = iota
	kVoid
	kBool
	kAbsInt
	kAbsFloat
	kI32
	kU32
	kF32
	kF16
	kVec
	kMat
	kArray
	kStruct
	kAtomic
	kPtr
	kRef
	kSampler
	kSamplerCmp
	kTexture        // sampled, multisampled and depth textures
	kStorageTexture // texture_storage_*
)

type addrSpace uint8

const (
	asNone addrSpace = iota
	asFunction
	asPrivate
	asWorkgroup
	asUniform
	asStorage
	asHandle
)

var addrSpaceNames = [...]string{"", "function", "private", "workgroup", "uniform", "storage", "handle"}

func (a addrSpace) String() string { return addrSpaceNames[a] }

type accessMode uint8

const (
	accNone accessMode = iota
	accRead
	accWrite
	accReadWrite
)

var accessNames = [...]string{"", "read", "write", "read_write"}

func (a accessMode) String() string { return accessNames[a] }

// texDim is a texture's dimensionality.
type texDim uint8

const (
	dim1D texDim = iota + 1
	dim2D
	dim3D
	dimCube
)

// texture flavours of kTexture.
const (
	texSampled uint8 = iota
	texMultisampled
	texDepth
	texDepthMultisampled
)

// wtype is a WGSL type. Scalars are shared singletons; other types are built
// as needed and compared with sameType.
type wtype struct {
	kind typeKind
	n, r int    // vector: n components; matrix: n columns of r rows
	elem *wtype // vector/matrix component, array element, atomic's, ptr/ref store type, texture's sampled type
	// Arrays: count is the element count of a creation-fixed array; 0 for a
	// runtime-sized or override-sized one. countExpr is the element count
	// expression of an override-sized array.
	count     int
	countExpr ast.Expr
	st        *structInfo
	space     addrSpace
	access    accessMode
	// Textures.
	dim     texDim
	arrayed bool
	flavour uint8
	format  string // storage texel format
}

type structInfo struct {
	name    string
	glsl    string
	pos     ast.Pos
	members []*member
	align   int
	size    int
	// builtin marks predeclared result structures (frexp, modf,
	// atomicCompareExchangeWeak), which the program cannot name.
	builtin bool
	// runtime is set when the last member is a runtime-sized array.
	runtime bool
	// layoutOK is false while the layout is unknown (a member type failed).
	layoutOK bool
	// padded: the GLSL declaration needs padding members to reproduce the
	// WGSL layout (an @align or @size attribute somewhere, or f16 gaps).
	deps []*structInfo
	// pads caches the GLSL padding layout (glsl.go).
	pads [][]bool
}

type member struct {
	name    string
	glsl    string
	pos     ast.Pos
	t       *wtype
	offset  int
	align   int
	size    int
	builtin string // @builtin on an entry-point parameter struct member
}

var (
	tInvalid  = &wtype{kind: kInvalid}
	tVoid     = &wtype{kind: kVoid}
	tBool     = &wtype{kind: kBool}
	tAbsInt   = &wtype{kind: kAbsInt}
	tAbsFloat = &wtype{kind: kAbsFloat}
	tI32      = &wtype{kind: kI32}
	tU32      = &wtype{kind: kU32}
	tF32      = &wtype{kind: kF32}
	tF16      = &wtype{kind: kF16}
	tSampler  = &wtype{kind: kSampler}
	tSamplerC = &wtype{kind: kSamplerCmp}
)

// vecCache holds the vectors of the scalar singletons (types are
// immutable once built).
var vecCache = func() map[*wtype]*[5]*wtype {
	m := map[*wtype]*[5]*wtype{}
	for _, s := range []*wtype{tBool, tAbsInt, tAbsFloat, tI32, tU32, tF32, tF16} {
		var a [5]*wtype
		for n := 2; n <= 4; n++ {
			a[n] = &wtype{kind: kVec, n: n, elem: s}
		}
		m[s] = &a
	}
	return m
}()

func vecOf(e *wtype, n int) *wtype {
	if a, ok := vecCache[e]; ok && n >= 2 && n <= 4 {
		return a[n]
	}
	return &wtype{kind: kVec, n: n, elem: e}
}
func matOf(e *wtype, c, r int) *wtype { return &wtype{kind: kMat, n: c, r: r, elem: e} }
func arrayOf(e *wtype, n int) *wtype  { return &wtype{kind: kArray, elem: e, count: n} }
func ptrOf(s addrSpace, t *wtype, a accessMode) *wtype {
	return &wtype{kind: kPtr, space: s, elem: t, access: a}
}
func refOf(s addrSpace, t *wtype, a accessMode) *wtype {
	return &wtype{kind: kRef, space: s, elem: t, access: a}
}

func sameType(a, b *wtype) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kVec:
		return a.n == b.n && sameType(a.elem, b.elem)
	case kMat:
		return a.n == b.n && a.r == b.r && sameType(a.elem, b.elem)
	case kArray:
		if a.countExpr != nil || b.countExpr != nil {
			return a.countExpr == b.countExpr && sameType(a.elem, b.elem)
		}
		return a.count == b.count && sameType(a.elem, b.elem)
	case kStruct:
		return a.st == b.st
	case kAtomic:
		return sameType(a.elem, b.elem)
	case kPtr, kRef:
		return a.space == b.space && a.access == b.access && sameType(a.elem, b.elem)
	case kTexture:
		return a.dim == b.dim && a.arrayed == b.arrayed && a.flavour == b.flavour && sameType(a.elem, b.elem)
	case kStorageTexture:
		return a.dim == b.dim && a.arrayed == b.arrayed && a.format == b.format && a.access == b.access
	}
	return true
}

func (t *wtype) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *wtype) write(b *strings.Builder) {
	if t == nil {
		b.WriteString("void")
		return
	}
	switch t.kind {
	case kInvalid:
		b.WriteString("<invalid>")
	case kVoid:
		b.WriteString("void")
	case kBool:
		b.WriteString("bool")
	case kAbsInt:
		b.WriteString("AbstractInt")
	case kAbsFloat:
		b.WriteString("AbstractFloat")
	case kI32:
		b.WriteString("i32")
	case kU32:
		b.WriteString("u32")
	case kF32:
		b.WriteString("f32")
	case kF16:
		b.WriteString("f16")
	case kVec:
		b.WriteString("vec")
		b.WriteString(strconv.Itoa(t.n))
		b.WriteByte('<')
		t.elem.write(b)
		b.WriteByte('>')
	case kMat:
		b.WriteString("mat")
		b.WriteString(strconv.Itoa(t.n))
		b.WriteByte('x')
		b.WriteString(strconv.Itoa(t.r))
		b.WriteByte('<')
		t.elem.write(b)
		b.WriteByte('>')
	case kArray:
		b.WriteString("array<")
		t.elem.write(b)
		switch {
		case t.countExpr != nil:
			b.WriteString(", <override expression>")
		case t.count > 0:
			b.WriteString(", ")
			b.WriteString(strconv.Itoa(t.count))
		}
		b.WriteByte('>')
	case kStruct:
		b.WriteString(t.st.name)
	case kAtomic:
		b.WriteString("atomic<")
		t.elem.write(b)
		b.WriteByte('>')
	case kPtr, kRef:
		if t.kind == kPtr {
			b.WriteString("ptr<")
		} else {
			b.WriteString("ref<")
		}
		b.WriteString(t.space.String())
		b.WriteString(", ")
		t.elem.write(b)
		if t.access != accNone {
			b.WriteString(", ")
			b.WriteString(t.access.String())
		}
		b.WriteByte('>')
	case kSampler:
		b.WriteString("sampler")
	case kSamplerCmp:
		b.WriteString("sampler_comparison")
	case kTexture:
		switch t.flavour {
		case texSampled:
			b.WriteString("texture_")
		case texMultisampled:
			b.WriteString("texture_multisampled_")
		case texDepth:
			b.WriteString("texture_depth_")
		case texDepthMultisampled:
			b.WriteString("texture_depth_multisampled_")
		}
		b.WriteString(dimName(t.dim, t.arrayed))
		if t.flavour == texSampled || t.flavour == texMultisampled {
			b.WriteByte('<')
			t.elem.write(b)
			b.WriteByte('>')
		}
	case kStorageTexture:
		b.WriteString("texture_storage_")
		b.WriteString(dimName(t.dim, t.arrayed))
		b.WriteByte('<')
		b.WriteString(t.format)
		b.WriteString(", ")
		b.WriteString(t.access.String())
		b.WriteByte('>')
	}
}

func dimName(d texDim, arrayed bool) string {
	s := ""
	switch d {
	case dim1D:
		s = "1d"
	case dim2D:
		s = "2d"
	case dim3D:
		s = "3d"
	case dimCube:
		s = "cube"
	}
	if arrayed {
		s += "_array"
	}
	return s
}

// ---- predicates -------------------------------------------------------------

func (t *wtype) isScalar() bool {
	switch t.kind {
	case kBool, kAbsInt, kAbsFloat, kI32, kU32, kF32, kF16:
		return true
	}
	return false
}

func (t *wtype) isNumericScalar() bool {
	switch t.kind {
	case kAbsInt, kAbsFloat, kI32, kU32, kF32, kF16:
		return true
	}
	return false
}

func (t *wtype) isIntScalar() bool {
	return t.kind == kAbsInt || t.kind == kI32 || t.kind == kU32
}

func (t *wtype) isFloatScalar() bool {
	return t.kind == kAbsFloat || t.kind == kF32 || t.kind == kF16
}

// scalarOf returns a scalar's own type, a vector's or matrix's component
// type, else nil.
func (t *wtype) scalarOf() *wtype {
	switch {
	case t.isScalar():
		return t
	case t.kind == kVec || t.kind == kMat:
		return t.elem
	}
	return nil
}

// leaf returns the innermost scalar of scalars, vectors, matrices and
// arrays of them (for abstract checks), else nil.
func (t *wtype) leaf() *wtype {
	for t != nil && t.kind == kArray {
		t = t.elem
	}
	if t == nil {
		return nil
	}
	return t.scalarOf()
}

// isAbstract reports whether the type involves an abstract numeric type.
func (t *wtype) isAbstract() bool {
	switch t.kind {
	case kAbsInt, kAbsFloat:
		return true
	case kVec, kMat, kArray:
		return t.elem.isAbstract()
	case kStruct:
		if t.st.builtin {
			for _, m := range t.st.members {
				if m.t.isAbstract() {
					return true
				}
			}
		}
	}
	return false
}

// withScalar returns t (a scalar, vector or matrix, or array of them) with
// its leaf scalar replaced by s.
func (t *wtype) withScalar(s *wtype) *wtype {
	switch t.kind {
	case kVec:
		return vecOf(s, t.n)
	case kMat:
		return matOf(s, t.n, t.r)
	case kArray:
		a := *t
		a.elem = t.elem.withScalar(s)
		return &a
	}
	if t.isScalar() {
		return s
	}
	return t
}

func (t *wtype) unref() *wtype {
	if t.kind == kRef {
		return t.elem
	}
	return t
}

// constructible: scalars, vectors, matrices, creation-fixed arrays and
// structures of constructible types.
func (t *wtype) constructible() bool {
	switch t.kind {
	case kBool, kAbsInt, kAbsFloat, kI32, kU32, kF32, kF16, kVec, kMat:
		return true
	case kArray:
		return t.count > 0 && t.countExpr == nil && t.elem.constructible()
	case kStruct:
		for _, m := range t.st.members {
			if !m.t.constructible() {
				return false
			}
		}
		return true
	}
	return false
}

// storable: concrete plain types and textures and samplers.
func (t *wtype) storable() bool {
	switch t.kind {
	case kBool, kI32, kU32, kF32, kF16, kVec, kMat, kAtomic, kSampler, kSamplerCmp, kTexture, kStorageTexture:
		return !t.isAbstract()
	case kArray:
		return t.elem.storable()
	case kStruct:
		return !t.st.builtin || !t.isAbstract()
	}
	return false
}

func (t *wtype) isPlain() bool {
	switch t.kind {
	case kBool, kAbsInt, kAbsFloat, kI32, kU32, kF32, kF16, kVec, kMat, kAtomic, kArray, kStruct:
		return true
	}
	return false
}

// hostShareable: concrete numeric scalars, vectors, matrices, atomics, and
// arrays and structures of them.
func (t *wtype) hostShareable() bool {
	switch t.kind {
	case kI32, kU32, kF32, kF16, kAtomic:
		return true
	case kVec, kMat:
		return t.elem.hostShareable()
	case kArray:
		return t.countExpr == nil && t.elem.hostShareable()
	case kStruct:
		for _, m := range t.st.members {
			if !m.t.hostShareable() {
				return false
			}
		}
		return true
	}
	return false
}

// fixedFootprint: plain types other than runtime-sized arrays and
// structures ending in one.
func (t *wtype) fixedFootprint() bool {
	switch t.kind {
	case kArray:
		return (t.count > 0 || t.countExpr != nil) && t.elem.fixedFootprint()
	case kStruct:
		return !t.st.runtime
	}
	return t.isPlain()
}

func (t *wtype) hasAtomic() bool {
	switch t.kind {
	case kAtomic:
		return true
	case kArray:
		return t.elem.hasAtomic()
	case kStruct:
		for _, m := range t.st.members {
			if m.t.hasAtomic() {
				return true
			}
		}
	}
	return false
}

func (t *wtype) hasF16() bool {
	switch t.kind {
	case kF16:
		return true
	case kVec, kMat, kArray, kAtomic:
		return t.elem.hasF16()
	case kStruct:
		for _, m := range t.st.members {
			if m.t.hasF16() {
				return true
			}
		}
	}
	return false
}

// ---- layout -----------------------------------------------------------------

func roundUp(k, n int) int {
	if k <= 0 {
		return n
	}
	return (n + k - 1) / k * k
}

// alignOf is AlignOf(T) of the specification.
func alignOf(t *wtype) int {
	switch t.kind {
	case kBool, kI32, kU32, kF32, kAtomic:
		return 4
	case kF16:
		return 2
	case kVec:
		s := alignOf(t.elem)
		if t.n == 2 {
			return 2 * s
		}
		return 4 * s
	case kMat:
		return alignOf(vecOf(t.elem, t.r))
	case kArray:
		return alignOf(t.elem)
	case kStruct:
		return t.st.align
	}
	return 4
}

// sizeOf is SizeOf(T); a runtime-sized array counts one element.
func sizeOf(t *wtype) int {
	switch t.kind {
	case kBool, kI32, kU32, kF32, kAtomic:
		return 4
	case kF16:
		return 2
	case kVec:
		return t.n * sizeOf(t.elem)
	case kMat:
		v := vecOf(t.elem, t.r)
		return t.n * roundUp(alignOf(v), sizeOf(v))
	case kArray:
		n := t.count
		if n <= 0 {
			n = 1
		}
		return n * strideOf(t)
	case kStruct:
		return t.st.size
	}
	return 0
}

func strideOf(t *wtype) int { return roundUp(alignOf(t.elem), sizeOf(t.elem)) }

// matStride is a matrix's column stride.
func matStride(t *wtype) int {
	v := vecOf(t.elem, t.r)
	return roundUp(alignOf(v), sizeOf(v))
}
