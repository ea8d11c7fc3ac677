// Package sharenet is the transport of gfxcuda's sharing between
// processes: the printable tokens (Token, Meta, Kind), the ways an opener
// reaches an exporter (Rendezvous: an abstract Unix socket, a filesystem
// socket in a share directory, the pidfd door), the process's one server
// that answers with file descriptors (Publish, Offer), the opener's side
// (ParseToken, Ticket.Fetch, OpenError), the probes of what this machine
// allows (ProbeRendezvous), and the futexes and process watches a shared
// control block needs (FutexWait, Watch).
//
// It moves descriptors and bytes, never GPU memory: it imports no GPU
// package and nothing of the face (package gfxcuda), which builds
// exports, opens and rings on it and re-exports the names users see
// (gfxcuda.Token, gfxcuda.ErrRefused, gfxcuda.ExportOptions, …).
package sharenet
