package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// gfx runs gfxcuda in process and returns its exit status and output.
func gfx(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	rc := run(args, &out, &errb)
	return rc, out.String(), errb.String()
}

// firstLine is the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// checkUsageError checks the form of a usage error: exit status 2, one
// line "gfxcuda CMD: reason" naming what was wrong, then the usage line.
func checkUsageError(t *testing.T, cmd string, args []string, want ...string) string {
	t.Helper()
	rc, _, stderr := gfx(args...)
	if rc != 2 {
		t.Errorf("gfxcuda %s: exit %d, want 2\n%s", strings.Join(args, " "), rc, stderr)
		return stderr
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "gfxcuda "+cmd+": ") {
		t.Errorf("gfxcuda %s: the first line does not say what was wrong:\n%s", strings.Join(args, " "), stderr)
		return stderr
	}
	found := false
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "usage: gfxcuda "+cmd+" [flags]") {
			found = true
		}
	}
	if !found {
		t.Errorf("gfxcuda %s: no usage line after the reason:\n%s", strings.Join(args, " "), stderr)
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Errorf("gfxcuda %s: %q lacks %q", strings.Join(args, " "), lines[0], w)
		}
	}
	return stderr
}

// Every command's -h and --help, and gfxcuda's own, print one format on
// stdout: "usage: gfxcuda CMD [flags] ARGS", a paragraph, then the flags,
// each written with two dashes (one for one-letter flags).
func TestHelpFormat(t *testing.T) {
	flagLine := regexp.MustCompile(`^  (--[a-z][a-z0-9-]+|-[A-Za-z])( \S.*)?$`)
	for _, name := range commandNames() {
		for _, h := range []string{"-h", "--help", "-help"} {
			rc, stdout, stderr := gfx(name, h)
			if rc != 0 || stderr != "" {
				t.Errorf("gfxcuda %s %s: exit %d, stderr %q", name, h, rc, stderr)
			}
			lines := strings.Split(stdout, "\n")
			if !strings.HasPrefix(lines[0], "usage: gfxcuda "+name+" [flags]") {
				t.Errorf("gfxcuda %s %s: first line %q", name, h, lines[0])
				continue
			}
			if strings.Contains(stdout, "Usage of") {
				t.Errorf("gfxcuda %s %s prints Go's bare usage", name, h)
			}
			if len(lines) < 4 || lines[1] != "" || lines[2] == "" {
				t.Errorf("gfxcuda %s %s: no paragraph after the usage line:\n%s", name, h, stdout)
			}
			i := strings.Index(stdout, "\nflags:\n")
			if i < 0 {
				t.Errorf("gfxcuda %s %s: no flags section:\n%s", name, h, stdout)
				continue
			}
			n := 0
			for _, l := range strings.Split(stdout[i+len("\nflags:\n"):], "\n") {
				if l == "" {
					break
				}
				if strings.HasPrefix(l, "    \t") {
					continue
				}
				if !flagLine.MatchString(l) {
					t.Errorf("gfxcuda %s %s: flag line %q", name, h, l)
				}
				n++
			}
			if n == 0 {
				t.Errorf("gfxcuda %s %s lists no flags", name, h)
			}
		}
		// gfxcuda help CMD is gfxcuda CMD --help.
		_, a, _ := gfx("help", name)
		_, b, _ := gfx(name, "--help")
		if a != b {
			t.Errorf("gfxcuda help %s differs from gfxcuda %s --help", name, name)
		}
	}
	for _, h := range []string{"-h", "--help", "help"} {
		rc, stdout, _ := gfx(h)
		if rc != 0 || !strings.HasPrefix(stdout, "usage: gfxcuda COMMAND [flags]") || !strings.Contains(stdout, "\ncommands:\n") {
			t.Errorf("gfxcuda %s: exit %d\n%s", h, rc, stdout)
		}
	}
}

