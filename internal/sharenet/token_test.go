//go:build linux

package sharenet

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestTokenCRC: the tokens' checksum is hash/crc32's IEEE checksum, on
// random inputs of every length a token can have (tokens made by earlier
// builds still parse).
func TestTokenCRC(t *testing.T) {
	for n := 0; n <= maxTokenBytes; n++ {
		b := seededRandom(uint64(n)+1, n)
		if got, want := tokenCRC(b), crc32.ChecksumIEEE(b); got != want {
			t.Fatalf("%d bytes: tokenCRC %08x, crc32.ChecksumIEEE %08x", n, got, want)
		}
	}
}

func TestTokenRoundTrip(t *testing.T) {
	for i := uint64(0); i < 200; i++ {
		b := seededRandom(i, 128)
		in := token{ID: binary.LittleEndian.Uint64(b), Addr: "gfxcuda/123/" + strconv.FormatUint(i, 16)}
		in.Kind = Kind(1 + i%4)
		in.Flags = uint8(i % 4)
		copy(in.Secret[:], b[8:])
		copy(in.UUID[:], b[24:])
		in.Size, in.AllocationSize = binary.LittleEndian.Uint64(b[40:]), binary.LittleEndian.Uint64(b[48:])
		in.Format, in.Width, in.Height, in.Layers = uint32(b[56]), uint32(b[57])<<8, uint32(b[58]), uint32(b[59])
		tok := in.encode()
		if len(tok) > 200 {
			t.Errorf("token of %d characters", len(tok))
		}
		out, err := parseToken(tok)
		if err != nil {
			t.Fatal(err)
		}
		if *out != in {
			t.Fatalf("round trip: %+v != %+v", *out, in)
		}
		// Every truncation and every one-character change is refused.
		for k := 0; k < len(tok); k++ {
			if _, err := parseToken(tok[:k]); !errors.Is(err, ErrBadToken) {
				t.Fatalf("truncated to %d: %v", k, err)
			}
		}
		for k := len(tokenPrefix); k < len(tok); k += 7 {
			c := []byte(tok)
			c[k] = "AB"[(c[k]+1)%2]
			if c[k] == tok[k] {
				c[k] = 'C'
			}
			if _, err := parseToken(Token(c)); !errors.Is(err, ErrBadToken) {
				t.Fatalf("changed at %d: %v", k, err)
			}
		}
	}
}

func FuzzParseToken(f *testing.F) {
	f.Add(string((&token{Meta: Meta{Kind: KindTexture}, ID: 7, Addr: "x"}).encode()))
	full := token{Meta: Meta{Kind: KindRing, Size: 3}, ID: 9, UID: 1000, Addr: "gfxcuda/0123456789abcdef01234567", NetNS: 4026531833,
		Path: "/dev/shm/gfxcuda/0123456789abcdef01234567.sock", DirDev: 22, DirIno: 33, PID: 4321, PIDNS: 4026531836, DoorFD: 9}
	f.Add(string(full.encode()))
	full.Addr, full.PID = "", 0
	f.Add(string(full.encode()))
	full.Path, full.PID = "", 77
	f.Add(string(full.encode()))
	// A format 1 token, as older builds wrote them.
	v1 := make([]byte, tokenMeta)
	v1[0] = byte(KindBuffer)
	v1 = append(append(v1, 4), "gfx/"...)
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.ChecksumIEEE(v1))
	f.Add(tokenPrefixV1 + base64.RawURLEncoding.EncodeToString(v1))
	f.Add("gfxcuda1.")
	f.Add("gfxcuda2.AAAA")
	f.Add("gfxcuda3.AAAA")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tk, err := parseToken(Token(s))
		if err != nil {
			if !errors.Is(err, ErrBadToken) {
				t.Fatalf("error %v does not wrap ErrBadToken", err)
			}
			return
		}
		if again, err := parseToken(tk.encode()); err != nil || *again != *tk {
			t.Fatalf("re-encoding: %v", err)
		}
	})
}

