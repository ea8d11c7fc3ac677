package cli

// gfxcuda run's binding: the flags (--uav, --srv, --cbv, --sampler,
// --random, --out, --push) turned into the resources, samplers and push
// constants of the dispatch.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

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

// findSlot finds the resource a flag's SLOT names, for a resource of
// register class cl (0: any); its error is written for the command line
// (slotError).
func findSlot(k *compute.Kernel, res []shader.Resource, slot string, cl shader.RegisterClass) (int, error) {
	sl := compute.ParseSlot(slot)
	r, err := k.Find(sl, cl)
	if err != nil {
		return -1, slotError(k, res, slot, sl, cl, err)
	}
	for i := range res {
		if res[i].Set == r.Set && res[i].Binding == r.Binding {
			return i, nil
		}
	}
	return -1, fmt.Errorf("resource %s not found", r.Name)
}

// bindSpec is one binding flag (--uav, --srv, --cbv or --sampler) and its
// SLOT:SPEC.
type bindSpec struct{ flag, value string }

// bindResources creates and fills the resources the flags describe: the
// binding flags' (bindFlag), then --random's (fillRandom); it checks that
// every resource the shader uses is bound (checkAllBound) and prints what
// binds each (printBindings).
func bindResources(dev *compute.Device, k *compute.Kernel, o *runOpts, pr progress) ([]*slotRes, error) {
	res := k.Resources()
	slots := make([]*slotRes, len(res))
	for i := range res {
		slots[i] = &slotRes{r: res[i], slot: slotText(k, &res[i]), reg: k.Register(&res[i])}
	}
	randomAt, err := randomSlots(k, res, o.random)
	if err != nil {
		return nil, err
	}
	for _, sp := range bindingSpecs(o) {
		if err := bindFlag(dev, k, o.source, res, slots, sp); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	// Slots are filled in slot order, so one seed gives every slot the same
	// bytes from run to run (a map's order would not).
	for _, i := range slices.Sorted(maps.Keys(randomAt)) {
		if err := fillRandom(dev, k, slots[i], randomAt[i], rng); err != nil {
			return nil, err
		}
	}
	if err := checkAllBound(k, slots); err != nil {
		return nil, err
	}
	printBindings(slots, pr)
	return slots, nil
}

// bindingSpecs lists the binding flags in the order they are applied:
// every --uav, then --srv, --cbv and --sampler.
func bindingSpecs(o *runOpts) []bindSpec {
	var specs []bindSpec
	for _, f := range []struct {
		name string
		vals []string
	}{{"--uav", o.uav}, {"--srv", o.srv}, {"--cbv", o.cbv}, {"--sampler", o.samplers}} {
		for _, v := range f.vals {
			specs = append(specs, bindSpec{f.name, v})
		}
	}
	return specs
}

// randomSlots parses the --random flags (SLOT[:SIZE]): the slot index
// each names, with its SIZE ("" when none).
func randomSlots(k *compute.Kernel, res []shader.Resource, random []string) (map[int]string, error) {
	randomAt := map[int]string{} // slot index → --random value
	for _, v := range random {
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
	return randomAt, nil
}

// bindFlag applies one binding flag: it finds the slot (a --sampler at a
// combined image sampler's slot gives that texture its sampler), checks
// that the flag's class fits the resource there, and makes the sampler,
// texture or buffer its SPEC describes (src is the shader's source, for
// messages).
func bindFlag(dev *compute.Device, k *compute.Kernel, src []byte, res []shader.Resource, slots []*slotRes, sp bindSpec) error {
	full := sp.flag + " " + sp.value
	slot, rest, ok := strings.Cut(sp.value, ":")
	if !ok || rest == "" {
		return usagef("%s: give SLOT:SPEC, such as %s 0:4096", full, sp.flag)
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
		return usagef("%s: %v", full, err)
	}
	s := slots[i]
	r := &s.r
	if s.flag != "" && !(sp.flag == "--sampler" && r.Kind == shader.CombinedImageSampler) {
		return usagef("%s: slot %s is bound already by %s", full, slot, s.flag)
	}
	want := class(r)
	if r.Kind == shader.CombinedImageSampler && sp.flag == "--sampler" {
		smp, err := parseSampler(dev, rest)
		if err != nil {
			return usagef("%s: %v", full, err)
		}
		s.withSmp = smp
		return nil
	}
	if sp.flag != want {
		return usagef("%s: %s is %s, a %s; bind it with %s, such as %s", full, s.reg, r.Name, kindName(r), want, example(k, r))
	}
	s.flag = full
	switch r.Kind {
	case shader.Sampler:
		s.sampler, err = parseSampler(dev, rest)
	case shader.SampledImage, shader.StorageImage, shader.CombinedImageSampler:
		if !isTextureSpec(rest) {
			return usagef("%s: %s is a texture (%s); give tex1d:FORMAT:W, tex2d:FORMAT:WxH or tex3d:FORMAT:WxHxD (optionally :FILE), or FILE.png, such as %s",
				full, s.reg, declaration(src, r), example(k, r))
		}
		s.tex, err = makeTexture(dev, r, rest)
	default:
		if isTextureSpec(rest) {
			return usagef("%s: %s is a %s (%s); give a size in bytes or a .npy file, such as %s",
				full, s.reg, bufferWord(r), declaration(src, r), example(k, r))
		}
		s.buf, err = makeBuffer(dev, r, rest)
		if errors.Is(err, errNoSizeOrFile) {
			return usagef("%s: %s is a %s (%s); %v: give a size in bytes or a .npy file, such as %s",
				full, s.reg, bufferWord(r), declaration(src, r), err, example(k, r))
		}
	}
	if err != nil {
		return inFlag(full, err)
	}
	return nil
}

// fillRandom applies a --random flag to slot s: it binds a buffer of
// size bytes there when nothing is bound yet, then fills what is bound
// with bytes from rng.
func fillRandom(dev *compute.Device, k *compute.Kernel, s *slotRes, size string, rng *rand.Rand) error {
	r := &s.r
	flag := "--random " + s.slot
	if size != "" {
		flag += ":" + size
	}
	if s.flag == "" {
		if size == "" {
			return usagef("%s: nothing is bound at %s; give a size (--random %s:4096) or bind it with %s", flag, s.reg, s.slot, class(r))
		}
		if r.Kind != shader.UniformBuffer && r.Kind != shader.StorageBuffer && r.Kind != shader.UniformTexelBuffer && r.Kind != shader.StorageTexelBuffer {
			return usagef("%s: %s is a %s; bind it with %s, then --random %s fills it", flag, r.Name, kindName(r), example(k, r), s.slot)
		}
		b, err := makeBuffer(dev, r, size)
		switch {
		case errors.Is(err, errNoSizeOrFile):
			return usagef("%s: %v; give a size in bytes, such as --random %s:4096", flag, err, s.slot)
		case isUsage(err):
			return inFlag(flag, err)
		case err != nil:
			return err
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
		return usagef("%s: %s is a sampler", flag, r.Name)
	}
	if size != "" {
		if v, ok := parseSize(size); !ok || v != n {
			return usagef("%s: the resource bound there (%s) has %d bytes", flag, s.flag, n)
		}
	}
	data := make([]byte, n)
	for j := range data {
		data[j] = byte(rng.Uint32())
	}
	if s.buf != nil {
		return s.buf.Upload(data)
	}
	return s.tex.Upload(data)
}

// checkAllBound fails, naming them with an example flag, when a resource
// the shader uses, or a combined image sampler's sampler, is not bound.
func checkAllBound(k *compute.Kernel, slots []*slotRes) error {
	var missing []string
	for _, s := range slots {
		if s.flag == "" {
			missing = append(missing, fmt.Sprintf("%s %s (%s: %s)", s.reg, s.r.Name, kindName(&s.r), example(k, &s.r)))
		} else if s.r.Kind == shader.CombinedImageSampler && s.withSmp == nil {
			missing = append(missing, fmt.Sprintf("the sampler of %s %s (--sampler %s:linear:clamp)", s.reg, s.r.Name, s.slot))
		}
	}
	if len(missing) > 0 {
		return usagef("nothing binds %s", strings.Join(missing, "; "))
	}
	return nil
}

// printBindings prints (unless -q) what binds each slot, and which flag.
func printBindings(slots []*slotRes, pr progress) {
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
}

// kernelArgs makes the dispatch's arguments: each slot's resource at its
// set and binding (a texture with its combined sampler), then the push
// constants.
func kernelArgs(slots []*slotRes, push []byte) []compute.Arg {
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
	return args
}

func parseSampler(dev *compute.Device, spec string) (*compute.Sampler, error) {
	sp, err := compute.ParseSampler(spec)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return dev.SamplerWith(sp)
}

// isTextureSpec reports whether spec describes a texture: tex1d:…,
// tex2d:…, tex3d:… or FILE.png.
func isTextureSpec(spec string) bool {
	kind, _, _ := strings.Cut(strings.ToLower(spec), ":")
	return kind == "tex1d" || kind == "tex2d" || kind == "tex3d" || strings.EqualFold(filepath.Ext(spec), ".png")
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
	size, isSize, err := parseSizeSpec(spec, sizeExample(r, f))
	if err != nil {
		if _, serr := os.Stat(spec); serr == nil {
			isSize, err = false, nil // a file named like a size: its bytes
		}
	}
	switch {
	case errors.Is(err, errZeroSize):
		return nil, usagef("a %s of 0 bytes holds nothing; give a size of at least 1 byte, such as %d", bufferWord(r), sizeExample(r, f))
	case err != nil:
		return nil, usagef("%v", err)
	case !isSize:
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
	if err := checkBufferFits(dev, r, f, spec, size, isSize); err != nil {
		return nil, err
	}
	switch {
	case typed:
		ts := uint64(f.Info().BytesPerTexel)
		if size%ts != 0 {
			use := fmt.Sprintf("use %d or %d", size/ts*ts, (size/ts+1)*ts)
			if size < ts {
				use = fmt.Sprintf("use %d", ts)
			}
			return nil, usagef("typed buffer %s holds %d-byte %s texels; %s is not a multiple of %d (%s)",
				r.Name, ts, f, sizeWords(spec, size, isSize), ts, use)
		}
	case r.Kind.IsBuffer():
		if err := compute.CheckBufferSize(r, size); err != nil {
			return nil, usagef("%v", err)
		}
	}
	var b *compute.Buffer
	if typed {
		b, err = dev.TypedBuffer(f, size/uint64(f.Info().BytesPerTexel), compute.HeapDefault)
	} else {
		b, err = dev.Buffer(size, compute.HeapDefault)
	}
	if err != nil {
		return nil, memoryError(dev, spec, size, isSize, err)
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

// errZeroSize is parseSizeSpec's error for a size of 0.
var errZeroSize = errors.New("a size of 0 bytes")

// sizeRE matches what is meant as a size rather than a file name: a
// number, maybe signed or with a fraction, then maybe letters.
var sizeRE = regexp.MustCompile(`^\s*([+-]?)(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*$`)

// sizeUnits are the suffixes of a SIZE: k (or K), M and G, powers of 1024.
var sizeUnits = map[string]uint64{"": 1, "k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

// parseSizeSpec reads a buffer's SIZE: whole bytes, or a whole number of k,
// M or G (KiB, MiB, GiB). isSize is false for a spec that is not meant as
// a size (a file's name). A size too large for any memory is
// math.MaxUint64, for the caller to refuse against the device's memory; a
// size of 0 is errZeroSize; err says what else is wrong with a size, in
// the user's words, with example, a size that would do.
func parseSizeSpec(spec string, example uint64) (n uint64, isSize bool, err error) {
	if v, ok := parseSize(spec); ok {
		return v, true, nil
	}
	m := sizeRE.FindStringSubmatch(spec)
	if m == nil {
		return 0, false, nil
	}
	sign, num, unit := m[1], m[2], m[3]
	mul, ok := sizeUnits[unit]
	switch {
	case !ok:
		return 0, true, fmt.Errorf("%s: %q is not a unit of size; give whole bytes or a whole number of k, M or G (KiB, MiB, GiB), such as %d or %s",
			spec, unit, example, wholeUnits(example))
	case sign == "-":
		return 0, true, fmt.Errorf("%s: a size cannot be negative; give a number of bytes, such as %d", spec, example)
	case strings.Contains(num, "."):
		r, ok := new(big.Rat).SetString(num)
		if !ok {
			return 0, false, nil
		}
		r.Mul(r, new(big.Rat).SetInt64(int64(mul)))
		switch {
		case r.Sign() == 0:
			return 0, true, errZeroSize
		case !r.IsInt() || !r.Num().IsUint64():
			return 0, true, fmt.Errorf("%s is not a whole number of bytes; give whole bytes or a whole number of k, M or G, such as %d", spec, example)
		}
		b := r.Num().Uint64()
		return 0, true, fmt.Errorf("%s: a size is a whole number of bytes, k, M or G; give %s (%d bytes)", spec, wholeUnits(b), b)
	}
	v, perr := strconv.ParseUint(num, 10, 64)
	if perr == nil && v == 0 {
		return 0, true, errZeroSize
	}
	// Whole and well formed, so too large for 64 bits.
	return math.MaxUint64, true, nil
}

// wholeUnits writes n bytes in the largest unit of which it is a whole
// number: 1610612736 is "1536M".
func wholeUnits(n uint64) string {
	for _, u := range []struct {
		s string
		v uint64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"k", 1 << 10}} {
		if n%u.v == 0 {
			return strconv.FormatUint(n/u.v, 10) + u.s
		}
	}
	return strconv.FormatUint(n, 10)
}

// sizeWords writes a buffer's size as the user gave it: "4096 bytes", "4G
// (4294967296 bytes)", "a.npy's 512 bytes"; a size too large for 64 bits
// as it was given.
func sizeWords(spec string, n uint64, isSize bool) string {
	spec = strings.TrimSpace(spec)
	switch {
	case !isSize:
		return fmt.Sprintf("%s's %d bytes", spec, n)
	case n == math.MaxUint64 && sizeUnits[strings.TrimLeft(spec, "0123456789")] > 1:
		return spec
	case n == math.MaxUint64 || strconv.FormatUint(n, 10) == spec:
		return spec + " bytes"
	}
	return fmt.Sprintf("%s (%d bytes)", spec, n)
}

// sizeExample is a size that fits r, for messages: 1024 of its elements
// or texels (4096 for floats), or its block.
func sizeExample(r *shader.Resource, f format.Format) uint64 {
	switch {
	case f != 0:
		return 1024 * uint64(f.Info().BytesPerTexel)
	case r.Stride > 0:
		return uint64(r.Size) + 1024*uint64(r.Stride)
	case r.Size > 0:
		return uint64(r.Size)
	}
	return 4096
}

// deviceHeap is the size of the device's largest device-local memory heap
// (of any heap, when none is device-local), where buffers are made, and
// whether it is the device's only heap (lavapipe, integrated GPUs): then
// the staging buffers that fill a buffer come out of it too.
func deviceHeap(dev *compute.Device) (size uint64, only bool) {
	heaps := dev.Vulkan().Physical().MemoryHeaps
	var local, any uint64
	for _, h := range heaps {
		any = max(any, h.Size)
		if h.DeviceLocal {
			local = max(local, h.Size)
		}
	}
	if local > 0 {
		return local, len(heaps) == 1
	}
	return any, len(heaps) == 1
}

// humanBytes writes n bytes in GiB, MiB or KiB, to a tenth: "2 GiB",
// "1.5 GiB".
func humanBytes(n uint64) string {
	for _, u := range []struct {
		s string
		v uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v {
			return strconv.FormatFloat(math.Round(float64(n)/float64(u.v)*10)/10, 'f', -1, 64) + " " + u.s
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkBufferFits refuses, before it is made, a buffer larger than the
// device's largest memory heap, or than the device binds as one storage
// buffer (maxStorageBufferRange) or texel buffer (maxTexelBufferElements),
// naming the device's figure and the largest size that fits.
func checkBufferFits(dev *compute.Device, r *shader.Resource, f format.Format, spec string, size uint64, isSize bool) error {
	name := dev.Info().Name
	heap, only := deviceHeap(dev)
	switch {
	case heap > 0 && size > heap:
		return usagef("a buffer of %s does not fit in %s's memory: its largest memory heap holds %d bytes (%s); give a smaller size",
			sizeWords(spec, size, isSize), name, heap, humanBytes(heap))
	case only && size == heap:
		// Its data passes through staging buffers of that heap too.
		return usagef("a buffer of %s takes all of %s's memory (its only memory heap holds %d bytes, %s), which the buffers that fill it need too; give a smaller size",
			sizeWords(spec, size, isSize), name, heap, humanBytes(heap))
	}
	lim := dev.Limits()
	switch r.Kind {
	case shader.UniformBuffer:
		max := uint64(lim.MaxUniformBufferRange)
		if max == 0 || size <= max {
			return nil
		}
		return usagef("%s is more than %s binds as one constant buffer (maxUniformBufferRange %d bytes, %s): the shader would see the first %d; give at most %d bytes",
			sizeWords(spec, size, isSize), name, max, humanBytes(max), max, max)
	case shader.StorageBuffer:
		max := uint64(lim.MaxStorageBufferRange)
		if max == 0 || size <= max {
			return nil
		}
		fit := max
		if r.Stride > 0 && max >= uint64(r.Size) {
			fit = uint64(r.Size) + (max-uint64(r.Size))/uint64(r.Stride)*uint64(r.Stride)
		}
		return usagef("%s is more than %s binds as one storage buffer (maxStorageBufferRange %d bytes, %s); give at most %d bytes (%s)",
			sizeWords(spec, size, isSize), name, max, humanBytes(max), fit, wholeUnits(fit))
	case shader.UniformTexelBuffer, shader.StorageTexelBuffer:
		if f == 0 {
			return nil
		}
		ts := uint64(f.Info().BytesPerTexel)
		max := uint64(lim.MaxTexelBufferElements)
		if max == 0 || size/ts <= max {
			return nil
		}
		return usagef("%s are %d %s texels, more than %s binds as one typed buffer (maxTexelBufferElements %d); give at most %d bytes",
			sizeWords(spec, size, isSize), size/ts, f, name, max, max*ts)
	}
	return nil
}

// memoryError words the device's refusal to make a buffer of size bytes:
// out of memory, with the size of its largest heap (what else runs on the
// device uses it too).
func memoryError(dev *compute.Device, spec string, size uint64, isSize bool, err error) error {
	if !errors.Is(err, vulkan.ErrorOutOfDeviceMemory) && !errors.Is(err, vulkan.ErrorOutOfHostMemory) {
		return err
	}
	heap, _ := deviceHeap(dev)
	return fmt.Errorf("a buffer of %s: %s has not that much memory free (%w); its largest memory heap holds %d bytes (%s), shared with what else runs on it; give a smaller size",
		sizeWords(spec, size, isSize), dev.Info().Name, err, heap, humanBytes(heap))
}