// Usage errors say what was wrong in one line, then the usage: unknown
// flags (with the nearest one), bad values, unexpected arguments.
func TestUsageErrors(t *testing.T) {
	for _, name := range commandNames() {
		checkUsageError(t, name, []string{name, "--no-such-flag"}, "unknown flag --no-such-flag")
		// Every command refuses an unexpected argument, after its own;
		// the flags after it would stop the command at once if the
		// argument were taken (share would wait for a consumer).
		args := []string{name}
		switch name {
		case "run":
			args = append(args, "missing.hlsl")
		case "open":
			args = append(args, "gfxcuda1.x")
		}
		args = append(args, "extra")
		switch name {
		case "share":
			args = append(args, "--slots", "1")
		case "demo":
			args = append(args, "--size", "1x1")
		case "bench":
			args = append(args, "--only", "nosuch")
		}
		checkUsageError(t, name, args, `unexpected argument "extra"`)
	}
	checkUsageError(t, "devices", []string{"devices", "extra"}, `unexpected argument "extra": gfxcuda devices takes no arguments`)
	checkUsageError(t, "devices", []string{"devices", "json"}, "did you mean --json?")
	checkUsageError(t, "devices", []string{"devices", "--jsno"}, "unknown flag --jsno; did you mean --json?")
	checkUsageError(t, "bench", []string{"bench", "--reps", "many"}, `--reps "many": want a whole number`)
	checkUsageError(t, "bench", []string{"bench", "--only"}, "--only needs a value (GROUPS)")
	checkUsageError(t, "run", []string{"run"}, "no shader given")
	checkUsageError(t, "open", []string{"open"}, "no token given")
	checkUsageError(t, "run", []string{"run", "a.hlsl", "b.hlsl"}, `unexpected argument "b.hlsl"`)
	checkUsageError(t, "demo", []string{"demo", "--size", "63x40"}, "--size")
	if rc, _, stderr := gfx("devics"); rc != 2 || !strings.Contains(stderr, `unknown command "devics"; did you mean devices?`) {
		t.Errorf("gfxcuda devics: exit %d\n%s", rc, stderr)
	}
	if rc, _, stderr := gfx(); rc != 2 || firstLine(stderr) != "gfxcuda: no command given" {
		t.Errorf("gfxcuda: exit %d\n%s", rc, stderr)
	}
}

// Flags after positional arguments are flags, for every command: `open
// TOKEN --cuda` reads --cuda and then refuses the token for what it is, not
// with a bare usage.
func TestFlagsAfterArguments(t *testing.T) {
	stderr := checkUsageError(t, "open", []string{"open", "TOKEN", "--cuda"}, `TOKEN "TOKEN"`, "not a gfxcuda token")
	if strings.Contains(stderr, "unexpected argument") {
		t.Errorf("--cuda after TOKEN was taken for an argument:\n%s", stderr)
	}
	checkUsageError(t, "open", []string{"open", "TOKEN", "--cdua"}, "unknown flag --cdua; did you mean --cuda?")
	// After "--" everything is an argument.
	checkUsageError(t, "devices", []string{"devices", "--", "--json"}, `unexpected argument "--json"`)
	// A flag after the command's argument, for a command that has one.
	checkUsageError(t, "run", []string{"run", "missing.hlsl", "--batch", "0"}, "--batch 0")
	// And for those that have none: the flag is read, not refused.
	if rc, stdout, stderr := gfx("devices", "--json"); rc != 0 || !json.Valid([]byte(stdout)) {
		t.Errorf("devices --json: exit %d\n%s", rc, stderr)
	}
}

// `bench --only` refuses an unknown group before any work, naming the
// groups and the nearest one; --png and --json-out are checked first too.
func TestBenchArgumentsCheckedFirst(t *testing.T) {
	stderr := checkUsageError(t, "bench", []string{"bench", "--only", "compte"}, `unknown group "compte"`, "did you mean compute?", "compute")
	if strings.Contains(stderr, "interop") || strings.Contains(stderr, "driver") || strings.Contains(stderr, "░") {
		t.Errorf("bench --only compte did work before refusing the group:\n%s", stderr)
	}
	stderr = checkUsageError(t, "bench", []string{"bench", "--only", "nosuch"}, `unknown group "nosuch"; groups are copy, texture, latency, gl, ring, onetime, nccl, peer, tiles, compute`)
	if strings.Contains(stderr, "did you mean") {
		t.Errorf("a suggestion for nosuch: %s", stderr)
	}
	for _, f := range []string{"--png", "--json-out"} {
		t0 := time.Now()
		stderr := checkUsageError(t, "bench", []string{"bench", "--only", "compute", f, "/proc/nope/x"}, f+" /proc/nope/x")
		if el := time.Since(t0); el > 2*time.Second || strings.Contains(stderr, "░") {
			t.Errorf("bench %s /proc/nope/x: refused after %v of work:\n%s", f, el, stderr)
		}
	}
}

