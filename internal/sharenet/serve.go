//go:build linux

package sharenet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Serving a listener on blocking system calls.
//
// An open is a fraction of a millisecond, and the exporter's part of it is
// a handful of system calls; what cost more was getting to them: Go's
// network poller waking a thread for the accept, a goroutine per
// connection registered with the poller and woken again for its request,
// and the wake-ups of the connection's later readiness events. Each
// listener is served instead by one goroutine of its own that sleeps in
// poll(2) on the listener (and on an eventfd that stops it) and answers a
// connection where it accepted it: SO_PEERCRED, one recv of the 32-byte
// request, the answer, one sendmsg with the descriptors, close. The thread
// the kernel wakes is the one that answers.
//
// The bounds are those of the poller path. Inline, a connection gets at
// most inlineWait to deliver its request (an opener sends it right after
// connecting) and never more than reqLen bytes are read; the reply is sent
// without blocking (a fresh connection's buffer holds it). A peer that is
// slower is handed, with what it sent so far, to a goroutine of its own
// that waits for the rest until the connection's ioTimeout deadline, as
// before; at most maxConns of those run at once, others are answered
// "busy". So a silent peer delays the others by inlineWait at most, and
// garbage is refused inline.

// inlineWait is how long the accepting goroutine waits for a request
// before handing the connection to a goroutine of its own.
var inlineWait = time.Millisecond

// serveNetpoll selects the earlier path (net.UnixListener.Accept, a
// goroutine per connection, reads through the network poller): the
// benchmarks' reference. Set before the first export.
var serveNetpoll = os.Getenv("GFXCUDA_SHARE_SERVE_NETPOLL") == "1"

// acceptLoop serves one listener until stop.
type acceptLoop struct {
	ln   *net.UnixListener
	wake int // eventfd: stop
	done chan struct{}
	once sync.Once
}

// serveListener starts serving ln (the abstract socket or a filesystem
// socket, via says which in refusals) and returns what stops it.
func (s *server) serveListener(ln *net.UnixListener, via string) (*acceptLoop, error) {
	l := &acceptLoop{ln: ln, wake: -1, done: make(chan struct{})}
	s.wg.Add(1)
	if serveNetpoll {
		go func() {
			defer close(l.done)
			s.accept(ln, via)
		}()
		return l, nil
	}
	rc, err := ln.SyscallConn()
	if err != nil {
		s.wg.Done()
		return nil, err
	}
	lfd := -1
	rc.Control(func(fd uintptr) { lfd = int(fd) })
	l.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		s.wg.Done()
		return nil, fmt.Errorf("share: eventfd: %w", err)
	}
	go func() {
		defer s.wg.Done()
		defer close(l.done)
		s.acceptBlocking(lfd, l.wake, via)
	}()
	return l, nil
}

// close stops the loop, waits for it, and closes the listener (removing
// a filesystem socket). Connections handed off finish on their own
// (server.stop waits for them). Idempotent.
func (l *acceptLoop) close() {
	l.once.Do(func() {
		if l.wake < 0 { // the netpoll path: closing the listener stops it
			l.ln.Close()
			<-l.done
			return
		}
		var one [8]byte
		one[0] = 1
		unix.Write(l.wake, one[:])
		<-l.done // the loop no longer uses the listener's descriptor
		unix.Close(l.wake)
		l.ln.Close()
	})
}

