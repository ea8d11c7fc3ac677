package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Host is what ProbeHost read from the machine besides the device lists:
// the environment variables the checks look at, the NVIDIA kernel
// module's version, the NVIDIA driver's libraries in the library search
// path and its Vulkan ICD files. Tests build their own, or point
// ProbeHost at a temporary root.
type Host struct {
	// Env holds the variables of hostEnv that are set, set to "" included.
	Env map[string]string
	// Container names the container this runs in ("docker", "podman",
	// "kubernetes" or the value of $container), "" when none was detected.
	Container string
	// KernelModule is the NVIDIA kernel module's version, from
	// /proc/driver/nvidia/version (KernelLine is its first line) or
	// /sys/module/nvidia/version; "" when no module is loaded.
	KernelModule, KernelLine string
	// Libraries are the NVIDIA driver libraries (libcuda and the GL/Vulkan
	// ones) found in the library search path, in search order.
	Libraries []Library
	// ICDs are the NVIDIA Vulkan ICD files found where the Vulkan loader
	// looks and where drivers put them.
	ICDs []ICD
}

// Library is an NVIDIA driver library found in the library search path.
type Library struct {
	Name string // such as "libGLX_nvidia"
	Path string // the file found, such as /usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0
	// Version is the driver release in the name of the file (after
	// following symbolic links), such as "580.95.05"; "" when the name
	// has none.
	Version string
}

// ICD is a Vulkan driver manifest (ICD JSON file) of the NVIDIA driver.
type ICD struct {
	Path        string // the JSON file
	LibraryPath string // its ICD.library_path, such as libGLX_nvidia.so.0
	// Library is the file LibraryPath resolves to, "" when it resolves
	// to nothing (the ICD cannot load).
	Library string
	// Visible is true when the Vulkan loader reads the file (from
	// VK_DRIVER_FILES, VK_ICD_FILENAMES and VK_ADD_DRIVER_FILES, else its
	// standard directories).
	Visible bool
}

