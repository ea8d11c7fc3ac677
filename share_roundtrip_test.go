//go:build linux

package gfxcuda

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"golang.org/x/sys/unix"
)

// The bare exchanges have the shape of the transport's (package
// internal/sharenet, server.go): a request of reqLen bytes, a reply header
// of replyHdr bytes that starts with replyMagic, one descriptor.
const (
	reqLen   = 32
	replyHdr = 8
)

var replyMagic = [4]byte{'G', 'F', 'X', 'R'}

// The round trip an opener makes to its exporter, measured against an
// exporter in another process (a child of the test binary, role
// "rtexporter"), beside bare Unix-socket exchanges of the same shape
// between the same two processes: what the protocol costs on top of the
// kernel's minimum.
//
//	go test -run '^$' -bench ShareRoundTrip -benchtime 3000x .
//
// Sub-benchmarks:
//
//	fetch/memfd       Fetch of a memfd buffer (the exporter dups it)
//	fetch/vulkan      Fetch of an exportable vulkan.Buffer (vkGetMemoryFdKHR
//	                  per request; lavapipe on the CPU machine)
//	fetch/*-first     the first Fetch in a fresh process (one per child)
//	fetch/*-netpoll   the same against an exporter serving through Go's
//	                  network poller (the path before the blocking loop)
//	bare/blocking     connect, 32-byte request, 8-byte reply + 1 descriptor
//	                  (SCM_RIGHTS), close: the server on one locked thread
//	                  in blocking accept4/recvmsg/sendmsg
//	bare/netpoll      the same exchange, the server through Go's net
//	                  package (accept goroutine, a goroutine per connection)
//	bare/persistent   the request and reply alone, on one connection
//	bare/connect      connect and close alone (the server accepts, closes)
func BenchmarkShareRoundTrip(b *testing.B) {
	// Two exporters: this tree's server, and the network poller's path
	// it replaced (GFXCUDA_SHARE_SERVE_NETPOLL=1), for the same run.
	var bare string
	var children []*child
	ctx := ctx10(b)
	for _, path := range []string{"", "-netpoll"} {
		env := []string{}
		if path != "" {
			env = append(env, "GFXCUDA_SHARE_SERVE_NETPOLL=1")
		}
		c := startChild(b, "rtexporter", env...)
		children = append(children, c)
		f := strings.Fields(c.expect(b, "rt"))
		if len(f) != 3 {
			b.Fatalf("child said %q", f)
		}
		memTok, vkTok := Token(f[0]), Token(f[1])
		if path == "" {
			bare = f[2]
		}
		fetchOne := func(b *testing.B, tok Token) {
			fds, _, err := Fetch(ctx, tok)
			if err != nil {
				b.Fatal(err)
			}
			sharenet.CloseAll(fds)
		}
		b.Run("fetch/memfd"+path, func(b *testing.B) {
			for b.Loop() {
				fetchOne(b, memTok)
			}
		})
		if vkTok != "-" {
			b.Run("fetch/vulkan"+path, func(b *testing.B) {
				for b.Loop() {
					fetchOne(b, vkTok)
				}
			})
		}
		// The first Fetch of a process: one fresh child per iteration,
		// which times its own first Fetch (at most 10).
		b.Run("fetch/memfd-first"+path, func(b *testing.B) {
			var total time.Duration
			n := min(b.N, 10)
			for i := 0; i < n; i++ {
				o := startChild(b, "rtfirst", "TOKEN="+string(memTok))
				d, err := time.ParseDuration(o.expect(b, "first"))
				if err != nil {
					b.Fatal(err)
				}
				o.wait(b)
				total += d
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(n), "first-ns/op")
		})
	}
	ask := func(b *testing.B, fd int) {
		var req [reqLen]byte
		if _, err := unix.Write(fd, req[:]); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, replyHdr)
		oob := make([]byte, unix.CmsgSpace(4))
		var n, oobn int
		var err error
		for {
			n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil || n != replyHdr || oobn == 0 {
			b.Fatalf("bare reply: %d bytes, %d oob, %v", n, oobn, err)
		}
		msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
		fds, _ := unix.ParseUnixRights(&msgs[0])
		sharenet.CloseAll(fds)
	}
	dial := func(b *testing.B, addr string) int {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		tv := unix.NsecToTimeval(int64(2 * time.Second))
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		if err := unix.Connect(fd, &unix.SockaddrUnix{Name: addr}); err != nil {
			b.Fatal(err)
		}
		return fd
	}
	for _, mode := range []string{"blocking", "netpoll"} {
		addr := "@" + bare + "/" + mode
		b.Run("bare/"+mode, func(b *testing.B) {
			for b.Loop() {
				fd := dial(b, addr)
				ask(b, fd)
				unix.Close(fd)
			}
		})
	}
	b.Run("bare/persistent", func(b *testing.B) {
		fd := dial(b, "@"+bare+"/persistent")
		defer unix.Close(fd)
		for b.Loop() {
			ask(b, fd)
		}
	})
	b.Run("bare/connect", func(b *testing.B) {
		for b.Loop() {
			fd := dial(b, "@"+bare+"/connect")
			var x [1]byte
			for { // the server's close
				_, err := unix.Read(fd, x[:])
				if err == nil {
					break
				} else if err != unix.EINTR {
					b.Fatal(err)
				}
			}
			unix.Close(fd)
		}
	})
	for _, c := range children {
		c.wait(b)
	}
}

