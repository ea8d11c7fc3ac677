package kernels

import (
	"regexp"
	"sort"
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
