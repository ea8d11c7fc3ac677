package compute

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/shader"
)

// Slot names a shader resource in text, as gfxcuda run's flags take it
// (and other front ends, such as a Python or C layer, may): "0" (register
// or binding 0), "1.3" (number 3 in space, or set, 1), "t0", "u2", "b1",
// "s0" (an HLSL register with its class), "space1.t3", or a resource's
// name.
type Slot struct {
	// Class is the register class the text gave ("t0"), or 0.
	Class shader.RegisterClass
	// Number is the register or binding number; -1 when Name is set.
	Number int
	// Space is the register space (descriptor set).
	Space uint32
	// Name is a resource name, when the text is not a number.
	Name string
}

// ParseSlot parses a slot: a number, SPACE.NUMBER, a register such as
// "u0" or "space1.t3" or "1.t3", or else a name.
func ParseSlot(s string) Slot {
	s = strings.TrimSpace(s)
	sl := Slot{Number: -1}
	rest := s
	if sp, r, ok := strings.Cut(s, "."); ok {
		sp = strings.TrimPrefix(strings.ToLower(sp), "space")
		if n, err := strconv.ParseUint(sp, 10, 32); err == nil {
			sl.Space, rest = uint32(n), r
		} else {
			return Slot{Number: -1, Name: s}
		}
	}
	if n, err := strconv.ParseUint(rest, 10, 31); err == nil {
		sl.Number = int(n)
		return sl
	}
	if len(rest) >= 2 {
		c := shader.RegisterClass(rest[0] | 0x20) // lower case
		if _, ok := c.Shift(); ok {
			if n, err := strconv.ParseUint(rest[1:], 10, 31); err == nil {
				sl.Class, sl.Number = c, int(n)
				return sl
			}
		}
	}
	return Slot{Number: -1, Name: s}
}

// String writes the slot back as ParseSlot reads it.
func (s Slot) String() string {
	if s.Name != "" {
		return s.Name
	}
	n := strconv.Itoa(s.Number)
	if s.Class != 0 {
		n = s.Class.String() + n
	}
	if s.Space != 0 {
		n = fmt.Sprintf("%d.%s", s.Space, n)
	}
	return n
}

// Arg binds r at the slot: by name, or by register class (the slot's own,
// else class; with neither, At).
func (s Slot) Arg(class shader.RegisterClass, r Resource) Arg {
	if s.Name != "" {
		return Named(s.Name, r)
	}
	if s.Class != 0 {
		class = s.Class
	}
	a := Arg{slot: s.Number, class: class, res: r}
	return a.Space(s.Space)
}

// Find returns the resource of k a slot names, for a resource of register
// class (0: any class); the error names the slot and lists the resources.
func (k *Kernel) Find(s Slot, class shader.RegisterClass) (*shader.Resource, error) {
	return k.Resolve(s.Arg(class, nil))
}

// BindSpec is one binding given as text: a register class (from the flag,
// such as --srv), a slot and what to bind there, "0:a.npy".
type BindSpec struct {
	Class shader.RegisterClass
	Slot  Slot
	// Value is the text after the slot: a size, a file, a texture or
	// sampler description; its meaning is the front end's.
	Value string
}

// ParseBindSpec parses SLOT:VALUE for a resource of register class.
func ParseBindSpec(class shader.RegisterClass, text string) (BindSpec, error) {
	slot, value, ok := strings.Cut(text, ":")
	if !ok || value == "" || slot == "" {
		return BindSpec{}, fmt.Errorf("%q: give SLOT:VALUE, such as 0:4096", text)
	}
	s := ParseSlot(slot)
	if s.Class != 0 && class != 0 && s.Class != class {
		return BindSpec{}, fmt.Errorf("%q: register %s is not of class %s", text, s, class)
	}
	return BindSpec{Class: class, Slot: s, Value: value}, nil
}

// ParseSize parses a byte count with an optional k, M or G suffix (powers
// of 1024); 0 is refused.
func ParseSize(s string) (uint64, bool) {
	mul := uint64(1)
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 || v > math.MaxUint64/mul {
		return 0, false
	}
	return v * mul, true
}

