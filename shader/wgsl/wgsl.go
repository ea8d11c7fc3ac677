package wgsl

import "fmt"

// Options configures Translate.
type Options struct {
	// Filename names the source in errors ("<wgsl>" when empty).
	Filename string
	// EntryPoint is the name of the @compute function to translate. When
	// empty, the module's only @compute function is used, or the one named
	// "main" when there are several.
	EntryPoint string
}

// Result is a translated compute shader.
type Result struct {
	// GLSL is the GLSL 4.50 source for Vulkan (glslang's dialect). Its
	// entry function is main; #line directives map it back to the WGSL.
	GLSL string
	// EntryPoint is the WGSL name of the translated @compute function.
	EntryPoint string
	// Names maps identifiers the GLSL had to rename (GLSL keywords and
	// reserved words, names with "__" or a gl_ prefix) back to their WGSL
	// spelling, so that reflection of the compiled module reports the WGSL
	// names: GLSL name -> WGSL name. It also names the GLSL-only
	// identifiers: buffer block types (_wB_<var> -> the WGSL structure's
	// name, or the variable's for other store types), the entry function
	// (main -> its WGSL name), copies of functions specialized for pointer
	// arguments, predeclared result structures (frexp, modf, atomic
	// compare-exchange) and shadowing locals. Every key but main starts
	// with "_w", a prefix WGSL identifiers never keep in the GLSL, so
	// replacing names in the SPIR-V cannot touch a WGSL identifier.
	Names map[string]string
	// Overrides lists the override declarations the entry point statically
	// uses, in source order, with the specialization constant IDs they have
	// in the SPIR-V. An override is used when the entry point's functions
	// name it, or through @workgroup_size, the element count of a used
	// var<workgroup> array, or the initializer of a used variable or
	// override; only these are declared in the GLSL and need values (as in
	// WebGPU), whatever the module's other entry points use.
	Overrides []Override
	// WorkgroupSize is the entry point's workgroup size, with overrides at
	// their defaults (1 where an override has none).
	WorkgroupSize [3]uint32
	// Features names the Vulkan device features the GLSL needs beyond
	// those its SPIR-V capabilities declare: "uniformBufferStandardLayout"
	// (Vulkan 1.2) when a uniform buffer's WGSL layout has no std140
	// equivalent (a mat2x2<f32>, matCx2<f32> or f16 matrix, whose column
	// stride is 8, or padding after a nested structure) and the block is
	// declared std430; "shaderSubgroupExtendedTypes" (Vulkan 1.2) when a
	// subgroup or quad operation takes f16 values.
	Features []string
}

// Override is an override declaration of the module.
type Override struct {
	// Name is the WGSL name; the GLSL and SPIR-V name is the same unless
	// Result.Names says otherwise.
	Name string
	// ID is the SpecId: the @id attribute, or for overrides without one
	// the lowest ID not taken, in declaration order.
	ID uint32
	// Type is the WGSL type: bool, i32, u32, f32 or f16.
	Type string
	// HasDefault reports an initializer; an override without one must be
	// given a value when the pipeline is created.
	HasDefault bool
	// Default is the initializer's value when it is known at translation
	// time (bool as 0 or 1).
	Default float64
	// Specializable is false for an override whose initializer depends on
	// other overrides: it has no specialization constant of its own and
	// always takes its initializer's value.
	Specializable bool
}

// Translate checks a WGSL compute shader and translates it to GLSL. A
// program that does not follow the specification yields an ErrorList whose
// entries give file:line:col, what was expected or found, and the
// specification's term for the rule broken. Translate never panics; it is
// safe for concurrent use.
func Translate(src []byte, opts Options) (res *Result, err error) {
	file := opts.Filename
	if file == "" {
		file = "<wgsl>"
	}
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = ErrorList{{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error in the WGSL translator: %v", r), Rule: ruleInternal}}
		}
	}()
	mod, errs := parse(src, file)
	if len(errs) > 0 {
		return nil, errs
	}
	p, errs := check(mod, file, opts.EntryPoint, len(src)/6)
	if len(errs) > 0 {
		return nil, errs
	}
	if p.entry == nil {
		return nil, ErrorList{{File: file, Line: 1, Col: 1, Msg: "no compute entry point", Rule: ruleEntry}}
	}
	return write(p)
}
