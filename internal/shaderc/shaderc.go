// Package shaderc is a thin cgo binding to the shaderc C API: it compiles
// GLSL and HLSL source into SPIR-V in process.
//
// shaderc, glslang and SPIRV-Tools are linked statically (Debian's
// libshaderc.so.1 is under-linked and fails to load), so binaries built with
// this package need only libstdc++, libm and libc at run time. On Windows
// the mingw build of scripts/windows-shaderc.sh (one libshaderc_combined.a)
// and mingw's libstdc++ and winpthread are linked statically: no DLL beyond
// Windows' own is needed.
//
// Compiler objects are not free to create. The package-level Compile draws
// them from a pool that grows to the number of concurrent callers and keeps
// them for the life of the process; a Compiler made with NewCompiler may be
// used by several goroutines at once, as shaderc documents its compile call
// to be thread safe.
package shaderc

/*
#cgo linux LDFLAGS: -Wl,-Bstatic -lshaderc_combined -lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lOGLCompiler -lHLSL -lSPIRV -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,-Bdynamic -lstdc++ -lm -lpthread
#cgo windows LDFLAGS: -Wl,-Bstatic -lshaderc_combined -lstdc++ -lwinpthread -Wl,-Bdynamic
#include <stdint.h>
#include <stdlib.h>
#include <shaderc/shaderc.h>
#include <glslang/build_info.h>
#include <spirv-tools/libspirv.h>

// Defined in include.c.
extern void gfx_shaderc_set_includer(shaderc_compile_options_t opts, uintptr_t handle);

static unsigned gfx_glslang_major(void) { return GLSLANG_VERSION_MAJOR; }
static unsigned gfx_glslang_minor(void) { return GLSLANG_VERSION_MINOR; }
static unsigned gfx_glslang_patch(void) { return GLSLANG_VERSION_PATCH; }
static const char *gfx_glslang_flavor(void) { return GLSLANG_VERSION_FLAVOR; }
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// Language is the source language of a compilation.
type Language int

// Source languages.
const (
	GLSL Language = iota // OpenGL Shading Language (Vulkan flavour)
	HLSL                 // High Level Shading Language (glslang's front end)
)

// String returns "GLSL" or "HLSL".
func (l Language) String() string {
	switch l {
	case GLSL:
		return "GLSL"
	case HLSL:
		return "HLSL"
	}
	return fmt.Sprintf("Language(%d)", int(l))
}

// Kind is the pipeline stage a source is compiled for.
type Kind int

// Shader kinds.
const (
	Compute Kind = iota
	Vertex
	Fragment
	Geometry
	TessControl
	TessEvaluation
)

// String returns the stage's name in lower case.
func (k Kind) String() string {
	switch k {
	case Compute:
		return "compute"
	case Vertex:
		return "vertex"
	case Fragment:
		return "fragment"
	case Geometry:
		return "geometry"
	case TessControl:
		return "tesscontrol"
	case TessEvaluation:
		return "tessevaluation"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) c() (C.shaderc_shader_kind, error) {
	switch k {
	case Compute:
		return C.shaderc_compute_shader, nil
	case Vertex:
		return C.shaderc_vertex_shader, nil
	case Fragment:
		return C.shaderc_fragment_shader, nil
	case Geometry:
		return C.shaderc_geometry_shader, nil
	case TessControl:
		return C.shaderc_tess_control_shader, nil
	case TessEvaluation:
		return C.shaderc_tess_evaluation_shader, nil
	}
	return 0, fmt.Errorf("shaderc: unknown shader kind %d", int(k))
}

// Optimization is a shaderc optimisation level.
type Optimization int

// Optimisation levels.
const (
	OptimizeNone        Optimization = iota // no optimisation (shaderc's default)
	OptimizeSize                            // minimise code size
	OptimizePerformance                     // optimise for speed
)

// Env is the Vulkan version the SPIR-V targets; it also picks the SPIR-V
// version (Vulkan 1.0: SPIR-V 1.0, 1.1: 1.3, 1.2: 1.5, 1.3: 1.6).
type Env int

// Target environments. The zero value is shaderc's default, Vulkan 1.0.
const (
	EnvDefault Env = iota
	EnvVulkan1_0
	EnvVulkan1_1
	EnvVulkan1_2
	EnvVulkan1_3
)

// IncludeType tells how a file was named in an #include directive.
type IncludeType int

// Include types.
const (
	IncludeRelative IncludeType = iota // #include "name"
	IncludeStandard                    // #include <name>
)

// IncludeFunc resolves an #include directive. requested is the name in the
// directive, requesting the resolved name of the file that contains it (the
// input file name for the top-level source) and depth the nesting level,
// starting at 1. It returns the resolved name, which must identify the file
// uniquely (an absolute path, say) and is used in diagnostics, and the
// file's contents. A non-nil error fails the compilation with its message.
type IncludeFunc func(requested string, typ IncludeType, requesting string, depth int) (name string, content []byte, err error)

// Macro is a preprocessor definition, as with -DName=Value. An empty Value
// defines the macro with an empty replacement list.
type Macro struct {
	Name, Value string
}

// Options configures one compilation.
type Options struct {
	Language     Language
	Kind         Kind
	EntryPoint   string // "main" when empty
	Filename     string // tag used in diagnostics; "shader" when empty
	Macros       []Macro
	Optimization Optimization
	Env          Env

	DebugInfo        bool // keep names and emit source line information
	SuppressWarnings bool
	WarningsAsErrors bool
	AutoBindUniforms bool // give resources without an explicit binding one
	HLSLIOMapping    bool // map HLSL register numbers with glslang's HLSL I/O mapper
	HLSLOffsets      bool // lay out HLSL cbuffers with HLSL packing rules

	// BindingBase shifts the bindings of each kind of resource
	// (shaderc_compile_options_set_binding_base), explicit ones included:
	// with HLSLIOMapping, HLSL registers b, t, u and s are the kinds
	// UniformBuffer, Texture, UAV and Sampler, so bases like DXC's
	// -fvk-{b,t,u,s}-shift give each register class its own range.
	BindingBase map[UniformKind]uint32

	// Include resolves #include directives; nil rejects them.
	Include IncludeFunc
}

// UniformKind is a kind of resource that BindingBase shifts
// (shaderc_uniform_kind).
type UniformKind int

// Resource kinds.
const (
	KindImage         UniformKind = C.shaderc_uniform_kind_image                 // storage images
	KindSampler       UniformKind = C.shaderc_uniform_kind_sampler               // samplers (HLSL s)
	KindTexture       UniformKind = C.shaderc_uniform_kind_texture               // sampled images (HLSL t)
	KindBuffer        UniformKind = C.shaderc_uniform_kind_buffer                // uniform buffers (HLSL b)
	KindStorageBuffer UniformKind = C.shaderc_uniform_kind_storage_buffer        // storage buffers
	KindUAV           UniformKind = C.shaderc_uniform_kind_unordered_access_view // HLSL u
)

// Result is a successful compilation.
type Result struct {
	SPIRV    []byte // the module, little-endian 32-bit words (Preprocess: the text)
	Warnings int    // number of warnings
	Log      string // the compiler's messages (warnings), "file:line: warning: ..."
}

// Status is shaderc's compilation status.
type Status int

// Compilation statuses, as in shaderc_compilation_status.
const (
	StatusSuccess            Status = C.shaderc_compilation_status_success
	StatusInvalidStage       Status = C.shaderc_compilation_status_invalid_stage
	StatusCompilationError   Status = C.shaderc_compilation_status_compilation_error
	StatusInternalError      Status = C.shaderc_compilation_status_internal_error
	StatusNullResultObject   Status = C.shaderc_compilation_status_null_result_object
	StatusInvalidAssembly    Status = C.shaderc_compilation_status_invalid_assembly
	StatusValidationError    Status = C.shaderc_compilation_status_validation_error
	StatusTransformError     Status = C.shaderc_compilation_status_transformation_error
	StatusConfigurationError Status = C.shaderc_compilation_status_configuration_error
)

// String returns a short description of the status.
func (s Status) String() string {
	switch s {
	case StatusSuccess:
		return "success"
	case StatusInvalidStage:
		return "invalid stage"
	case StatusCompilationError:
		return "compilation error"
	case StatusInternalError:
		return "internal error"
	case StatusNullResultObject:
		return "null result object"
	case StatusInvalidAssembly:
		return "invalid assembly"
	case StatusValidationError:
		return "validation error"
	case StatusTransformError:
		return "transformation error"
	case StatusConfigurationError:
		return "configuration error"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Error is a failed compilation.
type Error struct {
	Status   Status
	Errors   int    // number of errors reported
	Warnings int    // number of warnings reported
	Log      string // the compiler's messages, "file:line: error: ..." lines
}

// Error returns the compiler's log, or the status when the log is empty.
func (e *Error) Error() string {
	if e.Log != "" {
		return "shaderc: " + e.Log
	}
	return "shaderc: " + e.Status.String()
}

// ErrInit is returned when shaderc cannot create a compiler.
var ErrInit = errors.New("shaderc: cannot initialise compiler")

// Compiler is a shaderc compiler object. It is safe for concurrent use.
type Compiler struct {
	mu sync.RWMutex // guards c against Close during a compilation
	c  C.shaderc_compiler_t
}

// NewCompiler creates a compiler. Close releases it.
func NewCompiler() (*Compiler, error) {
	c := C.shaderc_compiler_initialize()
	if c == nil {
		return nil, ErrInit
	}
	return &Compiler{c: c}, nil
}

// Close releases the compiler. It must not be used afterwards.
func (c *Compiler) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c != nil {
		C.shaderc_compiler_release(c.c)
		c.c = nil
	}
}

// Compile compiles src into SPIR-V. A compilation that fails returns an
// *Error carrying the compiler's diagnostics.
func (c *Compiler) Compile(src []byte, o *Options) (*Result, error) {
	return c.compile(src, o, false)
}

// Preprocess runs only the preprocessor over src, with the macros and
// include resolver of o. Result.SPIRV then holds the preprocessed text; its
// line structure follows the source's.
func (c *Compiler) Preprocess(src []byte, o *Options) (*Result, error) {
	return c.compile(src, o, true)
}

func (c *Compiler) compile(src []byte, o *Options, preprocessOnly bool) (*Result, error) {
	if o == nil {
		o = &Options{}
	}
	kind, err := o.Kind.c()
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		// glslang dumps its built-in declarations to stdout when asked
		// to compile an empty GLSL source; refuse it here instead.
		return nil, &Error{Status: StatusCompilationError, Errors: 1, Log: "empty source\n"}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.c == nil {
		return nil, errors.New("shaderc: compiler is closed")
	}

	opts := C.shaderc_compile_options_initialize()
	if opts == nil {
		return nil, ErrInit
	}
	defer C.shaderc_compile_options_release(opts)

	switch o.Language {
	case GLSL:
		C.shaderc_compile_options_set_source_language(opts, C.shaderc_source_language_glsl)
	case HLSL:
		C.shaderc_compile_options_set_source_language(opts, C.shaderc_source_language_hlsl)
	default:
		return nil, fmt.Errorf("shaderc: unknown language %d", int(o.Language))
	}
	for _, m := range o.Macros {
		name := C.CString(m.Name)
		value := C.CString(m.Value)
		C.shaderc_compile_options_add_macro_definition(opts, name, C.size_t(len(m.Name)), value, C.size_t(len(m.Value)))
		C.free(unsafe.Pointer(name))
		C.free(unsafe.Pointer(value))
	}
	switch o.Optimization {
	case OptimizeNone:
		C.shaderc_compile_options_set_optimization_level(opts, C.shaderc_optimization_level_zero)
	case OptimizeSize:
		C.shaderc_compile_options_set_optimization_level(opts, C.shaderc_optimization_level_size)
	case OptimizePerformance:
		C.shaderc_compile_options_set_optimization_level(opts, C.shaderc_optimization_level_performance)
	default:
		return nil, fmt.Errorf("shaderc: unknown optimisation level %d", int(o.Optimization))
	}
	switch o.Env {
	case EnvDefault:
	case EnvVulkan1_0:
		C.shaderc_compile_options_set_target_env(opts, C.shaderc_target_env_vulkan, C.shaderc_env_version_vulkan_1_0)
	case EnvVulkan1_1:
		C.shaderc_compile_options_set_target_env(opts, C.shaderc_target_env_vulkan, C.shaderc_env_version_vulkan_1_1)
	case EnvVulkan1_2:
		C.shaderc_compile_options_set_target_env(opts, C.shaderc_target_env_vulkan, C.shaderc_env_version_vulkan_1_2)
	case EnvVulkan1_3:
		C.shaderc_compile_options_set_target_env(opts, C.shaderc_target_env_vulkan, C.shaderc_env_version_vulkan_1_3)
	default:
		return nil, fmt.Errorf("shaderc: unknown target environment %d", int(o.Env))
	}
	if o.DebugInfo {
		C.shaderc_compile_options_set_generate_debug_info(opts)
	}
	if o.SuppressWarnings {
		C.shaderc_compile_options_set_suppress_warnings(opts)
	}
	if o.WarningsAsErrors {
		C.shaderc_compile_options_set_warnings_as_errors(opts)
	}
	C.shaderc_compile_options_set_auto_bind_uniforms(opts, C.bool(o.AutoBindUniforms))
	C.shaderc_compile_options_set_hlsl_io_mapping(opts, C.bool(o.HLSLIOMapping))
	C.shaderc_compile_options_set_hlsl_offsets(opts, C.bool(o.HLSLOffsets))
	for k, base := range o.BindingBase {
		if k < KindImage || k > KindUAV {
			return nil, fmt.Errorf("shaderc: unknown uniform kind %d", int(k))
		}
		C.shaderc_compile_options_set_binding_base(opts, C.shaderc_uniform_kind(k), C.uint32_t(base))
	}

	if o.Include != nil {
		st := &includeState{fn: o.Include}
		h := cgo.NewHandle(st)
		defer h.Delete()
		C.gfx_shaderc_set_includer(opts, C.uintptr_t(h))
	}

	entry := o.EntryPoint
	if entry == "" {
		entry = "main"
	}
	filename := o.Filename
	if filename == "" {
		filename = "shader"
	}
	centry := C.CString(entry)
	defer C.free(unsafe.Pointer(centry))
	cfile := C.CString(filename)
	defer C.free(unsafe.Pointer(cfile))

	// The source is copied to C memory: shaderc keeps no reference to it
	// after the call, but a copy keeps cgo's pointer rules trivially true
	// and gives an empty source a valid address.
	csrc := C.CBytes(src)
	defer C.free(csrc)

	var res C.shaderc_compilation_result_t
	if preprocessOnly {
		res = C.shaderc_compile_into_preprocessed_text(c.c, (*C.char)(csrc), C.size_t(len(src)), kind, cfile, centry, opts)
	} else {
		res = C.shaderc_compile_into_spv(c.c, (*C.char)(csrc), C.size_t(len(src)), kind, cfile, centry, opts)
	}
	if res == nil {
		return nil, &Error{Status: StatusNullResultObject}
	}
	defer C.shaderc_result_release(res)

	status := Status(C.shaderc_result_get_compilation_status(res))
	log := C.GoString(C.shaderc_result_get_error_message(res))
	warnings := int(C.shaderc_result_get_num_warnings(res))
	if status != StatusSuccess {
		return nil, &Error{
			Status:   status,
			Errors:   int(C.shaderc_result_get_num_errors(res)),
			Warnings: warnings,
			Log:      log,
		}
	}
	n := C.shaderc_result_get_length(res)
	out := C.GoBytes(unsafe.Pointer(C.shaderc_result_get_bytes(res)), C.int(n))
	return &Result{SPIRV: out, Warnings: warnings, Log: log}, nil
}

// pool keeps idle compilers for the package-level Compile.
var pool struct {
	mu   sync.Mutex
	idle []*Compiler
}

func getCompiler() (*Compiler, error) {
	pool.mu.Lock()
	if n := len(pool.idle); n > 0 {
		c := pool.idle[n-1]
		pool.idle = pool.idle[:n-1]
		pool.mu.Unlock()
		return c, nil
	}
	pool.mu.Unlock()
	return NewCompiler()
}

func putCompiler(c *Compiler) {
	pool.mu.Lock()
	if len(pool.idle) < runtime.GOMAXPROCS(0) {
		pool.idle = append(pool.idle, c)
		c = nil
	}
	pool.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// Compile compiles src with a pooled compiler. It is safe for concurrent
// use.
func Compile(src []byte, o *Options) (*Result, error) {
	c, err := getCompiler()
	if err != nil {
		return nil, err
	}
	defer putCompiler(c)
	return c.Compile(src, o)
}

// Preprocess preprocesses src with a pooled compiler. It is safe for
// concurrent use.
func Preprocess(src []byte, o *Options) (*Result, error) {
	c, err := getCompiler()
	if err != nil {
		return nil, err
	}
	defer putCompiler(c)
	return c.Preprocess(src, o)
}

// Version describes the linked compiler: the versions of glslang and
// SPIRV-Tools and the highest SPIR-V version supported. It changes whenever
// the compiler's output might, so it is fit to be part of a cache key.
func Version() string {
	var v, rev C.uint
	C.shaderc_get_spv_version(&v, &rev)
	return fmt.Sprintf("shaderc (glslang %d.%d.%d%s; %s; SPIR-V %d.%d rev %d)",
		C.gfx_glslang_major(), C.gfx_glslang_minor(), C.gfx_glslang_patch(),
		C.GoString(C.gfx_glslang_flavor()),
		C.GoString(C.spvSoftwareVersionDetailsString()),
		(v>>16)&0xff, (v>>8)&0xff, rev)
}
