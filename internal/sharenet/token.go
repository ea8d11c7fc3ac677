package sharenet

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Kind is what a token shares.
type Kind uint8

// Kinds of shared resources.
const (
	KindBuffer    Kind = 1 + iota // linear memory: a Vulkan or CUDA allocation
	KindTexture                   // an optimal-tiling 2D image (or 2D array)
	KindSemaphore                 // a timeline semaphore
	KindRing                      // a frame ring's shared control block
)

func (k Kind) String() string {
	switch k {
	case KindBuffer:
		return "buffer"
	case KindTexture:
		return "texture"
	case KindSemaphore:
		return "semaphore"
	case KindRing:
		return "ring"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Flags of Meta.
const (
	FlagDedicated uint8 = 1 << iota // the allocation is dedicated to one buffer or image
	FlagFromCUDA                    // the memory is a CUDA allocation (cuMemCreate)
)

// Meta is what a token tells about its resource, without asking the
// exporter: enough to import the memory in Vulkan or CUDA.
type Meta struct {
	Kind  Kind
	Flags uint8
	// UUID is the device UUID of the exporter's GPU (Vulkan's deviceUUID,
	// equal to CUDA's cuDeviceGetUuid). Memory opens only on that GPU.
	UUID [16]byte
	// Size is the buffer's size in bytes; for a ring, the slot count.
	Size uint64
	// AllocationSize is the size of the allocation behind a buffer or
	// texture (what importers must be told).
	AllocationSize uint64
	// Format is the texture's VkFormat (equal to format.Format).
	Format                uint32
	Width, Height, Layers uint32
	// Usage is the Vulkan usage the exporter created the buffer or image
	// with; an importer must use the same.
	Usage uint32
	// Heap is the vulkan.Heap of an exported vulkan.Buffer.
	Heap uint32
	// Offset is where a buffer starts in its allocation: non-zero for a
	// buffer over part of a CUDA allocation (a Pool's segment: a PyTorch
	// tensor). Tokens carry it in an entry that builds before it refuse.
	Offset uint64
}

// Dedicated reports FlagDedicated.
func (m Meta) Dedicated() bool { return m.Flags&FlagDedicated != 0 }

// FromCUDA reports FlagFromCUDA.
func (m Meta) FromCUDA() bool { return m.Flags&FlagFromCUDA != 0 }

// Token is a short printable handle for one shared resource: pass it to
// another process any way (argv, a pipe, JSON) and open it there. It names
// the ways to reach the exporting process (its sockets, its pid) and
// carries a 128-bit secret: treat it as a password for the resource.
type Token string

// Token prefixes: the digit is the format version. This build writes
// version 2 and reads versions 1 and 2.
const (
	tokenPrefix   = "gfxcuda2."
	tokenPrefixV1 = "gfxcuda1."
)

// ErrBadToken: the string is not a gfxcuda token, or a damaged one
// (ParseToken, Token.Meta, Token.Endpoints).
var ErrBadToken = errors.New("share: not a gfxcuda token")

// anyUID marks a token of format 1, which does not name its exporter's
// uid: openers then trust only an exporter of their own uid.
const anyUID = ^uint32(0)

// token is a parsed Token. Every field is comparable, so tokens compare
// with ==.
type token struct {
	Meta
	ID     uint64
	Secret [16]byte
	// UID is the exporter's uid (anyUID for format 1): openers check the
	// process serving the token runs as it.
	UID uint32
	// Addr is the abstract socket's name without the leading NUL ("":
	// not offered); NetNS the exporter's network namespace inode (0:
	// unknown).
	Addr  string
	NetNS uint64
	// Path is the filesystem socket ("": not offered); DirDev and DirIno
	// identify its directory, so that an opener tells a directory that is
	// not shared from an exporter that is gone.
	Path           string
	DirDev, DirIno uint64
	// PID is the exporter's pid for pidfd_getfd (0: not offered), in the
	// PID namespace whose inode is PIDNS; DoorFD the descriptor of its
	// door (see door.go) and Door the door's random identity.
	PID    uint32
	PIDNS  uint64
	DoorFD uint32
	Door   [16]byte
}

// rendezvous returns the ways the token offers.
func (t *token) rendezvous() Rendezvous {
	var r Rendezvous
	if t.Addr != "" {
		r |= RendezvousAbstract
	}
	if t.Path != "" {
		r |= RendezvousFS
	}
	if t.PID != 0 {
		r |= RendezvousPidfd
	}
	return r
}

// Limits: maxAddr bounds the abstract name (sun_path holds 108 bytes, one
// is the leading NUL); maxPath the filesystem socket's path (107 bytes and
// the NUL).
const (
	maxAddr = 100
	maxPath = 107
)

// fixed part of both formats: kind, flags, 2 reserved, id, secret, uuid,
// size, alloc, format, width, height, layers, usage, heap.
const tokenMeta = 1 + 1 + 2 + 8 + 16 + 16 + 8 + 8 + 4*6

// Format 1: the fixed part, the abstract name's length and the name, CRC.
const tokenFixed = tokenMeta + 1

// Format 2: the fixed part, the exporter's uid, then entries, CRC-32 of
// everything before it:
//
//	entry: type(1) length(1) payload(length), types in increasing order
//	1 abstract socket: netns(8) name
//	2 filesystem socket: dir dev(8) dir inode(8) path
//	3 pidfd: pid(4) pidns(8) door fd(4) door id(16)
//	4 offset of a buffer in its allocation (8), only when not 0
const (
	entAbstract = 1
	entFS       = 2
	entPidfd    = 3
	entOffset   = 4
	pidfdLen    = 4 + 8 + 4 + 16
	// maxTokenBytes bounds a format 2 token's binary size.
	maxTokenBytes = tokenMeta + 4 + (2 + 8 + maxAddr) + (2 + 16 + maxPath) + (2 + pidfdLen) + (2 + 8) + 4
)

func (t *token) encode() Token {
	le := binary.LittleEndian
	b := make([]byte, 0, tokenMeta+4+len(t.Addr)+len(t.Path)+80)
	b = append(b, byte(t.Kind), t.Flags, 0, 0)
	b = le.AppendUint64(b, t.ID)
	b = append(b, t.Secret[:]...)
	b = append(b, t.UUID[:]...)
	b = le.AppendUint64(b, t.Size)
	b = le.AppendUint64(b, t.AllocationSize)
	for _, v := range []uint32{t.Format, t.Width, t.Height, t.Layers, t.Usage, t.Heap} {
		b = le.AppendUint32(b, v)
	}
	b = le.AppendUint32(b, t.UID)
	if t.Addr != "" {
		b = append(b, entAbstract, byte(8+len(t.Addr)))
		b = le.AppendUint64(b, t.NetNS)
		b = append(b, t.Addr...)
	}
	if t.Path != "" {
		b = append(b, entFS, byte(16+len(t.Path)))
		b = le.AppendUint64(b, t.DirDev)
		b = le.AppendUint64(b, t.DirIno)
		b = append(b, t.Path...)
	}
	if t.PID != 0 {
		b = append(b, entPidfd, pidfdLen)
		b = le.AppendUint32(b, t.PID)
		b = le.AppendUint64(b, t.PIDNS)
		b = le.AppendUint32(b, t.DoorFD)
		b = append(b, t.Door[:]...)
	}
	if t.Offset != 0 {
		b = append(b, entOffset, 8)
		b = le.AppendUint64(b, t.Offset)
	}
	return Token(SealToken(tokenPrefix, b))
}

// SealToken is the printable form shared by gfxcuda's tokens (sharing
// tokens, link tokens): prefix, then b and its CRC-32 (IEEE, little
// endian) in unpadded base64url.
func SealToken(prefix string, b []byte) string {
	b = binary.LittleEndian.AppendUint32(b, tokenCRC(b))
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// UnsealToken undoes SealToken for str, which starts with prefix: it
// decodes strictly (one encoding per token), checks the size (min to max
// bytes, CRC included) and the CRC, and returns the bytes before the CRC.
// Errors wrap bad. It never panics.
func UnsealToken(bad error, str, prefix string, min, max int) ([]byte, error) {
	body := str[len(prefix):]
	if len(body) > 4*max/3+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", bad, len(str))
	}
	// Strict: one encoding per token (no stray bits in the last character).
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("%w: damaged (not base64url: %v)", bad, err)
	}
	if len(b) < min {
		return nil, fmt.Errorf("%w: truncated (%d of at least %d bytes)", bad, len(b), min)
	}
	if len(b) > max {
		return nil, fmt.Errorf("%w: %d bytes is too long", bad, len(b))
	}
	n := len(b) - 4
	if tokenCRC(b[:n]) != binary.LittleEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: truncated or damaged (checksum mismatch)", bad)
	}
	return b[:n], nil
}

