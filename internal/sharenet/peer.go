package sharenet

import "fmt"

// Peer is who asked: its credentials as the kernel reports them
// (SO_PEERCRED and SO_PEERGROUPS on sockets; /proc, pinned by a pidfd, on
// the door) and the way it came.
type Peer struct {
	pid, uid, gid int
	groups        []int
	via           string
}

// PID is the peer's pid in this process's PID namespace (0: not visible
// from here).
func (p Peer) PID() int { return p.pid }

func (p Peer) String() string {
	return fmt.Sprintf("pid %d uid %d gid %d (via %s)", p.pid, p.uid, p.gid, p.via)
}
