//go:build linux

package gfxcuda

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"golang.org/x/sys/unix"
)

// These tests play two containers with namespaces: the exporter is this
// test process, the opener a child in its own network namespace, PID
// namespace (CLONE_NEWNET, CLONE_NEWPID, as `unshare --net --pid --fork`
// makes), sometimes mount namespace, running as root or as another uid
// (SysProcAttr.Credential). They need root, which the CPU machine and CI
// have, and skip without it.

func TestMain(m *testing.M) {
	code := m.Run()
	if worldBin.dir != "" {
		os.RemoveAll(worldBin.dir)
	}
	os.Exit(code)
}

// worldBin is a copy of the test binary other uids can run, in a
// directory they can enter, with a home and a cache they can write.
var worldBin struct {
	once      sync.Once
	dir, path string
	err       error
}

func worldBinary(t *testing.T) string {
	t.Helper()
	worldBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "gfxcuda-share-bin")
		if err != nil {
			worldBin.err = err
			return
		}
		worldBin.dir = dir
		data, err := os.ReadFile(os.Args[0])
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "share.test"), data, 0o755)
		}
		if err == nil {
			err = os.Mkdir(filepath.Join(dir, "home"), 0o777)
		}
		if err == nil {
			err = errors.Join(os.Chmod(dir, 0o755), os.Chmod(filepath.Join(dir, "home"), 0o1777))
		}
		worldBin.path, worldBin.err = filepath.Join(dir, "share.test"), err
	})
	if worldBin.err != nil {
		t.Fatal(worldBin.err)
	}
	return worldBin.path
}

var nsCheck struct {
	once sync.Once
	err  error
}

// needNamespaces skips, with a one-line reason, where this process cannot
// make namespaces and children of other uids.
func needNamespaces(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: network and PID namespaces and children of other uids (the CPU machine and CI run as root)")
	}
	nsCheck.once.Do(func() {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
		nsCheck.err = cmd.Run()
	})
	if nsCheck.err != nil {
		t.Skipf("cannot create network, PID and mount namespaces here: %v", nsCheck.err)
	}
}

const (
	newNet = syscall.CLONE_NEWNET
	newPID = syscall.CLONE_NEWPID
	newNS  = syscall.CLONE_NEWNS
	// ownProc is not a clone flag: the child gets a mount namespace too
	// and mounts there a /proc of its own PID namespace, as container
	// runtimes do. CUDA needs it in a new PID namespace: with the parent's
	// /proc, cuInit fails (CUDA_ERROR_OPERATING_SYSTEM). Root only.
	ownProc = 1 << 62
)

// procEnv asks a child to mount its own /proc first (ownProc).
const procEnv = "GFXCUDA_TEST_OWN_PROC"

// mountOwnProc mounts, in the child's own mount namespace (kept from
// propagating back to the parent's), a /proc of its PID namespace.
func mountOwnProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// container is how a child is started: its namespaces and its uid.
type container struct {
	flags uintptr
	uid   int // 0: root
}

func (c container) String() string {
	var ns []string
	for _, f := range []struct {
		f    uintptr
		name string
	}{{newNet, "net"}, {newPID, "pid"}, {newNS | ownProc, "mount"}} {
		if c.flags&f.f != 0 {
			ns = append(ns, f.name)
		}
	}
	s := fmt.Sprintf("uid %d, own %s namespaces", c.uid, strings.Join(ns, "+"))
	if c.flags&ownProc != 0 {
		s += " and /proc"
	}
	return s
}

