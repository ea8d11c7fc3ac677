package cli

// gfxcuda run's errors in the command line's words: usage errors (exit
// status 2), and the rewording of the library's errors with the flags
// that would fix them and the shader's own declarations.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// isUsage reports whether err is (or wraps) a usage error.
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// inFlag words err as an error of flag, the command-line words that gave
// rise to it ("--uav 0:4096"): a usage error's message after the flag,
// still a usage error; any other error wrapped after the flag.
func inFlag(flag string, err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return usagef("%s: %s", flag, ue.msg)
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// deviceError words compute.Open's error in the user's words: when no
// device matches, the flag (--device, a usage error) or the variable
// ($GFXCUDA_DEVICE) that chose it, with the devices there are.
func deviceError(flag string, err error) error {
	nd := (*compute.NoDeviceError)(nil)
	if !errors.As(err, &nd) {
		return err
	}
	if flag != "" {
		return usagef("--device %s: %v", flag, nd)
	}
	return fmt.Errorf("%s=%s: %w", compute.DeviceEnv, os.Getenv(compute.DeviceEnv), nd)
}

// kindName describes a resource for messages.
func kindName(r *shader.Resource) string { return compute.KindName(r) }

func example(k *compute.Kernel, r *shader.Resource) string {
	slot := slotText(k, r)
	switch r.Kind {
	case shader.Sampler:
		return "--sampler " + slot + ":linear:wrap"
	case shader.SampledImage, shader.StorageImage, shader.CombinedImageSampler:
		dims := map[shader.ImageDim]string{shader.Dim1D: "tex1d:rgba8_unorm:256", shader.Dim2D: "tex2d:rgba8_unorm:256x256",
			shader.Dim3D: "tex3d:rgba8_unorm:64x64x64"}[r.Dim]
		if dims == "" {
			dims = "tex2d:rgba8_unorm:256x256"
		}
		return class(r) + " " + slot + ":" + dims
	case shader.UniformBuffer:
		return fmt.Sprintf("--cbv %s:%d", slot, max(r.Size, 16))
	}
	return class(r) + " " + slot + ":4096"
}

// resourceTable lists the shader's resources for messages.
func resourceTable(k *compute.Kernel) string {
	rs := k.Resources()
	if len(rs) == 0 {
		return "the shader uses no resources"
	}
	var parts []string
	for i := range rs {
		r := &rs[i]
		parts = append(parts, fmt.Sprintf("%s %s (%s, bind with %s)", k.Register(r), r.Name, kindName(r), example(k, r)))
	}
	return "the shader's resources: " + strings.Join(parts, "; ")
}

var kindOfClass = map[shader.RegisterClass]string{
	shader.ClassSRV: "read-only resource", shader.ClassUAV: "read-write resource",
	shader.ClassCBV: "constant buffer", shader.ClassSampler: "sampler",
}

// errNoSizeOrFile is makeBuffer's error for a SPEC that is neither a size
// nor an existing file; the caller words it with the shader's declaration.
var errNoSizeOrFile = errors.New("neither a size nor an existing file")

// bufferWord says what kind of buffer r is, for messages.
func bufferWord(r *shader.Resource) string {
	switch r.Kind {
	case shader.UniformBuffer:
		return "constant buffer"
	case shader.UniformTexelBuffer, shader.StorageTexelBuffer:
		return "typed buffer"
	}
	return "buffer"
}

var lineComment = regexp.MustCompile(`//[^\n]*`)

// declaration is how the shader's source declares r, such as
// "RWStructuredBuffer<float> data" or "image2D dst"; when the source does
// not show it (an include, a block), what reflection says: "read-write
// buffer data".
func declaration(src []byte, r *shader.Resource) string {
	if r.Name != "" && len(src) > 0 {
		re := regexp.MustCompile(`([A-Za-z_]\w*(?:\s*<[^;{}()<>]*>)?)\s+` + regexp.QuoteMeta(r.Name) +
			`\s*(?:\[[^\]]*\]\s*)?(?::\s*register\b|;|\{)`)
		if m := re.FindSubmatch(lineComment.ReplaceAll(src, nil)); m != nil {
			typ := strings.Join(strings.Fields(string(m[1])), " ")
			switch typ {
			case "return", "in", "out", "inout", "uniform", "buffer", "readonly", "writeonly", "const", "static":
			default:
				return typ + " " + r.Name
			}
		}
	}
	return strings.TrimSpace(kindName(r) + " " + r.Name)
}

// slotError rewrites compute's error for a SLOT that names no resource
// (or more than one) in the command line's words: an ambiguous slot's
// candidates as the flags that bind them; otherwise what the shader has
// there instead, and the table of its resources.
func slotError(k *compute.Kernel, res []shader.Resource, slot string, sl compute.Slot, cl shader.RegisterClass, err error) error {
	if strings.Contains(err.Error(), "ambiguous") {
		_, msg, _ := strings.Cut(err.Error(), "is ambiguous: ")
		msg = strings.NewReplacer("compute.SRV(", "--srv ", "compute.UAV(", "--uav ", "compute.CBV(", "--cbv ",
			"compute.SamplerAt(", "--sampler ", ", buf)", ":…", ", tex)", ":…", ", sampler)", ":…").Replace(msg)
		return fmt.Errorf("slot %s is ambiguous: %s; name the register (t0, u0) or the resource", slot, strings.TrimSuffix(msg, "; bind by register class instead"))
	}
	what := "resource"
	if c := sl.Class; c != 0 || cl != 0 {
		if c == 0 {
			c = cl
		}
		what = kindOfClass[c]
	}
	msg := fmt.Sprintf("the shader has no %s at slot %s", what, slot)
	if sl.Name == "" {
		for i := range res {
			if r := &res[i]; r.Set == sl.Space && int(k.RegisterNumber(r)) == sl.Number {
				msg += fmt.Sprintf(" (%s is %s, a %s: bind it with %s)", k.Register(r), r.Name, kindName(r), example(k, r))
				break
			}
		}
	}
	return fmt.Errorf("%s; %s", msg, resourceTable(k))
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// An HLSL compute entry point: [numthreads(…)], other attributes, then
	// void NAME(.
	hlslEntryRE = regexp.MustCompile(`\[\s*numthreads\s*\([^)]*\)\s*\]\s*(?:\[[^\]]*\]\s*)*void\s+([A-Za-z_]\w*)\s*\(`)
	// A WGSL function with its attributes, of which one must be @compute.
	wgslFnRE      = regexp.MustCompile(`((?:@\s*\w+\s*(?:\([^)]*\))?\s*)+)fn\s+([A-Za-z_]\w*)`)
	wgslComputeRE = regexp.MustCompile(`@\s*compute\b`)
)

// entryPoints lists the compute entry points of the shader, for messages:
// the compiled module's when there is one, else what the source declares
// (SPIR-V's GLCompute entry points, HLSL's [numthreads] functions, WGSL's
// @compute functions; GLSL's is main). what says what they are, in the
// shader's language; both are empty when they cannot be told.
func entryPoints(path string, src []byte, m *shader.Module) (names []string, what string) {
	if m == nil && shader.IsSPIRV(src) {
		m, _ = shader.Reflect(src)
	}
	text := lineComment.ReplaceAll(blockComment.ReplaceAll(src, nil), nil)
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".wgsl" || (m == nil && ext != ".hlsl" && bytes.Contains(text, []byte("@compute"))):
		for _, mm := range wgslFnRE.FindAllSubmatch(text, -1) {
			if wgslComputeRE.Match(mm[1]) {
				names = append(names, string(mm[2]))
			}
		}
		return names, "@compute functions"
	case ext == ".hlsl" || ext == ".hlsli" || (m == nil && bytes.Contains(text, []byte("numthreads"))):
		for _, mm := range hlslEntryRE.FindAllSubmatch(text, -1) {
			names = append(names, string(mm[1]))
		}
		return names, "[numthreads] functions"
	case m != nil:
		for _, e := range m.EntryPoints {
			if e.Model == shader.ModelGLCompute {
				names = append(names, e.Name)
			}
		}
		return names, "compute entry points"
	}
	return nil, ""
}

