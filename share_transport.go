package gfxcuda

import "github.com/gfxcuda/gfxcuda/internal/sharenet"

// Sharing's transport — tokens, the ways to reach an exporter, the
// process's server, the opener's dialing and the probes — is package
// internal/sharenet, which moves descriptors and bytes and knows nothing
// of GPU memory. These are its names as users see them; each is the
// sharenet name itself (an alias or the same value), documented there.

// Token is a shared resource's printable handle: give it to another
// process any way (argv, a pipe, JSON) and open it there. It names the
// ways to reach the exporting process and carries a 128-bit secret: treat
// it as a password for the resource. Token.Meta tells what it shares;
// Token.Endpoints where it is served.
type Token = sharenet.Token

// Meta is what a token tells about its resource, without asking the
// exporter: enough to import the memory in Vulkan or CUDA.
type Meta = sharenet.Meta

// Kind is what a token shares.
type Kind = sharenet.Kind

// Kinds of shared resources.
const (
	KindBuffer    = sharenet.KindBuffer    // linear memory: a Vulkan or CUDA allocation
	KindTexture   = sharenet.KindTexture   // an optimal-tiling 2D image (or 2D array)
	KindSemaphore = sharenet.KindSemaphore // a timeline semaphore
	KindRing      = sharenet.KindRing      // a frame ring's shared control block
)

// Flags of Meta.
const (
	FlagDedicated = sharenet.FlagDedicated // the allocation is dedicated to one buffer or image
	FlagFromCUDA  = sharenet.FlagFromCUDA  // the memory is a CUDA allocation (cuMemCreate)
)

// Endpoint is one way a token offers to reach its exporter.
type Endpoint = sharenet.Endpoint

// Rendezvous is a set of ways for an opener to reach an exporter.
type Rendezvous = sharenet.Rendezvous

// Ways to reach an exporter.
const (
	RendezvousAbstract = sharenet.RendezvousAbstract // an abstract Unix socket (one network namespace)
	RendezvousFS       = sharenet.RendezvousFS       // a Unix socket in a directory both sides mount
	RendezvousPidfd    = sharenet.RendezvousPidfd    // pidfd_getfd (one PID namespace, ptrace rights)
	RendezvousAll      = sharenet.RendezvousAll      // every way there is
	// RendezvousAuto (the zero value) is the default: for exporters, the
	// abstract socket and, when its directory is usable, the filesystem
	// socket; for openers, every way the token offers.
	RendezvousAuto = sharenet.RendezvousAuto
)

// ParseRendezvous reads a comma-separated list of "abstract", "fs" and
// "pidfd", or "auto" (the default), or "all".
func ParseRendezvous(s string) (Rendezvous, error) { return sharenet.ParseRendezvous(s) }

// ExportOptions configure how a resource is shared. The zero value is the
// default: the abstract socket and the filesystem socket (when its
// directory is usable), openers of the exporter's uid only.
type ExportOptions = sharenet.ExportOptions

// OpenOptions configure how an opener reaches the exporter. Open functions
// take at most one; the zero value tries every way the token offers.
type OpenOptions = sharenet.OpenOptions

// Environment variables read by exporters and openers.
const (
	// EnvShareDir names the filesystem socket directory (ExportOptions.Dir;
	// openers also try it when the token's directory fails).
	EnvShareDir = sharenet.EnvShareDir
	// EnvShareRendezvous is the default Rendezvous ("abstract,fs,pidfd", "auto").
	EnvShareRendezvous = sharenet.EnvShareRendezvous
)

// SetExportDefaults sets the options of exports that leave a field at its
// zero value, for the whole process (the C library's
// gfxcuda_share_options). Openers of this process also look for
// exporters' sockets in its Dir when the token's directory is not there.
func SetExportDefaults(o ExportOptions) { sharenet.SetExportDefaults(o) }

// DefaultShareDir is the directory filesystem sockets go to when neither
// ExportOptions.Dir, SetExportDefaults nor GFXCUDA_SHARE_DIR names one.
func DefaultShareDir() string { return sharenet.DefaultShareDir() }

// SetShareLogf sets the process-wide logger of exporters' refusals and
// rendezvous problems, used by exports without ExportOptions.Logf (nil:
// discard them), and returns the previous one (to restore it). The
// default is the standard log package.
func SetShareLogf(f func(format string, args ...any)) (previous func(format string, args ...any)) {
	return sharenet.SetShareLogf(f)
}

// OpenError is why opening a token failed: what each way to its exporter
// gave, in the order tried. The last attempt is the exporter's answer when
// one reached it. errors.Is(err, ErrRefused), ErrWithdrawn and
// ErrUnreachable tell the kinds apart.
type OpenError = sharenet.OpenError

// Attempt is what one way to the exporter gave.
type Attempt = sharenet.Attempt

// Reason is why one way to an exporter did not work.
type Reason = sharenet.Reason

// Reasons of an Attempt (see sharenet for each).
const (
	ReasonOther        = sharenet.ReasonOther
	ReasonNetNamespace = sharenet.ReasonNetNamespace
	ReasonPIDNamespace = sharenet.ReasonPIDNamespace
	ReasonDirNotShared = sharenet.ReasonDirNotShared
	ReasonPermission   = sharenet.ReasonPermission
	ReasonPtrace       = sharenet.ReasonPtrace
	ReasonUnsupported  = sharenet.ReasonUnsupported
	ReasonExporterGone = sharenet.ReasonExporterGone
	ReasonUntrusted    = sharenet.ReasonUntrusted
	ReasonDisabled     = sharenet.ReasonDisabled
	ReasonBusy         = sharenet.ReasonBusy
	ReasonRefused      = sharenet.ReasonRefused
)

// RendezvousCheck is what this machine allows for one way to reach an
// exporter (gfxcuda doctor prints them).
type RendezvousCheck = sharenet.RendezvousCheck

// ProbeRendezvous reports what this machine allows for each way to reach
// an exporter, without exporting anything or creating a directory.
func ProbeRendezvous() []RendezvousCheck { return sharenet.ProbeRendezvous() }

// Errors of sharing callers can branch on (errors.Is).
var (
	// ErrBadToken: the string is not a gfxcuda token, or a damaged one.
	ErrBadToken = sharenet.ErrBadToken
	// ErrWithdrawn: the exporter closed the resource (or its whole
	// process exited, or it closed every resource it shared).
	ErrWithdrawn = sharenet.ErrWithdrawn
	// ErrRefused: the exporter refused the request (wrong secret, a user
	// it does not allow, a malformed request), or the process serving the
	// token is not the exporter it names.
	ErrRefused = sharenet.ErrRefused
	// ErrUnreachable: no way the token offers reaches its exporter from
	// this process; the *OpenError says why for each and what to set.
	ErrUnreachable = sharenet.ErrUnreachable
	// ErrResourceOnOtherGPU: the token's memory lives on another GPU than
	// the device asked to open it.
	ErrResourceOnOtherGPU = sharenet.ErrResourceOnOtherGPU
	// ErrWrongKind: the token shares another kind of resource.
	ErrWrongKind = sharenet.ErrWrongKind
)
