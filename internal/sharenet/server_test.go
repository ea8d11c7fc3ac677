//go:build linux

package sharenet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// FuzzReadRequest feeds garbage to both ends of the protocol: the
// exporter's request reader (sockets and the pidfd door read the same 32
// bytes) and the opener's reply reader, which must refuse what is not a
// reply without keeping a descriptor.
func FuzzReadRequest(f *testing.F) {
	f.Add(request{id: 1}.encode())
	f.Add([]byte("GFXQ"))
	f.Add(bytes.Repeat([]byte{0xff}, 100))
	f.Add([]byte("GFXR\x00\x00\x00\x00"))
	f.Add([]byte("GFXR\x05\x00\x05\x00hello"))
	f.Add([]byte("GFXR\x00\x02\x00\x00"))
	f.Add([]byte("GFXR\x02\x00\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		q, err := readRequest(r)
		if consumed := len(b) - r.Len(); consumed > reqLen {
			t.Fatalf("read %d bytes", consumed)
		}
		if err == nil && !bytes.Equal(q.encode(), b[:reqLen]) {
			t.Fatal("accepted a request that does not re-encode to itself")
		}
		if len(b) > replyHdr+maxReplyMsg {
			return
		}
		// The same bytes as an exporter's reply.
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(pair[0], b)
		unix.Close(pair[0])
		fl := os.NewFile(uintptr(pair[1]), "reply")
		c, err := net.FileConn(fl)
		fl.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		rep, err := readReply(c.(*net.UnixConn))
		switch {
		case err == nil:
			if !bytes.HasPrefix(b, replyMagic[:]) || b[4] != stOK || len(rep.fds) != 0 {
				t.Fatalf("accepted %q as a reply", b)
			}
		case len(b) >= replyHdr && bytes.HasPrefix(b, replyMagic[:]) && b[4] != stOK && int(binary.LittleEndian.Uint16(b[6:]))+replyHdr <= len(b):
			var rf *refusal
			if !errors.As(err, &rf) || !errors.Is(err, ErrRefused) && !errors.Is(err, ErrWithdrawn) {
				t.Fatalf("a refusal (%q) read as %v", b, err)
			}
		}
	})
}

// TestRefusals: forged, stale and wrong tokens, garbage and silent peers
// get refusals, and the server keeps serving.
func TestRefusals(t *testing.T) {
	ex := memfdExport(t, 6, 64)
	good, _ := parseToken(ex.Token())
	ctx := ctx10(t)

	forged := *good
	forged.Secret[3] ^= 1
	if _, _, err := Fetch(ctx, forged.encode()); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "secret") {
		t.Errorf("wrong secret: %v", err)
	}
	unknown := *good
	unknown.ID++
	if _, _, err := Fetch(ctx, unknown.encode()); !errors.Is(err, ErrRefused) {
		t.Errorf("unknown id: %v", err)
	}
	if _, _, err := Fetch(ctx, ex.Token()[:len(ex.Token())-3]); !errors.Is(err, ErrBadToken) {
		t.Errorf("truncated: %v", err)
	}
	// Garbage, a short request and a silent peer, all at once.
	addr := &net.UnixAddr{Name: "@" + good.Addr, Net: "unix"}
	var conns []*net.UnixConn
	for _, junk := range [][]byte{[]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 100)), []byte("GFXQ\x01"), nil, bytes.Repeat([]byte{0}, 1<<16)} {
		c, err := net.DialUnix("unix", nil, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if len(junk) > 0 {
			c.Write(junk)
		}
		conns = append(conns, c)
	}
	// The server answers others meanwhile.
	t0 := time.Now()
	fds, _, err := Fetch(ctx, ex.Token())
	if err != nil {
		t.Fatalf("good request while peers misbehave: %v", err)
	}
	CloseAll(fds)
	if el := time.Since(t0); el > time.Second {
		t.Errorf("good request took %v", el)
	}
	for i, c := range conns {
		if i == 2 || i == 1 {
			c.CloseWrite() // incomplete request: refused at EOF or at the deadline
		}
		r, err := readReply(c)
		if err == nil {
			CloseAll(r.fds)
			t.Errorf("peer %d: accepted", i)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("peer %d: %v, want a refusal", i, err)
		}
	}
	// Stale: withdrawn (the server stays up for another export).
	other := memfdExport(t, 7, 64)
	ex.Close()
	if _, _, err := Fetch(ctx, ex.Token()); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("withdrawn: %v", err)
	}
	other.Close()
	if _, _, err := Fetch(ctx, other.Token()); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("server stopped: %v", err)
	}
	// The server restarts on the next export.
	again := memfdExport(t, 8, 64)
	fds, _, err = Fetch(ctx, again.Token())
	if err != nil {
		t.Fatal(err)
	}
	CloseAll(fds)
}

