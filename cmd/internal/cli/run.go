package cli

// The gfxcuda run command: its flags and the run itself (compile, bind,
// dispatch, write the results). Binding the flags' resources is in
// run_bind.go, reading and writing data files in run_codec.go, the
// command-line wording of errors in run_errors.go.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

// runAbout is run's paragraph in its usage; runMore follows the flags.
const runAbout = `Compiles SHADER (.hlsl; .glsl or .comp: GLSL; .wgsl: WGSL; .spv: SPIR-V)
in process, binds resources to its slots (--uav, --srv, --cbv, --sampler,
--random), dispatches it (--dispatch or --threads, --batch times in one
submission) and writes the results (--out), or prints a summary of what it
wrote. Every mistake names the flag, what the shader declares there and
what to give instead.`

const runMore = `SLOT is an HLSL register's number, of the flag's class (--srv 0 is
register t0, --uav 0 is u0, --cbv 0 is b0, --sampler 0 is s0: they are four
different resources), SPACE.NUMBER for another register space, or a
resource's name. For GLSL it is the layout(binding) number (SET.BINDING for
another set). --random takes a register with its class (u0, t1) or a name.
A sampler is FILTER[:ADDRESS]: FILTER point|linear (or MIN,MAG), ADDRESS
wrap|mirror|clamp|border (or ADDRESS_U:ADDRESS_V:ADDRESS_W). WGSL binds
@group(G) @binding(B) as GLSL does: SLOT is B (G.B for another group).

--const NAME=VALUE sets a specialization constant (a WGSL override, a GLSL
layout(constant_id) const), named or by SpecId, to VALUE: a number, true or
false. A workgroup size made of constants follows.

SPEC for buffers: SIZE (zero-filled bytes, with k/M/G suffixes), FILE.npy (its
data), FILE (its raw bytes); typed buffers (Buffer<T>, RWBuffer<T>) may add
:FORMAT. SPEC for textures: tex1d:FORMAT:W, tex2d:FORMAT:WxH,
tex3d:FORMAT:WxHxD (zero-filled; FORMAT may be omitted when the shader
declares one), optionally followed by :FILE (.npy, .png or raw bytes) to
fill it; FILE.png alone is a 2D rgba8_unorm texture.

Results: --out FILE (the only read-write resource) or --out SLOT=FILE,
repeatable: .npy for buffers (dtype and shape from the shader) and textures,
.png for 1D and 2D textures. Without --out, a summary is printed.

Example: with StructuredBuffer<float> a : register(t0) and
RWStructuredBuffer<float> o : register(u0),
  gfxcuda run k.hlsl --dispatch 16 --srv 0:a.npy --uav 0:4096 --out o.npy`

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// runOpts are the parsed flags of run.
type runOpts struct {
	shader     string
	dispatch   string
	threads    string
	uav, srv   multiFlag
	cbv        multiFlag
	samplers   multiFlag
	random     multiFlag
	out        multiFlag
	push       string
	batch      int
	device     string
	entry      string
	defines    multiFlag
	includes   multiFlag
	consts     multiFlag
	seed       uint64
	quiet      bool
	validation bool

	source []byte // the shader's source, read by runShader, for messages
}