// Outputs are checked before any work: demo --out, run --out.
func TestOutputsCheckedFirst(t *testing.T) {
	t0 := time.Now()
	rc, stdout, stderr := gfx("demo", "--out", "/proc/nope")
	if rc != 2 || stdout != "" || !strings.Contains(firstLine(stderr), "--out /proc/nope: cannot make the directory /proc/nope") {
		t.Errorf("demo --out /proc/nope: exit %d after %v\nstdout %q\nstderr %q", rc, time.Since(t0), stdout, stderr)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("demo --out /proc/nope took %v: it worked before checking", el)
	}
	// A file where the directory should be.
	dir := t.TempDir()
	writeFile(t, dir, "f", "x")
	checkUsageError(t, "demo", []string{"demo", "--out", filepath.Join(dir, "f")}, "--out "+filepath.Join(dir, "f"))

	writeFile(t, dir, "k.hlsl", "RWStructuredBuffer<float> o : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n")
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--uav", "0:256", "--out", "/proc/nope/o.npy")
	if rc != 2 || !strings.HasPrefix(stderr, "gfxcuda run: --out /proc/nope/o.npy: directory /proc/nope does not exist") {
		t.Errorf("run --out /proc/nope/o.npy: exit %d (before opening a device, the first line should say why)\n%s", rc, stderr)
	}
	rc, _, stderr = runCLI(t, dir, "k.hlsl", "--uav", "0:256", "--out", "0=/proc/nope/o.npy")
	if rc != 2 || !strings.Contains(firstLine(stderr), "--out 0=/proc/nope/o.npy") {
		t.Errorf("run --out 0=/proc/nope/o.npy: exit %d\n%s", rc, stderr)
	}
	// Nothing is left behind by the checks.
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the checks left files: %v", ents)
	}
}

// checkOutput accepts what can be written and leaves no file behind.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	if err := checkOutput(filepath.Join(dir, "new.png")); err != nil {
		t.Error(err)
	}
	if err := checkOutput(filepath.Join(dir, "sub", "x")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("checkOutput in a missing directory: %v", err)
	}
	if err := checkOutput(dir); err == nil {
		t.Errorf("checkOutput accepts a directory")
	}
	if err := checkOutputDir(filepath.Join(dir, "a", "b")); err != nil {
		t.Error(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "a", "b")); len(ents) != 0 {
		t.Errorf("checkOutputDir left %v", ents)
	}
}

// --device and $GFXCUDA_DEVICE are refused in the user's words, with the
// devices there are, never with Go's names for things.
func TestRunDeviceMessage(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "double.hlsl", "RWStructuredBuffer<float> data : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { data[id.x] *= 2; }\n")
	// The user's "nvidia" on a machine without one; a name no device has
	// here (on the H100 "nvidia" is a name fragment that matches).
	rc, _, stderr := runCLI(t, dir, "double.hlsl", "--uav", "0:256", "--device", "nosuchgpu")
	want := regexp.MustCompile(`^gfxcuda run: --device nosuchgpu: no Vulkan device matches "nosuchgpu"; devices here: 0 [^;]+; use an index, a UUID or a name fragment$`)
	if rc != 2 || !want.MatchString(firstLine(stderr)) || strings.Contains(stderr, "Options.") || strings.Contains(stderr, "compute:") {
		t.Errorf("--device nosuchgpu: exit %d\n%s", rc, stderr)
	}
	rc, _, stderr = runCLI(t, dir, "double.hlsl", "--uav", "0:256", "--device", "99")
	if rc != 2 || !strings.Contains(firstLine(stderr), "--device 99: no Vulkan device has index 99; devices here: 0 ") {
		t.Errorf("--device 99: exit %d\n%s", rc, stderr)
	}
	t.Setenv("GFXCUDA_DEVICE", "nosuchgpu")
	rc, _, stderr = runCLI(t, dir, "double.hlsl", "--uav", "0:256")
	if rc != 1 || !strings.Contains(stderr, `GFXCUDA_DEVICE=nosuchgpu: no Vulkan device matches "nosuchgpu"; devices here: 0 `) || strings.Contains(stderr, "Options.") {
		t.Errorf("GFXCUDA_DEVICE=nosuchgpu: exit %d\n%s", rc, stderr)
	}
	// A device that exists by index runs.
	t.Setenv("GFXCUDA_DEVICE", "")
	if rc, _, stderr := runCLI(t, dir, "double.hlsl", "--uav", "0:256", "--device", "0"); rc != 0 {
		t.Errorf("--device 0: exit %d\n%s", rc, stderr)
	}
}

