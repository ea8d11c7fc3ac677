package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// The WGSL programs of testdata/wgsl, one per language feature, each run
// on the device on random inputs (seeded) with its outputs poisoned first,
// and compared element by element with a reference computed here: exactly
// for integers and bit patterns, within WGSL's accuracy (stated at each
// comparison) for floats.
//
// GFXCUDA_WGSL_REFERENCE=naga compiles the programs with naga (the WGSL
// compiler of wgpu, when installed) instead of package shader: a program
// that passes there and fails here points at our compiler, one that fails
// on both at the program or its reference. (Under naga, f16 and
// dot4_packed fail validation: naga's SPIR-V declares capabilities,
// StorageInputOutput16 and DotProductKHR, that the device does not enable.)

// wgslProgram is one program of testdata/wgsl/<name>.wgsl and its test.
type wgslProgram struct {
	name string
	run  func(t *testing.T, d *Device)
}

var wgslPrograms = []wgslProgram{
	{"scalar_arith", testWGSLScalarArith},
	{"shifts", testWGSLShifts},
	{"float_to_int", testWGSLFloatToInt},
	{"bool_select", testWGSLBoolSelect},
	{"vectors_swizzles", testWGSLVectorsSwizzles},
	{"matrices", testWGSLMatrices},
	{"arrays", testWGSLArrays},
	{"runtime_array", testWGSLRuntimeArray},
	{"struct_layout", testWGSLStructLayout},
	{"uniform_struct", testWGSLUniformStruct},
	{"pointers", testWGSLPointers},
	{"private_vars", testWGSLPrivateVars},
	{"workgroup_barrier", testWGSLWorkgroupBarrier},
	{"const_exprs", testWGSLConstExprs},
	{"overrides", testWGSLOverrides},
	{"alias", testWGSLAlias},
	{"if_else", testWGSLIfElse},
	{"switch", testWGSLSwitch},
	{"loop_continuing", testWGSLLoopContinuing},
	{"for_while", testWGSLForWhile},
	{"incdec_compound", testWGSLIncDecCompound},
	{"phony", testWGSLPhony},
	{"functions", testWGSLFunctions},
	{"numeric_builtins", testWGSLNumericBuiltins},
	{"bit_builtins", testWGSLBitBuiltins},
	{"pack_unpack", testWGSLPackUnpack},
	{"bitcast", testWGSLBitcast},
	{"atomics_storage", testWGSLAtomicsStorage},
	{"atomics_workgroup", testWGSLAtomicsWorkgroup},
	{"histogram", testWGSLHistogram},
	{"matmul_tiled", testWGSLMatmulTiled},
	{"scan", testWGSLScan},
	{"blur", testWGSLBlur},
	{"storage_rw", testWGSLStorageRW},
	{"texture_queries", testWGSLTextureQueries},
	{"compute_builtins", testWGSLComputeBuiltins},
	{"builtin_struct", testWGSLBuiltinStruct},
	{"f16", testWGSLF16},
	{"workgroup_uniform_load", testWGSLWorkgroupUniformLoad},
	{"storage_barrier", testWGSLStorageBarrier},
	{"quantize_f16", testWGSLQuantizeF16},
	{"frexp_modf", testWGSLFrexpModf},
	{"dot4_packed", testWGSLDot4Packed},
	{"two_entry_points", testWGSLTwoEntryPoints},
}

// TestWGSL runs every program of testdata/wgsl, each on a device of its
// own (so that validation errors land on the program that caused them).
func TestWGSL(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "wgsl", "*.wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range wgslPrograms {
		listed[p.name] = true
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".wgsl"); !listed[name] {
			t.Errorf("%s has no test in wgslPrograms", f)
		}
	}
	for _, p := range wgslPrograms {
		t.Run(p.name, func(t *testing.T) {
			d := openTest(t)
			p.run(t, d)
		})
	}
}

// wgslPath is the file of program name.
func wgslPath(name string) string { return filepath.Join("testdata", "wgsl", name+".wgsl") }

// wgslReference is the reference compiler GFXCUDA_WGSL_REFERENCE names, or "".
func wgslReference() string { return os.Getenv("GFXCUDA_WGSL_REFERENCE") }

// wgslModule compiles program name for its entry point (empty: the
// default), with package shader or, under GFXCUDA_WGSL_REFERENCE=naga,
// with naga, which sets the overrides in constants itself (the module it
// makes has none left).
func wgslModule(t *testing.T, name, entry string, constants map[string]float64) (m *shader.Module, setConstants bool) {
	t.Helper()
	path := wgslPath(name)
	if ref := wgslReference(); ref != "" {
		if ref != "naga" {
			t.Fatalf("GFXCUDA_WGSL_REFERENCE=%s: only naga is known", ref)
		}
		out := filepath.Join(t.TempDir(), name+".spv")
		args := []string{"-g"} // debug info: OpName, so resources bind by name
		keys := make([]string, 0, len(constants))
		for k := range constants {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "--override", fmt.Sprintf("%s=%v", k, constants[k]))
		}
		if entry != "" {
			args = append(args, "--entry-point", entry)
		}
		args = append(args, path, out)
		if b, err := exec.Command("naga", args...).CombinedOutput(); err != nil {
			t.Fatalf("naga %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		spv, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if spv, err = spirv.StripDebug(spv); err != nil {
			t.Fatal(err)
		}
		wgslUnknownSourceLanguage(spv)
		m, err := shader.Compile(spv, shader.Options{Language: shader.SPIRV, EntryPoint: entry})
		if err != nil {
			t.Fatalf("naga's SPIR-V of %s: %v", path, err)
		}
		return m, false
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err = shader.Compile(src, shader.Options{Filename: path, Language: shader.WGSL, EntryPoint: entry, NoCache: true})
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return m, true
}

// wgslUnknownSourceLanguage sets the language of a SPIR-V module's OpSource
// to Unknown: the validation layer rejects naga's WGSL (10).
func wgslUnknownSourceLanguage(spv []byte) {
	for i := 20; i+8 <= len(spv); {
		w := binary.LittleEndian.Uint32(spv[i:])
		n := int(w>>16) * 4
		if n == 0 {
			return
		}
		if w&0xffff == 3 { // OpSource
			binary.LittleEndian.PutUint32(spv[i+4:], 0)
		}
		i += n
	}
}

// wgslKernelWith compiles program name and makes a kernel of it with the
// overrides in constants set.
func wgslKernelWith(t *testing.T, d *Device, name, entry string, constants map[string]float64) *Kernel {
	t.Helper()
	m, set := wgslModule(t, name, entry, constants)
	o := KernelOptions{EntryPoint: entry}
	if set {
		o.Constants = constants
	}
	k, err := d.KernelWith(m, o)
	if err != nil {
		t.Fatalf("%s: KernelWith: %v", name, err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// wgslKernel compiles program name (its default entry point) into a kernel.
func wgslKernel(t *testing.T, d *Device, name string) *Kernel {
	t.Helper()
	return wgslKernelWith(t, d, name, "", nil)
}

// wgslDispatch runs k and fails the test on error.
func wgslDispatch(t *testing.T, k *Kernel, x, y, z uint32, args ...Arg) {
	t.Helper()
	if err := k.Dispatch(x, y, z, args...); err != nil {
		t.Fatalf("Dispatch(%d, %d, %d): %v", x, y, z, err)
	}
}

// wgslInput makes a device buffer holding data.
func wgslInput(t *testing.T, d *Device, data []byte) *Buffer {
	t.Helper()
	return newBuffer(t, d, HeapDefault, data)
}

// wgslOutput makes a device buffer of n poisoned bytes.
func wgslOutput(t *testing.T, d *Device, n int) *Buffer {
	t.Helper()
	return newBuffer(t, d, HeapDefault, poison(n))
}

// wgslTexture2D makes a 2D texture holding data.
func wgslTexture2D(t *testing.T, d *Device, w, h uint32, f format.Format, data []byte) *Texture {
	t.Helper()
	tex, err := d.Texture2D(w, h, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := tex.Upload(data); err != nil {
		t.Fatal(err)
	}
	return tex
}

func wgslReadTexture(t *testing.T, tex *Texture) []byte {
	t.Helper()
	b, err := tex.Readback()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wgslMismatches reports the first few of a comparison's mismatches, then how
// many there were in all.
type wgslMismatches struct {
	t    *testing.T
	what string
	n    int
}

func newWGSLMismatches(t *testing.T, what string) *wgslMismatches {
	return &wgslMismatches{t: t, what: what}
}

const wgslMaxReported = 12

func (m *wgslMismatches) add(format string, args ...any) {
	m.t.Helper()
	m.n++
	if m.n <= wgslMaxReported {
		m.t.Errorf("%s: %s", m.what, fmt.Sprintf(format, args...))
	}
}

func (m *wgslMismatches) done() {
	m.t.Helper()
	if m.n > wgslMaxReported {
		m.t.Errorf("%s: %d mismatches in all", m.what, m.n)
	}
}

// wgslExpectU32 compares got and want exactly; label names element i.
func wgslExpectU32(t *testing.T, what string, got, want []uint32, label func(i int) string) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	m := newWGSLMismatches(t, what)
	for i := range want {
		if got[i] != want[i] {
			l := fmt.Sprint(i)
			if label != nil {
				l = label(i)
			}
			m.add("[%s] = %#x (%d), want %#x (%d)", l, got[i], int32(got[i]), want[i], int32(want[i]))
		}
	}
	m.done()
}

// --- float helpers ---------------------------------------------------

// wgslULP is the spacing of f32 values at magnitude |x| (of the normal
// range; 2^-149 below it).
func wgslULP(x float64) float64 {
	x = math.Abs(x)
	if x < 0x1p-126 {
		return 0x1p-149
	}
	_, e := math.Frexp(x) // x = f × 2^e, f in [0.5, 1)
	return math.Ldexp(1, e-24)
}

// wgslRoundings returns the f32 values just below and above x (both x when
// f32 holds it): the correctly rounded results WGSL allows.
func wgslRoundings(x float64) (lo, hi float32) {
	f := float32(x)
	switch {
	case float64(f) == x:
		return f, f
	case float64(f) < x:
		return f, math.Nextafter32(f, float32(math.Inf(1)))
	default:
		return math.Nextafter32(f, float32(math.Inf(-1))), f
	}
}

// wgslCorrectlyRounded reports whether got is x correctly rounded to f32
// (WGSL: either neighbour).
func wgslCorrectlyRounded(got float32, x float64) bool {
	lo, hi := wgslRoundings(x)
	return got == lo || got == hi
}

// wgslNear reports whether got is within tol of want (NaN never is).
func wgslNear(got float32, want, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol
}

// wgslULPs is the distance between a and b in f32 units in the last place.
func wgslULPs(a, b float32) uint64 {
	ord := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&0x80000000 != 0 {
			return -(u & 0x7fffffff)
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// wgslGrid returns a random multiple of 1/div in [-lim, lim]: values whose
// sums and products stay exact in f32 when the test keeps them small.
func wgslGrid(r *rand.Rand, lim, div int) float32 {
	return float32(r.IntN(2*lim*div+1)-lim*div) / float32(div)
}

// --- f16 helpers -----------------------------------------------------

// wgslF16ToF32 decodes a binary16 value.
func wgslF16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		v := float32(math.Ldexp(float64(man), -24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | man<<13)
}

// wgslF16Roundings returns the binary16 values (as bits) just below and above
// x, x being finite and within f16's range; both the same when f16 holds x.
func wgslF16Roundings(x float64) (lo, hi uint16) {
	// Walk the f16 values: they are few.
	enc := func(h uint16) float64 { return float64(wgslF16ToF32(h)) }
	if x == 0 {
		return 0, 0
	}
	neg := x < 0
	a := math.Abs(x)
	var below uint16
	for h := uint16(0); h < 0x7c00; h++ {
		v := enc(h)
		if v == a {
			if neg {
				h |= 0x8000
			}
			return h, h
		}
		if v > a {
			lo, hi = below, h
			if neg {
				return hi | 0x8000, lo | 0x8000
			}
			return lo, hi
		}
		below = h
	}
	return 0x7bff, 0x7c00
}

// wgslF16Of is x rounded to the nearest binary16 (ties to even), as bits.
func wgslF16Of(x float64) uint16 {
	lo, hi := wgslF16Roundings(x)
	dl, dh := math.Abs(x-float64(wgslF16ToF32(lo))), math.Abs(float64(wgslF16ToF32(hi))-x)
	if dl < dh || (dl == dh && lo&1 == 0) {
		return lo
	}
	return hi
}

func wgslU16Bytes(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

// --- integer helpers -------------------------------------------------

// WGSL's integer division and remainder: by zero, e1 / 0 == e1 and
// e1 % 0 == 0; MIN / -1 == MIN and MIN % -1 == 0.
func wgslDivI32(a, b int32) int32 {
	if b == 0 || (a == math.MinInt32 && b == -1) {
		return a
	}
	return a / b
}

func wgslRemI32(a, b int32) int32 {
	if b == 0 || (a == math.MinInt32 && b == -1) {
		return 0
	}
	return a % b
}

func wgslDivU32(a, b uint32) uint32 {
	if b == 0 {
		return a
	}
	return a / b
}

func wgslRemU32(a, b uint32) uint32 {
	if b == 0 {
		return 0
	}
	return a % b
}

func wgslB2U(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func wgslI32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func wgslI32Bytes(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// wgslLayout writes and reads little-endian values at byte offsets, for
// buffers laid out by WGSL's rules.
type wgslLayout []byte

func (l wgslLayout) putU32(off int, v uint32)  { binary.LittleEndian.PutUint32(l[off:], v) }
func (l wgslLayout) putI32(off int, v int32)   { l.putU32(off, uint32(v)) }
func (l wgslLayout) putF32(off int, v float32) { l.putU32(off, math.Float32bits(v)) }
func (l wgslLayout) u32(off int) uint32        { return binary.LittleEndian.Uint32(l[off:]) }
func (l wgslLayout) i32(off int) int32         { return int32(l.u32(off)) }
func (l wgslLayout) f32(off int) float32       { return math.Float32frombits(l.u32(off)) }

// --- the programs ----------------------------------------------------

func testWGSLScalarArith(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "scalar_arith")
	const n = 320
	r := newRand(101)
	ia, ib := make([]int32, n), make([]int32, n)
	ua, ub := make([]uint32, n), make([]uint32, n)
	fa, fb := make([]float32, n), make([]float32, n)
	for i := range n {
		a, b := int32(r.Uint32()), int32(r.Uint32())
		switch i % 8 {
		case 0:
			b = 0
		case 1:
			a, b = math.MinInt32, -1
		case 2:
			b = -1
		case 3:
			a = math.MinInt32
		case 4:
			b = int32(r.IntN(201)) - 100
		case 5:
			a, b = int32(r.IntN(2001))-1000, int32(r.IntN(7))-3
		}
		ia[i], ib[i] = a, b
		x, y := r.Uint32(), r.Uint32()
		switch i % 6 {
		case 0:
			y = 0
		case 1:
			y = uint32(r.IntN(100))
		case 2:
			x = math.MaxUint32
		}
		ua[i], ub[i] = x, y
		// f / g lies between integers, away from them, so that the
		// remainder's truncation is robust; g in ±[1, 4).
		g := 1 + 3*r.Float64()
		if r.IntN(2) == 0 {
			g = -g
		}
		q := float64(r.IntN(101) - 50)
		fr := 0.1 + 0.8*r.Float64()
		if q < 0 {
			fr = -fr
		}
		fa[i], fb[i] = float32((q+fr)*g), float32(g)
	}
	res := wgslOutput(t, d, 4*16*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, wgslI32Bytes(ia))), At(1, wgslInput(t, d, wgslI32Bytes(ib))),
		At(2, wgslInput(t, d, u32bytes(ua))), At(3, wgslInput(t, d, u32bytes(ub))),
		At(4, wgslInput(t, d, f32bytes(fa))), At(5, wgslInput(t, d, f32bytes(fb))), At(6, res))
	got := u32s(readback(t, res))
	want := make([]uint32, 16*n)
	ops := []string{"a+b", "a-b", "a*b", "a/b", "a%b", "-a", "x/y", "x%y", "x*y", "x-y", "x+y*3"}
	for i := range n {
		a, b, x, y := ia[i], ib[i], ua[i], ub[i]
		w := want[16*i:]
		w[0], w[1], w[2] = uint32(a+b), uint32(a-b), uint32(a*b)
		w[3], w[4], w[5] = uint32(wgslDivI32(a, b)), uint32(wgslRemI32(a, b)), uint32(-a)
		w[6], w[7], w[8], w[9], w[10] = wgslDivU32(x, y), wgslRemU32(x, y), x*y, x-y, x+y*3
	}
	m := newWGSLMismatches(t, "integers")
	for i := range n {
		for j := range 11 {
			if g, w := got[16*i+j], want[16*i+j]; g != w {
				m.add("element %d, %s (a=%d b=%d x=%d y=%d): got %d (%#x), want %d (%#x)",
					i, ops[j], ia[i], ib[i], ua[i], ub[i], int32(g), g, int32(w), w)
			}
		}
	}
	m.done()
	// f32: + - * correctly rounded (either neighbour of the exact result);
	// / within 2.5 ULP; % inherited from x - y * trunc(x / y): the
	// product's rounding and the subtraction's, 1 ULP each.
	fm := newWGSLMismatches(t, "f32")
	for i := range n {
		f, g := float64(fa[i]), float64(fb[i])
		res := got[16*i+11 : 16*i+16]
		tr := math.Trunc(f / g)
		rem := f - g*tr
		v := func(j int) float32 { return math.Float32frombits(res[j]) }
		checks := []struct {
			op   string
			ok   bool
			want float64
		}{
			{"f+g", wgslCorrectlyRounded(v(0), f+g), f + g},
			{"f-g", wgslCorrectlyRounded(v(1), f-g), f - g},
			{"f*g", wgslCorrectlyRounded(v(2), f*g), f * g},
			{"f/g", wgslULPs(v(3), float32(f/g)) <= 3, f / g},
			{"f%g", wgslNear(v(4), rem, wgslULP(g*tr)+wgslULP(rem)), rem},
		}
		for j, c := range checks {
			if !c.ok {
				fm.add("element %d, %s (f=%v g=%v): got %v, want %v", i, c.op, fa[i], fb[i], v(j), c.want)
			}
		}
	}
	fm.done()
}

func testWGSLShifts(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "shifts")
	const n = 256
	r := newRand(102)
	vals, amts := make([]uint32, n), make([]uint32, n)
	special := []uint32{0, 1, 31, 32, 33, 63, 64, 95, 255}
	for i := range n {
		vals[i] = r.Uint32()
		amts[i] = uint32(r.IntN(256))
		if i < len(special) {
			amts[i] = special[i]
		}
	}
	res := wgslOutput(t, d, 4*8*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(vals))), At(1, wgslInput(t, d, u32bytes(amts))), At(2, res))
	want := make([]uint32, 8*n)
	for i := range n {
		v, s := vals[i], amts[i]
		sv := int32(v)
		w := want[8*i:]
		w[0] = v << (s & 31)
		w[1] = v >> (s & 31)
		w[2] = uint32(sv << (s & 31))
		w[3] = uint32(sv >> (s & 31))
		w[4] = v >> (s & 31)
		w[5] = ^v >> ((s + 7) & 31)
		w[6] = uint32((-sv) << ((s + 7) & 31))
		w[7] = uint32((sv >> 3) >> ((s + 32) & 31))
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (v=%#x amount %d)", i/8, i%8, vals[i/8], amts[i/8])
	})
}

// wgslF32ToI32 converts as WGSL does: truncate, then saturate to the
// extreme values of the integer type that f32 holds.
func wgslF32ToI32(f float32) int32 {
	x := math.Trunc(float64(f))
	switch {
	case x >= 2147483520:
		return 2147483520
	case x <= -2147483648:
		return math.MinInt32
	}
	return int32(x)
}

func wgslF32ToU32(f float32) uint32 {
	x := math.Trunc(float64(f))
	switch {
	case x >= 4294967040:
		return 4294967040
	case x <= 0:
		return 0
	}
	return uint32(x)
}

func testWGSLFloatToInt(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "float_to_int")
	const n = 256
	r := newRand(103)
	inf := math.Inf(1)
	specials := []float32{float32(math.NaN()), float32(inf), float32(-inf), 1e20, -1e20, 2147483648, 2147483520,
		-2147483648, -2147483904, 4294967040, 4294967296, -0.5, 0.5, 3.9, -3.9, 0.99999994, -0.99999994,
		1e-40, -1e-40, 0, float32(math.Copysign(0, -1)), 16777217, 3e9, -3e9, 5e9, math.MaxFloat32, -math.MaxFloat32}
	floats := make([]float32, n)
	ints := make([]int32, n)
	uints := make([]uint32, n)
	for i := range n {
		if i < len(specials) {
			floats[i] = specials[i]
		} else {
			floats[i] = float32(math.Ldexp(r.Float64()*2-1, r.IntN(40)))
		}
		ints[i], uints[i] = int32(r.Uint32()), r.Uint32()>>uint(r.IntN(32))
	}
	copy(ints, []int32{math.MaxInt32, math.MinInt32, 16777217, -16777217, 0, -1})
	copy(uints, []uint32{math.MaxUint32, 16777217, 0, 0x80000001})
	res := wgslOutput(t, d, 4*6*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, f32bytes(floats))), At(1, wgslInput(t, d, wgslI32Bytes(ints))),
		At(2, wgslInput(t, d, u32bytes(uints))), At(3, res))
	got := u32s(readback(t, res))
	m := newWGSLMismatches(t, "conversions")
	for i, f := range floats {
		g := got[6*i:]
		if !math.IsNaN(float64(f)) { // NaN converts to an indeterminate value
			if w := wgslF32ToI32(f); int32(g[0]) != w {
				m.add("i32(%v) = %d, want %d", f, int32(g[0]), w)
			}
			if w := wgslF32ToU32(f); g[1] != w {
				m.add("u32(%v) = %d, want %d", f, g[1], w)
			}
			if w := wgslF32ToI32(-f); int32(g[2]) != w {
				m.add("vec2<i32>(...).y of %v = %d, want %d", -f, int32(g[2]), w)
			}
			if w := wgslF32ToU32(-f); g[3] != w {
				m.add("vec2<u32>(...).y of %v = %d, want %d", -f, g[3], w)
			}
		}
		// Integer to f32: either f32 neighbour when not exact.
		if v := math.Float32frombits(g[4]); !wgslCorrectlyRounded(v, float64(ints[i])) {
			m.add("f32(%di) = %v, want %v", ints[i], v, float32(ints[i]))
		}
		if v := math.Float32frombits(g[5]); !wgslCorrectlyRounded(v, float64(uints[i])) {
			m.add("f32(%du) = %v, want %v", uints[i], v, float32(uints[i]))
		}
	}
	m.done()
}

func testWGSLBoolSelect(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "bool_select")
	const n = 256
	r := newRand(104)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	in[0], in[1] = 0, 0xffffffff
	res := wgslOutput(t, d, 4*4*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 4*n)
	for i, v := range in {
		p, q, rr, s := v&1 != 0, v&2 != 0, v&4 != 0, v&8 != 0
		bv := []bool{p, q, rr, s}
		var mask uint32
		mask |= wgslB2U(!p)
		mask |= wgslB2U(p && q) << 1
		mask |= wgslB2U(p || q) << 2
		mask |= wgslB2U(p && rr) << 3
		mask |= wgslB2U(q || rr) << 4
		mask |= wgslB2U(p == q) << 5
		mask |= wgslB2U(p != rr) << 6
		mask |= wgslB2U(!(p && !q) || rr) << 7
		mask |= wgslB2U(p || q || rr || s) << 8
		mask |= wgslB2U(p && q && rr && s) << 9
		mask |= wgslB2U(!p && !q && !rr && !s) << 10
		mask |= wgslB2U((p && q) || (q && rr) || (rr && s) || (s && p)) << 11
		mask |= wgslB2U(q && s) << 12
		mask |= wgslB2U(s) << 13
		mask |= wgslB2U(rr) << 14
		mask |= (2 * wgslB2U(q)) << 15
		w := want[4*i:]
		w[0] = mask
		if p {
			w[1] = ^v
		} else {
			w[1] = v >> 8
		}
		var sum uint32
		for c, b := range bv {
			if b {
				sum += 10 * uint32(c+1)
			} else {
				sum += uint32(c + 1)
			}
		}
		if q {
			sum += v + v + 1
		} else {
			sum += 300
		}
		w[2] = sum
		evaluated := wgslB2U(p) + wgslB2U(!q)
		hits := wgslB2U(p && q) + wgslB2U(q || rr)
		w[3] = evaluated*16 + hits
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/4, i%4, in[i/4])
	})
}