// acceptBlocking is the loop: lfd is the listener's (non-blocking)
// descriptor, wake the eventfd that stops it.
func (s *server) acceptBlocking(lfd, wake int, via string) {
	var handed sync.WaitGroup
	defer handed.Wait()
	pfd := []unix.PollFd{{Fd: int32(lfd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		pfd[0].Revents, pfd[1].Revents = 0, 0
		if _, err := unix.Poll(pfd, -1); err != nil && !errors.Is(err, unix.EINTR) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if pfd[1].Revents != 0 {
			return
		}
		if pfd[0].Revents == 0 {
			continue
		}
		// Blocking connections: every wait below is a bounded poll.
		fd, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
		switch {
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED):
			continue
		case err != nil:
			// EMFILE and the like: back off instead of spinning.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		c := &sconn{fd: fd, deadline: time.Now().Add(ioTimeout)}
		if !s.serveInline(c, via) {
			// Slow: a goroutine of its own, bounded in number.
			select {
			case s.conns <- struct{}{}:
			default:
				c.reply(stBusy, []byte("exporter busy: too many connections at once; retry"), nil)
				c.close()
				continue
			}
			handed.Add(1)
			go func() {
				defer handed.Done()
				defer func() { <-s.conns }()
				s.serveRest(c, via)
			}()
		}
	}
}

// sconn is an accepted connection served with blocking system calls, each
// bounded by a poll(2) timeout.
type sconn struct {
	fd       int
	deadline time.Time
	p        Peer
	credErr  error
	req      [reqLen]byte
	n        int   // request bytes read so far
	eof      bool  // the peer shut its side before a whole request
	rerr     error // reading failed
}

func (c *sconn) close() { unix.Close(c.fd) }

// waitFor polls the connection for events until by; it reports whether
// they came.
func (c *sconn) waitFor(events int16, by time.Time) bool {
	for {
		left := time.Until(by)
		if left <= 0 {
			return false
		}
		pfd := []unix.PollFd{{Fd: int32(c.fd), Events: events}}
		n, err := unix.Poll(pfd, int(max((left+time.Millisecond-1)/time.Millisecond, 1)))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return false
		case n > 0:
			return true
		}
	}
}

// fill reads until a whole request, EOF, an error or by: true when
// no more reading is needed (a whole request, EOF or an error), false
// when by came first.
func (c *sconn) fill(by time.Time) (done bool, err error) {
	for c.n < reqLen {
		n, _, rerr := unix.Recvfrom(c.fd, c.req[c.n:], unix.MSG_DONTWAIT)
		switch {
		case rerr == nil && n == 0:
			c.eof = true
			return true, nil
		case rerr == nil:
			c.n += n
			continue
		case errors.Is(rerr, unix.EINTR):
			continue
		case !errors.Is(rerr, unix.EAGAIN):
			c.rerr = rerr
			return true, rerr
		}
		if !c.waitFor(unix.POLLIN, by) {
			return false, nil
		}
	}
	return true, nil
}

// reply sends the reply, waiting for room at most until the connection's
// deadline (a fresh connection has room: it does not wait).
func (c *sconn) reply(status byte, msg []byte, fds []int) error {
	b := encodeReply(status, msg, fds)
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	for len(b) > 0 {
		n, err := unix.SendmsgN(c.fd, b, oob, nil, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		switch {
		case err == nil:
			b, oob = b[n:], nil
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.EAGAIN):
			if !c.waitFor(unix.POLLOUT, c.deadline) {
				return os.ErrDeadlineExceeded
			}
		default:
			return err
		}
	}
	return nil
}

// serveInline serves c if its request comes within inlineWait; false
// hands it off (to serveRest) unanswered.
func (s *server) serveInline(c *sconn, via string) bool {
	c.p, c.credErr = peerCredFD(c.fd)
	c.p.via = via
	if c.credErr != nil {
		s.finish(c)
		return true
	}
	if done, _ := c.fill(time.Now().Add(inlineWait)); !done {
		return false
	}
	s.finish(c)
	return true
}

// serveRest waits for the rest of a slow peer's request, until the
// connection's deadline, and answers it.
func (s *server) serveRest(c *sconn, via string) {
	c.fill(c.deadline)
	s.finish(c)
}

// finish answers what c sent (a request, garbage, a short request, or
// nothing) and closes it, as serve does for the network poller's path.
func (s *server) finish(c *sconn) {
	defer c.close()
	if c.credErr != nil {
		c.reply(stFailed, []byte("cannot read the peer's credentials: "+c.credErr.Error()), nil)
		return
	}
	var r io.Reader = bytes.NewReader(c.req[:c.n])
	if c.n < reqLen && !c.eof {
		why := c.rerr
		if why == nil {
			why = os.ErrDeadlineExceeded
		}
		r = io.MultiReader(r, errReader{why})
	}
	q, err := readRequest(r)
	if err != nil {
		if !errors.Is(err, errEmptyRequest) { // else a liveness probe (removeStale): not logged
			s.logRefusal(nil, c.p, err.Error())
		}
		c.reply(stBadRequest, []byte(err.Error()), nil)
		return
	}
	st, msg, fds := s.answer(c.p, q)
	c.reply(st, msg, fds)
	CloseAll(fds)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