// ProbeOptions configure ProbeHost.
type ProbeOptions struct {
	// Root is prepended to every file ProbeHost reads ("" reads the real
	// file system); tests build a fake one in a temporary directory.
	Root string
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// hostEnv are the environment variables the checks read.
var hostEnv = []string{
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", compute.DeviceEnv,
	"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "LD_LIBRARY_PATH",
	"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "HOME",
	"KUBERNETES_SERVICE_HOST", "container",
}

// nvidiaLibRE matches the file names of the NVIDIA libraries ProbeHost
// records: libcuda and the GL/Vulkan driver (the libnvidia-gl package).
var nvidiaLibRE = regexp.MustCompile(`^(libcuda|libGLX_nvidia|libEGL_nvidia|libnvidia-glcore|libnvidia-eglcore|libnvidia-glvkspirv)\.so(?:\.([0-9.]+))?$`)

// glLibraries are the GL/Vulkan user-space libraries whose release must be
// the kernel module's (the Vulkan ICD is libGLX_nvidia).
var glLibraries = []string{"libGLX_nvidia", "libEGL_nvidia", "libnvidia-glcore", "libnvidia-eglcore", "libnvidia-glvkspirv"}

// releaseRE matches a driver release such as 580.95.05 (not a soname's 0 or 1).
var releaseRE = regexp.MustCompile(`^\d{3,}\.\d+(?:\.\d+)*$`)

// Where drivers put their Vulkan ICD files, visible to the loader or not
// (containers mount the driver under /usr/local/nvidia).
var icdDirs = []string{"/usr/local/nvidia/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"}

type prober struct {
	root string
	env  map[string]string
}

// path is the file abs names under the probe's root.
func (p *prober) path(abs string) string { return filepath.Join(p.root, abs) }

// unroot turns a file under the root back into the path it stands for.
func (p *prober) unroot(f string) string {
	if p.root == "" {
		return f
	}
	rel, err := filepath.Rel(p.root, f)
	if err != nil {
		return f
	}
	return "/" + rel
}

func (p *prober) exists(abs string) bool {
	_, err := os.Stat(p.path(abs))
	return err == nil
}

// ProbeHost reads the environment, the NVIDIA kernel module's version, the
// NVIDIA libraries in the library search path and the Vulkan ICD files.
// It does not fail: what it cannot read is left out.
func ProbeHost(o ProbeOptions) *Host {
	look := o.LookupEnv
	if look == nil {
		look = os.LookupEnv
	}
	p := &prober{root: o.Root, env: map[string]string{}}
	for _, k := range hostEnv {
		if v, ok := look(k); ok {
			p.env[k] = v
		}
	}
	h := &Host{Env: p.env}
	switch {
	case p.env["KUBERNETES_SERVICE_HOST"] != "":
		h.Container = "kubernetes"
	case p.exists("/.dockerenv"):
		h.Container = "docker"
	case p.exists("/run/.containerenv"):
		h.Container = "podman"
	case p.env["container"] != "":
		h.Container = p.env["container"]
	}
	if b, err := os.ReadFile(p.path("/proc/driver/nvidia/version")); err == nil {
		h.KernelLine, _, _ = strings.Cut(string(b), "\n")
		h.KernelLine = strings.TrimSpace(h.KernelLine)
		if m := kernelVersionRE.FindStringSubmatch(h.KernelLine); m != nil {
			h.KernelModule = m[1]
		}
	}
	if h.KernelModule == "" {
		if b, err := os.ReadFile(p.path("/sys/module/nvidia/version")); err == nil {
			h.KernelModule = strings.TrimSpace(string(b))
		}
	}
	dirs := p.libraryDirs()
	for _, d := range dirs {
		h.Libraries = append(h.Libraries, p.libraries(d)...)
	}
	h.ICDs = p.icds(dirs)
	return h
}

var kernelVersionRE = regexp.MustCompile(`\b(\d{3,}\.\d+(?:\.\d+)?)\b`)

// libraryDirs lists the directories the dynamic loader searches, in its
// order: LD_LIBRARY_PATH, /etc/ld.so.conf (what ldconfig caches), then the
// default directories.
func (p *prober) libraryDirs() []string {
	var dirs []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range strings.FieldsFunc(p.env["LD_LIBRARY_PATH"], func(r rune) bool { return r == ':' || r == ';' }) {
		add(d)
	}
	p.ldConf("/etc/ld.so.conf", 0, add)
	if ma := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]; ma != "" {
		add("/lib/" + ma)
		add("/usr/lib/" + ma)
	}
	for _, d := range []string{"/lib64", "/usr/lib64", "/lib", "/usr/lib"} {
		add(d)
	}
	return dirs
}

// ldConf reads an ld.so.conf file and the files it includes.
func (p *prober) ldConf(file string, depth int, add func(string)) {
	b, err := os.ReadFile(p.path(file))
	if err != nil || depth > 8 {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || f[0] == "hwcap":
		case f[0] == "include":
			for _, pat := range f[1:] {
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(filepath.Dir(file), pat)
				}
				m, _ := filepath.Glob(p.path(pat))
				slices.Sort(m)
				for _, inc := range m {
					p.ldConf(p.unroot(inc), depth+1, add)
				}
			}
		default:
			for _, d := range strings.FieldsFunc(line, func(r rune) bool { return r == ':' || r == ',' || r == ' ' || r == '\t' }) {
				add(d)
			}
		}
	}
}

// libraries lists the NVIDIA libraries in dir.
func (p *prober) libraries(dir string) []Library {
	ents, err := os.ReadDir(p.path(dir))
	if err != nil {
		return nil
	}
	var out []Library
	for _, e := range ents {
		m := nvidiaLibRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		l := Library{Name: m[1], Path: filepath.Join(dir, e.Name())}
		if releaseRE.MatchString(m[2]) {
			l.Version = m[2]
		} else if real := p.follow(l.Path); real != "" {
			if m := nvidiaLibRE.FindStringSubmatch(filepath.Base(real)); m != nil && releaseRE.MatchString(m[2]) {
				l.Version = m[2]
			}
		}
		out = append(out, l)
	}
	return out
}

