package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary is also the fake slow command: TESTPROGRESS_FAKE says
// what it plays.
func TestMain(m *testing.M) {
	switch os.Getenv("TESTPROGRESS_FAKE") {
	case "":
		os.Exit(m.Run())
	case "json":
		fakeGoTest()
	case "plain":
		fmt.Println("hello")
		time.Sleep(700 * time.Millisecond)
		fmt.Println("bye")
		os.Exit(3)
	case "killed":
		emit(event{Action: "start", Package: "example.com/m/a"})
		emit(event{Action: "run", Package: "example.com/m/a", Test: "TestHang"})
		emit(event{Action: "output", Package: "example.com/m/a", Test: "TestHang", Output: "=== RUN   TestHang\n"})
		emit(event{Action: "output", Package: "example.com/m/a", Test: "TestHang", Output: "    a_test.go:9: waiting for the GPU\n"})
		os.Exit(2)
	}
}

func emit(e event) {
	b, _ := json.Marshal(e)
	os.Stdout.Write(append(b, '\n'))
}

// fakeGoTest plays `go test -json` on four packages: a compile error in d,
// no tests in c, a slow passing package a and a failing package b.
func fakeGoTest() {
	emit(event{ImportPath: "example.com/m/d [example.com/m/d.test]", Action: "build-output", Output: "# example.com/m/d\n"})
	emit(event{ImportPath: "example.com/m/d [example.com/m/d.test]", Action: "build-output", Output: "d/d_test.go:3:9: undefined: x\n"})
	emit(event{ImportPath: "example.com/m/d [example.com/m/d.test]", Action: "build-fail"})
	time.Sleep(500 * time.Millisecond) // building
	emit(event{Action: "start", Package: "example.com/m/d"})
	emit(event{Action: "output", Package: "example.com/m/d", Output: "FAIL\texample.com/m/d [build failed]\n"})
	emit(event{Action: "fail", Package: "example.com/m/d", FailedBuild: "example.com/m/d [example.com/m/d.test]"})
	emit(event{Action: "start", Package: "example.com/m/c"})
	emit(event{Action: "output", Package: "example.com/m/c", Output: "?   \texample.com/m/c\t[no test files]\n"})
	emit(event{Action: "skip", Package: "example.com/m/c"})
	emit(event{Action: "start", Package: "example.com/m/a"})
	emit(event{Action: "run", Package: "example.com/m/a", Test: "TestSlow"})
	emit(event{Action: "output", Package: "example.com/m/a", Test: "TestSlow", Output: "=== RUN   TestSlow\n"})
	time.Sleep(700 * time.Millisecond)
	emit(event{Action: "output", Package: "example.com/m/a", Test: "TestSlow", Output: "--- PASS: TestSlow (0.70s)\n"})
	emit(event{Action: "pass", Package: "example.com/m/a", Test: "TestSlow"})
	emit(event{Action: "output", Package: "example.com/m/a", Output: "PASS\n"})
	emit(event{Action: "output", Package: "example.com/m/a", Output: "ok  \texample.com/m/a\t0.701s\n"})
	emit(event{Action: "pass", Package: "example.com/m/a", Elapsed: 0.701})
	b := "example.com/m/b"
	emit(event{Action: "start", Package: b})
	emit(event{Action: "output", Package: b, Output: "from TestMain\n"})
	for _, tc := range []struct{ test, out, result string }{
		{"TestGood", "    b_test.go:3: good log\n", "pass"},
		{"TestBad", "    b_test.go:5: bad log\n", ""},
		{"TestBad/sub", "    b_test.go:6: sub failed\n", "fail"},
		{"TestBad/fine", "    b_test.go:7: fine log\n", "pass"},
	} {
		emit(event{Action: "run", Package: b, Test: tc.test})
		emit(event{Action: "output", Package: b, Test: tc.test, Output: "=== RUN   " + tc.test + "\n"})
		emit(event{Action: "output", Package: b, Test: tc.test, Output: tc.out})
		if tc.result != "" {
			emit(event{Action: "output", Package: b, Test: tc.test, Output: fmt.Sprintf("--- %s: %s (0.00s)\n", strings.ToUpper(tc.result), tc.test)})
			emit(event{Action: tc.result, Package: b, Test: tc.test})
		}
	}
	emit(event{Action: "output", Package: b, Test: "TestBad", Output: "--- FAIL: TestBad (0.00s)\n"})
	emit(event{Action: "fail", Package: b, Test: "TestBad"})
	emit(event{Action: "output", Package: b, Output: "FAIL\n"})
	emit(event{Action: "output", Package: b, Output: "FAIL\texample.com/m/b\t0.002s\n"})
	emit(event{Action: "fail", Package: b, Elapsed: 0.002})
	os.Exit(1)
}

