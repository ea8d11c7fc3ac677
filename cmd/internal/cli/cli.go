// Package cli is gfxcuda's command line: the gfxcuda binary (cmd/gfxcuda)
// and the C library's gfxcuda_cli_main (cmd/libgfxcuda, which Python's
// `gfxcuda` command and `python -m gfxcuda` call) both run Main.
//
//	gfxcuda devices [--json]   list GPUs in Vulkan and CUDA, paired by UUID
//	gfxcuda doctor  [--json]   check that Vulkan↔CUDA interop works, and say how to fix it
//	gfxcuda bench   [--json] [--png FILE] [--quick]   measure copies and hand-offs on the GPU
//	gfxcuda run     SHADER [flags]   run a compute shader: gfxcuda run k.hlsl --dispatch 16,1,1 --uav 0:4096 --out o.npy
//	gfxcuda demo    [--out DIR]      render frames with Vulkan, hand them to CUDA as tensors, write pictures
//	gfxcuda share / open TOKEN       a frame ring between two processes; --transport nccl: a link over NCCL between GPUs or hosts
//	gfxcuda version [--json]         print the version (gfxcuda --version too)
//
// Every command parses its command line through cmdLine: flags before or
// after the arguments, one usage format, one-line usage errors. Commands
// return their exit status; nothing here exits the process.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"devices": {"list GPUs in Vulkan and CUDA, paired by UUID", runDevices},
	"doctor":  {"check that Vulkan↔CUDA interop works here; exit 0 if it does", runDoctor},
	"bench":   {"measure copies and hand-offs between Vulkan and CUDA on this GPU", runBench},
	"run":     {"compile a compute shader, bind resources, dispatch it and write the results", runRun},
	"share":   {"produce frames into a ring other processes open with `gfxcuda open TOKEN` (--transport nccl: send them over NCCL)", runShare},
	"open":    {"consume and check the frames of a ring shared by `gfxcuda share`", runOpen},
	"demo":    {"render frames with Vulkan, hand them to CUDA as tensors, check them, time them, write pictures", runDemo},
	"version": {"print gfxcuda's version (also gfxcuda --version)", runVersion},
}

// doctorAbout is doctor's paragraph in its usage (here, so that doctor.go
// holds the checks' report alone).
const doctorAbout = `Checks what Vulkan↔CUDA interop needs on this machine (the Vulkan loader
and driver, the CUDA driver, one GPU seen by both, external memory and
semaphores, NVIDIA driver parts of one release; OpenGL/EGL as warnings) and
prints one line per check, with how to fix what fails. Exits 0 when
Vulkan↔CUDA interop is possible here, 1 when it is not.`

