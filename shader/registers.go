package shader

import "fmt"

// RegisterClass is an HLSL register class: the letter of register(b0),
// register(t0), register(u0) or register(s0).
type RegisterClass byte

// HLSL register classes.
const (
	ClassCBV     RegisterClass = 'b' // constant buffers (cbuffer, ConstantBuffer<T>)
	ClassSRV     RegisterClass = 't' // read-only resources (StructuredBuffer, Texture2D, Buffer<T>, ...)
	ClassUAV     RegisterClass = 'u' // read-write resources (RWStructuredBuffer, RWTexture2D, ...)
	ClassSampler RegisterClass = 's' // samplers (SamplerState)
)

// Binding bases of the HLSL register classes, as compushady gives DXC
// (-fvk-t-shift 1024 0 -fvk-u-shift 2048 0 -fvk-s-shift 3072 0): register
// bN is binding N, tN binding 1024+N, uN 2048+N and sN 3072+N, in the
// descriptor set of the register's space. So b0, t0, u0 and s0 coexist in
// one shader, and SPIR-V compiled for compushady binds the same way.
const (
	RegisterShiftCBV     = 0
	RegisterShiftSRV     = 1024
	RegisterShiftUAV     = 2048
	RegisterShiftSampler = 3072
	// RegisterRange is the number of registers of each class.
	RegisterRange = 1024
)

// String returns the register letter ("t").
func (c RegisterClass) String() string {
	switch c {
	case ClassCBV, ClassSRV, ClassUAV, ClassSampler:
		return string(rune(c))
	}
	return fmt.Sprintf("RegisterClass(%d)", byte(c))
}

// Shift is the class's binding base.
func (c RegisterClass) Shift() (uint32, bool) {
	switch c {
	case ClassCBV:
		return RegisterShiftCBV, true
	case ClassSRV:
		return RegisterShiftSRV, true
	case ClassUAV:
		return RegisterShiftUAV, true
	case ClassSampler:
		return RegisterShiftSampler, true
	}
	return 0, false
}

// RegisterBinding returns the binding HLSL register class c number n gets.
func RegisterBinding(c RegisterClass, n uint32) (uint32, error) {
	base, ok := c.Shift()
	if !ok {
		return 0, fmt.Errorf("shader: unknown register class %q: use b, t, u or s", rune(c))
	}
	if n >= RegisterRange {
		return 0, fmt.Errorf("shader: register %s%d: registers go up to %d", c, n, RegisterRange-1)
	}
	return base + n, nil
}

// RegisterOf returns the register class and number of a binding made by
// HLSL register shifts: binding 2049 is u1. ok is false for bindings past
// the sampler range.
func RegisterOf(binding uint32) (c RegisterClass, n uint32, ok bool) {
	switch binding / RegisterRange {
	case 0:
		return ClassCBV, binding, true
	case 1:
		return ClassSRV, binding - RegisterShiftSRV, true
	case 2:
		return ClassUAV, binding - RegisterShiftUAV, true
	case 3:
		return ClassSampler, binding - RegisterShiftSampler, true
	}
	return 0, 0, false
}

// ShiftedRegisters reports whether m's bindings follow the HLSL register
// shifts: some resource has a binding of 1024 or more. HLSL compiled by
// Compile does (unless Options.FlatRegisters), GLSL does not.
func ShiftedRegisters(m *Module) bool {
	for i := range m.Resources {
		if m.Resources[i].Binding >= RegisterShiftSRV {
			return true
		}
	}
	return false
}