// startIn runs TestChild in role inside container c.
func startIn(t *testing.T, role string, c container, env ...string) *child {
	t.Helper()
	bin := os.Args[0]
	extra := []string{childEnv + "=" + role, "MESA_SHADER_CACHE_DISABLE=true"}
	if c.uid != 0 {
		bin = worldBinary(t)
		home := filepath.Join(worldBin.dir, "home")
		extra = append(extra, "HOME="+home, "XDG_CACHE_HOME="+home)
	}
	cmd := exec.Command(bin, "-test.run=^TestChild$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), extra...), env...)
	flags := c.flags &^ ownProc
	if c.flags&ownProc != 0 {
		if c.uid != 0 {
			t.Fatalf("%v: only a root child can mount its own /proc", c)
		}
		flags |= newNS
		cmd.Env = append(cmd.Env, procEnv+"=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
	if c.uid != 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(c.uid), Gid: uint32(c.uid)}
		cmd.Dir = worldBin.dir
	}
	return startChildCmd(t, cmd)
}

// sharedDir returns a directory path (not created) under a directory every
// uid can enter: the directory "both containers mount".
func sharedDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "gfxcuda-shared")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(parent, "gfxcuda")
}

// logCapture collects the exporter's log lines.
type logCapture struct {
	mu    sync.Mutex
	lines []string
}

func (l *logCapture) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logCapture) find(subs ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.lines {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(ln, s)
		}
		if ok {
			return ln
		}
	}
	return ""
}

// openResult is what a child reports of an open.
type openResult struct {
	OK          bool
	Reasons     []string
	Withdrawn   bool
	Refused     bool
	Unreachable bool
	Msg         string
}

func resultOf(err error) openResult {
	if err == nil {
		return openResult{OK: true}
	}
	r := openResult{Withdrawn: errors.Is(err, ErrWithdrawn), Refused: errors.Is(err, ErrRefused),
		Unreachable: errors.Is(err, ErrUnreachable), Msg: err.Error()}
	var oe *OpenError
	if errors.As(err, &oe) {
		for _, a := range oe.Attempts {
			r.Reasons = append(r.Reasons, a.Reason.String())
		}
	}
	return r
}

func (r openResult) has(reason Reason) bool {
	for _, x := range r.Reasons {
		if x == reason.String() {
			return true
		}
	}
	return false
}

func reportResult(err error) {
	b, _ := json.Marshal(resultOf(err))
	say("result %s", b)
}