// about is the paragraph `gfxcuda --help` prints under its usage line.
const about = `gfxcuda shares GPU memory between Vulkan, OpenGL and CUDA on Linux without
copies, and runs compute shaders on any Vulkan device. Every command takes
its flags before or after its arguments, answers -h and --help with its
usage (exit status 0), and refuses a mistake on the command line with one
line saying what was wrong (exit status 2).`

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gfxcuda COMMAND [flags] [ARGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, about)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gfxcuda COMMAND --help' for a command's flags.")
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main runs the command line args (without the program's name: "devices",
// "--json") writing to stdout and stderr, and returns the exit status: 0
// done, 1 failed, 2 a usage error. It never exits the process. share and
// open catch SIGINT and SIGTERM while they run (signal.Notify) and stop
// catching them before they return.
func Main(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "gfxcuda: no command given")
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "-version", "--version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "gfxcuda: unexpected argument %q after %s; run gfxcuda version [--json]\n", args[1], args[0])
			return 2
		}
		return runVersion(nil, stdout, stderr)
	case "help":
		// gfxcuda help [COMMAND]
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		if c, ok := commands[args[1]]; ok && len(args) == 2 {
			return c.run([]string{"--help"}, stdout, stderr)
		}
		fmt.Fprintf(stderr, "gfxcuda help: unknown command %s%s\n", strings.Join(quoteAll(args[1:]), " "), didYouMean(args[1], commandNames(), ""))
		fmt.Fprintln(stderr, "usage: gfxcuda help [COMMAND]")
		return 2
	}
	if args[0] == ipcChildCmd {
		return runIPCChild(args[1:], stdout, stderr)
	}
	if args[0] == ncclPeerCmd {
		return runNCCLPeer(args[1:], stderr)
	}
	if args[0] == shareOpenChildCmd || args[0] == shareRingChildCmd {
		return runShareChild(args[0], args[1:], stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gfxcuda: unknown command %q%s\n\n", args[0], didYouMean(args[0], commandNames(), ""))
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return q
}

// cmdLine is one command's command line: its flags, its usage and the
// positional arguments it takes. Every command parses through one, so all
// of them read and refuse their arguments alike:
//
//   - flags may come before and after the positional arguments (a "--"
//     ends the flags);
//   - -h, -help and --help print the usage on stdout (exit status 0):
//     "usage: gfxcuda CMD [flags] ARGS", a paragraph, then the flags;
//   - a usage error (an unknown flag, a bad value, a missing or an
//     unexpected argument, a bad output path) prints one line saying what
//     was wrong, then the usage line (exit status 2).
type cmdLine struct {
	name  string   // the command: "run"
	args  []string // the positional arguments, in order: {"SHADER"}; nil for none
	about string   // one paragraph: what the command does
	more  string   // printed after the flags, when not empty
	fs    *flag.FlagSet

	stdout, stderr io.Writer
}

// newCmdLine starts a command line; define its flags on its fs, then call
// parse.
func newCmdLine(name, about string, stdout, stderr io.Writer, args ...string) *cmdLine {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// parse prints the messages: the flag package prints none.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdLine{name: name, args: args, about: about, fs: fs, stdout: stdout, stderr: stderr}
}

// synopsis is the usage line: "usage: gfxcuda run [flags] SHADER".
func (c *cmdLine) synopsis() string {
	s := "usage: gfxcuda " + c.name + " [flags]"
	for _, a := range c.args {
		s += " " + a
	}
	return s
}

// flagGiven reports whether flag name was given on fs's command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// flagName is how the usage writes a flag: -D for one letter, --json else.
func flagName(n string) string {
	if len(n) == 1 {
		return "-" + n
	}
	return "--" + n
}

// usage prints the whole usage: the synopsis, the paragraph, the flags and
// what follows them.
func (c *cmdLine) usage(w io.Writer) {
	fmt.Fprintln(w, c.synopsis())
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.TrimSpace(c.about))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "flags:")
	c.fs.VisitAll(func(f *flag.Flag) {
		typ, text := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if typ != "" {
			line += " " + typ
		}
		text = strings.ReplaceAll(text, "\n", "\n    \t")
		switch f.DefValue {
		case "", "0", "false", "[]":
		default:
			if typ == "string" {
				text += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				text += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, text)
	})
	if c.more != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.TrimSpace(c.more))
	}
}

// fail reports a usage error: one line saying what was wrong, then the
// usage line. It returns the exit status, 2.
func (c *cmdLine) fail(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "gfxcuda %s: %s\n", c.name, fmt.Sprintf(format, a...))
	fmt.Fprintln(c.stderr, c.synopsis())
	fmt.Fprintf(c.stderr, "Run 'gfxcuda %s --help' for the flags.\n", c.name)
	return 2
}