// rtChild runs the round-trip benchmark's children: "rtexporter" exports a
// memfd and a Vulkan buffer (when lavapipe or a GPU is there) and serves
// the bare exchanges until its stdin closes; "rtfirst" times its first
// Fetch.
func rtChild(t *testing.T, role string, tok Token, in *bufio.Scanner) bool {
	switch role {
	case "rtfirst":
		t0 := time.Now()
		fds, _, err := Fetch(ctx10(t), tok)
		d := time.Since(t0)
		if err != nil {
			childFail("fetch: %v", err)
		}
		sharenet.CloseAll(fds)
		say("first %v", d)
	case "rtexporter":
		mem := memfdExport(t, 1, 4096)
		vk := "-"
		if d, ok := tryVkDevice(); ok {
			defer d.Close()
			buf, err := d.NewBuffer(vulkan.BufferOptions{Size: 1 << 20, Exportable: true})
			if err != nil {
				childFail("vulkan buffer: %v", err)
			}
			defer buf.Close()
			ex, err := ExportVulkan(d, buf)
			if err != nil {
				childFail("export: %v", err)
			}
			defer ex.Close()
			vk = string(ex.Token())
		}
		name := fmt.Sprintf("gfxcuda-rt/%d", os.Getpid())
		memfd, err := unix.MemfdCreate("rt", unix.MFD_CLOEXEC)
		if err != nil {
			childFail("memfd: %v", err)
		}
		stop := bareServers(name, memfd)
		say("rt %s %s %s", mem.Token(), vk, name)
		for in.Scan() {
		}
		stop()
	default:
		return false
	}
	return true
}

// tryVkDevice opens the first Vulkan device that exports OPAQUE_FD memory,
// without validation.
func tryVkDevice() (*vulkan.Device, bool) {
	off := false
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-rt", Validation: &off})
	if err != nil {
		return nil, false
	}
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 || !pds[0].CanExportOpaqueFD() {
		in.Close()
		return nil, false
	}
	d, err := in.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		in.Close()
		return nil, false
	}
	return d, true
}

// bareServers serves the bare exchanges on @name/blocking, /netpoll,
// /persistent and /connect; each reply carries a dup of fd.
func bareServers(name string, fd int) (stop func()) {
	listen := func(mode string) *net.UnixListener {
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name + "/" + mode, Net: "unix"})
		if err != nil {
			childFail("listen: %v", err)
		}
		return ln
	}
	answer := func() ([]byte, []byte, func()) {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			childFail("dup: %v", err)
		}
		var rep [replyHdr]byte
		copy(rep[:], replyMagic[:])
		return rep[:], unix.UnixRights(d), func() { unix.Close(d) }
	}
	reply := func(c int) bool {
		var req [reqLen]byte
		if n, err := unix.Read(c, req[:]); err != nil || n != reqLen {
			return false
		}
		rep, oob, done := answer()
		defer done()
		return unix.Sendmsg(c, rep, oob, nil, unix.MSG_NOSIGNAL) == nil
	}
	var stops []func()
	var closes []io.Closer
	var wg sync.WaitGroup
	// blocking, persistent, connect: one locked thread each, in blocking
	// accept4 on a blocking duplicate of the listener (shutdown wakes it).
	for _, mode := range []string{"blocking", "persistent", "connect"} {
		ln := listen(mode)
		f, err := ln.File()
		if err != nil {
			childFail("file: %v", err)
		}
		lfd := int(f.Fd())
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for {
				c, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
				if err == unix.EINVAL || err == unix.EBADF { // shut down
					return
				} else if err != nil {
					fmt.Fprintf(os.Stderr, "bare %s: accept4: %v\n", mode, err)
					continue
				}
				switch mode {
				case "blocking":
					reply(c)
				case "persistent":
					for reply(c) {
					}
				}
				unix.Close(c)
			}
		}()
		// f keeps lfd open (its finalizer would close it).
		stops = append(stops, func() { unix.Shutdown(lfd, unix.SHUT_RDWR) })
		closes = append(closes, f, ln)
	}
	ln := listen("netpoll")
	go func() {
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var req [reqLen]byte
				if _, err := c.Read(req[:]); err != nil {
					return
				}
				rep, oob, done := answer()
				defer done()
				c.WriteMsgUnix(rep, oob, nil)
			}()
		}
	}()
	stops = append(stops, func() { ln.Close() })
	return func() {
		for _, s := range stops {
			s()
		}
		wg.Wait()
		for _, c := range closes {
			c.Close()
		}
	}
}
