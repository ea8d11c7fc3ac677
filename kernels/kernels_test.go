package kernels

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestPTXMatchesSource checks that every extern "C" kernel in kernels.cu has
// an entry in the PTX and vice versa: the PTX was regenerated after the
// source last changed its kernels.
func TestPTXMatchesSource(t *testing.T) {
	src := Source
	want := regexp.MustCompile(`extern "C" __global__ void (\w+)\(`).FindAllStringSubmatch(string(src), -1)
	got := regexp.MustCompile(`\.entry (\w+)\(`).FindAllStringSubmatch(string(PTX), -1)
	names := func(ms [][]string) []string {
		var s []string
		for _, m := range ms {
			s = append(s, m[1])
		}
		sort.Strings(s)
		return s
	}
	w, g := names(want), names(got)
	if len(w) == 0 || len(w) != len(g) {
		t.Fatalf("kernels.cu has %v, kernels.ptx has %v: run scripts/gen-ptx.sh", w, g)
	}
	for i := range w {
		if w[i] != g[i] {
			t.Errorf("kernels.cu has %s, kernels.ptx has %s: run scripts/gen-ptx.sh", w[i], g[i])
		}
	}
	for _, k := range []string{FillHash, XorU32, SurfXor, RGBA8ToF32, CheckHash, SurfLinear} {
		if !regexp.MustCompile(`\.entry ` + k + `\(`).Match(PTX) {
			t.Errorf("constant %s names no kernel", k)
		}
	}
}

func TestHash32(t *testing.T) {
	// Values of lowbias32 (Chris Wellons' published constants).
	seen := map[uint32]bool{}
	for i := uint32(0); i < 1000; i++ {
		h := Hash32(i)
		if seen[h] {
			t.Fatalf("collision at %d", i)
		}
		seen[h] = true
	}
	if Hash32(0) != 0 {
		t.Errorf("Hash32(0) = %#x, want 0", Hash32(0))
	}
}

// directive returns the operands of the one line starting with .name.
func directive(t *testing.T, name string) string {
	t.Helper()
	ms := regexp.MustCompile(`(?m)^\.`+name+`[ \t]+(\S+)[ \t]*$`).FindAllSubmatch(PTX, -1)
	if len(ms) != 1 {
		t.Fatalf("kernels.ptx has %d .%s lines, want 1", len(ms), name)
	}
	return string(ms[0][1])
}

// TestPTXDirectives pins the PTX ISA version and target: a CUDA 12.0 driver
// refuses PTX newer than ISA 8.0, and nvcc 13 writes 9.0 unless
// scripts/gen-ptx.sh lowers it.
func TestPTXDirectives(t *testing.T) {
	v := directive(t, "version")
	if v != PTXVersion {
		t.Errorf(".version %s, want %s: regenerate with scripts/gen-ptx.sh", v, PTXVersion)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		t.Fatalf(".version %q: %v", v, err)
	}
	if major*10+minor > 80 {
		t.Errorf(".version %s is newer than PTX ISA 8.0: CUDA 12.0 drivers cannot load it", v)
	}
	tg := directive(t, "target")
	if tg != PTXTarget {
		t.Errorf(".target %s, want %s: regenerate with scripts/gen-ptx.sh", tg, PTXTarget)
	}
	m := regexp.MustCompile(`^sm_(\d+)$`).FindStringSubmatch(tg)
	if m == nil {
		t.Fatalf(".target %q is not a plain sm_NN (an arch-specific target such as sm_90a runs on one GPU family only)", tg)
	}
	if n, _ := strconv.Atoi(m[1]); n > 75 {
		t.Errorf(".target %s is newer than the kernels need", tg)
	}
	if a := directive(t, "address_size"); a != "64" {
		t.Errorf(".address_size %s, want 64", a)
	}
}

// TestPTXInstructions checks that the kernels use only instructions that
// PTX ISA 4.0 on sm_50 has, so the lowered directives stay true when the
// kernels change: a new instruction must be checked against the PTX manual
// (and the directives raised if needed) before it is added here.
func TestPTXInstructions(t *testing.T) {
	known := map[string]bool{}
	for _, op := range strings.Fields(`add sub mul mad div rem neg min max abs and or xor not shl shr
		setp selp slct cvt cvta mov ld st atom bra ret exit bar membar suld sust fma rcp sqrt`) {
		known[op] = true
	}
	// Instructions from ISA 6.0 and later that nvcc may choose for sm_75
	// code but that must not appear here (the 1st part is the opcode).
	newer := map[string]string{"shfl": "shfl.sync needs ISA 6.0", "redux": "redux.sync needs sm_80",
		"cp": "cp.async needs sm_80", "ldmatrix": "sm_75", "mma": "sm_70", "wmma": "sm_70",
		"match": "sm_70", "nanosleep": "sm_70", "activemask": "ISA 6.2", "vote": "vote.sync needs ISA 6.0"}
	label := regexp.MustCompile(`^\$?[\w$]+:$`)
	seen := map[string]bool{}
	for i, line := range strings.Split(string(PTX), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "//") || strings.HasPrefix(f[0], ".") ||
			f[0] == "{" || f[0] == "}" || f[0] == ")" || label.MatchString(f[0]) {
			continue
		}
		ins := f[0]
		if strings.HasPrefix(ins, "@") { // predicate guard
			if len(f) < 2 {
				t.Fatalf("line %d: guard without instruction: %q", i+1, line)
			}
			ins = f[1]
		}
		op := strings.TrimSuffix(strings.SplitN(ins, ".", 2)[0], ";")
		if why, ok := newer[op]; ok {
			t.Errorf("line %d: %s (%s): raise PTXVersion/PTXTarget or avoid it", i+1, ins, why)
			continue
		}
		if !known[op] {
			t.Errorf("line %d: instruction %q not checked against PTX ISA %s / %s", i+1, ins, PTXVersion, PTXTarget)
		}
		seen[op] = true
	}
	if !seen["sust"] || !seen["suld"] || !seen["atom"] {
		t.Errorf("instructions seen %v: the scan missed the kernels' surface and atomic instructions", seen)
	}
}