func runRun(args []string, stdout, stderr io.Writer) int {
	var o runOpts
	cl := newCmdLine("run", runAbout, stdout, stderr, "SHADER")
	cl.more = runMore
	fs := cl.fs
	fs.StringVar(&o.dispatch, "dispatch", "", "workgroups to dispatch: `X[,Y[,Z]]` (default 1,1,1)")
	fs.StringVar(&o.threads, "threads", "", "threads to cover: `W[,H[,D]]`; the workgroups are computed from the shader's workgroup size")
	fs.Var(&o.uav, "uav", "bind a read-write resource: `SLOT:SPEC` (repeatable)")
	fs.Var(&o.srv, "srv", "bind a read-only resource: `SLOT:SPEC` (repeatable)")
	fs.Var(&o.cbv, "cbv", "bind a constant buffer: `SLOT:SIZE` or SLOT:FILE (repeatable)")
	fs.Var(&o.samplers, "sampler", "bind a sampler: `SLOT:FILTER[:ADDRESS]` (repeatable)")
	fs.Var(&o.random, "random", "fill SLOT with random bytes, or bind SIZE random bytes there: `SLOT[:SIZE]` (repeatable)")
	fs.Var(&o.out, "out", "write a result: `FILE` or SLOT=FILE, .npy or .png (repeatable)")
	fs.StringVar(&o.push, "push", "", "push constants: `HEX` bytes (0a000000...), or @FILE / FILE with the raw bytes")
	fs.IntVar(&o.batch, "batch", 1, "repeat the dispatch `N` times in one submission")
	fs.StringVar(&o.device, "device", "", "`DEVICE`: an index, a UUID or a name fragment (default $GFXCUDA_DEVICE, else the best)")
	fs.StringVar(&o.entry, "entry", "", "entry point `NAME` (default main; WGSL: the only @compute function)")
	fs.Var(&o.defines, "D", "define a macro: `NAME[=VALUE]` (repeatable)")
	fs.Var(&o.includes, "I", "add `DIR` to the include directories (repeatable)")
	fs.Var(&o.consts, "const", "set a specialization constant (WGSL override): `NAME=VALUE` (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of --random")
	fs.BoolVar(&o.quiet, "q", false, "print no progress or timings on stderr")
	fs.BoolVar(&o.validation, "validation", false, "enable the Vulkan validation layer (also GFXCUDA_VALIDATION=1); its errors fail the run")
	pos, code, ok := cl.parse(args)
	if !ok {
		return code
	}
	o.shader = pos[0]
	err := runShader(&o, stdout, stderr)
	if err == nil {
		return 0
	}
	if isUsage(err) {
		return cl.fail("%v", err)
	}
	fmt.Fprintln(stderr, "gfxcuda run:", err)
	return 1
}

// progress prints a progress or timing line on stderr unless -q.
type progress struct {
	w     io.Writer
	quiet bool
}

func (p progress) printf(format string, a ...any) {
	if !p.quiet {
		fmt.Fprintf(p.w, "gfxcuda run: "+format+"\n", a...)
	}
}