func runFake(t *testing.T, mode string) (int, string, string) {
	t.Helper()
	t.Setenv("TESTPROGRESS_FAKE", mode)
	var out, errb bytes.Buffer
	rc := run([]string{"-every", "200ms", "--", os.Args[0]}, &out, &errb)
	// Quoted with "| ": the child's "--- FAIL" lines must not read as this
	// test's own in -v output (the GPU runner counts those lines).
	quote := func(s string) string {
		return "| " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n| ") + "\n"
	}
	t.Logf("rc %d\nstdout:\n%sstderr:\n%s", rc, quote(out.String()), quote(errb.String()))
	return rc, out.String(), errb.String()
}

func TestGoTestJSON(t *testing.T) {
	rc, out, _ := runFake(t, "json")
	if rc != 1 {
		t.Errorf("exit status %d, want the command's, 1", rc)
	}
	// In order: the compile error, a heartbeat while building, the
	// packages as they finish with a heartbeat while a runs, b's failure,
	// the summary.
	order := []string{
		"# example.com/m/d\nd/d_test.go:3:9: undefined: x\n",
		"… still building the test binaries; 0 packages done; ",
		"FAIL\texample.com/m/d [build failed]\n",
		"?   \texample.com/m/c\t[no test files]\n",
		"… still testing: example.com/m/a (",
		"ok  \texample.com/m/a\t0.701s\n",
		// as plain go test prints it: the failed test, its logs, its failed subtests nested
		"from TestMain\n--- FAIL: TestBad (0.00s)\n    b_test.go:5: bad log\n    --- FAIL: TestBad/sub (0.00s)\n        b_test.go:6: sub failed\nFAIL\nFAIL\texample.com/m/b\t0.002s\n",
		"testprogress: 4 packages in ",
	}
	rest := out
	for _, want := range order {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("output lacks %q after what came before", want)
		}
		rest = rest[i+len(want):]
	}
	if !strings.Contains(out, "TestSlow)") {
		t.Error("the heartbeat does not name the running test")
	}
	if !strings.Contains(out, "1 ok, 1 without tests, 2 FAILED: example.com/m/d example.com/m/b\n") {
		t.Error("the summary does not list the failed packages")
	}
	for _, no := range []string{"good log", "fine log", "=== RUN", "--- PASS", "PASS\n"} {
		if strings.Contains(out, no) {
			t.Errorf("output has %q: lines of passing tests or framing", no)
		}
	}
}

func TestPlainCommand(t *testing.T) {
	rc, out, _ := runFake(t, "plain")
	if rc != 3 {
		t.Errorf("exit status %d, want 3", rc)
	}
	// The command's own lines pass through as they are, with a heartbeat
	// between them (the 700 ms sleep); on a loaded machine one may also
	// come before the first line, which is fine.
	var own []string
	between := false
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "… still running: ") {
			between = between || len(own) == 1
			continue
		}
		if l != "" {
			own = append(own, l)
		}
	}
	if strings.Join(own, "") != "hello\nbye\n" || !between || !strings.Contains(out, "; 0 s in all\n") {
		t.Errorf("output %q: want the lines as they are, a heartbeat between them", out)
	}
	if strings.Contains(out, "testprogress:") {
		t.Error("a summary for a command that is not go test -json")
	}
}

