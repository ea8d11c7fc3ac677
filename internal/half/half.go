// Package half converts between IEEE 754 half-precision (binary16) bits and
// float32, for the packages that read or write f16 values: tensor
// references, specialization constants, WGSL constant evaluation and gfxcuda
// run's summaries. Its tests are package tensor's (every half round
// trips; rounding to nearest even on random floats).
package half

import "math"

// ToFloat32 decodes an IEEE 754 half; every half, NaNs included, has an
// exact float32.
func ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man · 2^-24
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// FromFloat32 encodes v as an IEEE 754 half, rounding to nearest even;
// beyond the largest half it is infinity, a NaN stays a (quiet) NaN.
func FromFloat32(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff { // Inf, NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 31 {
		return sign | 0x7c00
	}
	if e <= 0 { // subnormal or zero
		if e < -10 {
			return sign
		}
		m := man | 0x800000
		shift := uint(14 - e)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, which is right (up to Inf)
	}
	return sign | uint16(h)
}
