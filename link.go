package gfxcuda

import "github.com/gfxcuda/gfxcuda/link"

// The link's protocol (the rendezvous token, the control channel, credits,
// shutdown and a peer's death) lives in package link, which imports
// nothing of the face; the face keeps what moves GPU memory (link_ends.go:
// LinkSender, LinkReceiver and their slots; the NCCL transport is package
// link/nccltransport). The names below are the protocol's.

// LinkShape is what each frame of a link holds: Width×Height texels of
// Format, or FrameSize raw bytes (Format 0).
type LinkShape = link.Shape

// LinkOptions configures a link's sender (NewLinkSender, NewLinkToken).
type LinkOptions = link.Options

// LinkTransport names what moves a link's frames (LinkOptions.Transport,
// LinkAccept.Transport); "" is LinkNCCL.
type LinkTransport = link.TransportName

// LinkNCCL: frames move by ncclSend/ncclRecv (the default).
const LinkNCCL = link.TransportNCCL

// LinkAccept configures a link's receiver (NewLinkReceiver): what it
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
