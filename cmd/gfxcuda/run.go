package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/half"
	"github.com/gfxcuda/gfxcuda/internal/npy"
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

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

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
	var ue *usageError
	if errors.As(err, &ue) {
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

// slotRes is a shader resource and what binds it.
type slotRes struct {
	r       shader.Resource
	slot    string // how flags name it: "0", "1.3"
	reg     string // "u0", "binding 3": how the shader names it
	flag    string // "--uav 0:4096": the flag that bound it
	buf     *compute.Buffer
	tex     *compute.Texture
	sampler *compute.Sampler
	withSmp *compute.Sampler // for combined image samplers
}

func (s *slotRes) label() string {
	return fmt.Sprintf("%s %s", s.reg, s.r.Name)
}

// slotText is how the flags name r: its register (or binding) number,
// after its space (set) when not 0.
func slotText(k *compute.Kernel, r *shader.Resource) string {
	n := strconv.Itoa(int(k.RegisterNumber(r)))
	if r.Set != 0 {
		return fmt.Sprintf("%d.%s", r.Set, n)
	}
	return n
}

// flagClass maps the binding flags to register classes.
var flagClass = map[string]shader.RegisterClass{
	"--srv": shader.ClassSRV, "--uav": shader.ClassUAV, "--cbv": shader.ClassCBV, "--sampler": shader.ClassSampler,
}

// class is the flag that binds a kind of resource.
func class(r *shader.Resource) string {
	switch compute.ClassOf(r) {
	case shader.ClassCBV:
		return "--cbv"
	case shader.ClassSampler:
		return "--sampler"
	case shader.ClassSRV:
		return "--srv"
	}
	return "--uav"
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
	var groups [3]uint32
	if o.threads == "" {
		d := o.dispatch
		if d == "" {
			d = "1"
		}
		g, err := parseTriple(d)
		if err != nil {
			return usagef("--dispatch %s: %v; give X[,Y[,Z]] workgroups, such as --dispatch 16,1,1", d, err)
		}
		groups = g
	} else if _, err := parseTriple(o.threads); err != nil {
		return usagef("--threads %s: %v; give W[,H[,D]], such as --threads 1920,1080", o.threads, err)
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
	if nd := (*compute.NoDeviceError)(nil); errors.As(err, &nd) {
		// In the user's words: the flag or the variable, and the devices.
		if o.device != "" {
			return usagef("--device %s: %v", o.device, nd)
		}
		return fmt.Errorf("%s=%s: %w", compute.DeviceEnv, os.Getenv(compute.DeviceEnv), nd)
	}
	if err != nil {
		return err
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
		return err
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

	if o.threads != "" {
		th, _ := parseTriple(o.threads)
		groups[0], groups[1], groups[2] = k.Groups(th[0], th[1], th[2])
	}
	lim := dev.Limits()
	for i, axis := range []string{"x", "y", "z"} {
		if groups[i] > lim.MaxComputeWorkGroupCount[i] {
			return usagef("--dispatch %d,%d,%d: %d workgroups in %s exceed %s's maximum %d (maxComputeWorkGroupCount %v); dispatch fewer, larger workgroups",
				groups[0], groups[1], groups[2], groups[i], axis, dev.Info().Name, lim.MaxComputeWorkGroupCount[i], lim.MaxComputeWorkGroupCount)
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

	var args []compute.Arg
	for _, s := range slots {
		var a compute.Arg
		switch {
		case s.buf != nil:
			a = compute.AtBinding(s.r.Set, s.r.Binding, s.buf)
		case s.tex != nil:
			a = compute.AtBinding(s.r.Set, s.r.Binding, s.tex)
			if s.withSmp != nil {
				a = a.With(s.withSmp)
			}
		case s.sampler != nil:
			a = compute.AtBinding(s.r.Set, s.r.Binding, s.sampler)
		}
		args = append(args, a)
	}
	if push != nil {
		args = append(args, compute.Push(push))
	}

	b, err := dev.NewBatch()
	if err != nil {
		return err
	}
	defer b.Close()
	t0 = time.Now()
	for range o.batch {
		b.Dispatch(k, groups[0], groups[1], groups[2], args...)
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

func parseSize(s string) (uint64, bool) { return compute.ParseSize(s) }

// findSlot finds the resource a flag's SLOT names, for a resource of
// register class cl (0: any); its error is written for the command line.
func findSlot(k *compute.Kernel, res []shader.Resource, slot string, cl shader.RegisterClass) (int, error) {
	sl := compute.ParseSlot(slot)
	r, err := k.Find(sl, cl)
	if err != nil {
		if strings.Contains(err.Error(), "ambiguous") {
			_, msg, _ := strings.Cut(err.Error(), "is ambiguous: ")
			msg = strings.NewReplacer("compute.SRV(", "--srv ", "compute.UAV(", "--uav ", "compute.CBV(", "--cbv ",
				"compute.SamplerAt(", "--sampler ", ", buf)", ":…", ", tex)", ":…", ", sampler)", ":…").Replace(msg)
			return -1, fmt.Errorf("slot %s is ambiguous: %s; name the register (t0, u0) or the resource", slot, strings.TrimSuffix(msg, "; bind by register class instead"))
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
		return -1, fmt.Errorf("%s; %s", msg, resourceTable(k))
	}
	for i := range res {
		if res[i].Set == r.Set && res[i].Binding == r.Binding {
			return i, nil
		}
	}
	return -1, fmt.Errorf("resource %s not found", r.Name)
}

var kindOfClass = map[shader.RegisterClass]string{
	shader.ClassSRV: "read-only resource", shader.ClassUAV: "read-write resource",
	shader.ClassCBV: "constant buffer", shader.ClassSampler: "sampler",
}

// bindResources creates and fills the resources the flags describe.
func bindResources(dev *compute.Device, k *compute.Kernel, o *runOpts, pr progress) ([]*slotRes, error) {
	res := k.Resources()
	slots := make([]*slotRes, len(res))
	for i := range res {
		slots[i] = &slotRes{r: res[i], slot: slotText(k, &res[i]), reg: k.Register(&res[i])}
	}
	type spec struct{ flag, value string }
	var specs []spec
	for _, f := range []struct {
		name string
		vals []string
	}{{"--uav", o.uav}, {"--srv", o.srv}, {"--cbv", o.cbv}, {"--sampler", o.samplers}} {
		for _, v := range f.vals {
			specs = append(specs, spec{f.name, v})
		}
	}
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	randomAt := map[int]string{} // slot index → --random value
	for _, v := range o.random {
		slot, size, _ := strings.Cut(v, ":")
		i, err := findSlot(k, res, slot, 0)
		if err != nil {
			return nil, usagef("--random %s: %v", v, err)
		}
		if _, dup := randomAt[i]; dup {
			return nil, usagef("--random %s: slot %s is given twice", v, slot)
		}
		randomAt[i] = size
	}
	for _, sp := range specs {
		full := sp.flag + " " + sp.value
		slot, rest, ok := strings.Cut(sp.value, ":")
		if !ok || rest == "" {
			return nil, usagef("%s: give SLOT:SPEC, such as %s 0:4096", full, sp.flag)
		}
		cl := flagClass[sp.flag]
		i, err := findSlot(k, res, slot, cl)
		if err != nil && sp.flag == "--sampler" {
			// A combined image sampler (GLSL sampler2D) takes its sampler
			// from --sampler at the texture's slot.
			if j, e := findSlot(k, res, slot, shader.ClassSRV); e == nil && res[j].Kind == shader.CombinedImageSampler {
				i, err = j, nil
			}
		}
		if err != nil {
			return nil, usagef("%s: %v", full, err)
		}
		s := slots[i]
		r := &s.r
		if s.flag != "" && !(sp.flag == "--sampler" && r.Kind == shader.CombinedImageSampler) {
			return nil, usagef("%s: slot %s is bound already by %s", full, slot, s.flag)
		}
		want := class(r)
		if r.Kind == shader.CombinedImageSampler && sp.flag == "--sampler" {
			smp, err := parseSampler(dev, rest)
			if err != nil {
				return nil, usagef("%s: %v", full, err)
			}
			s.withSmp = smp
			continue
		}
		if sp.flag != want {
			return nil, usagef("%s: %s is %s, a %s; bind it with %s, such as %s", full, s.reg, r.Name, kindName(r), want, example(k, r))
		}
		s.flag = full
		switch r.Kind {
		case shader.Sampler:
			s.sampler, err = parseSampler(dev, rest)
		case shader.SampledImage, shader.StorageImage, shader.CombinedImageSampler:
			if !isTextureSpec(rest) {
				return nil, usagef("%s: %s is a texture (%s); give tex1d:FORMAT:W, tex2d:FORMAT:WxH or tex3d:FORMAT:WxHxD (optionally :FILE), or FILE.png, such as %s",
					full, s.reg, declaration(o.source, r), example(k, r))
			}
			s.tex, err = makeTexture(dev, r, rest)
		default:
			if isTextureSpec(rest) {
				return nil, usagef("%s: %s is a %s (%s); give a size in bytes or a .npy file, such as %s",
					full, s.reg, bufferWord(r), declaration(o.source, r), example(k, r))
			}
			s.buf, err = makeBuffer(dev, r, rest)
			if errors.Is(err, errNoSizeOrFile) {
				return nil, usagef("%s: %s is a %s (%s); %v: give a size in bytes or a .npy file, such as %s",
					full, s.reg, bufferWord(r), declaration(o.source, r), err, example(k, r))
			}
		}
		if err != nil {
			var ue *usageError
			if errors.As(err, &ue) {
				return nil, usagef("%s: %s", full, ue.msg)
			}
			return nil, fmt.Errorf("%s: %w", full, err)
		}
	}
	// --random: fill what is bound, or bind random buffers.
	for i, size := range randomAt {
		s := slots[i]
		r := &s.r
		flag := "--random " + s.slot
		if size != "" {
			flag += ":" + size
		}
		if s.flag == "" {
			if size == "" {
				return nil, usagef("%s: nothing is bound at %s; give a size (--random %s:4096) or bind it with %s", flag, s.reg, s.slot, class(r))
			}
			if r.Kind != shader.UniformBuffer && r.Kind != shader.StorageBuffer && r.Kind != shader.UniformTexelBuffer && r.Kind != shader.StorageTexelBuffer {
				return nil, usagef("%s: %s is a %s; bind it with %s, then --random %s fills it", flag, r.Name, kindName(r), example(k, r), s.slot)
			}
			b, err := makeBuffer(dev, r, size)
			if err != nil {
				var ue *usageError
				if errors.Is(err, errNoSizeOrFile) {
					return nil, usagef("%s: %v; give a size in bytes, such as --random %s:4096", flag, err, s.slot)
				}
				if errors.As(err, &ue) {
					return nil, usagef("%s: %s", flag, ue.msg)
				}
				return nil, err
			}
			s.buf, s.flag = b, flag
		}
		var n uint64
		switch {
		case s.buf != nil:
			n = s.buf.Size()
		case s.tex != nil:
			n = s.tex.Size()
		default:
			return nil, usagef("%s: %s is a sampler", flag, r.Name)
		}
		if size != "" {
			if v, ok := parseSize(size); !ok || v != n {
				return nil, usagef("%s: the resource bound there (%s) has %d bytes", flag, s.flag, n)
			}
		}
		data := make([]byte, n)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		var err error
		if s.buf != nil {
			err = s.buf.Upload(data)
		} else {
			err = s.tex.Upload(data)
		}
		if err != nil {
			return nil, err
		}
	}
	var missing []string
	for _, s := range slots {
		if s.flag == "" {
			missing = append(missing, fmt.Sprintf("%s %s (%s: %s)", s.reg, s.r.Name, kindName(&s.r), example(k, &s.r)))
		} else if s.r.Kind == shader.CombinedImageSampler && s.withSmp == nil {
			missing = append(missing, fmt.Sprintf("the sampler of %s %s (--sampler %s:linear:clamp)", s.reg, s.r.Name, s.slot))
		}
	}
	if len(missing) > 0 {
		return nil, usagef("nothing binds %s", strings.Join(missing, "; "))
	}
	for _, s := range slots {
		what := ""
		switch {
		case s.buf != nil:
			what = fmt.Sprintf("%d-byte buffer", s.buf.Size())
			if f := s.buf.Format(); f != 0 {
				what += " of " + f.String()
			}
		case s.tex != nil:
			what = fmt.Sprintf("%dx%dx%d %s texture", s.tex.Width(), s.tex.Height(), s.tex.Depth(), s.tex.Format())
		case s.sampler != nil:
			what = "sampler"
		}
		pr.printf("%s: %s ← %s (%s)", s.reg, s.r.Name, what, s.flag)
	}
	return slots, nil
}

func parseSampler(dev *compute.Device, spec string) (*compute.Sampler, error) {
	sp, err := compute.ParseSampler(spec)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return dev.SamplerWith(sp)
}

// readInput reads a data file: an .npy's data, a PNG's RGBA8 pixels (with
// its size), or raw bytes.
func readInput(path string) (data []byte, w, h int, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, 0, 0, err
		}
		if a.FortranOrder {
			return nil, 0, 0, fmt.Errorf("%s is in Fortran order; save it C-contiguous (numpy.ascontiguousarray)", path)
		}
		return a.Data, 0, 0, nil
	case ".png":
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, 0, err
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		b := img.Bounds()
		rgba := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := range b.Dy() {
			for x := range b.Dx() {
				rgba.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
			}
		}
		return rgba.Pix, b.Dx(), b.Dy(), nil
	}
	data, err = os.ReadFile(path)
	return data, 0, 0, err
}

// errNoSizeOrFile is makeBuffer's error for a SPEC that is neither a size
// nor an existing file; the caller words it with the shader's declaration.
var errNoSizeOrFile = errors.New("neither a size nor an existing file")

// isTextureSpec reports whether spec describes a texture: tex1d:…,
// tex2d:…, tex3d:… or FILE.png.
func isTextureSpec(spec string) bool {
	kind, _, _ := strings.Cut(strings.ToLower(spec), ":")
	return kind == "tex1d" || kind == "tex2d" || kind == "tex3d" || strings.EqualFold(filepath.Ext(spec), ".png")
}

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

// makeBuffer makes the buffer a SPEC describes for r, checked against the
// shader's layout.
func makeBuffer(dev *compute.Device, r *shader.Resource, spec string) (*compute.Buffer, error) {
	typed := r.Kind == shader.UniformTexelBuffer || r.Kind == shader.StorageTexelBuffer
	var f format.Format
	if typed {
		if i := strings.LastIndex(spec, ":"); i >= 0 {
			ff, err := format.Parse(spec[i+1:])
			if err != nil {
				return nil, usagef("%v", err)
			}
			f, spec = ff, spec[:i]
		} else if vf := r.Format.VkFormat(); vf != 0 {
			f = format.Format(vf)
			if _, ok := format.Lookup(f); !ok {
				f = 0
			}
		}
		if f == 0 {
			return nil, usagef("typed buffer %s declares no format the format table has; add one, such as %s:rgba8_unorm", r.Name, spec)
		}
	}
	var data []byte
	size, isSize := parseSize(spec)
	if !isSize {
		d, _, _, err := readInput(spec)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("%q is %w", spec, errNoSizeOrFile)
			}
			return nil, err
		}
		if len(d) == 0 {
			return nil, usagef("%s is empty", spec)
		}
		data, size = d, uint64(len(d))
	}
	switch {
	case typed:
		ts := uint64(f.Info().BytesPerTexel)
		if size%ts != 0 {
			return nil, usagef("typed buffer %s holds %d-byte %s texels; %d bytes is not a multiple of %d (use %d or %d)",
				r.Name, ts, f, size, ts, size/ts*ts, (size/ts+1)*ts)
		}
	case r.Kind.IsBuffer():
		if err := compute.CheckBufferSize(r, size); err != nil {
			return nil, usagef("%v", err)
		}
	}
	var b *compute.Buffer
	var err error
	if typed {
		b, err = dev.TypedBuffer(f, size/uint64(f.Info().BytesPerTexel), compute.HeapDefault)
	} else {
		b, err = dev.Buffer(size, compute.HeapDefault)
	}
	if err != nil {
		return nil, err
	}
	if data != nil {
		err = b.Upload(data)
	} else {
		err = b.Upload(make([]byte, size))
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// makeTexture makes the texture a SPEC describes for r; the caller has
// checked it with isTextureSpec.
func makeTexture(dev *compute.Device, r *shader.Resource, spec string) (*compute.Texture, error) {
	parts := strings.Split(spec, ":")
	kind := strings.ToLower(parts[0])
	if kind != "tex1d" && kind != "tex2d" && kind != "tex3d" { // FILE.png
		parts = []string{"tex2d", "rgba8_unorm", "", spec}
		kind = "tex2d"
	}
	wantDim := map[string]shader.ImageDim{"tex1d": shader.Dim1D, "tex2d": shader.Dim2D, "tex3d": shader.Dim3D}[kind]
	if r.Dim != wantDim || r.Arrayed {
		return nil, usagef("%s is a %s; a %s cannot bind to it (use tex%s)", r.Name, kindName(r), kind, strings.ToLower(r.Dim.String()))
	}
	var f format.Format
	var dims, file string
	rest := parts[1:]
	if len(rest) > 0 {
		if rest[0] == "" {
			rest = rest[1:] // tex2d::WxH: the shader's format
		} else if ff, err := format.Parse(rest[0]); err == nil {
			f, rest = ff, rest[1:]
		} else if _, terr := parseTriple(rest[0]); terr != nil {
			return nil, usagef("%v", err)
		}
	}
	if len(rest) > 0 {
		dims, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		file = strings.Join(rest, ":")
	}
	if f == 0 {
		vf := format.Format(r.Format.VkFormat())
		if _, ok := format.Lookup(vf); !ok || vf == 0 {
			return nil, usagef("%s declares no texel format: give one, such as %s:rgba8_unorm:%s", r.Name, kind, dims)
		}
		f = vf
	}
	var data []byte
	var pw, ph int
	if file != "" {
		var err error
		if data, pw, ph, err = readInput(file); err != nil {
			return nil, err
		}
	}
	var size [3]uint32
	if dims == "" {
		if pw == 0 {
			return nil, usagef("give the texture's size, such as %s:%s:256x256", kind, f)
		}
		size = [3]uint32{uint32(pw), uint32(ph), 1}
	} else {
		s, err := parseTriple(dims)
		if err != nil {
			return nil, usagef("size %s: %v", dims, err)
		}
		n := strings.Count(strings.ToLower(dims), "x") + strings.Count(dims, ",") + 1
		if want := map[string]int{"tex1d": 1, "tex2d": 2, "tex3d": 3}[kind]; n != want {
			return nil, usagef("size %s: a %s takes %d dimension(s)", dims, kind, want)
		}
		size = s
	}
	var t *compute.Texture
	var err error
	switch kind {
	case "tex1d":
		t, err = dev.Texture1D(size[0], f)
	case "tex2d":
		t, err = dev.Texture2D(size[0], size[1], f)
	default:
		t, err = dev.Texture3D(size[0], size[1], size[2], f)
	}
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = make([]byte, t.Size())
	}
	if uint64(len(data)) != t.Size() {
		t.Close()
		return nil, usagef("%s has %d bytes; the %s texture needs %d", file, len(data), dims, t.Size())
	}
	if err := t.Upload(data); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

type output struct {
	slot *slotRes
	file string
}

// planOutputs pairs --out flags with slots.
func planOutputs(k *compute.Kernel, slots []*slotRes, outs []string) ([]output, error) {
	var plan []output
	var uavs []*slotRes
	for _, s := range slots {
		if class(&s.r) == "--uav" {
			uavs = append(uavs, s)
		}
	}
	for _, o := range outs {
		var s *slotRes
		slot, file, ok := strings.Cut(o, "=")
		if ok {
			res := make([]shader.Resource, len(slots))
			for i, c := range slots {
				res[i] = c.r
			}
			// A plain number is a read-write register (u0), else any.
			i, err := findSlot(k, res, slot, shader.ClassUAV)
			if err != nil {
				i, err = findSlot(k, res, slot, 0)
			}
			if err != nil {
				return nil, usagef("--out %s: %v", o, err)
			}
			s = slots[i]
		} else {
			file = o
			switch len(uavs) {
			case 1:
				s = uavs[0]
			case 0:
				return nil, usagef("--out %s: the shader writes no resource; name the slot to write: --out SLOT=%s", o, o)
			default:
				var names []string
				for _, u := range uavs {
					names = append(names, u.reg+" "+u.r.Name)
				}
				return nil, usagef("--out %s: the shader writes %s; say which: --out %s=%s", o, strings.Join(names, ", "), uavs[0].slot, o)
			}
		}
		if s.sampler != nil {
			return nil, usagef("--out %s: %s is a sampler", o, s.reg)
		}
		switch strings.ToLower(filepath.Ext(file)) {
		case ".npy":
		case ".png":
			if s.tex == nil {
				return nil, usagef("--out %s: %s is a buffer; write it as .npy", o, s.reg)
			}
			if err := pngCheck(s.tex); err != nil {
				return nil, usagef("--out %s: %v; write it as .npy", o, err)
			}
		default:
			return nil, usagef("--out %s: write .npy (buffers and textures) or .png (1D and 2D textures)", o)
		}
		plan = append(plan, output{s, file})
	}
	return plan, nil
}

// readPush reads the --push value and checks it against the shader.
func readPush(spec string, k *compute.Kernel, m *shader.Module) ([]byte, error) {
	size := k.PushConstantSize()
	if spec == "" {
		if size > 0 {
			return nil, usagef("the shader takes %d bytes of push constants (%s): give them with --push HEX or --push FILE", size, pushMembers(m))
		}
		return nil, nil
	}
	var data []byte
	var err error
	switch {
	case strings.HasPrefix(spec, "@"):
		data, err = os.ReadFile(spec[1:])
	default:
		h := strings.NewReplacer("0x", "", " ", "", ",", "", "_", "").Replace(strings.ToLower(spec))
		if d, herr := hex.DecodeString(h); herr == nil && len(d) > 0 {
			data = d
		} else if _, serr := os.Stat(spec); serr == nil {
			data, err = os.ReadFile(spec)
		} else {
			return nil, usagef("--push %s: neither hex bytes nor an existing file", spec)
		}
	}
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, usagef("--push: the shader has no push constants; drop --push")
	}
	pc := m.PushConstants
	if len(data) != int(pc.Size) && len(data) != int(size) {
		return nil, usagef("--push: the shader's push constants are %d bytes (%s); %d given", pc.Size, pushMembers(m), len(data))
	}
	return data, nil
}

func pushMembers(m *shader.Module) string {
	var ms []string
	for _, mb := range m.PushConstants.Members {
		ms = append(ms, fmt.Sprintf("%s at %d, %d bytes", mb.Name, mb.Offset, mb.Size))
	}
	return strings.Join(ms, "; ")
}

// bufferArray describes a buffer's contents as an array: dtype and shape.
func bufferArray(m *shader.Module, s *slotRes) (string, []int) {
	n := int(s.buf.Size())
	r := &s.r
	if f := s.buf.Format(); f != 0 {
		in := f.Info()
		shape := []int{n / in.BytesPerTexel}
		if in.DTypeLanes > 1 {
			shape = append(shape, in.DTypeLanes)
		}
		return in.DType.TypeStr(), shape
	}
	if r.Kind == shader.StorageBuffer && r.Size == 0 {
		if e, ok := m.ArrayElement(r.Set, r.Binding); ok && e.Stride > 0 && n%int(e.Stride) == 0 {
			count := n / int(e.Stride)
			if e.Packed() {
				if dt := scalarDType(e.Scalar, e.Bits); dt != "" {
					if e.Count == 1 {
						return dt, []int{count}
					}
					return dt, []int{count, e.Count}
				}
			}
			return "|u1", []int{count, int(e.Stride)}
		}
	}
	return "|u1", []int{n}
}

func scalarDType(s shader.ScalarType, bits int) string {
	c := map[shader.ScalarType]string{shader.ScalarFloat: "f", shader.ScalarInt: "i", shader.ScalarUint: "u"}[s]
	if c == "" || bits%8 != 0 || bits == 0 || bits > 64 {
		return ""
	}
	if bits == 8 {
		return "|" + c + "1"
	}
	return fmt.Sprintf("<%s%d", c, bits/8)
}

// textureArray describes a texture as an array: dtype and shape (depth,
// height, width, channels, dropping the dimensions it lacks).
func textureArray(t *compute.Texture) (string, []int) {
	in := t.Format().Info()
	var shape []int
	switch t.Dim() {
	case 3:
		shape = []int{int(t.Depth()), int(t.Height()), int(t.Width())}
	case 2:
		shape = []int{int(t.Height()), int(t.Width())}
	default:
		shape = []int{int(t.Width())}
	}
	if in.DTypeLanes > 1 {
		shape = append(shape, in.DTypeLanes)
	}
	return in.DType.TypeStr(), shape
}

func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// writeOutput reads a slot back and writes it to file.
func writeOutput(m *shader.Module, s *slotRes, file string) (string, error) {
	var data []byte
	var err error
	var dtype string
	var shape []int
	if s.buf != nil {
		data, err = s.buf.Readback()
		dtype, shape = bufferArray(m, s)
	} else {
		data, err = s.tex.Readback()
		dtype, shape = textureArray(s.tex)
	}
	if err != nil {
		return "", err
	}
	if strings.EqualFold(filepath.Ext(file), ".png") {
		img, err := toImage(s.tex, data)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return "", err
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("PNG %dx%d", img.Bounds().Dx(), img.Bounds().Dy()), nil
	}
	if err := npy.WriteFile(file, npy.Array{Descr: dtype, Shape: shape, Data: data}); err != nil {
		return "", err
	}
	return dtype + " " + shapeString(shape), nil
}

// pngCheck says why a texture cannot be written as PNG, if it cannot.
func pngCheck(t *compute.Texture) error {
	in := t.Format().Info()
	switch {
	case t.Dim() == 3:
		return fmt.Errorf("a 3D texture does not fit in a PNG")
	case in.Kind == format.Packed || in.Kind == format.SNorm || in.Kind == format.SInt:
		return fmt.Errorf("PNG holds no %s texels", t.Format())
	case in.Channels == 3:
		return fmt.Errorf("PNG holds no %s texels", t.Format())
	}
	return nil
}

// toImage converts texels to an image: 8-bit formats as they are, 16-bit
// integer formats at 16 bits, float formats clamped to [0, 1] at 8 bits;
// one channel is gray, two are red and green.
func toImage(t *compute.Texture, data []byte) (image.Image, error) {
	if err := pngCheck(t); err != nil {
		return nil, err
	}
	in := t.Format().Info()
	w, h := int(t.Width()), int(t.Height())
	ch := in.Channels
	elem := in.BytesPerTexel / ch
	at := func(i, c int) float64 { // channel c of texel i, in [0, 1] (integers: of their range)
		o := i*in.BytesPerTexel + c*elem
		switch {
		case in.Kind == format.Float && elem == 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[o:])))
		case in.Kind == format.Float && elem == 2:
			return float64(half.ToFloat32(binary.LittleEndian.Uint16(data[o:])))
		case elem == 1:
			return float64(data[o]) / 255
		case elem == 2:
			return float64(binary.LittleEndian.Uint16(data[o:])) / 65535
		default:
			return float64(binary.LittleEndian.Uint32(data[o:])) / math.MaxUint32
		}
	}
	clamp := func(v float64, maxv float64) uint16 {
		if v != v || v < 0 {
			return 0
		}
		return uint16(math.Round(min(v, 1) * maxv))
	}
	if elem == 2 && in.Kind != format.Float {
		if ch == 1 {
			img := image.NewGray16(image.Rect(0, 0, w, h))
			for i := range w * h {
				img.SetGray16(i%w, i/w, color.Gray16{Y: clamp(at(i, 0), 65535)})
			}
			return img, nil
		}
		img := image.NewNRGBA64(image.Rect(0, 0, w, h))
		for i := range w * h {
			c := color.NRGBA64{A: 65535}
			c.R = clamp(at(i, 0), 65535)
			c.G = clamp(at(i, 1), 65535)
			if ch == 4 {
				c.B, c.A = clamp(at(i, 2), 65535), clamp(at(i, 3), 65535)
			}
			img.SetNRGBA64(i%w, i/w, c)
		}
		return img, nil
	}
	if ch == 1 {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range w * h {
			img.Pix[i] = uint8(clamp(at(i, 0), 255))
		}
		return img, nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		p := img.Pix[4*i:]
		p[0], p[1], p[2], p[3] = uint8(clamp(at(i, 0), 255)), uint8(clamp(at(i, 1), 255)), 0, 255
		if ch == 4 {
			p[2], p[3] = uint8(clamp(at(i, 2), 255)), uint8(clamp(at(i, 3), 255))
		}
		if in.BGR {
			p[0], p[2] = p[2], p[0]
		}
	}
	return img, nil
}

// summarize prints a read-write resource's first values on stdout.
func summarize(w io.Writer, m *shader.Module, s *slotRes) error {
	var data []byte
	var err error
	var dtype string
	var shape []int
	if s.buf != nil {
		data, err = s.buf.Readback()
		dtype, shape = bufferArray(m, s)
	} else {
		data, err = s.tex.Readback()
		dtype, shape = textureArray(s.tex)
	}
	if err != nil {
		return err
	}
	size, _ := npy.ItemSize(dtype)
	var vals []string
	for i := 0; i+size <= len(data) && len(vals) < 8; i += size {
		b := data[i : i+size]
		switch dtype[1:] {
		case "f4":
			vals = append(vals, strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 'g', -1, 32))
		case "f8":
			vals = append(vals, strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64))
		case "f2":
			vals = append(vals, strconv.FormatFloat(float64(half.ToFloat32(binary.LittleEndian.Uint16(b))), 'g', -1, 32))
		case "i4":
			vals = append(vals, strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b)))))
		case "u4":
			vals = append(vals, strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b)), 10))
		case "i2":
			vals = append(vals, strconv.Itoa(int(int16(binary.LittleEndian.Uint16(b)))))
		case "u2":
			vals = append(vals, strconv.Itoa(int(binary.LittleEndian.Uint16(b))))
		case "i1":
			vals = append(vals, strconv.Itoa(int(int8(b[0]))))
		default:
			vals = append(vals, strconv.Itoa(int(b[0])))
		}
	}
	more := ""
	if len(data) > 8*size {
		more = " ..."
	}
	fmt.Fprintf(w, "%s %s %s %s: [%s%s]\n", s.reg, s.r.Name, dtype, shapeString(shape), strings.Join(vals, " "), more)
	return nil
}

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
