package sharenet

import (
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Rendezvous is a set of ways an opener may reach an exporter. A token
// records the ones its exporter offers; openers try them in the order
// abstract socket, filesystem socket, pidfd.
type Rendezvous uint8

// Ways to reach an exporter.
const (
	// RendezvousAbstract: an abstract Unix socket. No file, no
	// permissions to get wrong; it belongs to a network namespace, so only
	// processes of the exporter's network namespace reach it (containers
	// started with --network container:NAME or --network host, the
	// containers of one Kubernetes pod).
	RendezvousAbstract Rendezvous = 1 << iota
	// RendezvousFS: a Unix socket in a directory (ExportOptions.Dir) that
	// both sides mount: it crosses network namespaces.
	RendezvousFS
	// RendezvousPidfd: the opener takes descriptors out of the exporter
	// with pidfd_open and pidfd_getfd, which needs a shared PID namespace
	// and ptrace rights over the exporter. Exporters offer it only when
	// asked (see docs/sharing.md, "Containers", for what it trusts).
	RendezvousPidfd

	// RendezvousAll is every way there is.
	RendezvousAll = RendezvousAbstract | RendezvousFS | RendezvousPidfd
)

// RendezvousAuto (the zero value) is the default: for exporters, the
// abstract socket and, when its directory is usable, the filesystem socket;
// for openers, every way the token offers.
const RendezvousAuto Rendezvous = 0

var rendezvousNames = []struct {
	r    Rendezvous
	name string
}{{RendezvousAbstract, "abstract"}, {RendezvousFS, "fs"}, {RendezvousPidfd, "pidfd"}}

// String names the set as ParseRendezvous reads it: "abstract,fs", "auto".
func (r Rendezvous) String() string {
	if r == RendezvousAuto {
		return "auto"
	}
	var parts []string
	for _, n := range rendezvousNames {
		if r&n.r != 0 {
			parts = append(parts, n.name)
		}
	}
	if rest := r &^ RendezvousAll; rest != 0 {
		parts = append(parts, fmt.Sprintf("Rendezvous(%#x)", uint8(rest)))
	}
	return strings.Join(parts, ",")
}

// describe is the path in words, for messages.
func (r Rendezvous) describe() string {
	switch r {
	case RendezvousAbstract:
		return "abstract socket"
	case RendezvousFS:
		return "filesystem socket"
	case RendezvousPidfd:
		return "pidfd_getfd"
	}
	return r.String()
}

// ParseRendezvous reads a comma-separated list of "abstract", "fs" and
// "pidfd", or "auto" (the default), or "all".
func ParseRendezvous(s string) (Rendezvous, error) {
	var r Rendezvous
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		switch p {
		case "", "auto":
			continue
		case "all":
			r |= RendezvousAll
			continue
		case "filesystem", "file", "path":
			p = "fs"
		}
		i := slices.IndexFunc(rendezvousNames, func(n struct {
			r    Rendezvous
			name string
		}) bool {
			return n.name == p
		})
		if i < 0 {
			return 0, fmt.Errorf("share: unknown rendezvous %q (abstract, fs, pidfd, auto or all)", p)
		}
		r |= rendezvousNames[i].r
	}
	return r, nil
}

// ExportOptions configure how a resource is shared. The zero value is the
// default: the abstract socket and the filesystem socket (when its
// directory is usable), openers of the exporter's uid only.
type ExportOptions struct {
	// Rendezvous is the set of ways openers may reach the exporter
	// (RendezvousAuto: SetExportDefaults', else GFXCUDA_SHARE_RENDEZVOUS, else
	// the abstract socket and the filesystem socket when its directory is
	// usable). Asked for explicitly, a way that cannot be set up fails the
	// export with the reason.
	Rendezvous Rendezvous
	// Dir is the directory of the filesystem socket ("": SetExportDefaults',
	// else GFXCUDA_SHARE_DIR, else /dev/shm/gfxcuda, else
	// $XDG_RUNTIME_DIR/gfxcuda). It is created 0700 when missing (0711
	// when AllowUIDs or AllowGIDs let other users in); an existing one is
	// used only when this user owns it and no one else can write it, or
	// when root owns it with the sticky bit set (like /tmp).
	Dir string
	// AllowUIDs and AllowGIDs are the other users and groups (primary or
	// supplementary) that may open the resource, besides the exporter's
	// own uid: for containers that run as different users. The token's
	// secret is required from them too.
	AllowUIDs []int
	AllowGIDs []int
	// Logf receives the exporter's refusals (with the peer's pid, uid and
	// gid) and its rendezvous problems (nil: SetShareLogf's logger, by default
	// the standard log package).
	Logf func(format string, args ...any)
}

