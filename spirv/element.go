package spirv

// Element describes the elements of a buffer's trailing runtime-sized
// array: a StructuredBuffer's element type, the uint words of a
// ByteAddressBuffer, a GLSL buffer block's last member T x[].
type Element struct {
	// Scalar, Bits and Count say what an element is made of when all its
	// scalars have one type: Count scalars of Bits bits (a float4 is
	// ScalarFloat, 32, 4). For a struct mixing types, Scalar is
	// ScalarUnknown and Count 0.
	Scalar ScalarType
	Bits   int
	Count  int
	// Stride is the array stride in bytes: the element size with padding.
	Stride uint32
}

// Packed reports whether the element is Count scalars of one type with no
// padding, so that the buffer reads as a plain array of them.
func (e Element) Packed() bool {
	return e.Scalar != ScalarUnknown && e.Count > 0 && uint32(e.Count*e.Bits/8) == e.Stride
}

// ArrayElement describes the elements of the trailing runtime-sized array
// of the buffer bound at set and binding. ok is false when there is no such
// buffer, or its block ends in no runtime-sized array.
func (m *Module) ArrayElement(set, binding uint32) (e Element, ok bool) {
	w, err := decodeWords(m.SPIRV)
	if err != nil {
		return e, false
	}
	p := newParser()
	if instructions(w, p.inst) != nil {
		return e, false
	}
	for _, v := range p.globals {
		d := p.decos[v.id]
		if d == nil || d[decDescriptorSet] != set || d[decBinding] != binding {
			continue
		}
		if _, has := d[decBinding]; !has {
			continue
		}
		t, ok := p.pointee(v.typ)
		if !ok {
			continue
		}
		st, ok := p.types[t]
		if !ok || st.op != opTypeStruct || len(st.ops) == 0 {
			continue
		}
		last := st.ops[len(st.ops)-1]
		ra, ok := p.types[last]
		if !ok || ra.op != OpTypeRuntimeArray || len(ra.ops) < 1 {
			continue
		}
		e.Stride = p.decos[last][decArrayStride]
		e.Scalar, e.Bits, e.Count = p.scalars(ra.ops[0], 0)
		if e.Scalar == ScalarUnknown {
			e.Bits, e.Count = 0, 0
		}
		return e, true
	}
	return e, false
}

// scalars returns the scalar type, width and count of type id, or
// ScalarUnknown if it mixes scalar types or is not made of scalars.
func (p *parser) scalars(id uint32, depth int) (ScalarType, int, int) {
	t, ok := p.types[id]
	if !ok || depth > maxTypeDepth {
		return ScalarUnknown, 0, 0
	}
	switch t.op {
	case opTypeFloat:
		if len(t.ops) >= 1 {
			return ScalarFloat, int(t.ops[0]), 1
		}
	case opTypeInt:
		if len(t.ops) >= 2 {
			if t.ops[1] == 1 {
				return ScalarInt, int(t.ops[0]), 1
			}
			return ScalarUint, int(t.ops[0]), 1
		}
	case opTypeVector, opTypeMatrix:
		if len(t.ops) >= 2 {
			s, b, n := p.scalars(t.ops[0], depth+1)
			return s, b, n * int(t.ops[1])
		}
	case OpTypeArray:
		if len(t.ops) >= 2 {
			s, b, n := p.scalars(t.ops[0], depth+1)
			k, _ := p.constValue(t.ops[1])
			return s, b, n * int(clamp32(k))
		}
	case opTypeStruct:
		var s ScalarType
		var bits, count int
		for i, mt := range t.ops {
			ms, mb, mn := p.scalars(mt, depth+1)
			if ms == ScalarUnknown || i > 0 && (ms != s || mb != bits) {
				return ScalarUnknown, 0, 0
			}
			s, bits, count = ms, mb, count+mn
		}
		if count > 0 {
			return s, bits, count
		}
	}
	return ScalarUnknown, 0, 0
}