func testWGSLVectorsSwizzles(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "vectors_swizzles")
	const n = 128
	r := newRand(105)
	a := make([]float32, 4*n)
	b := make([]int32, 4*n)
	for i := range a {
		a[i] = wgslGrid(r, 8, 64) // sums and products of two stay exact
		b[i] = int32(r.IntN(2001) - 1000)
	}
	fo, io := wgslOutput(t, d, 16*6*n), wgslOutput(t, d, 16*2*n)
	wgslDispatch(t, k, n/32, 1, 1, At(0, wgslInput(t, d, f32bytes(a))), At(1, wgslInput(t, d, wgslI32Bytes(b))), At(2, fo), At(3, io))
	fw := make([]float32, 4*6*n)
	iw := make([]int32, 4*2*n)
	for i := range n {
		v := a[4*i : 4*i+4]
		w := b[4*i : 4*i+4]
		o := fw[24*i:]
		copy(o[0:], []float32{v[3], v[2], v[1], v[0]})
		copy(o[4:], []float32{v[0]*2 + 1, v[0]*2 + 1, v[2]*2 + 1, v[1]*2 + 1})
		copy(o[8:], []float32{v[2] + v[3], v[0] + v[1], v[1], 3})
		m := slices.Clone(v)
		m[1] = v[0] * v[3]
		m[uint32(w[0])&3] = -1.5
		m[3] += 0.25
		copy(o[12:], m)
		copy(o[16:], []float32{v[1], v[2], v[3], float32(w[1])})
		copy(o[20:], []float32{(v[0] - v[1]) / 4, (v[1] - v[2]) / 4, (v[2] - v[0]) / 4, v[0] - v[3]})
		io := iw[8*i:]
		for c := range 4 {
			sel := int32(1)
			if v[c] < 0 {
				sel = -1
			}
			add := []int32{w[0], w[1], 7, -7}[c]
			io[c] = w[[]int{2, 3, 0, 1}[c]]*3 - sel + add
		}
		e := []int32{w[0], w[1], w[2]}
		e[uint32(w[3])%3] = int32(i)
		all := e[0] == w[0] && e[1] == w[1]
		anyNe := w[2] != w[3]
		copy(io[4:], []int32{e[0], e[1], e[2], int32(wgslB2U(all)) + 2*int32(wgslB2U(anyNe))})
	}
	gotF := f32s(readback(t, fo))
	m := newWGSLMismatches(t, "f32 results (exact: the inputs are multiples of 1/64)")
	for i, w := range fw {
		if gotF[i] != w {
			m.add("element %d vector %d [%d] = %v, want %v (a = %v, b = %v)", i/24, i%24/4, i%4, gotF[i], w, a[4*(i/24):4*(i/24)+4], b[4*(i/24):4*(i/24)+4])
		}
	}
	m.done()
	gotI := wgslI32s(readback(t, io))
	mi := newWGSLMismatches(t, "i32 results")
	for i, w := range iw {
		if gotI[i] != w {
			mi.add("element %d vector %d [%d] = %d, want %d (a = %v, b = %v)", i/8, i%8/4, i%4, gotI[i], w, a[4*(i/8):4*(i/8)+4], b[4*(i/8):4*(i/8)+4])
		}
	}
	mi.done()
}

// wgslMat is a column-major matrix: m[c][r], as WGSL indexes.
type wgslMat [][]float64

func newWGSLMat(cols, rows int) wgslMat {
	m := make(wgslMat, cols)
	for c := range m {
		m[c] = make([]float64, rows)
	}
	return m
}

func (m wgslMat) mulVec(v []float64) []float64 {
	out := make([]float64, len(m[0]))
	for c := range m {
		for r := range m[c] {
			out[r] += m[c][r] * v[c]
		}
	}
	return out
}

func (m wgslMat) vecMul(v []float64) []float64 {
	out := make([]float64, len(m))
	for c := range m {
		for r := range m[c] {
			out[c] += v[r] * m[c][r]
		}
	}
	return out
}

func (m wgslMat) mul(n wgslMat) wgslMat {
	out := newWGSLMat(len(n), len(m[0]))
	for c := range n {
		for r := range m[0] {
			for k := range m {
				out[c][r] += m[k][r] * n[c][k]
			}
		}
	}
	return out
}

func (m wgslMat) transpose() wgslMat {
	out := newWGSLMat(len(m[0]), len(m))
	for c := range m {
		for r := range m[c] {
			out[r][c] = m[c][r]
		}
	}
	return out
}