// A SPEC of the wrong kind is refused with what the shader declares at
// the slot: a texture for a buffer, a size for a texture, a missing file.
func TestRunSpecNamesDeclaration(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "double.hlsl", "RWStructuredBuffer<float> data : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { data[id.x] = data[id.x] * 2; }\n")
	writeFile(t, dir, "img.hlsl", "// RWStructuredBuffer<float> img;\nStructuredBuffer<float4> pal : register(t0);\nRWTexture2D<float4> img : register(u0);\n[numthreads(8,8,1)] void main(uint3 id : SV_DispatchThreadID) { img[id.xy] = pal[0]; }\n")
	writeFile(t, dir, "img.comp", "#version 450\nlayout(local_size_x = 8, local_size_y = 8) in;\nlayout(binding = 1, rgba8) uniform writeonly image2D dst;\nvoid main() { imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(1)); }\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"double.hlsl", "--uav", "0:tex2d:rgba8_unorm:16x16"},
			"--uav 0:tex2d:rgba8_unorm:16x16: u0 is a buffer (RWStructuredBuffer<float> data); give a size in bytes or a .npy file, such as --uav 0:4096"},
		{[]string{"double.hlsl", "--uav", "0:in.png"}, "u0 is a buffer (RWStructuredBuffer<float> data); give a size in bytes or a .npy file"},
		{[]string{"double.hlsl", "--uav", "0:nofile.npy"},
			`u0 is a buffer (RWStructuredBuffer<float> data); "nofile.npy" is neither a size nor an existing file: give a size in bytes or a .npy file`},
		{[]string{"img.hlsl", "--srv", "0:64", "--uav", "0:4096"}, "--uav 0:4096: u0 is a texture (RWTexture2D<float4> img); give tex1d:FORMAT:W, tex2d:FORMAT:WxH"},
		{[]string{"img.hlsl", "--uav", "0:tex2d:rgba8_unorm:8x8", "--srv", "0:tex2d:rgba8_unorm:4x4"}, "t0 is a buffer (StructuredBuffer<float4> pal)"},
		{[]string{"img.comp", "--uav", "1:4096"}, "binding 1 is a texture (image2D dst)"},
	} {
		rc, _, stderr := runCLI(t, dir, c.args...)
		if rc != 2 || !strings.Contains(stderr, "gfxcuda run: "+c.args[len(c.args)-2]+" "+c.args[len(c.args)-1]+": ") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, rc, c.want, stderr)
		}
	}
}

// snakeKey is the one key style of every --json output.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkJSONStyle walks a JSON value: every key snake_case, every "handle"
// and "type" a name, not a number.
func checkJSONStyle(t *testing.T, what, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %s%s is not snake_case", what, path, k)
			}
			if k == "handle" || k == "type" || k == "status" {
				if s, ok := e.(string); !ok || !snakeKey.MatchString(strings.ToLower(s)) {
					t.Errorf("%s: %s%s = %v, want a name", what, path, k, e)
				}
			}
			checkJSONStyle(t, what, path+k+".", e)
		}
	case []any:
		for i, e := range x {
			checkJSONStyle(t, what, fmt.Sprintf("%s%d.", path, i), e)
		}
	}
}

// devices --json and doctor --json share one key style: snake_case keys,
// enums by name, no Go field names.
func TestJSONKeyStyle(t *testing.T) {
	for _, args := range [][]string{{"devices", "--json"}, {"doctor", "--json"}} {
		rc, stdout, stderr := gfx(args...)
		if rc != 0 && !(args[0] == "doctor" && rc == 1) {
			t.Fatalf("%v: exit %d\n%s", args, rc, stderr)
		}
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		checkJSONStyle(t, strings.Join(args, " "), "", v)
	}
	// The handle types of lavapipe (and the H100) by name.
	_, stdout, _ := gfx("devices", "--json")
	var rep reportOut
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Vulkan {
		names := map[string]bool{}
		for _, e := range d.ExternalMemory {
			names[e.Handle] = true
		}
		if !names["opaque_fd"] {
			t.Errorf("%s: external memory handles %v lack opaque_fd", d.Name, names)
		}
		if len(d.MemoryHeaps) == 0 || d.MemoryHeaps[0].Size == 0 {
			t.Errorf("%s: memory heaps %+v", d.Name, d.MemoryHeaps)
		}
		if d.Software && d.Type != "cpu" {
			t.Errorf("%s: type %q, want cpu", d.Name, d.Type)
		}
	}
	if !strings.Contains(stdout, `"kernel_module"`) {
		t.Errorf("nvidia_versions keys: %s", stdout)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"compte", "compute", 1}, {"cdua", "cuda", 1}, {"", "abc", 3}, {"devics", "devices", 1}, {"nosuch", "onetime", 6}} {
		if d := editDistance(c.a, c.b); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}
