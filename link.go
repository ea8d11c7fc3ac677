package gfxcuda

import "github.com/gfxcuda/gfxcuda/link"

// The link's protocol (the rendezvous token, the control channel, credits,
// shutdown and a peer's death) lives in package link, which imports
// nothing of the face; the face keeps what moves GPU memory (link_nccl.go:
// NCCLSender, NCCLReceiver and their slots). The names below are the
// protocol's, as the face has always shown them.

// LinkShape is what each frame of a link holds: Width×Height texels of
// Format, or FrameSize raw bytes (Format 0).
type LinkShape = link.Shape

// LinkOptions configures a link's sender (NewNCCLSender, NewLinkToken).
type LinkOptions = link.Options

// LinkAccept configures a link's receiver (NewNCCLReceiver): what it
// accepts from a sender.
type LinkAccept = link.Accept

// LinkToken is the text a sender offers and a receiver checks: the
// session, the transport's rendezvous id, the shape, the slots and the
// GPUs. Info decodes it.
type LinkToken = link.Token

// LinkInfo is what a LinkToken says (LinkToken.Info).
type LinkInfo = link.Info

// LinkBatch is a batch of frames a receiver got: frames First to
// First+len(Slots)-1, in Slots.
type LinkBatch = link.Batch

// Errors of links.
var (
	// ErrLinkPeerGone: the other end's process died or dropped the control
	// channel without closing the link.
	ErrLinkPeerGone = link.ErrPeerGone
	// ErrLinkClosed: the link was closed (by the peer, after its last
	// frame, or by this end).
	ErrLinkClosed = link.ErrClosed
	// ErrLinkRejected: the rendezvous failed; the message says why
	// (shapes that differ, a GPU this process cannot see, …).
	ErrLinkRejected = link.ErrRejected
)
