package spirv

import (
	"errors"
	"slices"
	"testing"
)

// TestInstructions walks a well-formed stream, one cut short by fn, and
// malformed ones (zero word count, an instruction past the end): fn sees
// every instruction before the fault, nothing after it, and the fault is
// an ErrInvalid.
func TestInstructions(t *testing.T) {
	head := []uint32{spvMagic, 0x10300, 0, 10, 0}
	type seen struct {
		pos int
		op  uint32
		ops []uint32
	}
	walk := func(w []uint32, max int) ([]seen, error) {
		var got []seen
		err := Instructions(w, func(pos int, op uint32, ops []uint32) bool {
			got = append(got, seen{pos, op, slices.Clone(ops)})
			return len(got) < max
		})
		return got, err
	}
	w := slices.Concat(head, []uint32{2<<16 | OpCapability, 1, 1<<16 | 300, 3<<16 | OpTypeArray, 4, 5})
	want := []seen{{5, OpCapability, []uint32{1}}, {7, 300, []uint32{}}, {8, OpTypeArray, []uint32{4, 5}}}
	eq := func(a, b seen) bool { return a.pos == b.pos && a.op == b.op && slices.Equal(a.ops, b.ops) }
	for _, c := range []struct {
		name string
		w    []uint32
		max  int
		want []seen
		bad  bool
	}{
		{"whole", w, 99, want, false},
		{"header only", head, 99, nil, false},
		{"stopped by fn", w, 2, want[:2], false},
		{"zero word count", slices.Concat(w[:8], []uint32{0}, w[8:]), 99, want[:2], true},
		{"past the end", w[:len(w)-1], 99, want[:2], true},
	} {
		got, err := walk(c.w, c.max)
		if !slices.EqualFunc(got, c.want, eq) {
			t.Errorf("%s: saw %v, want %v", c.name, got, c.want)
		}
		if bad := errors.Is(err, ErrInvalid); bad != c.bad || (err != nil && !bad) {
			t.Errorf("%s: error %v, want ErrInvalid: %v", c.name, err, c.bad)
		}
	}

	// The operands are a window on the words: writing them patches the module.
	_ = Instructions(w, func(_ int, op uint32, ops []uint32) bool {
		if op == OpTypeArray {
			ops[1] = 6
		}
		return true
	})
	if w[10] != 6 {
		t.Errorf("patched operand: word 10 is %d, want 6", w[10])
	}
}

// TestLiteralStrings round-trips strings of every length modulo 4 through
// EncodeString and DecodeString, with the words that follow them.
func TestLiteralStrings(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "main", "SPV_EXT_descriptor_indexing"} {
		w := EncodeString(s)
		if len(w) != len(s)/4+1 || byte(w[len(w)-1]>>24) != 0 {
			t.Errorf("EncodeString(%q) = %#x: not nul-terminated in whole words", s, w)
		}
		got, n := DecodeString(append(w, 0x41414141))
		if got != s || n != len(w) {
			t.Errorf("DecodeString(EncodeString(%q)) = %q, %d; want %q, %d", s, got, n, s, len(w))
		}
	}
	if s, n := DecodeString([]uint32{0x64636261}); s != "abcd" || n != 1 { // no terminator
		t.Errorf("unterminated: %q, %d", s, n)
	}
}