// follow resolves the symbolic links of abs within the probe's root and
// returns the file it ends at, "" when the chain is broken or too long.
func (p *prober) follow(abs string) string {
	for range 16 {
		fi, err := os.Lstat(p.path(abs))
		if err != nil {
			return ""
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return abs
		}
		t, err := os.Readlink(p.path(abs))
		if err != nil {
			return ""
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(abs), t)
		}
		abs = filepath.Clean(t)
	}
	return ""
}

// icdFiles lists the ICD files the Vulkan loader reads: those named by
// VK_DRIVER_FILES (or VK_ICD_FILENAMES) and VK_ADD_DRIVER_FILES, else the
// JSON files of its standard directories.
func (p *prober) icdFiles() []string {
	var files []string
	addList := func(list string) {
		for _, f := range strings.Split(list, ":") {
			if f == "" {
				continue
			}
			if fi, err := os.Stat(p.path(f)); err == nil && fi.IsDir() {
				files = append(files, p.jsonIn(f)...)
			} else {
				files = append(files, f)
			}
		}
	}
	only := p.env["VK_DRIVER_FILES"]
	if only == "" {
		only = p.env["VK_ICD_FILENAMES"]
	}
	if only != "" {
		addList(only)
	} else {
		// The loader's order: $XDG_CONFIG_HOME, $XDG_CONFIG_DIRS, /etc,
		// $XDG_DATA_HOME, $XDG_DATA_DIRS, each with the XDG default.
		xdg := func(key, def string) []string {
			if v := p.env[key]; v != "" {
				def = v
			}
			return strings.Split(def, ":")
		}
		home := p.env["HOME"]
		var dirs []string
		if home != "" || p.env["XDG_CONFIG_HOME"] != "" {
			dirs = append(dirs, xdg("XDG_CONFIG_HOME", filepath.Join(home, ".config"))...)
		}
		dirs = append(dirs, xdg("XDG_CONFIG_DIRS", "/etc/xdg")...)
		dirs = append(dirs, "/etc")
		if home != "" || p.env["XDG_DATA_HOME"] != "" {
			dirs = append(dirs, xdg("XDG_DATA_HOME", filepath.Join(home, ".local/share"))...)
		}
		dirs = append(dirs, xdg("XDG_DATA_DIRS", "/usr/local/share:/usr/share")...)
		for _, d := range dirs {
			if filepath.IsAbs(d) {
				files = append(files, p.jsonIn(filepath.Join(d, "vulkan/icd.d"))...)
			}
		}
	}
	addList(p.env["VK_ADD_DRIVER_FILES"])
	return files
}

func (p *prober) jsonIn(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(p.path(dir), "*.json"))
	slices.Sort(m)
	for i := range m {
		m[i] = p.unroot(m[i])
	}
	return m
}