func (m wgslMat) det() float64 {
	n := len(m)
	if n == 1 {
		return m[0][0]
	}
	var s float64
	for c := range n {
		minor := newWGSLMat(n-1, n-1)
		for cc, mc := 0, 0; cc < n; cc++ {
			if cc == c {
				continue
			}
			for r := 1; r < n; r++ {
				minor[mc][r-1] = m[cc][r]
			}
			mc++
		}
		term := m[c][0] * minor.det()
		if c%2 == 1 {
			term = -term
		}
		s += term
	}
	return s
}

// wgslReadMat reads a matrix of cols columns of rows floats, columns stride
// bytes apart, at byte off.
func wgslReadMat(l wgslLayout, off, cols, rows, stride int) wgslMat {
	m := newWGSLMat(cols, rows)
	for c := range cols {
		for r := range rows {
			m[c][r] = float64(l.f32(off + c*stride + 4*r))
		}
	}
	return m
}

func wgslWriteMat(l wgslLayout, off int, m wgslMat, stride int) {
	for c := range m {
		for r := range m[c] {
			l.putF32(off+c*stride+4*r, float32(m[c][r]))
		}
	}
}

func testWGSLMatrices(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "matrices")
	const n = 64
	const inStride, outStride = 144, 208
	r := newRand(106)
	in := make(wgslLayout, inStride*n)
	type mats struct {
		m2, m3, m4 wgslMat
		v          []float64
	}
	ms := make([]mats, n)
	rnd := func(cols, rows int) wgslMat {
		m := newWGSLMat(cols, rows)
		for c := range m {
			for rr := range m[c] {
				m[c][rr] = float64(wgslGrid(r, 2, 8)) // multiples of 1/8 in [-2, 2]: products and sums exact
			}
		}
		return m
	}
	for i := range ms {
		x := &ms[i]
		x.m2, x.m3, x.m4 = rnd(2, 2), rnd(3, 3), rnd(4, 4)
		x.v = rnd(1, 4)[0]
		base := in[inStride*i:]
		wgslWriteMat(base, 0, x.m2, 8)
		wgslWriteMat(base, 16, x.m3, 16)
		wgslWriteMat(base, 64, x.m4, 16)
		for c, f := range x.v {
			base.putF32(128+4*c, float32(f))
		}
	}
	out := wgslOutput(t, d, outStride*n)
	wgslDispatch(t, k, n/16, 1, 1, At(0, wgslInput(t, d, in)), At(1, out))
	got := wgslLayout(readback(t, out))
	m := newWGSLMismatches(t, "results")
	cmp := func(i int, what string, off int, want []float64, tol float64) {
		for j, w := range want {
			g := got.f32(outStride*i + off + 4*j)
			if !wgslNear(g, w, tol) {
				m.add("element %d %s[%d] = %v, want %v", i, what, j, g, w)
			}
		}
	}
	cmpMat := func(i int, what string, off int, want wgslMat, stride int) {
		for c := range want {
			cmp(i, fmt.Sprintf("%s[%d]", what, c), off+c*stride, want[c], 0)
		}
	}
	for i, x := range ms {
		// The inputs are multiples of 1/8 of at most 2: every product,
		// sum and cofactor below is exact in f32, so the results are too,
		// whatever the order of operations. The determinants, of
		// "infinite ULP" in WGSL, get a small tolerance all the same.
		cmp(i, "m4*v", 0, x.m4.mulVec(x.v), 0)
		cmp(i, "v*m4", 16, x.m4.vecMul(x.v), 0)
		cmpMat(i, "transpose(m4)", 32, x.m4.transpose(), 16)
		cmpMat(i, "m3*transpose(m3)", 96, x.m3.mul(x.m3.transpose()), 16)
		m2m2 := x.m2.mul(wgslMat{{1, 2}, {3, 4}})
		for c := range m2m2 {
			for rr := range m2m2[c] {
				m2m2[c][rr] += x.m2[c][rr] * 0.5
			}
		}
		cmpMat(i, "m2*M+m2*0.5", 144, m2m2, 8)
		cmp(i, "m2*v.xy", 160, x.m2.mulVec(x.v[:2]), 0)
		cmp(i, "determinant(m2)", 168, []float64{x.m2.det()}, 1e-6)
		cmp(i, "determinant(m3)", 172, []float64{x.m3.det()}, 1e-5)
		cmp(i, "determinant(m4)", 176, []float64{x.m4.det()}, 1e-4)
		cmp(i, "m3[2][1]+m4[3].y", 180, []float64{x.m3[2][1] + x.m4[3][1]}, 0)
		cmp(i, "m3[1]-m4[0].xyz", 192, []float64{x.m3[1][0] - x.m4[0][0], x.m3[1][1] - x.m4[0][1], x.m3[1][2] - x.m4[0][2]}, 0)
		cmp(i, "m2[1].x+m2[0][1]", 204, []float64{x.m2[1][0] + x.m2[0][1]}, 0)
	}
	m.done()
}

func testWGSLArrays(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "arrays")
	const n = 256
	r := newRand(107)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*8*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 8*n)
	primes := []uint32{2, 3, 5, 7, 11, 13}
	total := func(x []uint32) uint32 {
		var s uint32
		for _, v := range x {
			s = s*31 + v
		}
		return s
	}
	for i, v := range in {
		w := want[8*i:]
		var a [16]uint32
		for k := range a {
			a[k] = v * uint32(k+1)
		}
		j := v % 16
		w[0] = a[j] + a[(j+5)&15]
		w[1] = a[j] - 7
		table := []uint32{3, 1, 4, 1, 5, 9, 2, 6}
		table[v&7] += v
		w[2] = table[(v>>3)&7] + table[v&7]
		w[3] = primes[(v>>4)%6]
		var grid [4][4]uint32
		for y := range 4 {
			for x := range 4 {
				grid[y][x] = (v >> uint(y*8+x)) & 0xff
			}
		}
		row := grid[(v>>2)&3]
		w[4] = total(row[:])
		w[5] = total([]uint32{row[3], row[2], row[1], row[0]})
		w[6] = grid[v&3][(v>>6)&3]
		w[7] = v + v%3
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/8, i%8, in[i/8])
	})
}

func testWGSLRuntimeArray(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "runtime_array")
	const nData, nOut, nItems = 300, 250, 200
	const outOff = 256 // the output array is bound from here
	r := newRand(108)
	count := uint32(r.IntN(1000))
	scale := wgslGrid(r, 4, 16)
	hdr := make(wgslLayout, 8+4*nData)
	hdr.putU32(0, count)
	hdr.putF32(4, scale)
	data := make([]float32, nData)
	for i := range data {
		data[i] = wgslGrid(r, 100, 16)
		hdr.putF32(8+4*i, data[i])
	}
	items := make(wgslLayout, 32*nItems)
	for i := range nItems {
		items.putU32(32*i, r.Uint32())
		for c := range 3 {
			items.putF32(32*i+16+4*c, wgslGrid(r, 100, 4))
		}
	}
	itemsIn := slices.Clone(items)
	outBuf := wgslOutput(t, d, outOff+4*nOut+64)
	itemBuf := wgslInput(t, d, items)
	lens := wgslOutput(t, d, 16)
	wgslDispatch(t, k, (nData+63)/64, 1, 1, At(0, wgslInput(t, d, hdr)), At(1, outBuf).Bytes(outOff, 4*nOut), At(2, itemBuf), At(3, lens))
	wgslExpectU32(t, "arrayLength and count", u32s(readback(t, lens)), []uint32{nData, nOut, nItems, count},
		func(i int) string {
			return []string{"arrayLength(&inp.data)", "arrayLength(&outp)", "arrayLength(&items)", "inp.count"}[i]
		})
	got := readback(t, outBuf)
	if !slices.Equal(got[:outOff], poison(outOff)) || !slices.Equal(got[outOff+4*nOut:], poison(64)) {
		t.Errorf("bytes outside the bound range of outp were written")
	}
	m := newWGSLMismatches(t, "outp (data * scale + f32(count): exact, multiples of 1/256 below 2^14)")
	for i, v := range f32s(got[outOff : outOff+4*nOut]) {
		if w := float64(data[i])*float64(scale) + float64(count); float64(v) != w {
			m.add("outp[%d] = %v, want %v", i, v, w)
		}
	}
	m.done()
	gi := wgslLayout(readback(t, itemBuf))
	mi := newWGSLMismatches(t, "items")
	for i := range nItems {
		if g, w := gi.u32(32*i), itemsIn.u32(32*i)*2+uint32(i); g != w {
			mi.add("items[%d].id = %d, want %d", i, g, w)
		}
		for c, src := range []int{2, 0, 1} {
			if g, w := gi.f32(32*i+16+4*c), itemsIn.f32(32*i+16+4*src)+float32(i); g != w {
				mi.add("items[%d].pos[%d] = %v, want %v", i, c, g, w)
			}
		}
	}
	mi.done()
}

func testWGSLStructLayout(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "struct_layout")
	const n, stride = 24, 192
	r := newRand(109)
	src := make(wgslLayout, stride*n)
	for i := range src {
		src[i] = 0xEE // padding the shader must not read as data
	}
	f := func() float32 { return wgslGrid(r, 16, 8) }
	for i := range n {
		s := src[stride*i:]
		s.putF32(0, f())
		s.putF32(16, f())
		s.putF32(20, f())
		s.putU32(24, r.Uint32())
		s.putI32(28, int32(r.Uint32()))
		for c := range 3 {
			s.putF32(48+4*c, f())
		}
		s.putF32(60, f())
		for c := range 3 {
			s.putU32(80+4*c, r.Uint32())
		}
		s.putU32(92, r.Uint32())
		for j := range 6 {
			s.putF32(96+4*j, f())
		}
		for c := range 2 {
			for rr := range 3 {
				s.putF32(128+16*c+4*rr, f())
			}
		}
		s.putF32(160, f())
	}
	dst := wgslOutput(t, d, stride*n)
	wgslDispatch(t, k, n/8, 1, 1, At(0, wgslInput(t, d, src)), At(1, dst))
	got := wgslLayout(readback(t, dst))
	m := newWGSLMismatches(t, "dst (at WGSL's offsets)")
	for i := range n {
		s, g := src[stride*i:], got[stride*i:]
		fl := func(name string, off int, want float32) {
			if v := g.f32(off); v != want {
				m.add("[%d].%s (offset %d) = %v, want %v", i, name, off, v, want)
			}
		}
		u := func(name string, off int, want uint32) {
			if v := g.u32(off); v != want {
				m.add("[%d].%s (offset %d) = %#x, want %#x", i, name, off, v, want)
			}
		}
		fl("x", 0, s.f32(0)+1)
		fl("y.x", 16, s.f32(20))
		fl("y.y", 20, s.f32(16))
		u("z", 24, s.u32(24)^0xff)
		u("w", 28, uint32(-s.i32(28)))
		for c := range 3 {
			fl(fmt.Sprintf("inner.a[%d]", c), 48+4*c, s.f32(48+4*c)*s.f32(60))
		}
		fl("inner.b", 60, s.f32(60)+s.f32(160))
		u("v3.x", 80, s.u32(88))
		u("v3.y", 84, s.u32(80))
		u("v3.z", 88, s.u32(84))
		u("tail", 92, s.u32(92)+s.u32(80))
		for j := range 3 {
			for c := range 2 {
				fl(fmt.Sprintf("arr[%d][%d]", j, c), 96+8*j+4*c, s.f32(96+8*(2-j)+4*c)*2)
			}
		}
		for c := range 2 {
			for rr := range 3 {
				fl(fmt.Sprintf("m[%d][%d]", c, rr), 128+16*c+4*rr, s.f32(128+16*c+4*rr)*2)
			}
		}
		fl("last", 160, s.f32(0)*s.f32(160))
	}
	m.done()
}

func testWGSLUniformStruct(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "uniform_struct")
	const n = 128
	r := newRand(110)
	f := func() float32 { return wgslGrid(r, 8, 8) }
	p := make(wgslLayout, 208)
	var echo []float32 // the members in the order the shader echoes them
	origin := []float32{f(), f(), f()}
	scale := f()
	for c, v := range origin {
		p.putF32(4*c, v)
	}
	p.putF32(12, scale)
	echo = append(echo, origin...)
	echo = append(echo, scale)
	xform := newWGSLMat(4, 4)
	for c := range 4 {
		for rr := range 4 {
			xform[c][rr] = float64(f())
			echo = append(echo, float32(xform[c][rr]))
		}
	}
	wgslWriteMat(p, 16, xform, 16)
	m3 := newWGSLMat(3, 3)
	for c := range 3 {
		for rr := range 3 {
			m3[c][rr] = float64(f())
			echo = append(echo, float32(m3[c][rr]))
		}
	}
	wgslWriteMat(p, 80, m3, 16)
	colors := make([][]float64, 4)
	for c := range 4 {
		colors[c] = make([]float64, 4)
		for rr := range 4 {
			v := f()
			colors[c][rr] = float64(v)
			p.putF32(128+16*c+4*rr, v)
			echo = append(echo, v)
		}
	}
	count := uint32(r.IntN(100))
	p.putU32(192, count)
	p.putU32(196, 0xdeadbeef) // padding
	dir := []float32{f(), f()}
	p.putF32(200, dir[0])
	p.putF32(204, dir[1])
	echo = append(echo, float32(count), dir[0], dir[1])
	points := make([]float32, 4*n)
	for i := range points {
		points[i] = f()
	}
	out, echoBuf := wgslOutput(t, d, 32*n), wgslOutput(t, d, 4*48)
	wgslDispatch(t, k, n/32, 1, 1, At(0, newBuffer(t, d, HeapUpload, p)), At(1, wgslInput(t, d, f32bytes(points))), At(2, out), At(3, echoBuf))
	ge := f32s(readback(t, echoBuf))
	names := []string{"origin.x", "origin.y", "origin.z", "scale"}
	for c := range 4 {
		for rr := range 4 {
			names = append(names, fmt.Sprintf("xform[%d][%d]", c, rr))
		}
	}
	for c := range 3 {
		for rr := range 3 {
			names = append(names, fmt.Sprintf("m3[%d][%d]", c, rr))
		}
	}
	for c := range 4 {
		for rr := range 4 {
			names = append(names, fmt.Sprintf("colors[%d][%d]", c, rr))
		}
	}
	names = append(names, "count", "dir.x", "dir.y")
	me := newWGSLMismatches(t, "members read from the uniform buffer")
	for i, w := range echo {
		if ge[i] != w {
			me.add("%s = %v, want %v", names[i], ge[i], w)
		}
	}
	me.done()
	got := f32s(readback(t, out))
	m := newWGSLMismatches(t, "results (exact: multiples of 1/512 below 2^12)")
	for i := range n {
		pt := make([]float64, 3)
		for c := range 3 {
			pt[c] = float64(points[4*i+c])*float64(scale) + float64(origin[c])
		}
		tr := xform.mulVec(append(slices.Clone(pt), 1))
		mp := m3.mulVec(pt)
		want := make([]float64, 8)
		for c := range 4 {
			want[c] = tr[c] + colors[i%4][c]*float64(count)
		}
		copy(want[4:], mp)
		want[7] = float64(dir[0])*pt[0] + float64(dir[1])*pt[1]
		for j, w := range want {
			if float64(got[8*i+j]) != w {
				m.add("outp[%d][%d] = %v, want %v", 2*i+j/4, j%4, got[8*i+j], w)
			}
		}
	}
	m.done()
}

