package shader

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gfxcuda/gfxcuda/internal/shaderc"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// Language is a shader source language.
type Language int

// Languages.
const (
	// LanguageAuto picks the language from the input: SPIR-V when it
	// starts with the SPIR-V magic number, else from the extension of
	// Options.Filename (.hlsl, .hlsli: HLSL; .glsl, .comp, .vert, .frag,
	// .geom, .tesc, .tese: GLSL; .wgsl: WGSL; .spv: SPIR-V), else GLSL for
	// a source with a #version directive, HLSL for one with a [numthreads]
	// attribute, and WGSL for one with an @compute attribute.
	LanguageAuto Language = iota
	HLSL
	GLSL
	// SPIRV is a SPIR-V binary, which Compile checks and reflects without
	// compiling.
	SPIRV
	// WGSL is the WebGPU Shading Language, compute shaders only (see
	// "WGSL" in the package documentation).
	WGSL
)

// String returns "auto", "HLSL", "GLSL", "SPIR-V" or "WGSL".
func (l Language) String() string {
	switch l {
	case LanguageAuto:
		return "auto"
	case HLSL:
		return "HLSL"
	case GLSL:
		return "GLSL"
	case SPIRV:
		return "SPIR-V"
	case WGSL:
		return "WGSL"
	}
	return fmt.Sprintf("Language(%d)", int(l))
}

// Stage is the pipeline stage a source is compiled for.
type Stage int

// Stages.
const (
	// StageAuto is compute, unless the extension of Options.Filename names
	// another stage (.vert, .frag, .geom, .tesc, .tese).
	StageAuto Stage = iota
	StageCompute
	StageVertex
	StageFragment
	StageGeometry
	StageTessControl
	StageTessEvaluation
)

// String returns the stage's name in lower case.
func (s Stage) String() string {
	switch s {
	case StageAuto:
		return "auto"
	case StageCompute:
		return "compute"
	case StageVertex:
		return "vertex"
	case StageFragment:
		return "fragment"
	case StageGeometry:
		return "geometry"
	case StageTessControl:
		return "tesscontrol"
	case StageTessEvaluation:
		return "tessevaluation"
	}
	return fmt.Sprintf("Stage(%d)", int(s))
}

func (s Stage) kind() (shaderc.Kind, error) {
	switch s {
	case StageCompute:
		return shaderc.Compute, nil
	case StageVertex:
		return shaderc.Vertex, nil
	case StageFragment:
		return shaderc.Fragment, nil
	case StageGeometry:
		return shaderc.Geometry, nil
	case StageTessControl:
		return shaderc.TessControl, nil
	case StageTessEvaluation:
		return shaderc.TessEvaluation, nil
	}
	return 0, fmt.Errorf("shader: unknown stage %d", int(s))
}

// Options configures Compile. The zero value compiles a compute shader whose
// entry point is main, in a language told from the input.
type Options struct {
	Language Language
	Stage    Stage
	// EntryPoint is the name of the entry function; "main" when empty.
	// For WGSL it names the @compute function, which the module's entry
	// point is then called; when empty, the source's only @compute
	// function, or the one called main when there are several.
	EntryPoint string
	// Filename names the source in diagnostics, picks the language and
	// stage when those are Auto, and is the directory relative #include
	// directives are resolved from first. CompileFile sets it to the path.
	Filename string
	// Defines are preprocessor macros, as with -DNAME=VALUE; an empty value
	// defines the macro with an empty replacement. WGSL, which has no
	// preprocessor, ignores them.
	Defines map[string]string
	// Optimize runs the SPIR-V optimiser for performance. Names are kept
	// so that reflection still finds resources by name.
	Optimize bool
	// IncludeDirs are searched, in order, for #include <file>, and for
	// #include "file" after the including file's directory (not WGSL).
	IncludeDirs []string
	// NoCache bypasses the on-disk cache, for reading and for writing.
	// Setting the environment variable GFXCUDA_SHADER_CACHE=off does the
	// same for every compilation.
	NoCache bool
	// CacheDir overrides the cache directory ($GFXCUDA_CACHE_DIR, else
	// os.UserCacheDir()/gfxcuda/shaders).
	CacheDir string
	// FlatRegisters gives HLSL resources the binding of their register
	// number whatever its class (glslang's default), so that t0 and u0
	// collide. By default each class has its own range: bN is binding N,
	// tN 1024+N, uN 2048+N, sN 3072+N (see RegisterShiftSRV); register
	// spaces are descriptor sets either way. [[vk::binding(N)]] is shifted
	// like its class too. GLSL keeps its binding numbers.
	FlatRegisters bool
	// NagaGLSL makes GLSL accept two constructs that naga, compushady's
	// GLSL compiler, accepts and glslang rejects: a uniform of a
	// non-opaque type outside a block becomes a uniform block at its set
	// and binding holding it, and a storage image's sampled type follows
	// its format qualifier (layout(r32ui) uniform image1D is a uimage1D).
	// See "naga GLSL" in the package documentation. Sources without those
	// constructs compile unchanged; included files are rewritten too.
	// HLSL ignores it.
	NagaGLSL bool
}