// icds lists the NVIDIA ICD files: those the loader reads, then those in
// the driver's usual directories that it does not read.
func (p *prober) icds(libDirs []string) []ICD {
	var out []ICD
	seen := map[string]bool{}
	visible := p.icdFiles()
	all := slices.Clone(visible)
	for _, d := range icdDirs {
		all = append(all, p.jsonIn(d)...)
	}
	for _, f := range all {
		f = filepath.Clean(f)
		if seen[f] {
			continue
		}
		seen[f] = true
		b, err := os.ReadFile(p.path(f))
		if err != nil {
			continue
		}
		var m struct {
			ICD struct {
				LibraryPath string `json:"library_path"`
			} `json:"ICD"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		lp := m.ICD.LibraryPath
		if !strings.Contains(strings.ToLower(filepath.Base(f)), "nvidia") && !strings.Contains(strings.ToLower(lp), "nvidia") {
			continue
		}
		icd := ICD{Path: f, LibraryPath: lp, Visible: slices.ContainsFunc(visible, func(v string) bool { return filepath.Clean(v) == f })}
		switch {
		case lp == "":
		case strings.Contains(lp, "/"):
			if !filepath.IsAbs(lp) {
				lp = filepath.Join(filepath.Dir(f), lp)
			}
			if p.exists(lp) {
				icd.Library = lp
			}
		default:
			for _, d := range libDirs {
				if p.exists(filepath.Join(d, lp)) {
					icd.Library = filepath.Join(d, lp)
					break
				}
			}
		}
		out = append(out, icd)
	}
	return out
}

// hasLibrary reports whether a library of this name was found.
func (h *Host) hasLibrary(name string) bool {
	return slices.ContainsFunc(h.Libraries, func(l Library) bool { return l.Name == name })
}

// libraryVersion returns the release of the library name the dynamic
// loader would load: the target of the first soname link (such as
// libGLX_nvidia.so.0) in search order, else, among the files named by
// release (libnvidia-glcore.so.580.95.05, loaded by exact name), want's
// release when one is there, else the first. "" when none was found.
func (h *Host) libraryVersion(name, want string) string {
	var named []string
	for _, l := range h.Libraries {
		if l.Name != name || l.Version == "" {
			continue
		}
		if !strings.HasSuffix(l.Path, l.Version) {
			return l.Version // a soname link
		}
		named = append(named, l.Version)
	}
	for _, v := range named {
		if want != "" && sameRelease(v, want) {
			return v
		}
	}
	if len(named) > 0 {
		return named[0]
	}
	return ""
}

// glVersions returns the releases of the GL/Vulkan libraries found, as
// name and version pairs, preferring want's release (see libraryVersion).
func (h *Host) glVersions(want string) [][2]string {
	if h == nil {
		return nil
	}
	var out [][2]string
	for _, n := range glLibraries {
		if v := h.libraryVersion(n, want); v != "" {
			out = append(out, [2]string{n, v})
		}
	}
	return out
}

// capability reports whether NVIDIA_DRIVER_CAPABILITIES grants c.
func capability(caps, c string) bool {
	for _, f := range strings.Split(caps, ",") {
		f = strings.TrimSpace(f)
		if f == c || f == "all" {
			return true
		}
	}
	return false
}

func hasNVIDIAVulkan(r *gfxcuda.DeviceReport) bool {
	return slices.ContainsFunc(r.Vulkan, func(d *vulkan.PhysicalDevice) bool { return d.VendorID == 0x10de && !d.IsSoftware() })
}

// paired reports whether CUDA device i has a Vulkan twin.
func paired(r *gfxcuda.DeviceReport, i int) bool {
	return slices.ContainsFunc(r.Pairs, func(p gfxcuda.DevicePair) bool { return p.CUDA == i })
}

var migNameRE = regexp.MustCompile(`\bMIG\b`)

// isMIG reports whether a CUDA device is a MIG instance: its UUID, as
// nvidia-smi -L and CUDA_VISIBLE_DEVICES write it, starts with MIG-, or its
// name ends with the MIG profile ("NVIDIA H100 80GB HBM3 MIG 1g.10gb").
func isMIG(d cuda.DeviceInfo) bool {
	return strings.HasPrefix(d.UUIDString, "MIG-") || migNameRE.MatchString(d.Name)
}

// computeVGPURE matches the names of NVIDIA's compute-only (C-series) vGPU
// profiles, such as "NVIDIA A100-40C" or "GRID T4-16C".
var computeVGPURE = regexp.MustCompile(`[A-Z0-9]+-\d+C$`)

// migInEnv reports whether CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES
// names MIG devices.
func migInEnv(env map[string]string) string {
	for _, k := range []string{"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"} {
		for _, f := range strings.Split(env[k], ",") {
			if strings.HasPrefix(strings.TrimSpace(f), "MIG-") {
				return k + "=" + env[k]
			}
		}
	}
	return ""
}

// checkNumbering explains CUDA_VISIBLE_DEVICES and warns when the Vulkan
// device gfxcuda uses by default is not CUDA device 0: CUDA and Vulkan
// number GPUs differently, and the variable renumbers CUDA's only.
func checkNumbering(r *gfxcuda.DeviceReport, env map[string]string) []Check {
	const name = "gpu numbering"
	vis, set := env["CUDA_VISIBLE_DEVICES"]
	what := fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q hides and renumbers GPUs for CUDA only (Vulkan, EGL and nvidia-smi still list every GPU, in their own order)", vis)
	const byUUID = "gfxcuda pairs Vulkan and CUDA devices by UUID, never by index"
	if len(r.CUDA) == 0 {
		if set && (r.CUDAErr == nil || errors.Is(r.CUDAErr, cuda.ErrorNoDevice)) {
			return []Check{mk(name, Warn, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q leaves CUDA no GPU", vis),
				"unset CUDA_VISIBLE_DEVICES, or list GPUs that exist by index or UUID (nvidia-smi -L lists them)")}
		}
		return nil
	}
	c0 := r.CUDA[0]
	var problems, fixes []string
	// The device compute.Open (gfxcuda run, the Python API) opens.
	var infos []compute.DeviceInfo
	for _, d := range r.Vulkan {
		if compute.HasCompute(d) {
			infos = append(infos, compute.InfoOf(d))
		}
	}
	spec := env[compute.DeviceEnv]
	pick := fmt.Sprintf("GFXCUDA_DEVICE=GPU-%s", c0.UUID)
	if len(infos) > 0 {
		i, err := compute.Select(infos, spec)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s=%q names no Vulkan device, so compute.Open fails: %v", compute.DeviceEnv, spec, err))
			fixes = append(fixes, "set "+pick+" (CUDA device 0's GPU), or another index, name or UUID that gfxcuda devices lists")
		case len(r.Pairs) > 0 && cuda.UUID(infos[i].UUID) != c0.UUID:
			d := infos[i]
			who := "compute.Open, gfxcuda run and the Python API (compushady's default device)"
			if spec != "" {
				who = fmt.Sprintf("compute.Open and gfxcuda run (%s=%q)", compute.DeviceEnv, spec)
			}
			problems = append(problems, fmt.Sprintf("%s use Vulkan device %d (%s, UUID %s) but CUDA device 0 is %s (UUID %s)",
				who, d.Index, d.Name, cuda.UUID(d.UUID), c0.Name, c0.UUIDString))
			fix := pick + " (or compute.Options{Device: …}, gfxcuda run --device) makes them use CUDA device 0's GPU"
			if v, ok := r.VulkanFor(0); ok {
				fix += fmt.Sprintf("; in Python, compushady.set_current_device(%d)", v.Index)
			}
			fixes = append(fixes, fix)
		}
	}
	// The pair gfxcuda.Open opens.
	if len(r.Pairs) > 0 && r.Pairs[0].CUDA != 0 {
		p := r.Pairs[0]
		problems = append(problems, fmt.Sprintf("gfxcuda.Open uses Vulkan device %d = CUDA device %d (%s), not CUDA device 0 (%s) where CUDA code (PyTorch's cuda:0) works by default",
			p.Vulkan, r.CUDA[p.CUDA].Ordinal, r.CUDA[p.CUDA].Name, c0.Name))
		fixes = append(fixes, fmt.Sprintf("pass gfxcuda.Options{UUID: &u} with CUDA device 0's UUID %s, or run your CUDA work on device %d; CUDA_DEVICE_ORDER=PCI_BUS_ID makes CUDA count GPUs in PCI order, as Vulkan usually does",
			c0.UUIDString, r.CUDA[p.CUDA].Ordinal))
	}
	if len(problems) > 0 {
		detail := strings.Join(problems, "; ") + ". " + byUUID
		if set {
			detail += "; " + what
		}
		return []Check{mk(name, Warn, detail, strings.Join(fixes, "; "))}
	}
	if set {
		same := ""
		if len(r.Pairs) > 0 {
			same = ", and gfxcuda's default Vulkan device is the same GPU"
		}
		return []Check{mk(name, Info, fmt.Sprintf("%s; CUDA device 0 is %s (UUID %s)%s: %s", what, c0.Name, c0.UUIDString, same, byUUID),
			"to use another GPU: GFXCUDA_DEVICE=INDEX|NAME|UUID (compute.Open, gfxcuda run --device), gfxcuda.Options{UUID: …}; never pass a CUDA index to Vulkan")}
	}
	return nil
}

// containerFix says how to start a container with the driver's graphics part.
const containerFix = "start the container with the graphics capability: docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=all (or compute,utility,graphics); " +
	"podman: --device nvidia.com/gpu=all (CDI: the spec nvidia-ctk cdi generate writes includes the graphics libraries) or -e NVIDIA_DRIVER_CAPABILITIES=all with the NVIDIA hook; " +
	"Kubernetes: env NVIDIA_DRIVER_CAPABILITIES=all on the container (or ENV NVIDIA_DRIVER_CAPABILITIES=all in the image)"

// hostGLFix says how to install the driver's graphics part outside containers.
func hostGLFix(kernel string) string {
	branch := "<branch>"
	if kernel != "" {
		branch, _, _ = strings.Cut(kernel, ".")
	}
	return "install the NVIDIA driver's GL/Vulkan libraries of the kernel module's release (Ubuntu: sudo apt-get install libnvidia-gl-" + branch +
		"; Debian: nvidia-vulkan-icd libegl-nvidia0 libglx-nvidia0; the .run installer: without --no-opengl-files)"
}

// checkGraphicsDriver finds CUDA working without the driver's graphics
// part (Vulkan ICD, libGLX_nvidia, libEGL_nvidia): a container started
// without the graphics capability, or a driver installed without it. g,
// when not nil, tells whether EGL runs on the CUDA GPU all the same.
func checkGraphicsDriver(r *gfxcuda.DeviceReport, h *Host, g *GLReport, kernel string) []Check {
	const name = "nvidia graphics driver"
	if h == nil || len(r.CUDA) == 0 || slices.ContainsFunc(r.CUDA, isMIG) || migInEnv(h.Env) != "" {
		return nil // MIG slices have no graphics whatever is installed: checkNoGraphics
	}
	caps, capsSet := h.Env["NVIDIA_DRIVER_CAPABILITIES"]
	_, nvVisible := h.Env["NVIDIA_VISIBLE_DEVICES"]
	container := h.Container != "" || capsSet || nvVisible
	var capsNote string
	switch {
	case capsSet && !capability(caps, "graphics"):
		capsNote = fmt.Sprintf("NVIDIA_DRIVER_CAPABILITIES=%q has no graphics", caps)
	case !capsSet && container:
		capsNote = "NVIDIA_DRIVER_CAPABILITIES is unset (the NVIDIA container toolkit then mounts compute,utility only)"
	}
	fix := hostGLFix(kernel)
	if container {
		fix = containerFix + "; outside containers " + fix
	}
	egl, glx := h.hasLibrary("libEGL_nvidia"), h.hasLibrary("libGLX_nvidia")
	if hasNVIDIAVulkan(r) {
		// Vulkan works; EGL may not.
		eglWorks := g != nil && g.Context != nil && g.Context.UUIDMatched
		if capsNote != "" && !egl && !eglWorks {
			return []Check{mk(name, Warn, capsNote+" and libEGL_nvidia.so.0 is missing: Vulkan works, but OpenGL on EGL runs on a software renderer, not on "+r.CUDA[0].Name, fix)}
		}
		return nil
	}
	var loads, elsewhere *ICD
	var broken []string
	for i := range h.ICDs {
		icd := &h.ICDs[i]
		switch {
		case icd.Library == "":
			broken = append(broken, icd.Path+" names "+icd.LibraryPath+", which is not in the library search path")
		case icd.Visible && loads == nil:
			loads = icd
		case !icd.Visible && elsewhere == nil:
			elsewhere = icd
		}
	}
	if loads != nil {
		return nil // the ICD loads but lists no GPU: checkNoGraphics, or driver versions
	}
	if elsewhere != nil {
		return []Check{mk(name, Fail, "the NVIDIA Vulkan ICD "+elsewhere.Path+" is installed, but the Vulkan loader does not read it",
			"export VK_DRIVER_FILES="+elsewhere.Path)}
	}
	missing := []string{"no NVIDIA Vulkan ICD file (nvidia_icd.json)"}
	if len(broken) > 0 {
		missing = broken
	}
	if !glx {
		missing = append(missing, "no libGLX_nvidia.so.0")
	}
	if !egl {
		missing = append(missing, "no libEGL_nvidia.so.0")
	}
	detail := fmt.Sprintf("CUDA sees %s but the NVIDIA driver's graphics part is missing: %s", r.CUDA[0].Name, strings.Join(missing, ", "))
	if capsNote != "" {
		detail += "; " + capsNote
	}
	if h.Container != "" {
		detail += " (in a " + h.Container + " container)"
	}
	return []Check{mk(name, Fail, detail, fix)}
}

// checkNoGraphics finds GPUs that CUDA sees and Vulkan cannot: MIG
// instances and compute-only vGPU profiles have no graphics, and an
// installed NVIDIA ICD that lists no GPU means the same.
func checkNoGraphics(r *gfxcuda.DeviceReport, h *Host, glSkew bool) []Check {
	const name = "graphics on the GPU"
	if len(r.CUDA) == 0 {
		return nil
	}
	var env map[string]string
	if h != nil {
		env = h.Env
	}
	envMIG := migInEnv(env)
	var mig, vgpu []string
	for i, c := range r.CUDA {
		if paired(r, i) {
			continue
		}
		d := fmt.Sprintf("CUDA device %d (%s)", c.Ordinal, c.Name)
		switch {
		case isMIG(c) || envMIG != "":
			mig = append(mig, d)
		case computeVGPURE.MatchString(c.Name):
			vgpu = append(vgpu, d)
		}
	}
	const cudaOnly = "; where that is not possible, use CUDA alone there (kernels, PyTorch): gfxcuda's Vulkan and GL paths, compute shaders included, need a GPU with graphics"
	switch {
	case len(mig) > 0:
		detail := strings.Join(mig, ", ") + " is a MIG instance"
		if envMIG != "" {
			detail += " (" + envMIG + ")"
		}
		return []Check{mk(name, Fail, detail+": MIG instances have no graphics, so Vulkan and OpenGL cannot use them and no memory can be shared with CUDA there",
			"use a whole GPU: disable MIG (sudo nvidia-smi -i GPU -mig 0, then reset the GPU or reboot) or run on a GPU without MIG"+cudaOnly)}
	case len(vgpu) > 0:
		return []Check{mk(name, Fail, strings.Join(vgpu, ", ")+" looks like a compute-only (C-series) vGPU profile: those have no graphics, so Vulkan and OpenGL cannot use it",
			"ask for a vGPU profile with graphics (Q-series) or a passthrough GPU"+cudaOnly)}
	}
	if h == nil || hasNVIDIAVulkan(r) || glSkew {
		return nil
	}
	for _, icd := range h.ICDs {
		if icd.Visible && icd.Library != "" {
			return []Check{mk(name, Fail, fmt.Sprintf("the NVIDIA Vulkan driver (%s → %s) loads but lists no GPU, while CUDA sees %s: this GPU, or its vGPU profile or MIG slice, offers no graphics",
				icd.Path, icd.Library, r.CUDA[0].Name),
				"see what the loader says: VK_LOADER_DEBUG=error,warn,driver vulkaninfo --summary; nvidia-smi -L shows MIG devices: use a whole GPU without MIG, or a vGPU profile with graphics (Q-series)"+cudaOnly)}
		}
	}
	return nil
}

// mk makes a Check, its JSON state derived from st.
func mk(name string, st Status, detail, fix string) Check {
	return Check{Name: name, Status: st, State: st.jsonName(), Detail: detail, Fix: fix}
}