// TestShareNoLeaks: thousands of exports and fetches leave no descriptor or
// goroutine behind.
func TestShareNoLeaks(t *testing.T) {
	count := func() int {
		e, _ := os.ReadDir("/proc/self/fd")
		return len(e)
	}
	ex := memfdExport(t, 9, 64)
	fd, _ := unix.MemfdCreate("share-test", unix.MFD_CLOEXEC)
	defer unix.Close(fd)
	before := count()
	ctx := ctx10(t)
	for i := 0; i < 1000; i++ {
		e2 := fdExport(t, fd, 64)
		fds, _, err := Fetch(ctx, e2.Token())
		if err != nil {
			t.Fatal(err)
		}
		CloseAll(fds)
		e2.Close()
		forged, _ := parseToken(ex.Token())
		forged.Secret[0]++
		Fetch(ctx, forged.encode())
	}
	time.Sleep(50 * time.Millisecond)
	if after := count(); after > before+2 {
		t.Errorf("%d descriptors before, %d after", before, after)
	}
}

// TestShareSlowRequest: a request that arrives in parts, the last after
// the accepting loop's inline wait, is answered by the goroutine the
// connection was handed to, with the bytes read before the hand-off; a
// silent peer does not hold up the others.
func TestShareSlowRequest(t *testing.T) {
	ex := memfdExport(t, 5, 10000)
	tok, _ := parseToken(ex.Token())
	silent, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: "@" + tok.Addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: "@" + tok.Addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	req := request{id: tok.ID, secret: tok.Secret}.encode()
	if _, err := c.Write(req[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * inlineWait)
	t0 := time.Now()
	fds, _, err := Fetch(ctx10(t), ex.Token()) // served meanwhile
	if err != nil {
		t.Fatal(err)
	}
	CloseAll(fds)
	if el := time.Since(t0); el > 500*time.Millisecond {
		t.Errorf("a good request behind a slow and a silent peer took %v", el)
	}
	if _, err := c.Write(req[10:]); err != nil {
		t.Fatal(err)
	}
	r, err := readReply(c)
	if err != nil {
		t.Fatalf("slow request: %v", err)
	}
	if len(r.fds) != 1 || !bytes.Equal(readFD(t, r.fds[0], 10000), seededRandom(5, 10000)) {
		t.Errorf("slow request: %d descriptors", len(r.fds))
	}
	CloseAll(r.fds)
}

// TestNoLeaksEveryPath: many exports and opens through each way, with
// refusals, leave no descriptor behind.
func TestNoLeaksEveryPath(t *testing.T) {
	count := func() int {
		e, _ := os.ReadDir("/proc/self/fd")
		return len(e)
	}
	dir := filepath.Join(t.TempDir(), "sock")
	keep := memfdExport(t, 15, 64, ExportOptions{Rendezvous: RendezvousAll, Dir: dir}) // the server stays up
	fd, _ := unix.MemfdCreate("share-test", unix.MFD_CLOEXEC)
	defer unix.Close(fd)
	forged, _ := parseToken(keep.Token())
	forged.Secret[0]++
	ctx := ctx10(t)
	cycle := func(i int) {
		e := fdExport(t, fd, 64, ExportOptions{Rendezvous: RendezvousAll, Dir: dir})
		for _, rv := range []Rendezvous{RendezvousAbstract, RendezvousFS, RendezvousPidfd} {
			fds, _, err := Fetch(ctx, e.Token(), OpenOptions{Rendezvous: rv})
			if err != nil {
				t.Fatalf("cycle %d, %v: %v", i, rv, err)
			}
			CloseAll(fds)
			if _, _, err := Fetch(ctx, forged.encode(), OpenOptions{Rendezvous: rv}); !errors.Is(err, ErrRefused) {
				t.Fatalf("forged through %v: %v", rv, err)
			}
		}
		e.Close()
		if _, _, err := Fetch(ctx, e.Token()); !errors.Is(err, ErrWithdrawn) {
			t.Fatalf("withdrawn: %v", err)
		}
	}
	defer SetShareLogf(SetShareLogf(nil))
	cycle(0)
	before := count()
	for i := 0; i < 300; i++ {
		cycle(i)
	}
	time.Sleep(50 * time.Millisecond)
	if after := count(); after > before+2 {
		t.Errorf("%d descriptors before, %d after", before, after)
	}
}

// TestOpenErrorsInProcess: the reasons an opener gives, checked on forged
// tokens without namespaces.
func TestOpenErrorsInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sock")
	ex := memfdExport(t, 13, 64, ExportOptions{Rendezvous: RendezvousAll, Dir: dir})
	good, _ := parseToken(ex.Token())
	if good.rendezvous() != RendezvousAll || good.UID != uint32(os.Geteuid()) || good.NetNS != nsInode("net") || good.PIDNS != nsInode("pid") {
		t.Fatalf("token %+v", good)
	}
	ctx := ctx10(t)
	for _, rv := range []Rendezvous{RendezvousAbstract, RendezvousFS, RendezvousPidfd} {
		fds, _, err := Fetch(ctx, ex.Token(), OpenOptions{Rendezvous: rv})
		if err != nil {
			t.Fatalf("%v: %v", rv, err)
		}
		if !bytes.Equal(readFD(t, fds[0], 64), seededRandom(13, 64)) {
			t.Errorf("%v: bytes differ", rv)
		}
		CloseAll(fds)
	}
	memfd, _ := unix.MemfdCreate("not-a-door", unix.MFD_CLOEXEC)
	defer unix.Close(memfd)
	unix.Ftruncate(memfd, doorSize)
	other := filepath.Join(t.TempDir(), "other")
	os.Mkdir(other, 0o700)
	for _, tc := range []struct {
		name   string
		forge  func(tk *token)
		o      OpenOptions
		reason Reason
		is     error
		text   string
	}{
		// In another network namespace the exporter's name is not there:
		// the connection fails, and the token's namespace says why.
		{"another netns", func(tk *token) { tk.NetNS++; tk.Addr += "-elsewhere" }, OpenOptions{Rendezvous: RendezvousAbstract}, ReasonNetNamespace, ErrUnreachable, "different network namespace"},
		{"no directory", func(tk *token) { tk.Path = "/nonexistent/gfxcuda/x.sock" }, OpenOptions{Rendezvous: RendezvousFS}, ReasonDirNotShared, ErrUnreachable, "does not exist"},
		{"another directory", func(tk *token) { tk.Path = other + "/x.sock" }, OpenOptions{Rendezvous: RendezvousFS}, ReasonDirNotShared, ErrUnreachable, "not the exporter's directory"},
		{"socket gone", func(tk *token) { tk.Path = filepath.Dir(tk.Path) + "/x.sock" }, OpenOptions{Rendezvous: RendezvousFS}, ReasonExporterGone, ErrWithdrawn, "closed every resource"},
		{"another pidns", func(tk *token) { tk.PIDNS++ }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonPIDNamespace, ErrUnreachable, "different PID namespace"},
		{"no such pid", func(tk *token) { tk.PID = 1<<22 - 1 }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonExporterGone, ErrWithdrawn, "exited"},
		{"no such fd", func(tk *token) { tk.DoorFD = 1 << 20 }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonExporterGone, ErrWithdrawn, "has no descriptor"},
		{"not a door", func(tk *token) { tk.DoorFD = uint32(memfd) }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonExporterGone, ErrWithdrawn, "not the exporter's door"},
		{"another door", func(tk *token) { tk.Door[3] ^= 1 }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonExporterGone, ErrWithdrawn, "not the exporter's door"},
		{"another uid", func(tk *token) { tk.UID++ }, OpenOptions{Rendezvous: RendezvousAbstract}, ReasonUntrusted, ErrRefused, "not trusting it"},
		{"left out", func(tk *token) { tk.Path, tk.PID = "", 0 }, OpenOptions{Rendezvous: RendezvousPidfd}, ReasonDisabled, ErrUnreachable, "left out"},
	} {
		tk := *good
		tc.forge(&tk)
		_, _, err := Fetch(ctx, tk.encode(), tc.o)
		var oe *OpenError
		if !errors.As(err, &oe) || len(oe.Attempts) == 0 {
			t.Errorf("%s: %v, want an *OpenError", tc.name, err)
			continue
		}
		a := oe.Attempts[len(oe.Attempts)-1]
		for _, x := range oe.Attempts {
			if x.Rendezvous&tc.o.Rendezvous != 0 {
				a = x
			}
		}
		if a.Reason != tc.reason || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v (reason %v), want %v, %v, %q", tc.name, err, a.Reason, tc.reason, tc.is, tc.text)
		}
	}
}

