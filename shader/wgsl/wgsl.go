package wgsl

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
	// names: GLSL name -> WGSL name.
	Names map[string]string
}

// Translate checks a WGSL compute shader and translates it to GLSL. A
// program that does not follow the specification yields an ErrorList whose
// entries give file:line:col, what was expected or found, and the
// specification's term for the rule broken. Translate never panics; it is
// safe for concurrent use.
func Translate(src []byte, opts Options) (*Result, error) {
	panic("not written yet")
}
