// Command testprogress runs a command, usually `go test -json ...`, and
// prints its progress so that a long run is never silent:
//
//	testprogress [-every 20s] -- go test -json -race ./...
//
// From `go test -json` it prints each package's result line as the package
// finishes ("ok  pkg 12.3s", "?  pkg [no test files]"), compile errors as
// they come, and for a failing package all its output but that of tests
// that passed and the "=== RUN" framing: what plain `go test` prints for a
// failure. When nothing has been printed for -every it prints a heartbeat
// naming the packages whose tests are running ("… still testing: vulkan
// (61 s), gl (12 s); 30 packages done; 95 s in all") or, before any has
// started, that the test binaries are being built. At the end it lists the
// packages that failed. Lines that are not JSON pass through unchanged, so
// any command can be wrapped for the heartbeat alone. The exit status is
// the command's.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testprogress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	every := fs.Duration("every", 20*time.Second, "print a heartbeat after this long without output")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: testprogress [-every DURATION] -- COMMAND [ARGS...]   (e.g. go test -json ./...)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *every <= 0 {
		fs.Usage()
		return 2
	}
	p := newPrinter(stdout, modulePath("go.mod"))
	p.cmd = strings.Join(fs.Args(), " ")
	if len(p.cmd) > 60 {
		p.cmd = p.cmd[:57] + "..."
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stdin = os.Stdin
	cmd.Stderr = p.passthrough(stderr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testprogress: %v\n", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "testprogress: %v\n", err)
		return 1
	}
	// Signals meant for the whole run reach the command too; the output
	// is read to its end.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(min(*every/4, time.Second))
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				p.heartbeat(now, *every)
			}
		}
	}()
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			p.line(line)
		}
		if err != nil {
			break
		}
	}
	werr := cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	close(stop)
	wg.Wait()
	code := 0
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	default:
		fmt.Fprintf(stderr, "testprogress: %v\n", werr)
		code = 1
	}
	p.finish(code)
	return code
}

// modulePath reads the module path from go.mod, to shorten package names
// in heartbeats; "" when there is none.
func modulePath(gomod string) string {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// event is one line of `go test -json` (cmd/test2json's format, with the
// build events of Go 1.24).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

type outLine struct{ test, text string }

// pkg is a package whose tests started and have not finished.
type pkg struct {
	name    string
	start   time.Time
	lines   []outLine
	results map[string]string // test → pass, fail, skip
}

type printer struct {
	mu       sync.Mutex
	w        io.Writer
	module   string
	cmd      string // the command, for heartbeats in plain mode
	start    time.Time
	last     time.Time // of the last output
	running  map[string]*pkg
	counts   map[string]int // pass, fail, skip: packages
	failed   []string
	sawJSON  bool
	buildOut bool // compile errors were printed
}

func newPrinter(w io.Writer, module string) *printer {
	now := time.Now()
	return &printer{w: w, module: module, start: now, last: now, running: map[string]*pkg{}, counts: map[string]int{}}
}

// passthrough returns a writer to w that counts as output for heartbeats.
func (p *printer) passthrough(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.last = time.Now()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (p *printer) print(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.w, s)
	p.last = time.Now()
}

// line handles one line of the command's output.
func (p *printer) line(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var e event
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &e) != nil || e.Action == "" {
		if b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		p.print(string(b))
		return
	}
	p.sawJSON = true
	switch e.Action {
	case "build-output":
		p.print(e.Output)
		p.buildOut = true
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	k := p.running[e.Package]
	if k == nil {
		k = &pkg{name: e.Package, start: time.Now(), results: map[string]string{}}
		p.running[e.Package] = k
	}
	switch e.Action {
	case "output":
		k.lines = append(k.lines, outLine{e.Test, e.Output})
	case "pass", "fail", "skip":
		if e.Test != "" {
			k.results[e.Test] = e.Action
			return
		}
		delete(p.running, e.Package)
		p.counts[e.Action]++
		if e.Action == "fail" {
			p.failed = append(p.failed, e.Package)
			p.print(k.failure())
		} else {
			p.print(k.summary(e))
		}
	}
}

// summary is what plain `go test` prints for a package that passed or had
// no tests: its last line ("ok  \tpkg\t1.2s").
func (k *pkg) summary(e event) string {
	for i := len(k.lines) - 1; i >= 0; i-- {
		if l := k.lines[i]; l.test == "" && strings.TrimSpace(l.text) != "" {
			return withNewline(l.text)
		}
	}
	if e.Action == "skip" {
		return fmt.Sprintf("?   \t%s\t[no test files]\n", k.name)
	}
	return fmt.Sprintf("ok  \t%s\t%.3fs\n", k.name, e.Elapsed)
}

// failure is a failed package's output as plain `go test` prints it: the
// package's own lines, and each failed test's "--- FAIL" line with its
// logs, and its failed subtests nested and indented under it, where the
// test finished. Tests that passed or were skipped and the "=== RUN"
// framing are left out; other lines (a test that never finished, a panic's
// trace after "--- FAIL") come as they came.
func (k *pkg) failure() string {
	end := map[string]int{} // test → index of its "--- FAIL:" line
	for i, l := range k.lines {
		if l.test != "" && k.results[l.test] == "fail" && strings.HasPrefix(strings.TrimLeft(l.text, " "), "--- FAIL: ") {
			end[l.test] = i
		}
	}
	used := make([]bool, len(k.lines)) // printed in a block
	var block func(sb *strings.Builder, test string, depth int)
	block = func(sb *strings.Builder, test string, depth int) {
		in := strings.Repeat("    ", depth)
		sb.WriteString(in + strings.TrimLeft(k.lines[end[test]].text, " "))
		used[end[test]] = true
		for i, l := range k.lines[:end[test]] {
			switch {
			case l.test == test && !framing(l.text):
				sb.WriteString(in + l.text)
				used[i] = true
			case l.test != test && hasKey(end, l.test) && end[l.test] == i && parentTest(l.test, end) == test:
				block(sb, l.test, depth+1)
			}
		}
	}
	blocks := map[int]string{} // index of a top-level failed test's "--- FAIL" line → its block
	for t, i := range end {
		if parentTest(t, end) == "" {
			var sb strings.Builder
			block(&sb, t, 0)
			blocks[i] = sb.String()
		}
	}
	var sb strings.Builder
	for i, l := range k.lines {
		if b, ok := blocks[i]; ok {
			sb.WriteString(b)
			continue
		}
		if used[i] || framing(l.text) && l.test != "" {
			continue
		}
		if r := k.results[l.test]; l.test == "" || r == "" || r == "fail" {
			sb.WriteString(l.text)
		}
	}
	return withNewline(sb.String())
}

// parentTest is the nearest enclosing test of test that is in blocks.
func parentTest(test string, blocks map[string]int) string {
	for i := strings.LastIndexByte(test, '/'); i > 0; i = strings.LastIndexByte(test[:i], '/') {
		if _, ok := blocks[test[:i]]; ok {
			return test[:i]
		}
	}
	return ""
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

func framing(s string) bool {
	for _, f := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(s, f) {
			return true
		}
	}
	return false
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

func (p *printer) short(name string) string {
	if p.module != "" {
		if name == p.module {
			return "."
		}
		if s, ok := strings.CutPrefix(name, p.module+"/"); ok {
			return s
		}
	}
	return name
}

func secs(d time.Duration) string { return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second)) }