func TestCommandEndsMidPackage(t *testing.T) {
	rc, out, _ := runFake(t, "killed")
	if rc != 2 {
		t.Errorf("exit status %d, want 2", rc)
	}
	for _, want := range []string{"    a_test.go:9: waiting for the GPU\n(example.com/m/a: no result; the command ended)\n", "1 FAILED: example.com/m/a"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestStatus(t *testing.T) {
	var out bytes.Buffer
	p := newPrinter(&out, "github.com/gfxcuda/gfxcuda")
	t0 := p.start
	p.line([]byte(`{"Action":"start","Package":"github.com/gfxcuda/gfxcuda/vulkan"}` + "\n"))
	p.running["github.com/gfxcuda/gfxcuda/vulkan"].start = t0.Add(2 * time.Second)
	p.line([]byte(`{"Action":"start","Package":"github.com/gfxcuda/gfxcuda"}` + "\n"))
	p.running["github.com/gfxcuda/gfxcuda"].start = t0.Add(50 * time.Second)
	p.line([]byte(`{"Action":"run","Package":"github.com/gfxcuda/gfxcuda/vulkan","Test":"TestImages"}` + "\n"))
	p.line([]byte(`{"Action":"output","Package":"github.com/gfxcuda/gfxcuda/vulkan","Test":"TestImages","Output":"=== RUN   TestImages\n"}` + "\n"))
	got := p.status(t0.Add(95 * time.Second))
	want := "… still testing: vulkan (93 s, TestImages), . (45 s); 0 packages done; 95 s in all\n"
	if got != want {
		t.Errorf("status:\n got %q\nwant %q", got, want)
	}
	// The heartbeat waits for the quiet time.
	out.Reset()
	p.heartbeat(p.last.Add(time.Second), 20*time.Second)
	if out.Len() != 0 {
		t.Errorf("heartbeat after 1 s of quiet: %q", out.String())
	}
	p.heartbeat(p.last.Add(21*time.Second), 20*time.Second)
	if !strings.HasPrefix(out.String(), "… still testing: vulkan (") {
		t.Errorf("heartbeat after 21 s of quiet: %q", out.String())
	}
}

func TestModulePath(t *testing.T) {
	gomod := filepath.Join(t.TempDir(), "go.mod")
	if err := os.WriteFile(gomod, []byte("// comment\nmodule github.com/gfxcuda/gfxcuda\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := modulePath(gomod); got != "github.com/gfxcuda/gfxcuda" {
		t.Errorf("modulePath = %q", got)
	}
	if got := modulePath("no/such/go.mod"); got != "" {
		t.Errorf("modulePath of nothing = %q", got)
	}
}

// TestPanicAfterFail: a panicking test's trace comes after its "--- FAIL"
// line, attributed to the test; it is printed after the test's block.
func TestPanicAfterFail(t *testing.T) {
	var out bytes.Buffer
	p := newPrinter(&out, "")
	for _, e := range []event{
		{Action: "start", Package: "p"},
		{Action: "run", Package: "p", Test: "TestPanic"},
		{Action: "output", Package: "p", Test: "TestPanic", Output: "=== RUN   TestPanic\n"},
		{Action: "output", Package: "p", Test: "TestPanic", Output: "    p_test.go:3: before\n"},
		{Action: "output", Package: "p", Test: "TestPanic", Output: "--- FAIL: TestPanic (0.00s)\n"},
		{Action: "output", Package: "p", Test: "TestPanic", Output: "panic: assignment to entry in nil map [recovered, repanicked]\n"},
		{Action: "output", Package: "p", Test: "TestPanic", Output: "\tp_test.go:3 +0x4d\n"},
		{Action: "fail", Package: "p", Test: "TestPanic"},
		{Action: "output", Package: "p", Output: "FAIL\tp\t0.005s\n"},
		{Action: "fail", Package: "p"},
	} {
		b, _ := json.Marshal(e)
		p.line(append(b, '\n'))
	}
	want := "--- FAIL: TestPanic (0.00s)\n    p_test.go:3: before\npanic: assignment to entry in nil map [recovered, repanicked]\n\tp_test.go:3 +0x4d\nFAIL\tp\t0.005s\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