// OpenOptions configure how an opener reaches the exporter. Open functions
// take at most one; the zero value tries every way the token offers.
type OpenOptions struct {
	// Rendezvous restricts the ways tried (RendezvousAuto: all the token
	// offers, or GFXCUDA_SHARE_RENDEZVOUS when set).
	Rendezvous Rendezvous
	// Dir is the exporter's socket directory as mounted in this process,
	// when it is mounted at another path than the exporter's (the token
	// names the exporter's). Default: the token's directory, then
	// SetExportDefaults' Dir or GFXCUDA_SHARE_DIR when set.
	Dir string
}

// fallbackDir is where openers look when the token's directory is not
// there: SetExportDefaults' Dir, else GFXCUDA_SHARE_DIR.
func fallbackDir() string {
	defaults.mu.Lock()
	d := defaults.o.Dir
	defaults.mu.Unlock()
	if d != "" {
		return d
	}
	return os.Getenv(EnvShareDir)
}

// Environment variables read by exporters and openers.
const (
	// EnvShareDir names the filesystem socket directory (ExportOptions.Dir;
	// openers also try it when the token's directory fails).
	EnvShareDir = "GFXCUDA_SHARE_DIR"
	// EnvShareRendezvous is the default Rendezvous ("abstract,fs,pidfd", "auto").
	EnvShareRendezvous = "GFXCUDA_SHARE_RENDEZVOUS"
)

var defaults struct {
	mu sync.Mutex
	o  ExportOptions
}

// SetExportDefaults sets the options of exports that leave a field at its zero
// value, for the whole process (the C library's gfxcuda_share_options).
// Openers of this process also look for exporters' sockets in its Dir
// when the token's directory is not there (the shared directory mounted
// at the same path for both uses).
func SetExportDefaults(o ExportOptions) {
	defaults.mu.Lock()
	defer defaults.mu.Unlock()
	o.AllowUIDs = slices.Clone(o.AllowUIDs)
	o.AllowGIDs = slices.Clone(o.AllowGIDs)
	defaults.o = o
}

// exportPlan is an export's options resolved: what the server must offer.
type exportPlan struct {
	rv       Rendezvous
	explicit Rendezvous // asked for explicitly: failing to set it up fails the export
	dir      string
	uids     []int
	gids     []int
	logf     func(format string, args ...any)
}

// others reports whether users other than the exporter's may open.
func (p *exportPlan) others() bool { return len(p.uids) > 0 || len(p.gids) > 0 }

// resolve merges o with SetExportDefaults' options and the environment.
func resolve(o ExportOptions) (*exportPlan, error) {
	defaults.mu.Lock()
	d := defaults.o
	defaults.mu.Unlock()
	p := &exportPlan{rv: o.Rendezvous, dir: o.Dir, uids: o.AllowUIDs, gids: o.AllowGIDs, logf: o.Logf}
	if p.rv == RendezvousAuto {
		p.rv = d.Rendezvous
	}
	if p.rv == RendezvousAuto {
		if env := os.Getenv(EnvShareRendezvous); env != "" {
			r, err := ParseRendezvous(env)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", EnvShareRendezvous, err)
			}
			p.rv = r
		}
	}
	if p.rv == RendezvousAuto {
		p.rv = RendezvousAbstract | RendezvousFS
		p.explicit = RendezvousAbstract
	} else {
		p.explicit = p.rv
	}
	if p.rv&^RendezvousAll != 0 {
		return nil, fmt.Errorf("share: unknown rendezvous bits in %v", p.rv)
	}
	// A directory named anywhere (options, SetExportDefaults, the environment)
	// is wanted: failing to use it fails the export. The built-in default
	// is tried and left out quietly (logged) when unusable.
	if p.dir == "" {
		p.dir = d.Dir
	}
	if p.dir == "" {
		p.dir = os.Getenv(EnvShareDir)
	}
	if p.dir != "" {
		p.explicit |= p.rv & RendezvousFS
	} else {
		p.dir = defaultDir()
	}
	if p.uids == nil {
		p.uids = d.AllowUIDs
	}
	if p.gids == nil {
		p.gids = d.AllowGIDs
	}
	for _, id := range append(slices.Clone(p.uids), p.gids...) {
		if id < 0 || id > 1<<32-2 {
			return nil, fmt.Errorf("share: uid or gid %d out of range", id)
		}
	}
	p.uids, p.gids = slices.Clone(p.uids), slices.Clone(p.gids)
	slices.Sort(p.uids)
	slices.Sort(p.gids)
	p.uids, p.gids = slices.Compact(p.uids), slices.Compact(p.gids)
	if p.logf == nil {
		p.logf = d.Logf
	}
	return p, nil
}