// TestTokenFormat2: every rendezvous field round-trips; a format 1 token
// still parses (abstract socket, the opener's own uid); the sizes stay
// printable.
func TestTokenFormat2(t *testing.T) {
	in := token{Meta: Meta{Kind: KindRing, Size: 3}, ID: 9, UID: 1000, Addr: "gfxcuda/0123456789abcdef01234567", NetNS: 4026531833,
		Path: "/dev/shm/gfxcuda/0123456789abcdef01234567.sock", DirDev: 22, DirIno: 33, PID: 4321, PIDNS: 4026531836, DoorFD: 9}
	in.Secret[1], in.Door[2] = 5, 6
	tok := in.encode()
	t.Logf("a token with every rendezvous: %d characters", len(tok))
	if len(tok) > 330 || !strings.HasPrefix(string(tok), tokenPrefix) {
		t.Errorf("token %q", tok)
	}
	out, err := parseToken(tok)
	if err != nil || *out != in {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
	eps, err := tok.Endpoints()
	if err != nil || len(eps) != 3 || eps[1].Address != in.Path || eps[2].String() != "pidfd_getfd pid 4321 fd 9" {
		t.Errorf("endpoints %v, %v", eps, err)
	}
	// Format 1, as older builds wrote it.
	b := make([]byte, tokenMeta)
	b[0] = byte(KindBuffer)
	b = append(append(b, byte(len("gfxcuda/1/ab"))), "gfxcuda/1/ab"...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	v1 := Token(tokenPrefixV1 + base64.RawURLEncoding.EncodeToString(b))
	old, err := parseToken(v1)
	if err != nil || old.Addr != "gfxcuda/1/ab" || old.UID != anyUID || old.rendezvous() != RendezvousAbstract {
		t.Fatalf("format 1: %+v, %v", old, err)
	}
	if wantUID(old) != uint32(os.Geteuid()) {
		t.Error("a format 1 token does not trust this user's uid alone")
	}
	// Entries out of order, unknown, empty: refused.
	for _, forge := range []func(*token){
		func(tk *token) { tk.Addr, tk.Path, tk.PID = "", "", 0 },
		func(tk *token) { tk.Path = "relative.sock" },
		func(tk *token) { tk.Addr = "with\x00nul" },
	} {
		tk := in
		forge(&tk)
		if _, err := parseToken(tk.encode()); !errors.Is(err, ErrBadToken) {
			t.Errorf("forged %+v: %v", tk, err)
		}
	}
	for _, s := range []string{"auto", "abstract,fs", "pidfd", "all", "fs, pidfd"} {
		r, err := ParseRendezvous(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if back, _ := ParseRendezvous(r.String()); back != r {
			t.Errorf("%q: %v does not round-trip", s, r)
		}
	}
	if _, err := ParseRendezvous("tcp"); err == nil {
		t.Error("tcp parsed")
	}
}

// TestTokenOffset round-trips a buffer's offset in its allocation through
// a token, and refuses offsets that do not fit or that a non-CUDA
// allocation claims.
func TestTokenOffset(t *testing.T) {
	in := token{ID: 7, Addr: "gfxcuda/1/x"}
	in.Kind, in.Flags = KindBuffer, FlagFromCUDA
	in.Size, in.AllocationSize, in.Offset = 4096, 2<<20, 512<<10
	out, err := parseToken(in.encode())
	if err != nil {
		t.Fatal(err)
	}
	if *out != in {
		t.Fatalf("round trip: %+v != %+v", *out, in)
	}
	for _, bad := range []token{
		{Meta: Meta{Kind: KindBuffer, Flags: FlagFromCUDA, Size: 4096, AllocationSize: 2 << 20, Offset: 2<<20 - 100}},
		{Meta: Meta{Kind: KindBuffer, Flags: FlagFromCUDA, Size: 4096, AllocationSize: 2 << 20, Offset: 1 << 63}},
		{Meta: Meta{Kind: KindBuffer, Size: 4096, AllocationSize: 2 << 20, Offset: 4096}},
		{Meta: Meta{Kind: KindTexture, Flags: FlagFromCUDA, Size: 4096, AllocationSize: 2 << 20, Offset: 4096}},
	} {
		bad.ID, bad.Addr = 7, "gfxcuda/1/x"
		if _, err := parseToken(bad.encode()); !errors.Is(err, ErrBadToken) {
			t.Errorf("offset %d of %+v: %v, want ErrBadToken", bad.Offset, bad.Meta, err)
		}
	}
}