// compilerRuns counts invocations of the compiler, for tests.
var compilerRuns atomic.Int64

// CompileFile reads the file at path and compiles it; opts.Filename
// defaults to path.
func CompileFile(path string, opts Options) (*Module, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if opts.Filename == "" {
		opts.Filename = path
	}
	return Compile(src, opts)
}

// Compile compiles an HLSL, GLSL or WGSL source into SPIR-V for Vulkan 1.1
// (SPIR-V 1.3) and reflects the result. A SPIR-V binary is checked and
// reflected instead. Results are cached on disk (see the package
// documentation). A source the compiler rejects yields a *CompileError.
//
// WGSL compute shaders are checked and translated to GLSL in Go (package
// shader/wgsl), then compiled as GLSL; diagnostics give the WGSL file, line
// and column, and the module's entry point and names are the WGSL ones.
// override declarations become specialization constants
// (Module.SpecConstants), which compute.KernelOptions.Constants sets.
//
// Compile is safe for concurrent use.
func Compile(src []byte, opts Options) (*Module, error) {
	lang, err := detectLanguage(src, opts)
	if err != nil {
		return nil, err
	}
	if lang == SPIRV {
		m, err := Reflect(src)
		if err != nil {
			return nil, fmt.Errorf("shader: %s: %w", displayName(opts.Filename), err)
		}
		if opts.EntryPoint != "" && m.EntryPoint(opts.EntryPoint) == nil {
			return nil, fmt.Errorf("shader: %s: no entry point %q", displayName(opts.Filename), opts.EntryPoint)
		}
		return m, nil
	}

	stage := opts.Stage
	if stage == StageAuto {
		stage = stageFromExt(opts.Filename)
	}
	kind, err := stage.kind()
	if err != nil {
		return nil, err
	}
	entry := opts.EntryPoint
	if entry == "" {
		entry = "main"
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, &CompileError{
			Diagnostics: []Diagnostic{{File: displayName(opts.Filename), Message: "empty source"}},
			Log:         "empty source",
		}
	}
	// WGSL is translated to GLSL first, which is what is cached and
	// compiled (fromwgsl.go); the module is renamed after.
	var wt *wgslTranslation
	if lang == WGSL {
		if stage != StageCompute {
			return nil, fmt.Errorf("shader: %s: WGSL compiles compute shaders only, not the %s stage", displayName(opts.Filename), stage)
		}
		if wt, err = translateWGSL(src, opts); err != nil {
			return nil, err
		}
		src, entry = []byte(wt.res.GLSL), "main"
	}
	includeDirs := make([]string, len(opts.IncludeDirs))
	for i, d := range opts.IncludeDirs {
		if a, err := filepath.Abs(d); err == nil {
			d = a
		}
		includeDirs[i] = d
	}

	var c *cache
	var key string
	if !opts.NoCache {
		c = openCache(opts.CacheDir)
	}
	if c != nil {
		key = cacheKey(src, lang, stage, entry, opts, includeDirs, wt.keyFields()...)
		if e := c.get(key); e != nil {
			m, err := Reflect(e.spirv)
			if err == nil {
				m.Warnings = renameDiagnostics(parseDiagnostics(e.log), e.filename, displayName(opts.Filename))
				m.Cached = true
				return m, nil
			}
		}
	}

	// compushady's GLSL, rewritten after the cache lookup: a hit costs no
	// rewrite (the key has the original source and the option).
	naga := lang == GLSL && opts.NagaGLSL
	var nr nagaRewrite
	if naga {
		nr = rewriteNagaGLSL(src) // nagaglsl.go
		src = nr.src
	}
	inc := &includer{dirs: includeDirs, naga: naga}
	so := &shaderc.Options{
		Kind:             kind,
		EntryPoint:       entry,
		Filename:         displayName(opts.Filename),
		Env:              shaderc.EnvVulkan1_1,
		AutoBindUniforms: true,
		Include:          inc.resolve,
	}
	if lang == HLSL {
		so.Language = shaderc.HLSL
		if !opts.FlatRegisters {
			so.HLSLIOMapping = true
			so.BindingBase = map[shaderc.UniformKind]uint32{
				shaderc.KindBuffer:  RegisterShiftCBV,
				shaderc.KindTexture: RegisterShiftSRV,
				shaderc.KindUAV:     RegisterShiftUAV,
				shaderc.KindSampler: RegisterShiftSampler,
			}
		}
	} else {
		so.Language = shaderc.GLSL
	}
	names := make([]string, 0, len(opts.Defines))
	for k := range opts.Defines {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if lang != WGSL {
			so.Macros = append(so.Macros, shaderc.Macro{Name: k, Value: opts.Defines[k]})
		}
	}
	if opts.Optimize {
		// Debug info keeps OpName through the optimiser; stripDebug then
		// drops the line tables and embedded source it also brings.
		so.Optimization = shaderc.OptimizePerformance
		so.DebugInfo = true
	}

	if lang == HLSL {
		if err := guardNumthreads(src, so); err != nil {
			return nil, err
		}
	}
	compilerRuns.Add(1)
	res, err := shaderc.Compile(src, so)
	if err != nil {
		var se *shaderc.Error
		if errors.As(err, &se) {
			ce := &CompileError{Diagnostics: parseDiagnostics(se.Log), Log: se.Log}
			if naga {
				inc.addNagaNotes(ce, displayName(opts.Filename), nr.notes)
			}
			return nil, ce
		}
		return nil, fmt.Errorf("shader: %s: %w", displayName(opts.Filename), err)
	}
	out := res.SPIRV
	if lang == HLSL {
		out = unsizeArrays(out, unsizedNames(src)) // unsized.go; before StripDebug drops the names
	}
	if opts.Optimize {
		if out, err = spirv.StripDebug(out); err != nil {
			return nil, fmt.Errorf("shader: compiler output: %w", err)
		}
	}
	if wt != nil {
		// The WGSL entry point's and identifiers' names (fromwgsl.go).
		if out, err = spirv.Rewrite(out, wt.rewrites()); err != nil {
			return nil, fmt.Errorf("shader: compiler output: %w", err)
		}
	}
	m, err := spirv.Reflect(out)
	if err != nil {
		return nil, fmt.Errorf("shader: compiler output: %w", err)
	}
	m.Warnings = parseDiagnostics(res.Log)
	if c != nil {
		c.put(key, &cacheEntry{
			filename: displayName(opts.Filename),
			log:      res.Log,
			deps:     inc.deps,
			spirv:    m.SPIRV,
		})
	}
	return m, nil
}

