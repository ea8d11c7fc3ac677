package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/internal/npy"
)

// docLine is a `gfxcuda …` command line of the documentation.
type docLine struct {
	file   string // "README.md", "docs/compute.md"
	line   int
	args   []string // after "gfxcuda"
	inline bool     // from a `code span` in prose, not a code block
}

func (d docLine) String() string {
	return d.file + ":" + strconv.Itoa(d.line) + ": gfxcuda " + strings.Join(d.args, " ")
}

// docSkips are the documented command lines this test does not run, each
// with the reason. Keep it short: a line is skipped only when running it
// here cannot work or takes minutes.
var docSkips = []struct {
	match  func(args []string) bool
	reason string
}{
	{func(a []string) bool { return a[0] == "share" || a[0] == "open" },
		"share and open run in two processes (share waits for a consumer); share_test.go runs the pair"},
	{func(a []string) bool { return a[0] == "bench" && !onlyCompute(a) },
		"bench's groups other than compute need CUDA and take minutes on a GPU; bench's tests run them"},
}

// onlyCompute reports whether bench's arguments run the compute group
// alone.
func onlyCompute(args []string) bool {
	for i, a := range args {
		if (a == "--only" || a == "-only") && i+1 < len(args) && args[i+1] == "compute" {
			return true
		}
		if a == "--only=compute" || a == "-only=compute" {
			return true
		}
	}
	return false
}

var (
	fenceRE    = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpanRE = regexp.MustCompile("`(gfxcuda [^`]+)`")
	// A synopsis, not a command to run: [optional] parts, PLACEHOLDERS,
	// alternatives.
	placeholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// docCommandLines extracts the `gfxcuda …` lines of the Markdown file:
// every line of a code block whose first word is gfxcuda (or a path ending
// in /gfxcuda), after an optional "$ " prompt, joined with its "\"
// continuations and without its "# comment"; and the code spans of prose
// that start with "gfxcuda ".
func docCommandLines(t *testing.T, root, rel string) []docLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	var out []docLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	inBlock := false
	pending, pendingLine := "", 0
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if fenceRE.MatchString(l) {
			inBlock, pending = !inBlock, ""
			continue
		}
		if !inBlock {
			for _, m := range codeSpanRE.FindAllStringSubmatch(l, -1) {
				out = append(out, docLine{file: rel, line: n, args: strings.Fields(m[1])[1:], inline: true})
			}
			continue
		}
		if pending != "" {
			l = pending + " " + strings.TrimSpace(l)
		} else {
			pendingLine = n
		}
		if strings.HasSuffix(strings.TrimSpace(l), "\\") {
			pending = strings.TrimSuffix(strings.TrimSpace(l), "\\")
			continue
		}
		pending = ""
		l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		f := strings.Fields(l)
		if len(f) < 2 || (f[0] != "gfxcuda" && !strings.HasSuffix(f[0], "/gfxcuda")) {
			continue
		}
		out = append(out, docLine{file: rel, line: pendingLine, args: f[1:]})
	}
	return out
}

// isSynopsis reports whether a documented line describes a command rather
// than being one to run.
func isSynopsis(args []string) bool {
	for _, a := range args {
		if strings.ContainsAny(a, "[]…") || a == "/" || a == "|" || placeholderRE.MatchString(a) {
			return true
		}
	}
	return false
}

// helpFlags returns the flags a command's --help lists.
func helpFlags(t *testing.T, cmd string) map[string]bool {
	t.Helper()
	rc, stdout, _ := gfx(cmd, "--help")
	if rc != 0 {
		t.Fatalf("gfxcuda %s --help: exit %d", cmd, rc)
	}
	flags := map[string]bool{}
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "  -") {
			flags[strings.TrimLeft(f[0], "-")] = true
		}
	}
	return flags
}