// tokenCRC is CRC-32 (IEEE), the checksum hash/crc32.ChecksumIEEE
// computes, bit by bit: 1–2 µs for a token, where hash/crc32's first call
// in a process builds its tables (12–17 µs), a cost the first open of a
// shared resource in a process would pay.
func tokenCRC(b []byte) uint32 {
	c := ^uint32(0)
	for _, x := range b {
		c ^= uint32(x)
		for range 8 {
			c = c>>1 ^ (0xEDB88320 & -(c & 1))
		}
	}
	return ^c
}

// parseToken decodes s (format 1 or 2), checking its length, checksum and
// fields. It never panics, whatever s holds.
func parseToken(s Token) (*token, error) {
	str := strings.TrimSpace(string(s))
	v1 := strings.HasPrefix(str, tokenPrefixV1)
	if !v1 && !strings.HasPrefix(str, tokenPrefix) {
		if strings.HasPrefix(str, "gfxcuda") {
			return nil, fmt.Errorf("%w: token of another format version (this build reads %q and %q tokens)", ErrBadToken, tokenPrefix, tokenPrefixV1)
		}
		return nil, fmt.Errorf("%w: a token starts with %q", ErrBadToken, tokenPrefix)
	}
	min := tokenMeta + 4 + 4
	if v1 {
		min = tokenFixed + 4
	}
	b, err := UnsealToken(ErrBadToken, str, tokenPrefix, min, maxTokenBytes)
	if err != nil {
		return nil, err
	}
	t := &token{}
	t.Kind, t.Flags = Kind(b[0]), b[1]
	if t.Kind < KindBuffer || t.Kind > KindRing {
		return nil, fmt.Errorf("%w: unknown kind %d", ErrBadToken, b[0])
	}
	if b[2] != 0 || b[3] != 0 || t.Flags&^(FlagDedicated|FlagFromCUDA) != 0 {
		return nil, fmt.Errorf("%w: reserved bits set", ErrBadToken)
	}
	le := binary.LittleEndian
	p := 4
	t.ID = le.Uint64(b[p:])
	p += 8
	p += copy(t.Secret[:], b[p:])
	p += copy(t.UUID[:], b[p:])
	t.Size = le.Uint64(b[p:])
	t.AllocationSize = le.Uint64(b[p+8:])
	p += 16
	for _, v := range []*uint32{&t.Format, &t.Width, &t.Height, &t.Layers, &t.Usage, &t.Heap} {
		*v = le.Uint32(b[p:])
		p += 4
	}
	if v1 {
		al := int(b[p])
		p++
		if al == 0 || al > maxAddr || p+al != len(b) {
			return nil, fmt.Errorf("%w: socket name of %d bytes in %d remaining", ErrBadToken, al, len(b)-p)
		}
		t.UID, t.Addr = anyUID, string(b[p:])
		if strings.IndexByte(t.Addr, 0) >= 0 {
			return nil, fmt.Errorf("%w: socket name holds a NUL", ErrBadToken)
		}
		return t, nil
	}
	t.UID = le.Uint32(b[p:])
	p += 4
	last := 0
	for p < len(b) {
		if p+2 > len(b) {
			return nil, fmt.Errorf("%w: truncated rendezvous entry", ErrBadToken)
		}
		typ, l := int(b[p]), int(b[p+1])
		p += 2
		if p+l > len(b) {
			return nil, fmt.Errorf("%w: rendezvous entry of %d bytes in %d remaining", ErrBadToken, l, len(b)-p)
		}
		e := b[p : p+l]
		p += l
		if typ <= last {
			return nil, fmt.Errorf("%w: rendezvous entries out of order", ErrBadToken)
		}
		last = typ
		switch typ {
		case entAbstract:
			if l <= 8 || l-8 > maxAddr {
				return nil, fmt.Errorf("%w: abstract socket entry of %d bytes", ErrBadToken, l)
			}
			t.NetNS, t.Addr = le.Uint64(e), string(e[8:])
			if strings.IndexByte(t.Addr, 0) >= 0 {
				return nil, fmt.Errorf("%w: socket name holds a NUL", ErrBadToken)
			}
		case entFS:
			if l <= 16 || l-16 > maxPath {
				return nil, fmt.Errorf("%w: filesystem socket entry of %d bytes", ErrBadToken, l)
			}
			t.DirDev, t.DirIno, t.Path = le.Uint64(e), le.Uint64(e[8:]), string(e[16:])
			if strings.IndexByte(t.Path, 0) >= 0 || !strings.HasPrefix(t.Path, "/") || strings.HasSuffix(t.Path, "/") {
				return nil, fmt.Errorf("%w: socket path %q is not an absolute file path", ErrBadToken, t.Path)
			}
		case entPidfd:
			if l != pidfdLen {
				return nil, fmt.Errorf("%w: pidfd entry of %d bytes", ErrBadToken, l)
			}
			t.PID, t.PIDNS, t.DoorFD = le.Uint32(e), le.Uint64(e[4:]), le.Uint32(e[12:])
			copy(t.Door[:], e[16:])
			if t.PID == 0 || t.PID > 1<<22 || t.DoorFD > 1<<30 {
				return nil, fmt.Errorf("%w: pidfd entry names pid %d, descriptor %d", ErrBadToken, t.PID, t.DoorFD)
			}
		case entOffset:
			if l != 8 {
				return nil, fmt.Errorf("%w: offset entry of %d bytes", ErrBadToken, l)
			}
			t.Offset = le.Uint64(e)
			if t.Kind != KindBuffer || !t.FromCUDA() || t.Offset == 0 || t.Offset > t.AllocationSize || t.Size > t.AllocationSize-t.Offset {
				return nil, fmt.Errorf("%w: a %d-byte buffer at offset %d of a %d-byte allocation", ErrBadToken, t.Size, t.Offset, t.AllocationSize)
			}
		default:
			return nil, fmt.Errorf("%w: unknown rendezvous entry type %d (a newer exporter?)", ErrBadToken, typ)
		}
	}
	if t.rendezvous() == 0 {
		return nil, fmt.Errorf("%w: no way to reach the exporter", ErrBadToken)
	}
	return t, nil
}