func runShader(o *runOpts, stdout, stderr io.Writer) error {
	pr := progress{stderr, o.quiet}
	// The results are written last: find out now if they cannot be.
	for _, out := range o.out {
		file := out
		if _, f, ok := strings.Cut(out, "="); ok {
			file = f
		}
		if err := checkOutput(file); err != nil {
			return usagef("--out %s: %v", out, err)
		}
	}
	if o.batch < 1 {
		return usagef("--batch %d: repeat the dispatch at least once", o.batch)
	}
	if o.dispatch != "" && o.threads != "" {
		return usagef("--dispatch and --threads both given; give one")
	}
	// Counts up to 2^64-1 are read here and checked against the device's
	// maximum once it is open, in the words of the flag that gave them.
	groups := [3]uint64{1, 1, 1}
	var threads [3]uint64
	if o.threads == "" && o.dispatch != "" {
		g, err := parseCounts(o.dispatch, "workgroups")
		if err != nil {
			return usagef("--dispatch %s: %v; give X[,Y[,Z]] workgroups, such as --dispatch 16,1,1", o.dispatch, err)
		}
		groups = g
	} else if o.threads != "" {
		th, err := parseCounts(o.threads, "threads")
		if err != nil {
			return usagef("--threads %s: %v; give W[,H[,D]] threads, such as --threads 1920,1080", o.threads, err)
		}
		threads = th
	}
	opts := shader.Options{Filename: o.shader, EntryPoint: o.entry, IncludeDirs: o.includes}
	if len(o.defines) > 0 {
		opts.Defines = map[string]string{}
		for _, d := range o.defines {
			k, v, _ := strings.Cut(d, "=")
			if k == "" {
				return usagef("-D %s: give NAME or NAME=VALUE", d)
			}
			opts.Defines[k] = v
		}
	}
	if strings.EqualFold(filepath.Ext(o.shader), ".comp") {
		opts.Language = shader.GLSL
	}
	consts, err := parseConsts(o.consts)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(o.shader)
	if err != nil {
		return err
	}
	o.source = src

	var validation *bool
	if o.validation {
		validation = &o.validation
	}
	t0 := time.Now()
	dev, err := compute.Open(compute.Options{Device: o.device, Validation: validation})
	if err != nil {
		return deviceError(o.device, err)
	}
	defer dev.Close()
	pr.printf("device %s (%v)", dev.Info().Name, time.Since(t0).Round(time.Millisecond))
	defer func() {
		// Validation errors (GFXCUDA_VALIDATION=1 or --validation) are
		// reported even when the run otherwise succeeded.
		if in := dev.Instance(); in != nil {
			for _, m := range in.TakeValidationErrors() {
				fmt.Fprintln(stderr, "gfxcuda run: validation:", m)
			}
		}
	}()

	t0 = time.Now()
	m, err := shader.Compile(src, opts)
	if err != nil {
		return entryError(o, nil, err)
	}
	if o.entry != "" && m.EntryPoint(o.entry) == nil {
		// GLSL compiles main whatever the name: refuse it here, with the
		// names there are, not when the pipeline is made.
		return entryError(o, m, fmt.Errorf("%s: no entry point %q", o.shader, o.entry))
	}
	for _, w := range m.Warnings {
		fmt.Fprintln(stderr, w)
	}
	if err := checkConsts(m, consts); err != nil {
		return err
	}
	k, err := dev.KernelWith(m, compute.KernelOptions{EntryPoint: o.entry, Constants: consts})
	if err != nil {
		return err
	}
	defer k.Close()
	how := "compiled"
	if m.Cached {
		how = "compiled (cached)"
	}
	ls := k.LocalSize()
	pr.printf("%s %s in %v: workgroup %d×%d×%d, %d resource(s), %d bytes of push constants", how, o.shader,
		time.Since(t0).Round(time.Microsecond), ls[0], ls[1], ls[2], len(k.Resources()), k.PushConstantSize())

	lim := dev.Limits()
	for i, axis := range axes {
		if o.threads != "" {
			// The workgroups that cover the threads, rounded up.
			groups[i] = threads[i]/uint64(ls[i]) + min(threads[i]%uint64(ls[i]), 1)
		}
		if maxGroups := uint64(lim.MaxComputeWorkGroupCount[i]); groups[i] > maxGroups {
			if o.threads != "" {
				return usagef("--threads %s: %d threads in %s take %d workgroups of %d (the shader's workgroup size in %s), more than %s runs in one dispatch (%d, maxComputeWorkGroupCount %v); cover at most %d threads in %s, or give the shader a larger workgroup",
					o.threads, threads[i], axis, groups[i], ls[i], axis, dev.Info().Name, maxGroups, lim.MaxComputeWorkGroupCount, maxGroups*uint64(ls[i]), axis)
			}
			return usagef("--dispatch %s: %d workgroups in %s exceed %s's maximum %d (maxComputeWorkGroupCount %v); dispatch fewer, larger workgroups",
				o.dispatch, groups[i], axis, dev.Info().Name, maxGroups, lim.MaxComputeWorkGroupCount)
		}
	}

	slots, err := bindResources(dev, k, o, pr)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range slots {
			s.buf.Close()
			s.tex.Close()
			s.sampler.Close()
		}
	}()
	outs, err := planOutputs(k, slots, o.out)
	if err != nil {
		return err
	}
	push, err := readPush(o.push, k, m)
	if err != nil {
		return err
	}

	args := kernelArgs(slots, push)

	b, err := dev.NewBatch()
	if err != nil {
		return err
	}
	defer b.Close()
	t0 = time.Now()
	for range o.batch {
		b.Dispatch(k, uint32(groups[0]), uint32(groups[1]), uint32(groups[2]), args...)
	}
	if err := b.Err(); err != nil {
		return err
	}
	recorded := time.Since(t0)
	t1 := time.Now()
	if err := b.Run(); err != nil {
		return err
	}
	ran := time.Since(t1)
	if o.batch > 1 {
		pr.printf("dispatched %d×%d×%d workgroups × %d in one submission: recorded in %v, ran in %v (%.1f µs per dispatch)",
			groups[0], groups[1], groups[2], o.batch, recorded.Round(time.Microsecond), ran.Round(time.Microsecond),
			float64(ran.Nanoseconds())/1e3/float64(o.batch))
	} else {
		pr.printf("dispatched %d×%d×%d workgroups: recorded in %v, ran in %v", groups[0], groups[1], groups[2],
			recorded.Round(time.Microsecond), ran.Round(time.Microsecond))
	}

	for _, out := range outs {
		t0 := time.Now()
		desc, err := writeOutput(m, out.slot, out.file)
		if err != nil {
			return err
		}
		pr.printf("wrote %s: %s %s (%v)", out.file, out.slot.label(), desc, time.Since(t0).Round(time.Microsecond))
	}
	if len(outs) == 0 {
		for _, s := range slots {
			if class(&s.r) == "--uav" {
				if err := summarize(stdout, m, s); err != nil {
					return err
				}
			}
		}
	}
	if in := dev.Instance(); in != nil && in.ValidationEnabled() {
		if msgs := in.TakeValidationErrors(); len(msgs) > 0 {
			for _, m := range msgs {
				fmt.Fprintln(stderr, "gfxcuda run: validation:", m)
			}
			return fmt.Errorf("%d Vulkan validation errors", len(msgs))
		}
	}
	return nil
}