// entryError words err, an error about the entry point (--entry NAME, or
// the default main that the shader lacks), with the entry points the
// shader has and the --entry that picks one; any other error is returned
// as it is.
func entryError(o *runOpts, m *shader.Module, err error) error {
	if !strings.Contains(strings.ToLower(err.Error()), "entry point") {
		return err
	}
	names, what := entryPoints(o.shader, o.source, m)
	want := o.entry
	if want == "" {
		want = "main"
	}
	if what == "" || slices.Contains(names, want) {
		return err
	}
	if len(names) == 0 {
		if bytes.Contains(o.source, []byte("#include")) {
			return err // they may be in what it includes
		}
		return usagef("%s declares no compute entry point (%s)", o.shader, what)
	}
	fix := "choose one with --entry, such as --entry " + names[0]
	if len(names) == 1 {
		fix = "give --entry " + names[0]
	}
	if names[0] == "main" && len(names) == 1 {
		fix = "leave --entry out, or give --entry main"
	}
	list := fmt.Sprintf("its %s: %s", what, strings.Join(names, ", "))
	if o.entry == "" && len(names) > 1 {
		return usagef("%s has %d %s (%s) and none is named main, the default; %s", o.shader, len(names), what, strings.Join(names, ", "), fix)
	}
	if o.entry == "" {
		return usagef("%s has no entry point main (the default); %s; %s", o.shader, list, fix)
	}
	return usagef("--entry %s: %s has no compute entry point %s; %s; %s", o.entry, o.shader, o.entry, list, fix)
}