func testWGSLPointers(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "pointers")
	const n = 256
	r := newRand(111)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*6*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 6*n)
	for i, v := range in {
		x := 2 * (v + 17)
		var arr [8]uint32
		for k := range arr {
			arr[k] = v*uint32(k) + 1
		}
		arr[v&7] *= 3
		pa := [2]uint32{2 + 1, (v >> 1) + 1000}
		pb := [2]uint32{v, 1}
		sum := 4*v + 6
		last := [2]uint32{v + 2, v + 3}
		w := want[6*i:]
		w[0] = x
		w[1] = arr[v&7] + arr[(v+1)&7]
		w[2] = pa[0]*65536 + pa[1]
		w[3] = pb[0] ^ pb[1]
		w[4] = sum + last[0]*3 + last[1]*5
		w[5] = arr[v&7] ^ 0x5a5a5a5a
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/6, i%6, in[i/6])
	})
}

func testWGSLPrivateVars(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "private_vars")
	const n = 256
	r := newRand(112)
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(r.IntN(20001) - 10000)
	}
	res := wgslOutput(t, d, 4*6*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, wgslI32Bytes(in))), At(1, res))
	want := make([]int32, 6*n)
	for i, v := range in {
		var counter uint32
		weights := []int32{2, -3, 5, 7}
		var calls uint32
		var total [2]int32
		bias := [2]int32{100, -100}
		for k := range int32(i % 5) {
			x := v + k
			counter++
			calls = counter * 10
			total[0] += x*weights[counter%4] + bias[0]
			total[1] += x + bias[1]
			weights[counter%4] = x
		}
		bias = [2]int32{-bias[0], -bias[1]}
		w := want[6*i:]
		w[0] = int32(counter)
		w[1] = int32(calls)
		w[2] = total[0] - total[1]
		w[3] = weights[0] + weights[1]*2 + weights[2]*3 + weights[3]*4
		w[4] = bias[0]
		w[5] = int32(wgslB2U(total[1] == 0))
	}
	got := wgslI32s(readback(t, res))
	m := newWGSLMismatches(t, "results")
	for i, w := range want {
		if got[i] != w {
			m.add("element %d result %d = %d, want %d (input %d)", i/6, i%6, got[i], w, in[i/6])
		}
	}
	m.done()
}

func testWGSLWorkgroupBarrier(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "workgroup_barrier")
	const groups, n = 6, 6 * 64
	r := newRand(113)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*3*n)
	wgslDispatch(t, k, groups, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 3*n)
	for g := range groups {
		tile := in[64*g : 64*g+64]
		next := make([]uint32, 64)
		for li := range 64 {
			next[li] = tile[63-li] + tile[(li+1)%64]
		}
		for li := range 64 {
			w := want[3*(64*g+li):]
			w[0] = tile[63-li]
			w[1] = next[(li+7)&63] * uint32(g+1)
			w[2] = 0 // a workgroup variable never written: zero
		}
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("invocation %d result %d", i/3, i%3)
	})
}

func testWGSLConstExprs(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "const_exprs")
	const n = 256
	r := newRand(114)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*8*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	got := u32s(readback(t, res))
	lut := []uint32{3, 1, 4, 1}
	third := float32(1.0 / 3.0)
	one, tiny, big := 1.0, 1e-10, 1e10
	diff := ((one + tiny) - one) * big // AbstractFloat: f64 (not Go's exact constants, nor f32)
	want := make([]uint32, 8*n)
	for i, v := range in {
		w := want[8*i:]
		w[0] = v + (v%8)*28 + lut[v&3]
		w[1] = 0xffffffff ^ v
		w[2] = uint32(-21 * int32(v&0xff))
		w[3] = (v & 15) + 20
		w[4] = 0 // checked below: correctly rounded
		w[5] = 0 // checked below
		a := float64(v & 7)
		w[6] = uint32(a+3)*100 + uint32(2*a+4)
		w[7] = []uint32{2, 4, 6}[v%3] + 16 + 1000
	}
	m := newWGSLMismatches(t, "results")
	for i, v := range in {
		for j := range 8 {
			g := got[8*i+j]
			switch j {
			case 4:
				if x := float64(float32(v&0xffff)) * float64(third); !wgslCorrectlyRounded(math.Float32frombits(g), x) {
					m.add("element %d: f32(v & 0xffff) * THIRD = %v, want %v", i, math.Float32frombits(g), x)
				}
			case 5:
				if !wgslCorrectlyRounded(math.Float32frombits(g), diff) {
					m.add("element %d: f32(((1.0 + 1e-10) - 1.0) * 1e10) = %v, want %v (computed as AbstractFloat)", i, math.Float32frombits(g), diff)
				}
			default:
				if w := want[8*i+j]; g != w {
					m.add("element %d result %d = %d (%#x), want %d (%#x); input %#x", i, j, g, g, w, w, v)
				}
			}
		}
	}
	m.done()
}

func testWGSLOverrides(t *testing.T, d *Device) {
	const n = 256
	r := newRand(115)
	in := make([]float32, n)
	for i := range in {
		in[i] = wgslGrid(r, 4, 8)
	}
	inBuf := wgslInput(t, d, f32bytes(in))
	runs := []struct {
		name      string
		constants map[string]float64
		wg        uint32
		scale     float32
		offset    int32
		seven     uint32
		enabled   bool
	}{
		{"set", map[string]float64{"offset": -5, "scale": 2.5, "enabled": 1, "wg": 32, "7": 9}, 32, 2.5, -5, 9, true},
		{"defaults", map[string]float64{"offset": 100}, 64, 1.5, 100, 3, false},
	}
	for _, run := range runs {
		k := wgslKernelWith(t, d, "overrides", "", run.constants)
		if ls := k.LocalSize(); ls != [3]uint32{run.wg, 1, 1} {
			t.Errorf("%s: LocalSize() = %v, want [%d 1 1]", run.name, ls, run.wg)
		}
		groups := n / run.wg
		res := wgslOutput(t, d, 4*4*n)
		wgslDispatch(t, k, groups, 1, 1, At(0, inBuf), At(1, res))
		want := make([]uint32, 4*n)
		for i := range n {
			g, li := uint32(i)/run.wg, uint32(i)%run.wg
			other := in[g*run.wg+run.wg-1-li]
			w := want[4*i:]
			w[0] = math.Float32bits(other*run.scale + 2*run.scale) // exact: multiples of 1/16
			w[1] = uint32(int32(i) + run.offset)
			w[2] = run.seven
			if run.enabled {
				w[2] *= 1000
			}
			w[3] = run.wg*65536 + groups
		}
		wgslExpectU32(t, run.name, u32s(readback(t, res)), want, func(i int) string {
			return fmt.Sprintf("invocation %d result %d", i/4, i%4)
		})
	}
	if wgslReference() == "" {
		// offset has no default: a kernel that leaves it unset is refused.
		m, _ := wgslModule(t, "overrides", "", nil)
		if k, err := d.KernelWith(m, KernelOptions{}); err == nil {
			k.Close()
			t.Error("KernelWith without a value for override offset, which has no default: no error")
		} else if !strings.Contains(err.Error(), "offset") {
			t.Errorf("KernelWith without offset: %v (want the override named)", err)
		}
	}
}

func testWGSLAlias(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "alias")
	const n = 96
	r := newRand(116)
	items := make(wgslLayout, 32*n)
	for i := range n {
		for c := range 4 {
			items.putF32(32*i+4*c, wgslGrid(r, 100, 8))
		}
		items.putU32(32*i+16, uint32(r.IntN(1000)))
		items.putU32(32*i+20, 0xEEEEEEEE) // padding
	}
	out := wgslOutput(t, d, 16*n)
	wgslDispatch(t, k, n/32, 1, 1, At(0, wgslInput(t, d, items)), At(1, out))
	got := f32s(readback(t, out))
	m := newWGSLMismatches(t, "outp")
	for i := range n {
		nn := items.u32(32*i + 16)
		for c := range 4 {
			w := (items.f32(32*i+4*c) + float32(nn)) * 0.5
			if c == 3 {
				w += float32(nn + 1)
			}
			if got[4*i+c] != w {
				m.add("[%d][%d] = %v, want %v", i, c, got[4*i+c], w)
			}
		}
	}
	m.done()
}

func testWGSLIfElse(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "if_else")
	const n = 256
	r := newRand(117)
	in := []int32{-1001, -1000, -999, -2, -1, 0, 1, 2, 3, 10, 999, 1000, 1001, 100000, 100001, 1000000, 1000001,
		math.MinInt32, math.MaxInt32, 7*100 + 3, 6}
	for len(in) < n {
		switch r.IntN(3) {
		case 0:
			in = append(in, int32(r.Uint32()))
		case 1:
			in = append(in, int32(r.IntN(4001)-2000))
		default:
			in = append(in, int32(r.IntN(3000000)))
		}
	}
	res := wgslOutput(t, d, 4*3*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, wgslI32Bytes(in))), At(1, res))
	classify := func(x int32) int32 {
		switch {
		case x < -1000:
			return 1
		case x < 0:
			if x&1 == 0 {
				return 2
			}
			return 3
		case x == 0:
			return 4
		case x < 1000 && x%7 == 3:
			return 5
		case x < 1000:
			return 6
		case x > 1000000:
			return 7
		case x > 100000:
			return 8
		}
		return 9
	}
	want := make([]int32, 3*n)
	for i, x := range in {
		w := want[3*i:]
		w[0] = classify(x)
		y := int32(-1)
		if x > 0 {
			y = 1
		}
		switch x & 3 {
		case 1:
			y *= 10
		case 2:
			y *= 100
		}
		w[1] = y
		w[2] = -5
		if x%3 != 0 {
			w[2] = classify(x/2) + 10
		}
	}
	got := wgslI32s(readback(t, res))
	m := newWGSLMismatches(t, "results")
	for i, w := range want {
		if got[i] != w {
			m.add("element %d result %d = %d, want %d (input %d)", i/3, i%3, got[i], w, in[i/3])
		}
	}
	m.done()
}

func testWGSLSwitch(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "switch")
	const n = 256
	r := newRand(118)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
		if i < 97 {
			in[i] = in[i]/(97*12)*(97*12) + uint32(i) // every case of v % 97 (and of v % 12)
		}
	}
	res := wgslOutput(t, d, 4*4*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	pick := func(x uint32) uint32 {
		switch x {
		case 0, 1:
			return 10
		case 3:
			return 30
		case 4, 5, 6:
			if x == 5 {
				return 15
			}
			return x*3 + 1
		case 41, 80:
			return 77
		}
		return 20 // 2, 9 and default
	}
	signedPick := func(x int32) int32 {
		switch x {
		case -1:
			return 100
		case -2, -3:
			return 200
		case math.MaxInt32:
			return 300
		}
		return x
	}
	want := make([]uint32, 4*n)
	for i, v := range in {
		w := want[4*i:]
		w[0] = pick(v%12) + pick(v%97)*1000
		w[1] = uint32(signedPick(int32(v) % 5))
		var count uint32
		for k := uint32(1); k <= 16; k++ {
			switch (v >> k) & 3 {
			case 0:
				continue
			case 1:
			case 2:
				count += 100
			default:
				count++
				continue
			}
			count += 10000
		}
		w[2] = count
		var acc uint32
		for j := uint32(0); j < 8; j++ {
			switch (j + v) % 4 {
			case 0, 2:
				acc += j
			default:
				if j != 6 {
					acc += 100
				}
			}
		}
		w[3] = acc
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/4, i%4, in[i/4])
	})
}

func testWGSLLoopContinuing(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "loop_continuing")
	const n = 256
	r := newRand(119)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*4*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 4*n)
	for i, v := range in {
		n := (v & 31) + 1
		var k, sum, skipped uint32
		for {
			step := (k & 1) + 1
			if k%3 == 0 {
				skipped++
			} else {
				sum += k * v
			}
			k += step
			if k >= n {
				break
			}
		}
		var outer, total uint32
		for {
			var inner uint32
			for {
				if inner == outer {
					break
				}
				total += inner ^ v
				inner++
				if inner > 6 {
					break
				}
			}
			outer++
			if outer > (v>>28)+2 {
				break
			}
		}
		w := want[4*i:]
		w[0], w[1], w[2], w[3] = sum, skipped*1000+k, total, outer
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/4, i%4, in[i/4])
	})
}

func testWGSLForWhile(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "for_while")
	const n = 256
	r := newRand(120)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
		if i%4 == 0 {
			in[i] >>= 20
		}
	}
	in[0] = 0
	res := wgslOutput(t, d, 4*5*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 5*n)
	for i, v := range in {
		nn := v % 40
		var a uint32
		for k := uint32(0); k < nn; k++ {
			if k&3 == 1 {
				continue
			}
			if k*k > v%1000 {
				break
			}
			a += k + 1
		}
		var b uint32
		for k := uint32(1); k < 1000; k += k {
			b = b*3 + (v/k)%7
		}
		var c, k uint32
		for {
			k++
			if k > nn {
				break
			}
			c ^= v >> (k % 32)
		}
		var dd uint32
		x := v
		for x != 0 {
			if x&1 == 0 {
				x >>= 1
				continue
			}
			dd++
			x >>= 1
			if dd >= 12 {
				break
			}
		}
		var e uint32
		for p := uint32(0); p < 6; p++ {
			q := uint32(0)
			for q < 6 {
				q++
				if q == p {
					continue
				}
				if q > (v>>p)&7 {
					break
				}
				e += p*10 + q
			}
		}
		w := want[5*i:]
		w[0], w[1], w[2], w[3], w[4] = a, b, c, dd, e
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/5, i%5, in[i/5])
	})
}

