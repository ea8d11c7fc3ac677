package sharenet

import (
	"context"
	"crypto/rand"
	"fmt"
)

// OpenFunc gives an allowed peer new descriptors of the resource (the
// server closes them after sending) and extra bytes for the reply.
type OpenFunc func(p Peer) (fds []int, extra []byte, err error)

// Offer is one resource this process shares: registered with the
// process's server, reachable through its token until Withdraw.
type Offer struct {
	tok    Token
	rv     Rendezvous
	id     uint64
	secret [16]byte
}

// Publish registers the resource m describes with the process's server
// (starting it, and the rendezvous o asks for, if needed) under a new
// random id and secret, and returns its offer. open answers each peer o
// allows.
func Publish(m Meta, o ExportOptions, open OpenFunc) (*Offer, error) {
	plan, err := resolve(o)
	if err != nil {
		return nil, err
	}
	f := &Offer{}
	if _, err := rand.Read(f.secret[:]); err != nil {
		return nil, fmt.Errorf("share: secret: %w", err)
	}
	r, err := register(&entry{secret: f.secret, kind: m.Kind, uids: plan.uids, gids: plan.gids, logf: plan.logf, open: open}, plan)
	if err != nil {
		return nil, err
	}
	f.id = r.id
	t := token{Meta: m, ID: r.id, Secret: f.secret, UID: r.uid, Addr: r.addr, Path: r.path, PID: r.pid}
	if t.Addr != "" {
		t.NetNS = r.netns
	}
	if t.Path != "" {
		t.DirDev, t.DirIno = r.dir.dev, r.dir.ino
	}
	if t.PID != 0 {
		t.PIDNS, t.DoorFD, t.Door = r.pidns, r.doorFD, r.doorID
	}
	f.tok = t.encode()
	f.rv = t.rendezvous()
	return f, nil
}

// Token returns the printable handle to give to other processes.
func (f *Offer) Token() Token { return f.tok }

// Rendezvous returns the ways the token offers to reach this exporter.
func (f *Offer) Rendezvous() Rendezvous { return f.rv }

// Withdraw unregisters the resource: openers are answered ErrWithdrawn;
// the server stops with its last resource.
func (f *Offer) Withdraw() { unregister(f.id, f.secret) }

// Ticket is a token read back: what it shares and how to reach its
// exporter.
type Ticket struct {
	t *token
}

// ParseToken decodes and checks s. Errors wrap ErrBadToken. It never
// panics.
func ParseToken(s Token) (*Ticket, error) {
	t, err := parseToken(s)
	if err != nil {
		return nil, err
	}
	return &Ticket{t: t}, nil
}

// Meta returns what the token tells about the resource.
func (k *Ticket) Meta() Meta { return k.t.Meta }

// Resource identifies the shared resource: two tickets of one export
// have equal Resources.
func (k *Ticket) Resource() Resource { return Resource{id: k.t.ID, secret: k.t.Secret} }

// Resource is a shared resource's identity, comparable with ==.
type Resource struct {
	id     uint64
	secret [16]byte
}

// Reply is what an exporter sent for a ticket.
type Reply struct {
	// FDs are the resource's descriptors, owned by the caller.
	FDs []int
	// Extra is the reply's bytes besides them.
	Extra []byte
	// PID is the exporter's pid in this PID namespace (0: not visible
	// from here).
	PID int
}

// Fetch asks the exporter for its resource's descriptors, trying the ways
// the token offers in order (abstract socket, filesystem socket, pidfd)
// until one reaches it; the last of o that sets a field wins. Its answer,
// success or refusal (ErrWithdrawn, ErrRefused), ends the search; when no
// way reaches it, the *OpenError (ErrUnreachable) says why for each.
func (k *Ticket) Fetch(ctx context.Context, o ...OpenOptions) (*Reply, error) {
	r, err := fetch(ctx, k.t, openOptions(o))
	if err != nil {
		return nil, err
	}
	return &Reply{FDs: r.fds, Extra: r.extra, PID: r.pid}, nil
}

// Fetch parses tok and asks its exporter for the resource's descriptors
// (Ticket.Fetch): the caller owns them.
func Fetch(ctx context.Context, tok Token, o ...OpenOptions) ([]int, Meta, error) {
	t, err := ParseToken(tok)
	if err != nil {
		return nil, Meta{}, err
	}
	r, err := t.Fetch(ctx, o...)
	if err != nil {
		return nil, Meta{}, err
	}
	return r.FDs, t.Meta(), nil
}

// PrepareDir makes sure dir exists and may be trusted as a share
// directory, as an exporter offering RendezvousFS in it does; others opens
// it to other users' openers (o+x, g+x).
func PrepareDir(dir string, others bool) error {
	_, err := prepareDir(dir, others)
	return err
}

// Forge returns tok with what edit changes in its description and secret,
// re-encoded with a valid checksum: a token its exporter never issued.
// Tests of the packages above use it to check that openers and exporters
// refuse one (a wrong secret, another GPU).
func Forge(tok Token, edit func(m *Meta, secret *[16]byte)) (Token, error) {
	t, err := parseToken(tok)
	if err != nil {
		return "", err
	}
	f := *t
	edit(&f.Meta, &f.Secret)
	return f.encode(), nil
}