// heartbeat prints a line when nothing was printed for every.
func (p *printer) heartbeat(now time.Time, every time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.last) < every {
		return
	}
	p.print(p.status(now))
}

// status says what the command is doing.
func (p *printer) status(now time.Time) string {
	done := p.counts["pass"] + p.counts["fail"] + p.counts["skip"]
	var ks []*pkg
	for _, k := range p.running {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].start.Before(ks[j].start) })
	var parts []string
	for _, k := range ks {
		s := fmt.Sprintf("%s (%s", p.short(k.name), secs(now.Sub(k.start)))
		if t := k.current(); t != "" {
			s += ", " + t
		}
		parts = append(parts, s+")")
	}
	var msg string
	switch {
	case !p.sawJSON && p.cmd != "":
		msg = "… still running: " + p.cmd
	case !p.sawJSON:
		msg = "… still running"
	case len(parts) == 0:
		msg = "… still building the test binaries"
	default:
		msg = "… still testing: " + strings.Join(parts, ", ")
	}
	if p.sawJSON {
		msg += fmt.Sprintf("; %d packages done", done)
		if f := p.counts["fail"]; f > 0 {
			msg += fmt.Sprintf(" (%d failed)", f)
		}
	}
	return fmt.Sprintf("%s; %s in all\n", msg, secs(now.Sub(p.start)))
}

// current names the test that started last and has not finished.
func (k *pkg) current() string {
	for i := len(k.lines) - 1; i >= 0; i-- {
		l := k.lines[i]
		if l.test != "" && strings.HasPrefix(l.text, "=== RUN") && k.results[l.test] == "" {
			return l.test
		}
	}
	return ""
}

// finish prints the output of packages that never finished and, for
// `go test -json`, a summary.
func (p *printer) finish(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var names []string
	for n := range p.running {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		k := p.running[n]
		p.print(k.failure())
		p.print(fmt.Sprintf("(%s: no result; the command ended)\n", n))
		p.failed = append(p.failed, n)
	}
	if !p.sawJSON {
		return
	}
	s := fmt.Sprintf("testprogress: %d packages in %s: %d ok, %d without tests", p.counts["pass"]+p.counts["fail"]+p.counts["skip"],
		secs(time.Since(p.start)), p.counts["pass"], p.counts["skip"])
	if len(p.failed) > 0 {
		var short []string
		for _, n := range p.failed {
			short = append(short, p.short(n))
		}
		s += fmt.Sprintf(", %d FAILED: %s", len(p.failed), strings.Join(short, " "))
	}
	if code != 0 && len(p.failed) == 0 {
		s += fmt.Sprintf("; exit status %d", code)
	}
	p.print(s + "\n")
}