// parse parses args: flags anywhere, and exactly the positional arguments
// c.args names. It returns those arguments; when the command must stop
// (help, or a usage error, already printed) ok is false and code is the
// exit status.
func (c *cmdLine) parse(args []string) (pos []string, code int, ok bool) {
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.usage(c.stdout)
			return nil, 0, false
		}
		if err != nil {
			return nil, c.fail("%s", c.flagError(err)), false
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			break
		}
		// After "--" everything is an argument.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	switch {
	case len(pos) < len(c.args):
		return nil, c.fail("no %s given", strings.ToLower(c.args[len(pos)])), false
	case len(pos) > len(c.args):
		extra := pos[len(c.args)]
		takes := "takes no arguments"
		if len(c.args) > 0 {
			takes = "takes " + strings.Join(c.args, " ") + " only"
		}
		hint := ""
		if f := c.fs.Lookup(strings.TrimLeft(extra, "-")); f != nil && !strings.HasPrefix(extra, "-") {
			hint = fmt.Sprintf("; did you mean %s?", flagName(f.Name))
		}
		return nil, c.fail("unexpected argument %q: gfxcuda %s %s%s", extra, c.name, takes, hint), false
	}
	return pos, 0, true
}

var (
	undefinedFlagRE = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	needsValueRE    = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	badValueRE      = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for flag -+([^:]+): (.*)$`)
)

// flagError words one of the flag package's errors for the user: flags as
// the usage writes them, the nearest flag for an unknown one.
func (c *cmdLine) flagError(err error) string {
	msg := err.Error()
	if m := undefinedFlagRE.FindStringSubmatch(msg); m != nil {
		var names []string
		c.fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return fmt.Sprintf("unknown flag %s%s", flagName(m[1]), didYouMean(m[1], names, "-"))
	}
	if m := needsValueRE.FindStringSubmatch(msg); m != nil {
		typ := "a value"
		if f := c.fs.Lookup(m[1]); f != nil {
			if t, _ := flag.UnquoteUsage(f); t != "" && t != "value" {
				typ = t
			}
		}
		return fmt.Sprintf("%s needs a value (%s)", flagName(m[1]), typ)
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		why := m[3]
		if f := c.fs.Lookup(m[2]); f != nil {
			switch t, _ := flag.UnquoteUsage(f); {
			case t == "int" || t == "uint":
				why = "want a whole number"
			case t == "float":
				why = "want a number"
			case t == "duration":
				why = "want a duration such as 5s or 200ms"
			case t == "":
				why = "want true or false"
			}
		}
		return fmt.Sprintf("%s %s: %s", flagName(m[2]), m[1], why)
	}
	return msg
}

// didYouMean returns "; did you mean X?" for the candidate nearest to
// word (prefix "-" writes it as a flag), or "" when none is near.
func didYouMean(word string, candidates []string, prefix string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(1, len(best)/3) {
		return ""
	}
	if prefix == "-" {
		best = flagName(best)
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// editDistance is the Levenshtein distance between a and b, with a swap of
// two neighbours counted as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// checkOutput checks, before any work, that a file can be written at path:
// its directory exists and accepts a new file, or the file exists and can
// be written. It leaves no file behind that was not there.
func checkOutput(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(err))
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("directory %s does not exist", dirAsTyped(path))
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dirAsTyped(path))
	}
	f, err := os.CreateTemp(dir, ".gfxcuda-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, errors.Unwrap(err))
	}
	name := f.Name()
	return errors.Join(f.Close(), os.Remove(name))
}

// checkOutputDir checks, before any work, that files can be written in the
// directory dir, making it (and its parents) when it does not exist.
func checkOutputDir(dir string) error {
	if dir == "" {
		return errors.New("empty path")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("cannot make the directory %s: %w", pe.Path, pe.Err)
		}
		return fmt.Errorf("cannot make the directory %s: %w", dir, err)
	}
	return checkOutput(filepath.Join(dir, ".gfxcuda-check"))
}

// dirAsTyped is path's directory spelled as the user typed it (forward
// slashes stay forward on Windows), for messages; filepath.Dir's when path
// names no directory.
func dirAsTyped(path string) string {
	i := strings.LastIndexAny(path, "/"+string(filepath.Separator))
	if i <= 0 {
		return filepath.Dir(path)
	}
	return path[:i]
}