func testWGSLIncDecCompound(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "incdec_compound")
	const n = 128
	r := newRand(121)
	in := make([]int32, 4*n)
	for i := range in {
		in[i] = int32(r.Uint32())
		if r.IntN(3) == 0 {
			in[i] = int32(r.IntN(41) - 20)
		}
		if r.IntN(8) == 0 {
			in[i] = 0
		}
	}
	in[3], in[6] = 0, 0 // a /= 0 and b %= 0
	res := wgslOutput(t, d, 16*4*n)
	wgslDispatch(t, k, n/32, 1, 1, At(0, wgslInput(t, d, wgslI32Bytes(in))), At(1, res))
	want := make([]int32, 16*n)
	for i := range n {
		w := in[4*i : 4*i+4]
		a := w[0]
		a++
		a += w[1]
		a -= 3
		a *= w[2] | 1
		a = wgslDivI32(a, w[3])
		b := wgslRemI32(w[1], w[2])
		b--
		u := uint32(w[0])
		u &= 0xff00ff0f
		u |= 0x10
		u ^= uint32(w[1])
		u <<= (uint32(w[2]) & 63) & 31
		u >>= 3
		v := slices.Clone(w)
		v[0] += 5
		v[1]++
		v[uint32(w[3])&3] -= 11
		for c := range v {
			v[c] *= 2
		}
		v[2]--
		m10 := 3 + float32(w[0]&15)
		m01 := float32(4)
		arr := slices.Clone(w)
		j := uint32(w[0])
		arr[j&3] *= 3
		arr[(j+1)&3]++
		arr[(j+2)&3] -= 7
		arr[1] += 1000 // calls becomes 1: next_index() ran once
		cv := []int32{0, -2, 0}
		cv[uint32(w[1])%3] += 9
		o := want[16*i:]
		copy(o, []int32{a, b, int32(u), 1})
		copy(o[4:], v)
		copy(o[8:], arr)
		copy(o[12:], []int32{int32(m10*10 + m01), 3, cv[0]*100 + cv[1], cv[2]})
	}
	got := wgslI32s(readback(t, res))
	m := newWGSLMismatches(t, "results")
	for i, w := range want {
		if got[i] != w {
			m.add("element %d vector %d [%d] = %d, want %d (input %v)", i/16, i%16/4, i%4, got[i], w, in[4*(i/16):4*(i/16)+4])
		}
	}
	m.done()
}

func testWGSLPhony(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "phony")
	// _ = &kept and _ = &kept_uniform make both resources part of the
	// pipeline's interface: they must be listed (and bound).
	var haveKept, haveUniform bool
	for _, res := range k.Resources() {
		switch {
		case res.Binding == 2 && res.Kind == shader.StorageBuffer:
			haveKept = true
		case res.Binding == 3 && res.Kind == shader.UniformBuffer:
			haveUniform = true
		}
	}
	if !haveKept || !haveUniform {
		t.Errorf("resources %+v: want the storage buffer kept at binding 2 and the uniform buffer at binding 3", k.Resources())
	}
	const n = 256
	r := newRand(122)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*n)
	wgslDispatch(t, k, n/64, 1, 1, Named("inputs", wgslInput(t, d, u32bytes(in))), Named("results", res),
		Named("kept", wgslInput(t, d, randomBytes(r, 64))), Named("kept_uniform", newBuffer(t, d, HeapUpload, randomBytes(r, 16))))
	want := make([]uint32, n)
	for i, v := range in {
		want[i] = ((v%7)*10+(v>>8)%5)*10 + 4
	}
	wgslExpectU32(t, "results (the effects of the calls, in order)", u32s(readback(t, res)), want, nil)
}

func testWGSLFunctions(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "functions")
	const n = 256
	r := newRand(123)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*8*n)
	// Bound by their WGSL names, which are GLSL keywords.
	wgslDispatch(t, k, n/64, 1, 1, Named("input", wgslInput(t, d, u32bytes(in))), Named("output", res))
	sq := func(x uint32) uint32 { return x * x }
	poly := func(x uint32) uint32 { return sq(x)*x + sq(x+1) + 1 }
	type stats struct{ lo, hi, m0, m1 uint32 }
	st := func(a, b uint32) stats {
		if a < b {
			return stats{a, b, a + b, b - a}
		}
		return stats{b, a, a + b, a - b}
	}
	sample := func(buffer, uniform uint32) uint32 {
		texture := buffer ^ uniform
		texture += texture * 3
		return texture + buffer
	}
	collatz := func(x uint32) uint32 {
		for n := uint32(0); n < 64; n++ {
			if x <= 1 {
				return n
			}
			if x&1 == 0 {
				x /= 2
			} else {
				x = 3*x + 1
			}
		}
		return 999
	}
	want := make([]uint32, 8*n)
	for i, v := range in {
		s := st(v&0xffff, v>>16)
		w := want[8*i:]
		w[0] = poly(v & 0x3ff)
		w[1] = s.lo*3 + s.hi
		w[2] = s.m1*1000 + st(s.hi, s.lo).m1
		w[3] = sample(v, v>>3)
		w[4] = (2*v + 1) + (v - v>>1)
		w[5] = collatz((v&0xfff)+1) + 5
		w[6] = poly(poly(v&15) & 0xff)
		w[7] = (v + 1) * 2
	}
	wgslExpectU32(t, "output", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d result %d (input %#x)", i/8, i%8, in[i/8])
	})
}

func testWGSLNumericBuiltins(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "numeric_builtins")
	const n = 256
	const nf, ni = 56, 12
	r := newRand(124)
	type in struct {
		x, y, z, p, a float32
		k, m          int32
		n             uint32
	}
	ins := make([]in, n)
	buf := make(wgslLayout, 32*n)
	for i := range ins {
		v := in{
			x: float32(r.Float64()*20 - 10),
			y: float32(r.Float64()*6 - 3),
			z: float32(r.Float64()),
			p: float32(0.01 + r.Float64()*99.99),
			a: float32((r.Float64()*2 - 1) * math.Pi),
			k: int32(r.IntN(21) - 10),
			m: int32(r.Uint32()),
			n: r.Uint32(),
		}
		switch i % 8 {
		case 0:
			v.x = float32(r.IntN(21)-10) + 0.5 // halves: round() to even
		case 1:
			v.x = float32(r.IntN(21) - 10) // integers
		case 2:
			v.m = math.MinInt32
		case 3:
			v.y = v.x // step(y, x) at its edge
		}
		ins[i] = v
		b := buf[32*i:]
		for j, f := range []float32{v.x, v.y, v.z, v.p, v.a} {
			b.putF32(4*j, f)
		}
		b.putI32(20, v.k)
		b.putI32(24, v.m)
		b.putU32(28, v.n)
	}
	fres, ires := wgslOutput(t, d, 4*nf*n), wgslOutput(t, d, 4*ni*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, buf)), At(1, fres), At(2, ires))

	// The reference, in float64 from the f32 inputs, and the tolerance
	// WGSL's accuracy table gives each (its "inherited" ones worked out
	// from the formula each is inherited from).
	const eps = 0x1p-23
	cr := func(x float64) float64 { return wgslULP(x) } // correctly rounded: 1 ULP
	expTol := func(x, e float64) float64 { return (3 + 2*math.Abs(x)) * wgslULP(e) }
	logTol := func(x, l float64) float64 {
		if x >= 0.5 && x <= 2 {
			return 0x1p-21
		}
		return 3 * wgslULP(l)
	}
	gotF := f32s(readback(t, fres))
	m := newWGSLMismatches(t, "f32 builtins")
	names := []string{"abs", "clamp", "min", "max", "mix", "fma", "fract", "floor", "ceil", "round", "trunc", "sign",
		"step", "smoothstep", "sqrt", "inverseSqrt", "pow", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "atan",
		"atan2", "asin", "acos", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "degrees", "radians", "ldexp",
		"length", "distance", "dot", "cross.x", "cross.y", "cross.z", "normalize.x", "normalize.y", "normalize.z",
		"reflect.x", "reflect.y", "reflect.z", "refract.x", "refract.y", "refract.z", "faceForward.x", "saturate",
		"abs+min", "max+clamp"}
	for i, v := range ins {
		x, y, z, p, a := float64(v.x), float64(v.y), float64(v.z), float64(v.p), float64(v.a)
		want := make([]float64, nf)
		tol := make([]float64, nf)
		set := func(j int, w, tl float64) { want[j], tol[j] = w, tl }
		set(0, math.Abs(x), 0)
		set(1, math.Max(-2.5, math.Min(x, 4)), 0)
		set(2, math.Min(x, y), 0)
		set(3, math.Max(x, y), 0)
		// mix: x * (1 - z) + y * z, each operation correctly rounded.
		set(4, x*(1-z)+y*z, 2*eps*(math.Abs(x)+math.Abs(y))+cr(x*(1-z)+y*z))
		// fma: inherited from x * y + z: fused or not.
		set(5, x*y+z, cr(x*y)+cr(x*y+z))
		set(6, x-math.Floor(x), cr(1))
		set(7, math.Floor(x), 0)
		set(8, math.Ceil(x), 0)
		set(9, math.RoundToEven(x), 0)
		set(10, math.Trunc(x), 0)
		sign := func(f float64) float64 {
			switch {
			case f > 0:
				return 1
			case f < 0:
				return -1
			}
			return 0
		}
		set(11, sign(x), 0)
		set(12, wgslB2F(y <= x), 0)
		e1 := y - 2
		if i%2 == 0 {
			e1 = y + 2
		}
		ts := math.Max(0, math.Min(1, (x*0.5-y)/(e1-y)))
		set(13, ts*ts*(3-2*ts), 1e-5)
		// sqrt: inherited from 1 / inverseSqrt(x): 2 ULP, then the division's 2.5.
		set(14, math.Sqrt(p), 5*wgslULP(math.Sqrt(p)))
		set(15, 1/math.Sqrt(p), 2*wgslULP(1/math.Sqrt(p)))
		// pow: inherited from exp2(y * log2(x)).
		l2 := math.Log2(p)
		tp := y * l2
		pw := math.Pow(p, y)
		set(16, pw, expTol(tp, pw)+pw*math.Ln2*(math.Abs(y)*logTol(p, l2)+cr(tp)))
		set(17, math.Exp(y), expTol(y, math.Exp(y)))
		set(18, math.Exp2(y), expTol(y, math.Exp2(y)))
		set(19, math.Log(p), logTol(p, math.Log(p)))
		set(20, math.Log2(p), logTol(p, math.Log2(p)))
		set(21, math.Sin(a), 0x1p-11)
		set(22, math.Cos(a), 0x1p-11)
		// tan: inherited from sin(x) / cos(x), |x| <= pi/3 so cos >= 1/2.
		ta := float64(v.a / 3)
		set(23, math.Tan(ta), 0x1p-11*(1+math.Abs(math.Tan(ta)))/math.Cos(ta)+3*wgslULP(math.Tan(ta)))
		set(24, math.Atan(y), 4096*wgslULP(math.Atan(y)))
		set(25, math.Atan2(y, x), 4096*wgslULP(math.Atan2(y, x)))
		c := float64(v.z*1.8 - 0.9)
		// asin, acos: the worse of 6.8e-5 and the error of atan2 (4096 ULP).
		set(26, math.Asin(c), math.Max(6.81e-5, 4096*wgslULP(math.Asin(c))))
		set(27, math.Acos(c), math.Max(6.77e-5, 4096*wgslULP(math.Acos(c))))
		// sinh, cosh: inherited from (exp(x) -/+ exp(-x)) * 0.5.
		hyp := (expTol(y, math.Exp(y)) + expTol(y, math.Exp(-y))) * 0.5
		set(28, math.Sinh(y), hyp+cr(math.Sinh(y)))
		set(29, math.Cosh(y), hyp+cr(math.Cosh(y)))
		set(30, math.Tanh(y), 1e-5)
		// asinh, acosh, atanh: inherited from log(...): the log's error
		// plus the argument's, whose sqrt and sums cost a few ULP.
		set(31, math.Asinh(y), 0x1p-21+1e-5*math.Abs(math.Asinh(y))+4*eps*math.Abs(y)/math.Abs(y+math.Sqrt(y*y+1)))
		q := float64(v.p + 1)
		set(32, math.Acosh(q), 0x1p-21+1e-5*math.Acosh(q))
		set(33, math.Atanh(c), 0x1p-21+1e-5*math.Abs(math.Atanh(c))+4*eps/(1-math.Abs(c)))
		set(34, x*57.295779513082322865, 2*wgslULP(x*57.3))
		set(35, x*0.017453292519943295474, 2*wgslULP(x*0.0175))
		set(36, math.Ldexp(x, int(v.k)), 0)
		u := []float64{x, y, z}
		w := []float64{y, z, p}
		dot := func(a, b []float64) (s, mag float64) {
			for j := range a {
				s += a[j] * b[j]
				mag += math.Abs(a[j] * b[j])
			}
			return s, mag
		}
		uu, uumag := dot(u, u)
		set(37, math.Sqrt(uu), 4*eps*math.Sqrt(uumag)+5*wgslULP(math.Sqrt(uu)))
		dv := []float64{x - z, y - 1}
		dd, _ := dot(dv, dv)
		set(38, math.Sqrt(dd), 8*eps*(math.Sqrt(dd)+math.Abs(x)+math.Abs(z)+math.Abs(y)+1))
		d4, d4mag := dot([]float64{x, y, z, p}, []float64{y, z, p, x})
		set(39, d4, 8*eps*d4mag) // 4 products and 3 sums, 1 ULP each
		cross := []float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		crossMag := []float64{math.Abs(u[1]*w[2]) + math.Abs(u[2]*w[1]), math.Abs(u[2]*w[0]) + math.Abs(u[0]*w[2]), math.Abs(u[0]*w[1]) + math.Abs(u[1]*w[0])}
		for j := range 3 {
			set(40+j, cross[j], 3*eps*crossMag[j])
		}
		lu := math.Sqrt(uu)
		for j := range 3 {
			set(43+j, u[j]/lu, 2e-6) // x / length(x): 2.5 ULP and length's error
		}
		ww, _ := dot(w, w)
		nw := []float64{w[0] / math.Sqrt(ww), w[1] / math.Sqrt(ww), w[2] / math.Sqrt(ww)}
		dn, dnmag := dot(nw, u)
		for j := range 3 {
			set(46+j, u[j]-2*dn*nw[j], 1e-5*(math.Abs(u[j])+2*dnmag+1))
		}
		nu := []float64{u[0] / lu, u[1] / lu, u[2] / lu}
		di, _ := dot(nw, nu)
		kk := 1 - 0.49*(1-di*di)
		for j := range 3 {
			rv := 0.0
			if kk >= 0 {
				rv = 0.7*nu[j] - (0.7*di+math.Sqrt(kk))*nw[j]
			}
			set(49+j, rv, 1e-5)
		}
		ff, _ := dot([]float64{x, -y, z}, w)
		if ff < 0 {
			set(52, x, 0)
		} else {
			set(52, -x, 0)
		}
		if math.Abs(ff) < 1e-4 { // the sign's choice is within rounding
			set(52, x, 2*math.Abs(x))
		}
		set(53, math.Max(0, math.Min(1, x)), 0)
		set(54, p+math.Min(-x, -y), cr(p+math.Min(-x, -y)))
		set(55, math.Max(y, x)+math.Max(-1, math.Min(1, x)), cr(math.Max(y, x)+math.Max(-1, math.Min(1, x))))
		for j := range nf {
			g := gotF[nf*i+j]
			ok := wgslNear(g, want[j], tol[j])
			if tol[j] == 0 {
				ok = float64(g) == want[j]
			}
			if !ok {
				m.add("element %d %s = %v, want %v ± %.3g (x=%v y=%v z=%v p=%v a=%v k=%d)", i, names[j], g, want[j], tol[j], v.x, v.y, v.z, v.p, v.a, v.k)
			}
		}
	}
	m.done()

	gotI := wgslI32s(readback(t, ires))
	mi := newWGSLMismatches(t, "integer builtins")
	absI := func(x int32) int32 {
		if x < 0 {
			return -x // MIN stays MIN
		}
		return x
	}
	signI := func(x int32) int32 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	inames := []string{"abs(m)", "min(m, k*1e6)", "max(m, k*1e6)", "clamp(m, -1000, 50000)", "sign(m)", "sign(k)",
		"min(n, 0x80000000)", "max(n, u32(m))", "clamp(n, 1000, 0xf0000000)", "abs(k)*sign(m)", "max(abs(vec2(m, k)), 5).x", "abs(i32 MIN)"}
	for i, v := range ins {
		mm, kk, nn := v.m, v.k, v.n
		want := []int32{absI(mm), min(mm, kk*1000000), max(mm, kk*1000000), max(-1000, min(mm, 50000)), signI(mm), signI(kk),
			int32(min(nn, 0x80000000)), int32(max(nn, uint32(mm))), int32(max(1000, min(nn, 0xf0000000))), absI(kk) * signI(mm),
			max(absI(mm), 5), math.MinInt32}
		for j, w := range want {
			if g := gotI[ni*i+j]; g != w {
				mi.add("element %d %s = %d, want %d (m=%d k=%d n=%d)", i, inames[j], g, w, mm, kk, nn)
			}
		}
	}
	mi.done()
}