func (c *child) result(t *testing.T) openResult {
	t.Helper()
	var r openResult
	if err := json.Unmarshal([]byte(c.expect(t, "result")), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// containersChild runs the roles of this file's children.
func containersChild(t *testing.T, role string, tok Token, in *bufio.Scanner) bool {
	ctx := ctx10(t)
	var oo OpenOptions
	oo.Dir = os.Getenv("OPEN_DIR")
	if rv := os.Getenv("OPEN_RENDEZVOUS"); rv != "" {
		oo.Rendezvous, _ = ParseRendezvous(rv)
	}
	if dir := os.Getenv("HIDE_DIR"); dir != "" {
		// This container does not mount the shared directory: a tmpfs
		// hides it, in this mount namespace only.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			childFail("private mounts: %v", err)
		}
		if err := unix.Mount("tmpfs", filepath.Dir(dir), "tmpfs", 0, ""); err != nil {
			childFail("mount: %v", err)
		}
	}
	switch role {
	case "nsfetch":
		fds, m, err := Fetch(ctx, tok, oo)
		if err == nil {
			seed, _ := strconv.ParseUint(os.Getenv("SEED"), 10, 64)
			got := poisonedBytes(int(m.Size))
			unix.Pread(fds[0], got, 0)
			sharenet.CloseAll(fds)
			if !bytes.Equal(got, seededRandom(seed, int(m.Size))) {
				childFail("the fetched memfd's bytes differ")
			}
		}
		reportResult(err)
	case "nsbuf":
		d := vkDevice(t)
		b, err := OpenVulkanBuffer(ctx, d, tok, oo)
		reportResult(err)
		if err != nil {
			return true
		}
		var seeds [2]uint64
		for i, s := range strings.Split(os.Getenv("SEEDS"), ",") {
			seeds[i], _ = strconv.ParseUint(s, 10, 64)
		}
		n := int(b.Size())
		got := poisonedBytes(n)
		if err := b.Readback(0, got); err != nil || !bytes.Equal(got, seededRandom(seeds[0], n)) {
			childFail("imported bytes differ (%v)", err)
		}
		if err := b.Upload(0, seededRandom(seeds[1], n)); err != nil {
			childFail("upload: %v", err)
		}
		b.Close()
		say("written")
	case "nsexporter":
		// An exporter in its own container, for tokens of an exporter that
		// is gone: it exports, prints the token and exits when told.
		var eo ExportOptions
		eo.Dir = os.Getenv("DIR")
		eo.Rendezvous, _ = ParseRendezvous(os.Getenv("RENDEZVOUS"))
		ex := memfdExport(t, 7, 64, eo)
		say("token %s", ex.Token())
		in.Scan()
		ex.Close()
		say("closed")
	case "nsproducer":
		var exs []*Shared
		eo := ExportOptions{Rendezvous: RendezvousFS, Dir: os.Getenv("DIR")}
		for i := 0; i < 2; i++ {
			exs = append(exs, memfdExport(t, uint64(i), 64, eo))
		}
		r, err := NewSharedRing(SharedRingOptions{Slots: exs, DropOldest: true, Export: eo})
		if err != nil {
			childFail("ring: %v", err)
		}
		ex, err := Export(r)
		if err != nil {
			childFail("export: %v", err)
		}
		say("token %s", ex.Token())
		for { // until killed
			s, err := r.Acquire(context.Background())
			if err != nil {
				childFail("acquire: %v", err)
			}
			r.Publish(s, nil, 0)
			time.Sleep(2 * time.Millisecond)
		}
	case "nsringwait":
		c, err := OpenSharedRing(ctx, tok, oo)
		if err != nil {
			childFail("open ring: %v", err)
		}
		if c.r.ProducerPID() != 0 {
			childFail("the producer's pid is %d here, want 0 (invisible from this PID namespace)", c.r.ProducerPID())
		}
		long, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		f, err := c.Next(long)
		if err != nil {
			childFail("first frame: %v", err)
		}
		c.Release(f)
		say("attached")
		for {
			f, err := c.Next(long)
			if err != nil {
				if errors.Is(err, ErrProducerGone) {
					say("gone %d", time.Now().UnixMilli())
					return true
				}
				childFail("after the producer's death: %v", err)
			}
			c.Release(f)
		}
	default:
		return false
	}
	return true
}

// exportVulkanBuffer makes an exportable buffer of n random bytes (seed)
// and exports it with o.
func exportVulkanBuffer(t *testing.T, d *vulkan.Device, n int, seed uint64, o ExportOptions) (*vulkan.Buffer, *Shared) {
	t.Helper()
	b, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(n), Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.Upload(0, seededRandom(seed, n)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportVulkan(d, b, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return b, ex
}

// TestContainersBuffer: a Vulkan buffer (lavapipe) opened through the
// filesystem socket by openers in their own network and PID namespaces,
// as root and as an allowed uid, every byte checked both ways; a uid the
// exporter does not allow is refused with the reason, and the refusal is
// logged with its credentials.
func TestContainersBuffer(t *testing.T) {
	needNamespaces(t)
	d := vkDevice(t)
	var logs logCapture
	const n = 1<<20 + 77
	dir := sharedDir(t)
	b, ex := exportVulkanBuffer(t, d, n, 101, ExportOptions{Dir: dir, AllowUIDs: []int{1000}, Logf: logs.logf})
	if ex.Rendezvous() != RendezvousAbstract|RendezvousFS {
		t.Fatalf("offered %v, want the abstract and filesystem sockets", ex.Rendezvous())
	}
	// The directory lets others reach the socket, not list or write.
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil || st.Mode&0o777 != 0o711 {
		t.Errorf("socket directory mode %o (%v), want 0711", st.Mode&0o777, err)
	}
	if err := unix.Lstat(fsPath(t, ex.Token()), &st); err != nil || st.Mode&0o777 != 0o666 || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		t.Errorf("socket mode %o (%v), want a socket 0666", st.Mode, err)
	}
	for i, c := range []container{{newNet | newPID, 0}, {newNet | newPID, 1000}} {
		t.Run(c.String(), func(t *testing.T) {
			seed := uint64(200 + i)
			ch := startIn(t, "nsbuf", c, "TOKEN="+string(ex.Token()), fmt.Sprintf("SEEDS=101,%d", seed))
			if r := ch.result(t); !r.OK {
				t.Fatalf("open from %v: %s", c, r.Msg)
			}
			ch.expect(t, "written")
			got := poisonedBytes(n)
			if err := b.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, seededRandom(seed, n)) {
				t.Fatal("the bytes the other container wrote differ")
			}
			ch.wait(t)
			if err := b.Upload(0, seededRandom(101, n)); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("uid 1001 not allowed", func(t *testing.T) {
		ch := startIn(t, "nsbuf", container{newNet | newPID, 1001}, "TOKEN="+string(ex.Token()), "SEEDS=101,300")
		r := ch.result(t)
		if r.OK || !r.Refused || !r.has(ReasonRefused) ||
			!strings.Contains(r.Msg, "uid 1001 (gid 1001) is not allowed") || !strings.Contains(r.Msg, "--allow-uid 1001") {
			t.Fatalf("uid 1001: %+v", r)
		}
		ch.wait(t)
		if l := logs.find("refused pid", "uid 1001 gid 1001", "filesystem socket", "not allowed"); l == "" {
			t.Errorf("no refusal of uid 1001 logged: %q", logs.lines)
		} else {
			t.Log(l)
		}
	})
}

// TestContainersRing: frame rings between containers: through the
// filesystem socket to a consumer of another uid in its own network and
// PID namespaces, and through the pidfd door to a consumer in its own
// network namespace; every byte of every frame is checked.
func TestContainersRing(t *testing.T) {
	needNamespaces(t)
	d := vkDevice(t)
	for _, tc := range []struct {
		name string
		eo   ExportOptions
		c    container
	}{
		{"filesystem socket", ExportOptions{Rendezvous: RendezvousFS, Dir: sharedDir(t), AllowUIDs: []int{1000}}, container{newNet | newPID, 1000}},
		{"pidfd", ExportOptions{Rendezvous: RendezvousPidfd}, container{newNet, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bufs []*vulkan.Buffer
			var exs []*Shared
			for i := 0; i < 3; i++ {
				b, err := d.NewBuffer(vulkan.BufferOptions{Size: ringFrameBytes, Heap: vulkan.HeapUpload, Exportable: true})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				ex, err := ExportVulkan(d, b, tc.eo)
				if err != nil {
					t.Fatal(err)
				}
				defer ex.Close()
				bufs, exs = append(bufs, b), append(exs, ex)
			}
			r, err := NewSharedRing(SharedRingOptions{Slots: exs, Export: tc.eo})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ex, err := Export(r)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Rendezvous() != tc.eo.Rendezvous {
				t.Fatalf("the ring offers %v, want %v", ex.Rendezvous(), tc.eo.Rendezvous)
			}
			const frames = 2000
			ch := startIn(t, "ringconsumer", tc.c, "TOKEN="+string(ex.Token()), "FRAMES="+strconv.Itoa(frames))
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			if err := r.WaitConsumers(ctx, 1); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= frames; i++ {
				if _, err := produce(t, r, bufs, ctx); err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
			}
			if got := ch.expect(t, "checked"); got != strconv.Itoa(frames) {
				t.Fatalf("the consumer checked %s frames", got)
			}
			r.Close()
			ch.expect(t, "closed")
			ch.wait(t)
		})
	}
}

// TestContainersRefusals: every way that does not work says why: another
// network namespace for the abstract socket, a directory the opener does
// not see or may not enter, another PID namespace or no ptrace rights for
// pidfd; forged, withdrawn and dead exporters' tokens fail across
// namespaces as they do on one host.
func TestContainersRefusals(t *testing.T) {
	needNamespaces(t)
	var logs logCapture
	dir := sharedDir(t)
	fs := ExportOptions{Rendezvous: RendezvousAbstract | RendezvousFS, Dir: dir, Logf: logs.logf}
	ex := memfdExport(t, 11, 4096, fs)
	fetch := func(t *testing.T, tok Token, c container, env ...string) openResult {
		t.Helper()
		ch := startIn(t, "nsfetch", c, append([]string{"TOKEN=" + string(tok), "SEED=11"}, env...)...)
		r := ch.result(t)
		ch.wait(t)
		return r
	}
	netns := container{newNet | newPID, 0}
	t.Run("works from another network namespace", func(t *testing.T) {
		if r := fetch(t, ex.Token(), netns); !r.OK || fmt.Sprint(r.Reasons) != "[]" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("abstract socket only", func(t *testing.T) {
		ab := memfdExport(t, 11, 4096, ExportOptions{Rendezvous: RendezvousAbstract})
		r := fetch(t, ab.Token(), netns)
		if r.OK || !r.Unreachable || !r.has(ReasonNetNamespace) || !strings.Contains(r.Msg, "different network namespace") ||
			!strings.Contains(r.Msg, "--network container:") || !strings.Contains(r.Msg, "--dir") {
			t.Fatalf("%+v", r)
		}
		t.Log(r.Msg)
	})
	t.Run("directory not shared", func(t *testing.T) {
		r := fetch(t, ex.Token(), container{newNet | newPID | newNS, 0}, "HIDE_DIR="+dir)
		if r.OK || !r.Unreachable || !r.has(ReasonNetNamespace) || !r.has(ReasonDirNotShared) || !strings.Contains(r.Msg, "does not exist") {
			t.Fatalf("%+v", r)
		}
		t.Log(r.Msg)
	})
	t.Run("directory mounted elsewhere", func(t *testing.T) {
		// The shared directory at another path in this container
		// (a symbolic link plays the mount): --dir says where.
		alias := filepath.Join(filepath.Dir(dir), "mounted-here")
		if err := os.Symlink(dir, alias); err != nil {
			t.Fatal(err)
		}
		r := fetch(t, ex.Token(), container{newNet | newPID | newNS, 0}, "HIDE_DIR="+dir, "OPEN_DIR="+alias)
		if r.OK || !r.has(ReasonDirNotShared) {
			t.Fatalf("with the directory hidden: %+v", r)
		}
		if r := fetch(t, ex.Token(), netns, "OPEN_DIR="+alias); !r.OK {
			t.Fatalf("through --dir: %+v", r)
		}
		if r := fetch(t, ex.Token(), netns, "GFXCUDA_SHARE_DIR="+alias, "OPEN_RENDEZVOUS=fs"); !r.OK {
			t.Fatalf("through GFXCUDA_SHARE_DIR: %+v", r)
		}
	})
	t.Run("another uid, directory closed", func(t *testing.T) {
		// No allow-list: the directory stays 0700, the socket 0600.
		own := memfdExport(t, 11, 4096, ExportOptions{Rendezvous: RendezvousFS, Dir: sharedDir(t)})
		r := fetch(t, own.Token(), container{newNet | newPID, 1000})
		if r.OK || !r.has(ReasonPermission) || !strings.Contains(r.Msg, "--allow-uid 1000") {
			t.Fatalf("%+v", r)
		}
		t.Log(r.Msg)
	})
	t.Run("forged", func(t *testing.T) {
		forged, _ := sharenet.Forge(ex.Token(), func(_ *Meta, secret *[16]byte) { secret[5] ^= 0x40 })
		r := fetch(t, forged, netns)
		if r.OK || !r.Refused || !strings.Contains(r.Msg, "secret") {
			t.Fatalf("%+v", r)
		}
		if logs.find("refused pid", "wrong secret", "filesystem socket") == "" {
			t.Errorf("no refusal logged: %q", logs.lines)
		}
	})
	t.Run("withdrawn", func(t *testing.T) {
		gone := memfdExport(t, 11, 4096, fs)
		gone.Close()
		if r := fetch(t, gone.Token(), netns); r.OK || !r.Withdrawn {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("exporter gone", func(t *testing.T) {
		// A token replayed after its exporter (another container)
		// exited: every way says so.
		for _, tc := range []struct {
			rv   string
			c    container
			want []Reason
		}{
			{"abstract,fs", container{newNet | newPID, 0}, []Reason{ReasonNetNamespace, ReasonExporterGone}},
			{"pidfd", container{newNet, 0}, []Reason{ReasonExporterGone}},
		} {
			exp := startIn(t, "nsexporter", tc.c, "DIR="+dir, "RENDEZVOUS="+tc.rv)
			tok := Token(exp.expect(t, "token"))
			exp.send(t, "exit")
			exp.expect(t, "closed")
			exp.wait(t)
			_, _, err := Fetch(ctx10(t), tok)
			r := resultOf(err)
			if r.OK || !r.Withdrawn || fmt.Sprint(r.Reasons) != fmt.Sprint(tc.want) {
				t.Errorf("%s: %+v, want reasons %v", tc.rv, r, tc.want)
			}
			t.Log(r.Msg)
		}
	})
	t.Run("pidfd", func(t *testing.T) {
		pe := memfdExport(t, 11, 4096, ExportOptions{Rendezvous: RendezvousPidfd, AllowUIDs: []int{1000}, Logf: logs.logf})
		if r := fetch(t, pe.Token(), container{newNet, 0}); !r.OK {
			t.Fatalf("same PID namespace: %+v", r)
		}
		r := fetch(t, pe.Token(), container{newNet | newPID, 0})
		if r.OK || !r.has(ReasonPIDNamespace) || !strings.Contains(r.Msg, "--pid container:") {
			t.Fatalf("another PID namespace: %+v", r)
		}
		t.Log(r.Msg)
		r = fetch(t, pe.Token(), container{newNet, 1000})
		if r.OK || !r.has(ReasonPtrace) || !strings.Contains(r.Msg, "CAP_SYS_PTRACE") {
			t.Fatalf("another uid: %+v", r)
		}
		t.Log(r.Msg)
		forged, _ := sharenet.Forge(pe.Token(), func(_ *Meta, secret *[16]byte) { secret[0] ^= 1 })
		if r := fetch(t, forged, container{newNet, 0}); r.OK || !r.Refused || !strings.Contains(r.Msg, "secret") {
			t.Fatalf("forged: %+v", r)
		}
		if logs.find("refused pid", "via pidfd door", "wrong secret") == "" {
			t.Errorf("no refusal at the door logged: %q", logs.lines)
		}
	})
}

// TestRingProducerGoneAcrossPIDNamespaces: producer and consumer in two
// PID namespaces that cannot see each other's pids: the consumer notices
// the producer's death through the ring's liveness socket.
func TestRingProducerGoneAcrossPIDNamespaces(t *testing.T) {
	needNamespaces(t)
	dir := sharedDir(t)
	if err := sharenet.PrepareDir(dir, true); err != nil { // the producer's uid owns it: create it first as root
		t.Fatal(err)
	}
	prod := startIn(t, "nsproducer", container{newNet | newPID, 0}, "DIR="+dir)
	tok := prod.expect(t, "token")
	cons := startIn(t, "nsringwait", container{newNet | newPID, 0}, "TOKEN="+tok)
	cons.expect(t, "attached")
	killed := time.Now()
	prod.cmd.Process.Kill()
	ms, _ := strconv.ParseInt(cons.expect(t, "gone"), 10, 64)
	if el := time.UnixMilli(ms).Sub(killed); el > 2*time.Second {
		t.Errorf("the consumer noticed after %v", el)
	} else {
		t.Logf("noticed %v after the kill", el)
	}
	cons.wait(t)
}

// fsPath is the filesystem socket tok offers.
func fsPath(t *testing.T, tok Token) string {
	t.Helper()
	eps, err := tok.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		if e.Rendezvous == RendezvousFS {
			return e.Address
		}
	}
	t.Fatalf("the token offers no filesystem socket: %v", eps)
	return ""
}