func parseTriple(s string) ([3]uint32, error) { return compute.ParseExtent(s) }

// axes names the three axes of a dispatch, for messages.
var axes = [3]string{"x", "y", "z"}

// parseCounts parses a --dispatch or --threads value, X[,Y[,Z]] (or
// XxYxZ): one to three whole numbers of at least 1, the missing ones 1.
// unit ("workgroups", "threads") words the errors, which say what is wrong
// with the number the user gave; numbers too large for a device are not
// refused here but against the device's maximum, once it is open.
func parseCounts(s, unit string) ([3]uint64, error) {
	out := [3]uint64{1, 1, 1}
	parts := strings.Split(strings.NewReplacer("x", ",", "X", ",", "×", ",").Replace(s), ",")
	if len(parts) > 3 {
		return out, fmt.Errorf("%d numbers, but a dispatch has 3 axes", len(parts))
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseUint(p, 10, 64)
		switch {
		case err == nil && v == 0:
			return out, fmt.Errorf("0 %s in %s run nothing: each axis needs at least 1", unit, axes[i])
		case err == nil:
			out[i] = v
		case errors.Is(err, strconv.ErrRange):
			return out, fmt.Errorf("%s %s in %s is more than any device runs (a count is at most %d)", p, unit, axes[i], uint32(math.MaxUint32))
		case p == "":
			return out, fmt.Errorf("no number in %s", axes[i])
		case strings.HasPrefix(p, "-"):
			return out, fmt.Errorf("%s %s in %s: a count cannot be negative, it is at least 1", p, unit, axes[i])
		default:
			if _, ferr := strconv.ParseFloat(p, 64); ferr == nil {
				return out, fmt.Errorf("%s in %s is not a whole number", p, axes[i])
			}
			return out, fmt.Errorf("%q is not a number", p)
		}
	}
	return out, nil
}

func parseSize(s string) (uint64, bool) { return compute.ParseSize(s) }

// parseConsts parses the --const flags: NAME=VALUE, VALUE a number, true
// or false.
func parseConsts(flags []string) (map[string]float64, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, f := range flags {
		name, val, ok := strings.Cut(f, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" || val == "" {
			return nil, usagef("--const %s: give NAME=VALUE, such as --const scale=2.5", f)
		}
		if _, dup := out[name]; dup {
			return nil, usagef("--const %s: %s is set twice", f, name)
		}
		switch strings.ToLower(val) {
		case "true":
			out[name] = 1
		case "false":
			out[name] = 0
		default:
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, usagef("--const %s: %q is not a number, true or false", f, val)
			}
			out[name] = v
		}
	}
	return out, nil
}

// checkConsts checks the --const flags against the shader's
// specialization constants, in the command line's words.
func checkConsts(m *shader.Module, consts map[string]float64) error {
	have := func() string {
		if len(m.SpecConstants) == 0 {
			return "the shader has no specialization constants (WGSL override, GLSL constant_id)"
		}
		var parts []string
		for _, c := range m.SpecConstants {
			parts = append(parts, c.String())
		}
		return "the shader's constants: " + strings.Join(parts, "; ")
	}
	set := map[uint32]bool{}
	for name, v := range consts {
		c := m.SpecConstant(name)
		if c == nil {
			if id, err := strconv.ParseUint(name, 10, 32); err == nil {
				for i := range m.SpecConstants {
					if m.SpecConstants[i].ID == uint32(id) {
						c = &m.SpecConstants[i]
					}
				}
			}
		}
		if c == nil {
			return usagef("--const %s: no such constant; %s", name, have())
		}
		if _, err := c.Encode(v); err != nil {
			return usagef("--const %s: %v", name, err)
		}
		set[c.ID] = true
	}
	for _, c := range m.SpecConstants {
		if c.Required && !set[c.ID] {
			return usagef("override '%s' has no default; set it with --const %s=VALUE", c.Name, c.Name)
		}
	}
	return nil
}