// ParseExtent parses X[,Y[,Z]] (or WxHxD); missing components are 1.
func ParseExtent(s string) ([3]uint32, error) {
	out := [3]uint32{1, 1, 1}
	parts := strings.Split(strings.NewReplacer("x", ",", "X", ",", "×", ",").Replace(s), ",")
	if len(parts) > 3 {
		return out, fmt.Errorf("want 1 to 3 numbers")
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		if err != nil {
			return out, fmt.Errorf("%q is not a number", p)
		}
		out[i] = uint32(v)
	}
	return out, nil
}

// SamplerSpec describes a sampler: filters and address modes.
type SamplerSpec struct {
	MinFilter, MagFilter         Filter
	AddressU, AddressV, AddressW AddressMode
}

// ParseSampler parses FILTER[:ADDRESS[:ADDRESS_V[:ADDRESS_W]]], FILTER
// point or linear (or MIN,MAG), ADDRESS wrap, mirror, clamp or border.
func ParseSampler(spec string) (SamplerSpec, error) {
	parts := strings.Split(spec, ":")
	filter := func(s string) (Filter, error) {
		switch strings.ToLower(s) {
		case "point", "nearest":
			return FilterPoint, nil
		case "linear", "bilinear":
			return FilterLinear, nil
		}
		return 0, fmt.Errorf("unknown filter %q: give point or linear", s)
	}
	var sp SamplerSpec
	minS, magS, two := strings.Cut(parts[0], ",")
	var err error
	if sp.MinFilter, err = filter(minS); err != nil {
		return sp, err
	}
	sp.MagFilter = sp.MinFilter
	if two {
		if sp.MagFilter, err = filter(magS); err != nil {
			return sp, err
		}
	}
	addr := []*AddressMode{&sp.AddressU, &sp.AddressV, &sp.AddressW}
	for _, a := range addr {
		*a = AddressWrap
	}
	if len(parts) > 4 {
		return sp, fmt.Errorf("sampler %q: give FILTER[:ADDRESS[:V[:W]]]", spec)
	}
	for i, p := range parts[1:] {
		var m AddressMode
		switch strings.ToLower(p) {
		case "", "wrap", "repeat":
			m = AddressWrap
		case "mirror":
			m = AddressMirror
		case "clamp":
			m = AddressClamp
		case "border":
			m = AddressBorder
		default:
			return sp, fmt.Errorf("unknown address mode %q: give wrap, mirror, clamp or border", p)
		}
		for _, a := range addr[i:] { // one mode given applies to the rest
			*a = m
		}
	}
	return sp, nil
}

// CheckBufferSize says whether size bytes fit the buffer resource r: at
// least its fixed part, and a whole number of its runtime array's
// elements; the error says which sizes would.
func CheckBufferSize(r *shader.Resource, size uint64) error {
	if !r.Kind.IsBuffer() || r.Kind == shader.UniformTexelBuffer || r.Kind == shader.StorageTexelBuffer {
		return nil
	}
	if size < uint64(r.Size) {
		return fmt.Errorf("%s needs at least %d bytes (%s); %d bytes given", r.Name, r.Size, members(r), size)
	}
	if r.Stride > 0 && (size-uint64(r.Size))%uint64(r.Stride) != 0 {
		n := (size - uint64(r.Size)) / uint64(r.Stride)
		after := ""
		if r.Size > 0 {
			after = fmt.Sprintf(" after %d bytes", r.Size)
		}
		below, above := uint64(r.Size)+n*uint64(r.Stride), uint64(r.Size)+(n+1)*uint64(r.Stride)
		use := fmt.Sprintf("use %d or %d", below, above)
		if below == 0 {
			use = fmt.Sprintf("use %d", above) // a buffer of 0 bytes is none
		}
		return fmt.Errorf("%s holds %d-byte elements%s; %d bytes is not a whole number of them (%s)",
			r.Name, r.Stride, after, size, use)
	}
	return nil
}

func members(r *shader.Resource) string {
	var ms []string
	for _, m := range r.Members {
		if m.Size > 0 {
			ms = append(ms, fmt.Sprintf("%s at %d, %d bytes", m.Name, m.Offset, m.Size))
		}
	}
	if len(ms) == 0 {
		return "its block"
	}
	return strings.Join(ms, "; ")
}