// TestDoorGarbage: whatever an opener holding the door writes in it, the
// exporter answers the next opener.
func TestDoorGarbage(t *testing.T) {
	ex := memfdExport(t, 14, 64, ExportOptions{Rendezvous: RendezvousPidfd})
	tk, _ := parseToken(ex.Token())
	pfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		t.Skipf("no pidfd_open: %v", err)
	}
	defer unix.Close(pfd)
	dfd, err := unix.PidfdGetfd(pfd, int(tk.DoorFD), 0)
	if err != nil {
		t.Skipf("no pidfd_getfd: %v", err)
	}
	defer unix.Close(dfd)
	mem, err := unix.Mmap(dfd, 0, doorSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	d := &door{mem: mem}
	state := d.u32(dOffState)
	waitIdle := func() {
		t.Helper()
		for i := 0; i < 500 && (atomic.LoadUint32(state) != dsIdle || atomic.LoadUint32(d.u32(dOffLock)) != 0); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if atomic.LoadUint32(state) != dsIdle {
			t.Fatalf("door state %d", atomic.LoadUint32(state))
		}
	}
	// Garbage requests: random bytes, a bad pid, ours with junk.
	for i, pid := range []uint32{uint32(os.Getpid()), 0, 1 << 30, 1} {
		copy(mem[dOffPid:], binary.LittleEndian.AppendUint32(nil, pid))
		copy(mem[dOffReq:], seededRandom(uint64(i), reqLen))
		atomic.StoreUint32(state, dsRequest)
		FutexWake(state)
		for j := 0; j < 200 && atomic.LoadUint32(state) == dsRequest; j++ {
			time.Sleep(5 * time.Millisecond)
		}
		if st := binary.LittleEndian.Uint32(mem[dOffStatus:]); atomic.LoadUint32(state) == dsReply && (st == stOK || binary.LittleEndian.Uint32(mem[dOffNFDs:]) != 0) {
			t.Fatalf("garbage request %d answered with status %d", i, st)
		}
		atomic.StoreUint32(state, dsTaken)
		FutexWake(state)
		waitIdle()
	}
	// A reply state nobody asked for, and a lock left behind.
	atomic.StoreUint32(state, dsReply)
	FutexWake(state)
	waitIdle()
	atomic.StoreUint32(d.u32(dOffLock), 12345)
	t0 := time.Now()
	fds, _, err := Fetch(ctx10(t), ex.Token())
	if err != nil {
		t.Fatalf("after garbage: %v", err)
	}
	t.Logf("a lock left behind was broken in %v", time.Since(t0).Round(time.Millisecond))
	if !bytes.Equal(readFD(t, fds[0], 64), seededRandom(14, 64)) {
		t.Error("bytes differ")
	}
	CloseAll(fds)
}