// Meta returns what the token says about its resource, or ErrBadToken
// (wrapped, with the reason) when it is not a well-formed token.
func (s Token) Meta() (Meta, error) {
	t, err := parseToken(s)
	if err != nil {
		return Meta{}, err
	}
	return t.Meta, nil
}

// Endpoint is one way a token offers to reach its exporter.
type Endpoint struct {
	Rendezvous Rendezvous // one of RendezvousAbstract, RendezvousFS, RendezvousPidfd
	// Address is where: "@gfxcuda/…" (abstract socket), the socket's path,
	// "pid 123 fd 7" (pidfd).
	Address string
}

// String is the endpoint in words: "filesystem socket /dev/shm/gfxcuda/….sock".
func (e Endpoint) String() string { return e.Rendezvous.describe() + " " + e.Address }

// Endpoints returns the ways the token offers to reach its exporter, in
// the order openers try them, or ErrBadToken (wrapped) when it is not a
// well-formed token.
func (s Token) Endpoints() ([]Endpoint, error) {
	t, err := parseToken(s)
	if err != nil {
		return nil, err
	}
	var out []Endpoint
	for _, rv := range []Rendezvous{RendezvousAbstract, RendezvousFS, RendezvousPidfd} {
		if t.rendezvous()&rv != 0 {
			out = append(out, Endpoint{Rendezvous: rv, Address: address(t, rv)})
		}
	}
	return out, nil
}