// defaultDir is where filesystem sockets go when nothing says otherwise:
// /dev/shm/gfxcuda (containers sharing /dev/shm, --ipc=container:NAME,
// see it without a mount), else $XDG_RUNTIME_DIR/gfxcuda, else the
// temporary directory's gfxcuda.
func defaultDir() string {
	if dirUsable("/dev/shm") {
		return "/dev/shm/gfxcuda"
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		return x + "/gfxcuda"
	}
	return os.TempDir() + "/gfxcuda"
}

// DefaultShareDir is the directory filesystem sockets go to when neither
// ExportOptions.Dir, SetExportDefaults nor GFXCUDA_SHARE_DIR names one.
func DefaultShareDir() string {
	if d := os.Getenv(EnvShareDir); d != "" {
		return d
	}
	return defaultDir()
}

// ---- logging ----

var logger atomic.Pointer[func(string, ...any)]

func init() {
	f := func(format string, args ...any) { log.Printf(format, args...) }
	logger.Store(&f)
}

// SetShareLogf sets the process-wide logger of exporters' refusals and
// rendezvous problems, used by exports without ExportOptions.Logf (nil:
// discard them), and returns the previous one (to restore it). The
// default is the standard log package.
func SetShareLogf(f func(format string, args ...any)) (previous func(format string, args ...any)) {
	if f == nil {
		f = func(string, ...any) {}
	}
	return *logger.Swap(&f)
}

func defaultLogf(format string, args ...any) { (*logger.Load())(format, args...) }

// rateLimit lets through at most burst log lines per second and counts the
// others, so that a peer flooding an exporter with garbage cannot flood
// its log.
type rateLimit struct {
	mu         sync.Mutex
	start      time.Time
	n          int
	suppressed int
}

const logBurst = 20

// allow reports whether a line may be logged now, and how many were
// suppressed since the last one that was.
func (l *rateLimit) allow() (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.start) >= time.Second {
		l.start, l.n = now, 0
	}
	if l.n >= logBurst {
		l.suppressed++
		return false, 0
	}
	l.n++
	s := l.suppressed
	l.suppressed = 0
	return true, s
}

// ---- namespaces and the kernel ----

// ptraceScope returns Yama's kernel.yama.ptrace_scope, or -1 without Yama.
func ptraceScope() int {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// ptraceScopeWords describes a ptrace_scope value.
func ptraceScopeWords(s int) string {
	switch s {
	case -1:
		return "no Yama LSM: classic ptrace rules (same uid, or CAP_SYS_PTRACE)"
	case 0:
		return "Yama ptrace_scope 0: any process of the same uid"
	case 1:
		return "Yama ptrace_scope 1: only ancestors, or any process of the same uid once the exporter allows it (pidfd exporters do, PR_SET_PTRACER)"
	case 2:
		return "Yama ptrace_scope 2: only processes with CAP_SYS_PTRACE"
	case 3:
		return "Yama ptrace_scope 3: no process may ptrace another"
	}
	return fmt.Sprintf("Yama ptrace_scope %d", s)
}

// RendezvousCheck is what this machine allows for one way to reach an
// exporter (gfxcuda doctor prints them; ProbeRendezvous
// makes them, on Windows each saying it does not work yet).
type RendezvousCheck struct {
	Rendezvous Rendezvous
	// OK: the way works here (for the filesystem socket: the default
	// directory is usable; for pidfd: the kernel has pidfd_getfd).
	OK     bool
	Detail string
	// Fix says what to set when the way does not work, or what it needs.
	Fix string
}