func wgslB2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func testWGSLBitBuiltins(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "bit_builtins")
	const n = 256
	r := newRand(125)
	type in struct {
		u             uint32
		s             int32
		offset, count uint32
		newbits       uint32
	}
	ins := make([]in, n)
	buf := make(wgslLayout, 20*n)
	for i := range ins {
		v := in{u: r.Uint32() >> uint(r.IntN(32)), s: int32(r.Uint32()) >> uint(r.IntN(32)),
			offset: uint32(r.IntN(41)), count: uint32(r.IntN(41)), newbits: r.Uint32()}
		switch i {
		case 0:
			v.u, v.s = 0, 0
		case 1:
			v.u, v.s = 0xffffffff, -1
		case 2:
			v.u, v.s = 0x80000000, math.MinInt32
		case 3:
			v.offset, v.count = 0, 32
		case 4:
			v.offset, v.count = 32, 5
		case 5:
			v.offset, v.count = 31, 1
		case 6:
			v.offset, v.count = 8, 0
		}
		ins[i] = v
		b := buf[20*i:]
		b.putU32(0, v.u)
		b.putI32(4, v.s)
		b.putU32(8, v.offset)
		b.putU32(12, v.count)
		b.putU32(16, v.newbits)
	}
	res := wgslOutput(t, d, 4*16*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, buf)), At(1, res))
	firstLeadingU := func(x uint32) uint32 {
		if x == 0 {
			return 0xffffffff
		}
		return uint32(31 - bits.LeadingZeros32(x))
	}
	firstLeadingI := func(x int32) int32 {
		if x < 0 {
			x = ^x
		}
		if x == 0 {
			return -1
		}
		return int32(31 - bits.LeadingZeros32(uint32(x)))
	}
	firstTrailing := func(x uint32) uint32 {
		if x == 0 {
			return 0xffffffff
		}
		return uint32(bits.TrailingZeros32(x))
	}
	oc := func(offset, count uint32) (o, c uint32) {
		o = min(offset, 32)
		c = min(count, 32-o)
		return
	}
	extractU := func(e, offset, count uint32) uint32 {
		o, c := oc(offset, count)
		if c == 0 {
			return 0
		}
		return uint32(uint64(e) >> o & (1<<c - 1))
	}
	extractI := func(e int32, offset, count uint32) int32 {
		o, c := oc(offset, count)
		if c == 0 {
			return 0
		}
		v := uint32(uint64(uint32(e)) >> o & (1<<c - 1))
		return int32(v<<(32-c)) >> (32 - c) // sign-extend bit c-1
	}
	insert := func(e, nb, offset, count uint32) uint32 {
		o, c := oc(offset, count)
		if c == 0 {
			return e
		}
		mask := uint32((1<<c - 1) << o)
		return e&^mask | (nb<<o)&mask
	}
	want := make([]uint32, 16*n)
	for i, v := range ins {
		w := want[16*i:]
		u, s := v.u, v.s
		w[0] = uint32(bits.OnesCount32(u))
		w[1] = uint32(bits.OnesCount32(uint32(s)))
		w[2] = uint32(bits.LeadingZeros32(u))
		w[3] = uint32(bits.TrailingZeros32(u))
		w[4] = firstLeadingU(u)
		w[5] = uint32(firstLeadingI(s))
		w[6] = firstTrailing(u)
		w[7] = firstTrailing(uint32(s))
		w[8] = extractU(u, v.offset, v.count)
		w[9] = uint32(extractI(s, v.offset, v.count))
		w[10] = insert(u, v.newbits, v.offset, v.count)
		w[11] = insert(uint32(s), v.newbits, v.offset, v.count)
		w[12] = bits.Reverse32(u)
		w[13] = bits.Reverse32(uint32(s))
		cx := uint32(bits.LeadingZeros32(u)) + uint32(bits.TrailingZeros32(u))*64 + uint32(bits.OnesCount32(u))*4096
		cy := uint32(bits.LeadingZeros32(^u)) + uint32(bits.TrailingZeros32(^u))*64 + uint32(bits.OnesCount32(^u))*4096
		w[14] = cx ^ cy<<16
		flx := firstLeadingI(s) + int32(firstTrailing(uint32(s>>4)))
		fly := firstLeadingI(^s) + int32(firstTrailing(uint32(s<<4)))
		w[15] = uint32(flx*256 + fly)
	}
	names := []string{"countOneBits(u)", "countOneBits(s)", "countLeadingZeros(u)", "countTrailingZeros(u)",
		"firstLeadingBit(u)", "firstLeadingBit(s)", "firstTrailingBit(u)", "firstTrailingBit(s)", "extractBits(u)",
		"extractBits(s)", "insertBits(u)", "insertBits(s)", "reverseBits(u)", "reverseBits(s)", "vec2<u32> counts", "vec2<i32> first bits"}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		v := ins[i/16]
		return fmt.Sprintf("element %d %s (u=%#x s=%#x offset=%d count=%d newbits=%#x)", i/16, names[i%16], v.u, uint32(v.s), v.offset, v.count, v.newbits)
	})
}

// wgslPackNorm returns floor(0.5 + scale * clamp(e, lo, 1)) as WGSL's pack
// builtins define it, and whether the value is within 1e-4 of a rounding
// boundary, where the f32 intermediate may go either way.
func wgslPackNorm(e float32, lo, scale float64) (int64, bool) {
	x := 0.5 + scale*math.Max(lo, math.Min(1, float64(e)))
	f := math.Floor(x)
	return int64(f), x-f < 1e-4 || f+1-x < 1e-4
}

func testWGSLPackUnpack(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "pack_unpack")
	const n = 128
	const inStride, outStride = 64, 144
	r := newRand(126)
	in := make(wgslLayout, inStride*n)
	type vals struct {
		f    [4]float32
		h    [2]float32
		i    [4]int32
		bits uint32
	}
	vs := make([]vals, n)
	for j := range vs {
		v := &vs[j]
		for c := range 4 {
			v.f[c] = float32(r.Float64()*3 - 1.5)
			v.i[c] = int32(r.IntN(601) - 300)
		}
		if j == 0 {
			v.f = [4]float32{0.5, -0.5, 1, -1}
		}
		for c := range 2 {
			v.h[c] = float32(math.Ldexp(0.5+0.5*r.Float64(), r.IntN(29)-13)) // normal f16 values
			if r.IntN(2) == 0 {
				v.h[c] = -v.h[c]
			}
		}
		v.bits = r.Uint32()
		b := in[inStride*j:]
		for c := range 4 {
			b.putF32(4*c, v.f[c])
			b.putI32(32+4*c, v.i[c])
		}
		b.putF32(16, v.h[0])
		b.putF32(20, v.h[1])
		b.putU32(48, v.bits)
	}
	out := wgslOutput(t, d, outStride*n)
	wgslDispatch(t, k, n/32, 1, 1, At(0, wgslInput(t, d, in)), At(1, out))
	got := wgslLayout(readback(t, out))
	m := newWGSLMismatches(t, "pack/unpack")
	for j, v := range vs {
		o := got[outStride*j:]
		// Packing: each lane exact, or either side of a rounding boundary.
		packCheck := func(name string, word uint32, lanes int, lane func(c int) (int64, bool)) {
			width := 32 / lanes
			for c := range lanes {
				g := int64(word >> uint(c*width) & (1<<width - 1))
				w, edge := lane(c)
				w &= 1<<width - 1
				if g != w && !(edge && (g == (w+1)&(1<<width-1) || g == (w-1)&(1<<width-1))) {
					m.add("element %d %s lane %d = %#x, want %#x (input %v)", j, name, c, g, w, v)
				}
			}
		}
		packCheck("pack4x8snorm", o.u32(0), 4, func(c int) (int64, bool) { return wgslPackNorm(v.f[c], -1, 127) })
		packCheck("pack4x8unorm", o.u32(4), 4, func(c int) (int64, bool) { return wgslPackNorm(v.f[c], 0, 255) })
		packCheck("pack2x16snorm", o.u32(8), 2, func(c int) (int64, bool) { return wgslPackNorm(v.f[c], -1, 32767) })
		packCheck("pack2x16unorm", o.u32(12), 2, func(c int) (int64, bool) { return wgslPackNorm(v.f[2+c], 0, 65535) })
		// pack2x16float: each half correctly rounded (either neighbour).
		for c := range 2 {
			g := uint16(o.u32(16) >> uint(16*c))
			lo, hi := wgslF16Roundings(float64(v.h[c]))
			if g != lo && g != hi {
				m.add("element %d pack2x16float lane %d = %#04x (%v), want %#04x or %#04x (of %v)", j, c, g, wgslF16ToF32(g), lo, hi, v.h[c])
			}
		}
		var wI8, wU8, wI8c, wU8c uint32
		for c, x := range v.i {
			wI8 |= uint32(uint8(x)) << (8 * c)
			wU8 |= uint32(uint8(uint32(x))) << (8 * c)
			wI8c |= uint32(uint8(max(-128, min(127, x)))) << (8 * c)
			wU8c |= uint32(uint8(min(255, uint32(x)))) << (8 * c)
		}
		for _, c := range []struct {
			name      string
			off       int
			want      uint32
			inputDesc any
		}{{"pack4xI8", 20, wI8, v.i}, {"pack4xU8", 24, wU8, v.i}, {"pack4xI8Clamp", 28, wI8c, v.i}, {"pack4xU8Clamp", 32, wU8c, v.i}} {
			if g := o.u32(c.off); g != c.want {
				m.add("element %d %s = %#x, want %#x (input %v)", j, c.name, g, c.want, c.inputDesc)
			}
		}
		b := v.bits
		// Unpacking: v / 127 and the like within 3 ULP (WGSL's accuracy
		// for the norm formats); f16 to f32 is exact.
		unp := func(name string, off, lanes int, ulp uint64, f func(c int) float64) {
			for c := range lanes {
				g := o.f32(off + 4*c)
				w := f(c)
				if ok := wgslCorrectlyRounded(g, w) || (ulp > 0 && wgslULPs(g, float32(w)) <= ulp); !ok {
					m.add("element %d %s(%#x)[%d] = %v, want %v", j, name, b, c, g, w)
				}
			}
		}
		unp("unpack4x8snorm", 48, 4, 3, func(c int) float64 { return math.Max(float64(int8(b>>(8*c)))/127, -1) })
		unp("unpack4x8unorm", 64, 4, 3, func(c int) float64 { return float64(uint8(b>>(8*c))) / 255 })
		unp("unpack2x16snorm", 80, 2, 3, func(c int) float64 { return math.Max(float64(int16(b>>(16*c)))/32767, -1) })
		unp("unpack2x16unorm", 88, 2, 3, func(c int) float64 { return float64(uint16(b>>(16*c))) / 65535 })
		unp("unpack2x16float", 96, 2, 0, func(c int) float64 { return float64(wgslF16ToF32(uint16((b & 0x7bff7bff) >> (16 * c)))) })
		for c := range 4 {
			if g, w := o.i32(112+4*c), int32(int8(b>>(8*c))); g != w {
				m.add("element %d unpack4xI8(%#x)[%d] = %d, want %d", j, b, c, g, w)
			}
			if g, w := o.u32(128+4*c), uint32(uint8(b>>(8*c))); g != w {
				m.add("element %d unpack4xU8(%#x)[%d] = %d, want %d", j, b, c, g, w)
			}
		}
	}
	m.done()
}

// wgslRandomFloatBits returns the bits of a random finite, normal (or zero)
// f32: bitcast round trips keep them, and arithmetic on them is defined.
func wgslRandomFloatBits(r *rand.Rand) uint32 {
	for {
		u := r.Uint32()
		if e := u >> 23 & 0xff; e != 0xff && e != 0 && e < 0xfd {
			return u
		}
	}
}

