package sharenet

import (
	"fmt"
	"strings"
)

// Reason is why one way to an exporter did not work.
type Reason int

// Reasons of an Attempt.
const (
	ReasonOther Reason = iota
	// The exporter's abstract socket is in another network namespace.
	ReasonNetNamespace
	// The exporter is in another PID namespace (pidfd).
	ReasonPIDNamespace
	// The filesystem socket's directory is not visible here, or is another
	// directory than the exporter's.
	ReasonDirNotShared
	// File permissions keep this user from the socket or its directory.
	ReasonPermission
	// pidfd_getfd was denied: no ptrace rights over the exporter.
	ReasonPtrace
	// The kernel lacks what the path needs.
	ReasonUnsupported
	// Nothing serves the token any more: the exporter exited or closed
	// every resource it shared.
	ReasonExporterGone
	// The process serving the token is not the exporter it names (another
	// uid): not trusted.
	ReasonUntrusted
	// The way is offered but OpenOptions (or GFXCUDA_SHARE_RENDEZVOUS)
	// leaves it out.
	ReasonDisabled
	// The exporter is busy; retry.
	ReasonBusy
	// The exporter answered with a refusal (Attempt.Detail says why):
	// a user it does not allow, a wrong secret, a withdrawn or unknown
	// resource, a malformed request.
	ReasonRefused
)

var reasonNames = [...]string{"other", "different network namespace", "different PID namespace", "directory not shared",
	"permission denied", "ptrace denied", "unsupported", "exporter gone", "untrusted exporter", "disabled", "busy", "refused"}

// String names the reason.
func (r Reason) String() string {
	if r >= 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Attempt is what one way to the exporter gave.
type Attempt struct {
	// Rendezvous is the way tried (one of RendezvousAbstract, RendezvousFS,
	// RendezvousPidfd).
	Rendezvous Rendezvous
	// Address is where: "@gfxcuda/…", a socket path, "pid 123 fd 7".
	Address string
	Reason  Reason
	// Detail says what happened; Fix, when known, what to set.
	Detail string
	Fix    string
	// Err is the underlying error (a system call's, or the exporter's
	// refusal: errors.Is(Err, ErrRefused) or ErrWithdrawn), if any.
	Err error
}

// String is the attempt in words: the way, where, what happened and the
// fix.
func (a Attempt) String() string {
	s := fmt.Sprintf("%s %s: %s", a.Rendezvous.describe(), a.Address, a.Detail)
	if a.Fix != "" {
		s += " (fix: " + a.Fix + ")"
	}
	return s
}

// OpenError is why opening a token failed: what each way to its exporter
// gave, in the order tried. The last attempt is the exporter's answer when
// one reached it. errors.Is(err, ErrRefused), ErrWithdrawn and
// ErrUnreachable tell the kinds apart.
type OpenError struct {
	Kind     Kind
	Attempts []Attempt
}

// Error says what opening failed on: the exporter's refusal with its
// reason, or why each way failed and what to set.
func (e *OpenError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "share: opening the %v", e.Kind)
	if n := len(e.Attempts); n > 0 && e.Attempts[n-1].Reason == ReasonRefused {
		a := e.Attempts[n-1]
		fmt.Fprintf(&b, ": %s (via the %s %s): %s", strings.TrimPrefix(a.Err.Error(), "share: "), a.Rendezvous.describe(), a.Address, a.Detail)
		if a.Fix != "" {
			b.WriteString("; " + a.Fix)
		}
		return b.String()
	}
	switch len(e.Attempts) {
	case 0:
		b.WriteString(": no way to the exporter to try")
	case 1:
		b.WriteString(": " + e.Attempts[0].String())
	default:
		b.WriteString(": no way to the exporter worked:")
		for _, a := range e.Attempts {
			b.WriteString("\n  - " + a.String())
		}
	}
	return b.String()
}

// Unwrap returns, for each attempt, the sentinel error of its reason
// (ErrWithdrawn, ErrRefused, ErrUnreachable) and its underlying error.
func (e *OpenError) Unwrap() []error {
	var out []error
	for _, a := range e.Attempts {
		switch a.Reason {
		case ReasonExporterGone:
			out = append(out, ErrWithdrawn)
		case ReasonUntrusted, ReasonBusy:
			out = append(out, ErrRefused)
		case ReasonNetNamespace, ReasonPIDNamespace, ReasonDirNotShared, ReasonPermission, ReasonPtrace, ReasonUnsupported, ReasonDisabled:
			out = append(out, ErrUnreachable)
		}
		if a.Err != nil {
			out = append(out, a.Err)
		}
	}
	return out
}

// refusal is the exporter's answer when it is not a success.
type refusal struct {
	status byte
	msg    string
}

func (r *refusal) Error() string {
	switch r.status {
	case stWithdrawn:
		return ErrWithdrawn.Error()
	case stUnknown:
		return ErrRefused.Error() + " (unknown resource)"
	}
	return ErrRefused.Error()
}

// Is makes a refusal match ErrWithdrawn or ErrRefused.
func (r *refusal) Is(target error) bool {
	if r.status == stWithdrawn {
		return target == ErrWithdrawn
	}
	return target == ErrRefused
}

// address is where rv of t points, in words.
func address(t *token, rv Rendezvous) string {
	switch rv {
	case RendezvousAbstract:
		return "@" + t.Addr
	case RendezvousFS:
		return t.Path
	case RendezvousPidfd:
		return fmt.Sprintf("pid %d fd %d", t.PID, t.DoorFD)
	}
	return ""
}

// openOptions returns the options of a variadic open call.
func openOptions(o []OpenOptions) OpenOptions {
	var r OpenOptions
	for _, x := range o {
		if x.Rendezvous != RendezvousAuto {
			r.Rendezvous = x.Rendezvous
		}
		if x.Dir != "" {
			r.Dir = x.Dir
		}
	}
	return r
}

// dirInfo identifies a directory (device and inode).
type dirInfo struct {
	dev, ino uint64
}

// reply is what fetch got.
type reply struct {
	fds   []int
	extra []byte
	pid   int // the exporter's pid in this PID namespace (0: not visible from here)
}

// registered is where a new export can be reached: the token's
// rendezvous fields.
type registered struct {
	id   uint64
	uid  uint32
	addr string
	// fs
	path string
	dir  dirInfo
	// pidfd
	netns, pidns uint64
	pid          uint32
	doorFD       uint32
	doorID       [16]byte
}