// checkSynopsis checks what a synopsis names: its commands exist, and its
// flags are flags of its command.
func checkSynopsis(t *testing.T, d docLine) {
	t.Helper()
	args := d.args
	if args[0] == "help" {
		// gfxcuda help [COMMAND]
		if len(args) > 1 {
			if _, ok := commands[args[1]]; !ok && !placeholderRE.MatchString(args[1]) {
				t.Errorf("%v: no command %q", d, args[1])
			}
		}
		return
	}
	if placeholderRE.MatchString(args[0]) || args[0] == "…" || strings.HasPrefix(args[0], "-") {
		// Any command (gfxcuda CMD --help, gfxcuda --help): only the
		// flags every command has.
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") && a != "-h" && a != "--help" && a != "-help" {
				t.Errorf("%v: %s is not a flag of every command", d, a)
			}
		}
		return
	}
	cmds := []string{args[0]}
	for i, a := range args {
		if a == "/" && i+1 < len(args) {
			cmds = append(cmds, args[i+1])
		}
	}
	for _, c := range cmds {
		if _, ok := commands[c]; !ok {
			t.Errorf("%v: no command %q", d, c)
			return
		}
	}
	flags := helpFlags(t, cmds[0])
	for _, a := range d.args {
		a = strings.Trim(a, "[]")
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			continue
		}
		if !flags[name] {
			t.Errorf("%v: gfxcuda %s has no flag %s", d, cmds[0], a)
		}
	}
	// bench --only names groups that exist.
	for i, a := range d.args {
		if cmds[0] == "bench" && a == "--only" && i+1 < len(d.args) && !placeholderRE.MatchString(strings.Trim(d.args[i+1], "[]")) {
			for _, g := range strings.Split(strings.Trim(d.args[i+1], "[]"), ",") {
				if !slices.Contains(benchGroups, g) {
					t.Errorf("%v: bench has no group %q", d, g)
				}
			}
		}
	}
}

// writeDocInputs writes the inputs the documented lines read, besides
// testdata/docs: a.npy (1024 float32) and in.png (256×256).
func writeDocInputs(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir("testdata/docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata/docs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, e.Name(), string(b))
	}
	data := make([]byte, 4*1024)
	for i := range 1024 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)/8))
	}
	if err := npy.WriteFile(filepath.Join(dir, "a.npy"), npy.Array{Descr: "<f4", Shape: []int{1024}, Data: data}); err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 256, 256))
	for y := range 256 {
		for x := range 256 {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "in.png", buf.String())
}

// outFiles lists the files a run line's --out flags name.
func outFiles(args []string) []string {
	var files []string
	for i, a := range args {
		if (a == "--out" || a == "-out") && i+1 < len(args) {
			f := args[i+1]
			if _, after, ok := strings.Cut(f, "="); ok {
				f = after
			}
			files = append(files, f)
		}
	}
	return files
}

// TestDocsCommandLines runs every `gfxcuda …` line of the code blocks of
// README.md and docs/*.md through run, in process, on this machine's
// Vulkan device (lavapipe in CI), in a directory holding the files they
// read (testdata/docs): each must exit 0, or 1 for doctor where interop is
// not possible, unless docSkips says why it cannot run here. Synopses
// (`gfxcuda bench [--json] …`) and the code spans of prose are checked:
// their commands and flags exist.
func TestDocsCommandLines(t *testing.T) {
	needVulkan(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		// The GPU bundle (make gpu-bundle) carries the docs here.
		root = filepath.Join(wd, "testdata", "docroot")
	}
	files := []string{"README.md"}
	mds, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, m := range mds {
		rel, _ := filepath.Rel(root, m)
		files = append(files, rel)
	}
	dir := t.TempDir()
	writeDocInputs(t, dir)
	interopPossible := len(gfxcuda.DiscoverDevices().Pairs) > 0
	ran, checked := 0, 0
	for _, f := range files {
		for _, d := range docCommandLines(t, root, f) {
			if _, ok := commands[d.args[0]]; !ok && !d.inline && !isSynopsis(d.args) {
				t.Errorf("%v: no command %q", d, d.args[0])
				continue
			}
			if d.inline || isSynopsis(d.args) {
				t.Logf("%v: checked (a synopsis or a code span)", d)
				checkSynopsis(t, d)
				checked++
				continue
			}
			skipped := false
			for _, s := range docSkips {
				if s.match(d.args) {
					t.Logf("%v: not run: %s", d, s.reason)
					checkSynopsis(t, d)
					skipped = true
					break
				}
			}
			if skipped {
				continue
			}
			ran++
			t.Run(strings.ReplaceAll(d.String(), "/", "∕"), func(t *testing.T) {
				if err := os.Chdir(dir); err != nil {
					t.Fatal(err)
				}
				defer os.Chdir(wd)
				rc, stdout, stderr := gfx(d.args...)
				want := 0
				if d.args[0] == "doctor" && !interopPossible {
					want = 1 // documented: doctor exits 1 where interop is not possible
				}
				if rc != want {
					t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", rc, want, stdout, stderr)
				}
				for _, o := range outFiles(d.args) {
					if st, err := os.Stat(o); err != nil || st.Size() == 0 {
						t.Errorf("--out %s: not written (%v)", o, err)
					}
				}
			})
		}
	}
	if ran < 3 || checked < 5 {
		t.Errorf("ran %d documented command lines and checked %d synopses: is the extraction broken?", ran, checked)
	}
}