func testWGSLBitcast(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "bitcast")
	const n = 256
	r := newRand(127)
	in := make([]uint32, 2*n)
	for i := range in {
		in[i] = wgslRandomFloatBits(r)
	}
	res, floats := wgslOutput(t, d, 4*8*n), wgslOutput(t, d, 4*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res), At(2, floats))
	got := u32s(readback(t, res))
	m := newWGSLMismatches(t, "results")
	for i := range n {
		x, y := in[2*i], in[2*i+1]
		fx, fy := math.Float32frombits(x), math.Float32frombits(y)
		g := got[8*i:]
		exact := []struct {
			name      string
			got, want uint32
		}{
			{"bitcast<u32>(bitcast<f32>(x))", g[0], x},
			{"bitcast<u32>(f * 2.0)", g[1], math.Float32bits(fx * 2)},
			{"vec2<i32> x >> 7", g[3], uint32(int32(x) >> 7)},
			{"bitcast<i32>(f) + 1", g[4], x + 1},
			{"u32(i32(y))", g[5], y},
			{"back.z ^ back.w", g[6], math.Float32bits(-fx) ^ math.Float32bits(-fy)},
			{"vec3 bitcast .z - y", g[7], x - y},
		}
		for _, c := range exact {
			if c.got != c.want {
				m.add("element %d %s = %#x, want %#x (x=%#x y=%#x)", i, c.name, c.got, c.want, x, y)
			}
		}
		if s := math.Float32frombits(g[2]); !wgslCorrectlyRounded(s, float64(fx)+float64(fy)) {
			m.add("element %d vf.y + vf.x = %v, want %v", i, s, float64(fx)+float64(fy))
		}
	}
	m.done()
	wgslExpectU32(t, "floats (bitcast<f32>(y) stored)", u32s(readback(t, floats)), func() []uint32 {
		w := make([]uint32, n)
		for i := range w {
			w[i] = in[2*i+1]
		}
		return w
	}(), nil)
}

func testWGSLAtomicsStorage(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "atomics_storage")
	const n = 512
	r := newRand(128)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	init := make([]uint32, 13)
	for i := range init {
		init[i] = r.Uint32()
	}
	counters := wgslInput(t, d, u32bytes(init))
	cells, res := wgslOutput(t, d, 4*n), wgslOutput(t, d, 4*3*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, counters), At(2, cells), At(3, res))
	want := slices.Clone(init)
	for _, v := range in {
		sv := int32(v)
		want[0] += v
		want[1] -= v
		want[2] = min(want[2], v)
		want[3] = max(want[3], v)
		want[4] = uint32(min(int32(want[4]), sv))
		want[5] = uint32(max(int32(want[5]), sv))
		want[6] &= v | 0x01010101
		want[7] |= v & 0x10101010
		want[8] ^= v
		want[10] += v * v
		want[11]++
		want[12] = uint32(int32(want[12]) - sv>>4)
	}
	got := u32s(readback(t, counters))
	want[9] = got[9] // the last exchange: checked with the returned values below
	names := []string{"sum (atomicAdd)", "sub (atomicSub)", "umin", "umax", "imin", "imax", "and_bits", "or_bits",
		"xor_bits", "xchg", "squares (atomicCompareExchangeWeak loop)", "ticket", "isum"}
	wgslExpectU32(t, "counters", got, want, func(i int) string { return names[i] })
	results := u32s(readback(t, res))
	// The tickets atomicAdd returned: each of init..init+n-1 once.
	tickets := make([]uint32, n)
	olds := []uint32{got[9]} // the values exchanged out, and the one left
	m := newWGSLMismatches(t, "per invocation")
	for i := range n {
		tickets[i] = results[3*i] - init[11]
		olds = append(olds, results[3*i+1])
		if results[3*i+2] != in[i] {
			m.add("invocation %d: atomicLoad(&cells[i]) ^ ticket = %#x, want %#x", i, results[3*i+2], in[i])
		}
	}
	m.done()
	slices.Sort(tickets)
	for i, tk := range tickets {
		if tk != uint32(i) {
			t.Errorf("the tickets atomicAdd returned are not %d distinct values from %d: %d is %d", n, init[11], i, tk+init[11])
			break
		}
	}
	// atomicExchange: the values returned and the one left are the
	// initial value and every input, each once.
	exchanged := append([]uint32{init[9]}, in...)
	slices.Sort(exchanged)
	slices.Sort(olds)
	if !slices.Equal(olds, exchanged) {
		t.Errorf("atomicExchange: the values returned and the last stored are not the initial value and the inputs")
	}
	cellsGot := u32s(readback(t, cells))
	for i := range n {
		if cellsGot[i] != in[i]^results[3*i] {
			t.Errorf("cells[%d] = %#x, want %#x (atomicStore of v ^ ticket)", i, cellsGot[i], in[i]^results[3*i])
			break
		}
	}
}

func testWGSLAtomicsWorkgroup(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "atomics_workgroup")
	const groups, size = 6, 128
	r := newRand(129)
	in := make([]uint32, groups*size)
	for i := range in {
		in[i] = r.Uint32() | 1 // nonzero: the exchange's last value shows
	}
	res, tickets := wgslOutput(t, d, 4*10*groups), wgslOutput(t, d, 4*groups*size)
	wgslDispatch(t, k, groups, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res), At(2, tickets))
	want := make([]uint32, 10*groups)
	for g := range groups {
		w := want[10*g:]
		var sum, umax, or, xor, squares uint32
		var sub, imin int32
		umin, and := uint32(0xffffffff), uint32(0xffffffff)
		for _, v := range in[size*g : size*g+size] {
			sum += v
			sub -= int32(v) >> 8
			umax = max(umax, v)
			imin = min(imin, int32(v)) // from zero-initialized memory
			umin = min(umin, v)
			or |= v & 0x00ff00ff
			and &= v | 0x0f0f0f0f
			xor ^= v
			squares += (v & 0xffff) * 3
		}
		copy(w, []uint32{sum, uint32(sub), umax, uint32(imin), umin, or, and, xor, squares, size*65536 + 1})
	}
	names := []string{"sum", "sub", "umax", "imin", "umin", "or_bits", "and_bits", "xor_bits", "squares", "ticket*65536 + (last != 0)"}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("workgroup %d %s", i/10, names[i%10])
	})
	tk := u32s(readback(t, tickets))
	for g := range groups {
		s := slices.Clone(tk[size*g : size*g+size])
		slices.Sort(s)
		for i, v := range s {
			if v != uint32(i) {
				t.Errorf("workgroup %d: the tickets are not 0..%d once each (sorted, [%d] = %d)", g, size-1, i, v)
				break
			}
		}
	}
}

func testWGSLHistogram(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "histogram")
	const n = 64 * 40
	r := newRand(130)
	words := make([]uint32, n)
	for i := range words {
		for b := range 4 {
			words[i] |= uint32(uint8(r.ExpFloat64()*24)) << (8 * b) // skewed: many collisions
		}
	}
	init := make([]uint32, 256)
	for i := range init {
		init[i] = r.Uint32() & 0xffff
	}
	bins := wgslInput(t, d, u32bytes(init))
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(words))), At(1, bins))
	want := slices.Clone(init)
	for _, w := range words {
		for b := range 4 {
			want[uint8(w>>(8*b))]++
		}
	}
	wgslExpectU32(t, "bins (initial value + count)", u32s(readback(t, bins)), want, nil)
}

func testWGSLMatmulTiled(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "matmul_tiled")
	const M, K, N = 64, 48, 80
	r := newRand(131)
	a, b := make([]float32, M*K), make([]float32, K*N)
	for i := range a {
		a[i] = wgslGrid(r, 4, 16) // multiples of 1/16: every partial sum is exact in f32
	}
	for i := range b {
		b[i] = wgslGrid(r, 4, 16)
	}
	c := wgslOutput(t, d, 4*M*N)
	dims := newBuffer(t, d, HeapUpload, u32bytes([]uint32{M, K, N, 0}))
	wgslDispatch(t, k, N/8, M/8, 1, At(0, dims), At(1, wgslInput(t, d, f32bytes(a))), At(2, wgslInput(t, d, f32bytes(b))), At(3, c))
	got := f32s(readback(t, c))
	m := newWGSLMismatches(t, "C = A*B (exact)")
	for i := range M {
		for j := range N {
			var s float64
			for x := range K {
				s += float64(a[i*K+x]) * float64(b[x*N+j])
			}
			if float64(got[i*N+j]) != s {
				m.add("C[%d][%d] = %v, want %v", i, j, got[i*N+j], s)
			}
		}
	}
	m.done()
}

func testWGSLScan(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "scan")
	const groups, size = 8, 256
	r := newRand(132)
	in := make([]uint32, groups*size)
	for i := range in {
		in[i] = r.Uint32()
	}
	sums, totals := wgslOutput(t, d, 4*len(in)), wgslOutput(t, d, 4*groups)
	wgslDispatch(t, k, groups, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, sums), At(2, totals))
	want := make([]uint32, len(in))
	wantT := make([]uint32, groups)
	for g := range groups {
		var s uint32
		for li := range size {
			s += in[g*size+li]
			want[g*size+li] = s
		}
		wantT[g] = s
	}
	wgslExpectU32(t, "inclusive sums", u32s(readback(t, sums)), want, func(i int) string {
		return fmt.Sprintf("workgroup %d [%d]", i/size, i%size)
	})
	wgslExpectU32(t, "workgroup totals", u32s(readback(t, totals)), wantT, nil)
}

func testWGSLBlur(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "blur")
	const w, h = 40, 28
	r := newRand(133)
	px := randomBytes(r, 4*w*h)
	src := wgslTexture2D(t, d, w, h, format.RGBA8UNorm, px)
	dst := wgslTexture2D(t, d, w, h, format.RGBA32Float, poison(16*w*h))
	dst8 := wgslTexture2D(t, d, w, h, format.RGBA8UNorm, poison(4*w*h))
	smp, err := d.Sampler(FilterPoint, AddressClamp)
	if err != nil {
		t.Fatal(err)
	}
	gx, gy, _ := k.Groups(w, h, 1)
	wgslDispatch(t, k, gx, gy, 1, Named("src", src), Named("smp", smp), At(2, dst), At(3, dst8))
	got := f32s(wgslReadTexture(t, dst))
	got8 := wgslReadTexture(t, dst8)
	clamp := func(v, hi int) int { return max(0, min(v, hi-1)) }
	m := newWGSLMismatches(t, "blurred (rgba32float within 1e-5; rgba8unorm within 1 of the rounded average)")
	for y := range h {
		for x := range w {
			for c := range 4 {
				var s float64
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						s += float64(px[4*(clamp(y+dy, h)*w+clamp(x+dx, w))+c]) / 255
					}
				}
				avg := s / 9
				i := 4*(y*w+x) + c
				if !wgslNear(got[i], avg, 1e-5) {
					m.add("dst (%d, %d)[%d] = %v, want %v", x, y, c, got[i], avg)
				}
				if diff := int(got8[i]) - int(math.Round(avg*255)); diff < -1 || diff > 1 {
					m.add("dst8 (%d, %d)[%d] = %d, want %d", x, y, c, got8[i], int(math.Round(avg*255)))
				}
			}
		}
	}
	m.done()
}

func testWGSLStorageRW(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "storage_rw")
	const w, h = 32, 20
	r := newRand(134)
	v, a := make([]uint32, w*h), make([]uint32, w*h)
	for i := range v {
		v[i], a[i] = r.Uint32(), r.Uint32()
	}
	img := wgslTexture2D(t, d, w, h, format.R32UInt, u32bytes(v))
	add := wgslTexture2D(t, d, w, h, format.R32UInt, u32bytes(a))
	wgslDispatch(t, k, w/8, h/4, 1, At(0, img), At(1, add))
	want := make([]uint32, w*h)
	for i := range want {
		want[i] = v[i]*3 + a[i] + uint32(i%w)*1000
	}
	wgslExpectU32(t, "img", u32s(wgslReadTexture(t, img)), want, func(i int) string { return fmt.Sprintf("(%d, %d)", i%w, i/w) })
}

func testWGSLTextureQueries(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "texture_queries")
	r := newRand(135)
	dim := func() uint32 { return uint32(3 + r.IntN(30)) }
	w1 := dim()
	t1, err := d.Texture1D(w1, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	w2, h2 := dim(), dim()
	t2 := wgslTexture2D(t, d, w2, h2, format.RGBA8UNorm, make([]byte, 4*w2*h2))
	a, b, c := dim(), dim(), uint32(2+r.IntN(5))
	t3, err := d.Texture3D(a, b, c, format.R32UInt)
	if err != nil {
		t.Fatal(err)
	}
	wa, ha, layers := dim(), dim(), uint32(2+r.IntN(6))
	ta, err := d.Texture2DArray(wa, ha, layers, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	for _, tex := range []*Texture{t1, t3, ta} {
		if err := tex.Upload(make([]byte, tex.Size())); err != nil {
			t.Fatal(err)
		}
	}
	ws, hs := dim(), dim()
	st := wgslTexture2D(t, d, ws, hs, format.R32Float, make([]byte, 4*ws*hs))
	res := wgslOutput(t, d, 4*16)
	wgslDispatch(t, k, 1, 1, 1, At(0, t1), At(1, t2), At(2, t3), At(3, ta), At(4, st), At(5, res))
	want := []uint32{w1, 1, w2, h2, 1, a, b, c, 1, wa, ha, layers, 1, ws, hs, w2 * w1}
	names := []string{"textureDimensions(t1)", "textureNumLevels(t1)", "textureDimensions(t2, 0).x", "textureDimensions(t2, 0).y",
		"textureNumLevels(t2)", "textureDimensions(t3).x", "textureDimensions(t3).y", "textureDimensions(t3).z", "textureNumLevels(t3)",
		"textureDimensions(ta).x", "textureDimensions(ta).y", "textureNumLayers(ta)", "textureNumLevels(ta)",
		"textureDimensions(st).x", "textureDimensions(st).y", "textureDimensions(t2, 0u).x * textureDimensions(t1, 0)"}
	wgslExpectU32(t, "queries", u32s(readback(t, res)), want, func(i int) string { return names[i] })
}

func testWGSLComputeBuiltins(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "compute_builtins")
	if ls := k.LocalSize(); ls != [3]uint32{4, 2, 3} {
		t.Errorf("LocalSize() = %v, want [4 2 3]", ls)
	}
	const gx, gy, gz = 3, 2, 2
	const W, H, D = 4 * gx, 2 * gy, 3 * gz
	res := wgslOutput(t, d, 4*13*W*H*D)
	wgslDispatch(t, k, gx, gy, gz, At(0, res))
	want := make([]uint32, 13*W*H*D)
	for z := range uint32(D) {
		for y := range uint32(H) {
			for x := range uint32(W) {
				lx, ly, lz := x%4, y%2, z%3
				w := want[13*(x+W*(y+H*z)):]
				copy(w, []uint32{x, y, z, lx, ly, lz, lx + 4*ly + 8*lz, x / 4, y / 2, z / 3, gx, gy, gz})
			}
		}
	}
	names := []string{"global_invocation_id.x", "global_invocation_id.y", "global_invocation_id.z", "local_invocation_id.x",
		"local_invocation_id.y", "local_invocation_id.z", "local_invocation_index", "workgroup_id.x", "workgroup_id.y",
		"workgroup_id.z", "num_workgroups.x", "num_workgroups.y", "num_workgroups.z"}
	wgslExpectU32(t, "builtins", u32s(readback(t, res)), want, func(i int) string {
		g := i / 13
		return fmt.Sprintf("invocation (%d, %d, %d) %s", g%W, g/W%H, g/(W*H), names[i%13])
	})
}