func displayName(filename string) string {
	if filename == "" {
		return "<source>"
	}
	return filename
}

// renameDiagnostics replaces the file name from, under which a cached
// module was compiled, with the current one.
func renameDiagnostics(ds []Diagnostic, from, to string) []Diagnostic {
	for i := range ds {
		if ds[i].File == from {
			ds[i].File = to
		}
	}
	return ds
}

func detectLanguage(src []byte, opts Options) (Language, error) {
	switch opts.Language {
	case HLSL, GLSL, SPIRV, WGSL:
		return opts.Language, nil
	case LanguageAuto:
	default:
		return 0, fmt.Errorf("shader: unknown language %d", int(opts.Language))
	}
	if IsSPIRV(src) {
		return SPIRV, nil
	}
	switch strings.ToLower(filepath.Ext(opts.Filename)) {
	case ".hlsl", ".hlsli":
		return HLSL, nil
	case ".glsl", ".comp", ".vert", ".frag", ".geom", ".tesc", ".tese":
		return GLSL, nil
	case ".wgsl":
		return WGSL, nil
	case ".spv":
		return SPIRV, nil
	}
	switch {
	case bytes.Contains(src, []byte("#version")):
		return GLSL, nil
	case bytes.Contains(src, []byte("[numthreads")):
		return HLSL, nil
	case bytes.Contains(src, []byte("@compute")):
		return WGSL, nil
	}
	return 0, fmt.Errorf("shader: %s: cannot tell the source language; set Options.Language", displayName(opts.Filename))
}

func stageFromExt(filename string) Stage {
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".vert":
		return StageVertex
	case ".frag":
		return StageFragment
	case ".geom":
		return StageGeometry
	case ".tesc":
		return StageTessControl
	case ".tese":
		return StageTessEvaluation
	}
	return StageCompute
}

// includer resolves #include directives from the file system and records
// the files it reads, for the cache to check.
type includer struct {
	dirs []string
	naga bool // rewrite included files (Options.NagaGLSL)
	mu   sync.Mutex
	deps []cacheDep
	// notes are the rewrite's notes on included files, by file name.
	notes map[string]map[int]string
}

func (inc *includer) resolve(req string, typ shaderc.IncludeType, from string, _ int) (string, []byte, error) {
	var cands []string
	if filepath.IsAbs(req) {
		cands = []string{req}
	} else {
		if typ == shaderc.IncludeRelative {
			cands = append(cands, filepath.Join(filepath.Dir(from), req))
		}
		for _, d := range inc.dirs {
			cands = append(cands, filepath.Join(d, req))
		}
	}
	for _, p := range cands {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		name := filepath.Clean(p)
		inc.mu.Lock()
		if !slices.ContainsFunc(inc.deps, func(d cacheDep) bool { return d.path == abs }) {
			inc.deps = append(inc.deps, cacheDep{path: abs, sum: sum256(data)})
		}
		if inc.naga {
			r := rewriteNagaGLSL(data)
			data = r.src
			if len(r.notes) > 0 {
				if inc.notes == nil {
					inc.notes = map[string]map[int]string{}
				}
				inc.notes[name] = r.notes
			}
		}
		inc.mu.Unlock()
		return name, data, nil
	}
	if len(cands) == 0 {
		return "", nil, fmt.Errorf("cannot find include file %q: no include directories", req)
	}
	return "", nil, fmt.Errorf("cannot find include file %q (looked in %s)", req, strings.Join(cands, ", "))
}
