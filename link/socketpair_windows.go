package link

import (
	"errors"
	"fmt"
	"net"
)

// errWindows is the refusal of a link on Windows.
var errWindows = fmt.Errorf("link: links are not supported on Windows yet (docs/windows.md): %w", errors.ErrUnsupported)

// SocketPair refuses on Windows: a loopback link's control channel is a
// Unix socket pair, and links are not supported on Windows yet.
func SocketPair() (net.Conn, net.Conn, error) { return nil, nil, errWindows }