func testWGSLBuiltinStruct(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "builtin_struct")
	const gx, gy = 3, 2
	const W, H = 8 * gx, 4 * gy
	res := wgslOutput(t, d, 16*W*H)
	wgslDispatch(t, k, gx, gy, 1, At(0, res))
	want := make([]uint32, 4*W*H)
	for y := range uint32(H) {
		for x := range uint32(W) {
			copy(want[4*(y*W+x):], []uint32{x + y*100, x%8 + (y%4)*8, (x/8)*10 + y/4, gx * gy})
		}
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("invocation (%d, %d) [%d]", i/4%W, i/4/W, i%4)
	})
}

func testWGSLF16(t *testing.T, d *Device) {
	m, _ := wgslModule(t, "f16", "", nil)
	k, err := d.KernelWith(m, KernelOptions{})
	if err != nil {
		// The device lacks shaderFloat16 or 16-bit storage: the pipeline
		// says which.
		for _, feat := range []string{"shaderFloat16", "storageBuffer16BitAccess", "uniformAndStorageBuffer16BitAccess"} {
			if strings.Contains(err.Error(), "device feature "+feat) {
				t.Skipf("%s lacks %s: %v", d, feat, err)
			}
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	const n = 256
	r := newRand(136)
	h := func(lim int) uint16 { return wgslF16Of(float64(r.IntN(2*lim+1)-lim) / 8) } // multiples of 1/8: exact results
	xs := make([]uint16, n)
	vs := make([]uint16, 4*n)
	for i := range xs {
		xs[i] = h(64)
	}
	for i := range vs {
		vs[i] = h(40)
	}
	halves := make(wgslLayout, 12*n)
	type half struct{ a, b0, b1 uint16 }
	hs := make([]half, n)
	cs := make([]float32, n)
	for i := range hs {
		hs[i] = half{h(100), h(100), h(100)}
		cs[i] = wgslGrid(r, 100, 8)
		binary.LittleEndian.PutUint16(halves[12*i:], hs[i].a)
		binary.LittleEndian.PutUint16(halves[12*i+2:], 0xEEEE) // padding
		binary.LittleEndian.PutUint16(halves[12*i+4:], hs[i].b0)
		binary.LittleEndian.PutUint16(halves[12*i+6:], hs[i].b1)
		halves.putF32(12*i+8, cs[i])
	}
	hout, fout := wgslOutput(t, d, 2*4*n), wgslOutput(t, d, 4*2*n)
	hb := wgslInput(t, d, halves)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, wgslU16Bytes(xs))), At(1, wgslInput(t, d, wgslU16Bytes(vs))), At(2, hout), At(3, fout), At(4, hb))
	f := func(b uint16) float64 { return float64(wgslF16ToF32(b)) }
	gh := readback(t, hout)
	mh := newWGSLMismatches(t, "f16 results (exact: multiples of 1/64 within f16's precision)")
	for i := range n {
		x := f(xs[i])
		v := []float64{f(vs[4*i]), f(vs[4*i+1]), f(vs[4*i+2]), f(vs[4*i+3])}
		want := []float64{x*1.5 + v[0], math.Max(x, v[1]) - math.Min(v[2], -2), x * 0.25, math.Abs(v[3]) * v[0]}
		for j, w := range want {
			g := binary.LittleEndian.Uint16(gh[2*(4*i+j):])
			if f(g) != w {
				mh.add("hout[%d] = %v (%#04x), want %v (x=%v v=%v)", 4*i+j, f(g), g, w, x, v)
			}
		}
	}
	mh.done()
	gf := f32s(readback(t, fout))
	mf := newWGSLMismatches(t, "f32 results")
	for i := range n {
		v := []float64{f(vs[4*i]), f(vs[4*i+1]), f(vs[4*i+2]), f(vs[4*i+3])}
		for j, w := range []float64{f(xs[i]), v[0] + 2*v[1] + 3*v[2] + 4*v[3]} {
			if float64(gf[2*i+j]) != w {
				mf.add("fout[%d] = %v, want %v", 2*i+j, gf[2*i+j], w)
			}
		}
	}
	mf.done()
	gs := wgslLayout(readback(t, hb))
	ms := newWGSLMismatches(t, "struct Half {a: f16, b: vec2<f16>, c: f32} (offsets 0, 4, 8; stride 12)")
	for i, s := range hs {
		a := f(s.a) + f(s.b0)
		want := []float64{a, f(s.b1) * 2, f(s.b0) * 2}
		for j, off := range []int{0, 4, 6} {
			if g := f(binary.LittleEndian.Uint16(gs[12*i+off:])); g != want[j] {
				ms.add("[%d] at offset %d = %v, want %v", i, off, g, want[j])
			}
		}
		if g, w := float64(gs.f32(12*i+8)), a+float64(cs[i]); g != w {
			ms.add("[%d].c = %v, want %v", i, g, w)
		}
	}
	ms.done()
}

func testWGSLWorkgroupUniformLoad(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "workgroup_uniform_load")
	const groups, size = 8, 32
	r := newRand(137)
	counts := make([]uint32, groups)
	for i := range counts {
		counts[i] = uint32(r.IntN(7))
	}
	counts[0] = 0
	in := make([]uint32, groups*size)
	for i := range in {
		in[i] = r.Uint32()
	}
	res := wgslOutput(t, d, 4*len(in))
	wgslDispatch(t, k, groups, 1, 1, At(0, wgslInput(t, d, u32bytes(counts))), At(1, wgslInput(t, d, u32bytes(in))), At(2, res))
	want := make([]uint32, len(in))
	for g := range groups {
		acc := slices.Clone(in[g*size : g*size+size])
		for range counts[g] {
			next := make([]uint32, size)
			for li := range size {
				next[li] = acc[li]*3 + acc[(li+31)%32]
			}
			acc = next
		}
		for li := range size {
			want[g*size+li] = acc[li] + counts[g]*1000000
		}
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("workgroup %d (rounds %d) [%d]", i/size, counts[i/size], i%size)
	})
}

func testWGSLStorageBarrier(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "storage_barrier")
	const groups, size = 6, 64
	r := newRand(138)
	in := make([]uint32, groups*size)
	for i := range in {
		in[i] = r.Uint32()
	}
	scratch, res := wgslOutput(t, d, 4*len(in)), wgslOutput(t, d, 4*len(in))
	wgslDispatch(t, k, groups, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, scratch), At(2, res))
	want := make([]uint32, len(in))
	wantS := make([]uint32, len(in))
	for g := range groups {
		s1 := make([]uint32, size)
		for li := range size {
			s1[li] = in[g*size+li] * 2
		}
		as := make([]uint32, size)
		for li := range size {
			as[li] = s1[(li+1)%64]
			wantS[g*size+li] = as[li] ^ s1[63-li]
		}
		for li := range size {
			want[g*size+li] = wantS[g*size+(li+5)%64] + as[li]
		}
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, nil)
	wgslExpectU32(t, "scratch", u32s(readback(t, scratch)), wantS, nil)
}

func testWGSLQuantizeF16(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "quantize_f16")
	const n = 256
	r := newRand(139)
	in := make([]float32, 4*n)
	for i := range in {
		var x float64
		switch i % 5 {
		case 0: // exactly an f16 value
			x = float64(wgslF16ToF32(uint16(r.IntN(0x7bff-0x0400) + 0x0400)))
		case 1: // halfway between two f16 values
			lo := wgslF16ToF32(uint16(r.IntN(0x7bfe-0x0400) + 0x0400))
			x = float64(lo) + float64(wgslF16ToF32(wgslF16Of(float64(lo))+1)-lo)/2
		default:
			x = math.Ldexp(0.5+0.5*r.Float64(), r.IntN(29)-13)
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		in[i] = float32(x)
	}
	in[0] = 0
	res := wgslOutput(t, d, 32*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, f32bytes(in))), At(1, res))
	got := f32s(readback(t, res))
	m := newWGSLMismatches(t, "quantizeToF16 (either f16 neighbour)")
	for i := range n {
		v := in[4*i : 4*i+4]
		srcs := []float32{v[0], v[1], v[2], v[3], v[0], v[1], v[2], v[3]}
		for j, x := range srcs {
			lo, hi := wgslF16Roundings(float64(x))
			if g := got[8*i+j]; g != wgslF16ToF32(lo) && g != wgslF16ToF32(hi) {
				m.add("element %d result %d of %v = %v, want %v or %v", i, j, x, g, wgslF16ToF32(lo), wgslF16ToF32(hi))
			}
		}
	}
	m.done()
}

func testWGSLFrexpModf(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "frexp_modf")
	const n = 256
	r := newRand(140)
	in := make([]float32, 2*n)
	for i := range in {
		x := math.Ldexp(0.5+0.5*r.Float64(), r.IntN(60)-20)
		switch i % 7 {
		case 0:
			x = float64(r.IntN(2001) - 1000) // integers
		case 1:
			x = float64(r.IntN(64)) + 0.5
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		in[i] = float32(x)
	}
	in[0], in[3] = 0, 1
	res := wgslOutput(t, d, 4*8*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, f32bytes(in))), At(1, res))
	got := u32s(readback(t, res))
	m := newWGSLMismatches(t, "frexp and modf (values compared, -0 == +0)")
	for i := range n {
		x, y := float64(in[2*i]), float64(in[2*i+1])
		fx, ex := math.Frexp(x)
		fy, ey := math.Frexp(y)
		wx, frx := math.Modf(x)
		wy, fry := math.Modf(y)
		g := got[8*i:]
		fl := func(j int) float64 { return float64(math.Float32frombits(g[j])) }
		checks := []struct {
			name      string
			got, want float64
		}{
			{"frexp(x).fract", fl(0), fx}, {"frexp(x).exp", float64(int32(g[1])), float64(ex)},
			{"modf(x).fract", fl(2), frx}, {"modf(x).whole", fl(3), wx},
			{"frexp(v).fract.y", fl(4), fy}, {"frexp(v).exp.y", float64(int32(g[5])), float64(ey)},
			{"modf(v).fract.y", fl(6), fry},
		}
		for _, c := range checks {
			if c.got != c.want {
				m.add("element %d (x=%v y=%v) %s = %v, want %v", i, in[2*i], in[2*i+1], c.name, c.got, c.want)
			}
		}
		// modf(y).whole + modf(v).whole.y - modf(x).whole: two f32 operations.
		s := float64(float32(wy + wy))
		if w := s - wx; !wgslCorrectlyRounded(math.Float32frombits(g[7]), w) {
			m.add("element %d (x=%v y=%v) whole sum = %v, want %v", i, in[2*i], in[2*i+1], fl(7), w)
		}
	}
	m.done()
}

func testWGSLDot4Packed(t *testing.T, d *Device) {
	k := wgslKernel(t, d, "dot4_packed")
	const n = 256
	r := newRand(141)
	in := make([]uint32, 2*n)
	for i := range in {
		in[i] = r.Uint32()
	}
	in[0], in[1] = 0xffffffff, 0xffffffff
	in[2], in[3] = 0x80808080, 0x80808080
	res := wgslOutput(t, d, 8*n)
	wgslDispatch(t, k, n/64, 1, 1, At(0, wgslInput(t, d, u32bytes(in))), At(1, res))
	want := make([]uint32, 2*n)
	for i := range n {
		a, b := in[2*i], in[2*i+1]
		var u uint32
		var s int32
		for c := range 4 {
			u += uint32(uint8(a>>(8*c))) * uint32(uint8(b>>(8*c)))
			s += int32(int8(a>>(8*c))) * int32(int8(b>>(8*c)))
		}
		want[2*i], want[2*i+1] = u, uint32(s)
	}
	wgslExpectU32(t, "results", u32s(readback(t, res)), want, func(i int) string {
		return fmt.Sprintf("element %d %s(%#x, %#x)", i/2, []string{"dot4U8Packed", "dot4I8Packed"}[i%2], in[i/2*2], in[i/2*2+1])
	})
}

func testWGSLTwoEntryPoints(t *testing.T, d *Device) {
	const n = 512
	r := newRand(142)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	inBuf := wgslInput(t, d, u32bytes(in))
	mixin := func(x, salt uint32) uint32 { return x*2654435761 + salt }
	for _, entry := range []string{"", "main", "twice"} {
		var k *Kernel
		if wgslReference() != "" {
			k = wgslKernelWith(t, d, "two_entry_points", entry, nil)
		} else {
			// Through Device.Compile, which passes shader.Options.EntryPoint on.
			src, err := os.ReadFile(wgslPath("two_entry_points"))
			if err != nil {
				t.Fatal(err)
			}
			k, err = d.Compile(src, shader.Options{Filename: wgslPath("two_entry_points"), EntryPoint: entry, NoCache: true})
			if err != nil {
				t.Fatalf("Compile with EntryPoint %q: %v", entry, err)
			}
			t.Cleanup(func() { k.Close() })
		}
		res := wgslOutput(t, d, 4*n)
		want := make([]uint32, n)
		if entry == "twice" {
			if ls := k.LocalSize(); ls != [3]uint32{16, 2, 1} {
				t.Errorf("entry twice: LocalSize() = %v, want [16 2 1]", ls)
			}
			wgslDispatch(t, k, 4, 4, 1, At(0, inBuf), At(1, res)) // 64 x 8 invocations
			for i, v := range in {
				want[i] = mixin(mixin(v, 11), 11) ^ 0xffffffff
			}
		} else {
			if ls := k.LocalSize(); ls != [3]uint32{64, 1, 1} {
				t.Errorf("entry %q: LocalSize() = %v, want [64 1 1]", entry, ls)
			}
			wgslDispatch(t, k, n/64, 1, 1, At(0, inBuf), At(1, res))
			for i, v := range in {
				want[i] = mixin(v, 7)
			}
		}
		wgslExpectU32(t, fmt.Sprintf("entry point %q", entry), u32s(readback(t, res)), want, nil)
	}
}
