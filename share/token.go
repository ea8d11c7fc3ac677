package share

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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
}

// Dedicated reports FlagDedicated.
func (m Meta) Dedicated() bool { return m.Flags&FlagDedicated != 0 }

// FromCUDA reports FlagFromCUDA.
func (m Meta) FromCUDA() bool { return m.Flags&FlagFromCUDA != 0 }

// Token is a short printable handle for one shared resource: pass it to
// another process any way (argv, a pipe, JSON) and open it there. It names
// the exporting process's socket and carries a 128-bit secret: treat it as
// a password for the resource.
type Token string

// tokenPrefix starts every token; the digit is the format version.
const tokenPrefix = "gfxcuda1."

// Errors of ParseToken.
var ErrBadToken = errors.New("share: not a gfxcuda token")

// token is a parsed Token.
type token struct {
	Meta
	ID     uint64
	Secret [16]byte
	Addr   string // abstract socket name, without the leading NUL
}

// maxAddr bounds the socket name (sun_path holds 108 bytes, one is the NUL).
const maxAddr = 100

// fixed part: kind, flags, 2 reserved, id, secret, uuid, size, alloc,
// format, width, height, layers, usage, heap, addr length.
const tokenFixed = 1 + 1 + 2 + 8 + 16 + 16 + 8 + 8 + 4*6 + 1

func (t *token) encode() Token {
	b := make([]byte, 0, tokenFixed+len(t.Addr)+4)
	b = append(b, byte(t.Kind), t.Flags, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, t.ID)
	b = append(b, t.Secret[:]...)
	b = append(b, t.UUID[:]...)
	b = binary.LittleEndian.AppendUint64(b, t.Size)
	b = binary.LittleEndian.AppendUint64(b, t.AllocationSize)
	for _, v := range []uint32{t.Format, t.Width, t.Height, t.Layers, t.Usage, t.Heap} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = append(b, byte(len(t.Addr)))
	b = append(b, t.Addr...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return Token(tokenPrefix + base64.RawURLEncoding.EncodeToString(b))
}

// parseToken decodes s, checking its length, checksum and fields. It never
// panics, whatever s holds.
func parseToken(s Token) (*token, error) {
	str := strings.TrimSpace(string(s))
	if !strings.HasPrefix(str, tokenPrefix) {
		if strings.HasPrefix(str, "gfxcuda") {
			return nil, fmt.Errorf("%w: token of another format version (this build reads %q tokens)", ErrBadToken, tokenPrefix)
		}
		return nil, fmt.Errorf("%w: a token starts with %q", ErrBadToken, tokenPrefix)
	}
	body := str[len(tokenPrefix):]
	if len(body) > 4*(tokenFixed+maxAddr+4)/3+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", ErrBadToken, len(str))
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("%w: damaged (not base64url: %v)", ErrBadToken, err)
	}
	if len(b) < tokenFixed+4 {
		return nil, fmt.Errorf("%w: truncated (%d of at least %d bytes)", ErrBadToken, len(b), tokenFixed+4)
	}
	n := len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.LittleEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: truncated or damaged (checksum mismatch)", ErrBadToken)
	}
	b = b[:n]
	t := &token{}
	t.Kind, t.Flags = Kind(b[0]), b[1]
	if t.Kind < KindBuffer || t.Kind > KindRing {
		return nil, fmt.Errorf("%w: unknown kind %d", ErrBadToken, b[0])
	}
	if b[2] != 0 || b[3] != 0 || t.Flags&^(FlagDedicated|FlagFromCUDA) != 0 {
		return nil, fmt.Errorf("%w: reserved bits set", ErrBadToken)
	}
	p := 4
	t.ID = binary.LittleEndian.Uint64(b[p:])
	p += 8
	p += copy(t.Secret[:], b[p:])
	p += copy(t.UUID[:], b[p:])
	t.Size = binary.LittleEndian.Uint64(b[p:])
	t.AllocationSize = binary.LittleEndian.Uint64(b[p+8:])
	p += 16
	for _, v := range []*uint32{&t.Format, &t.Width, &t.Height, &t.Layers, &t.Usage, &t.Heap} {
		*v = binary.LittleEndian.Uint32(b[p:])
		p += 4
	}
	al := int(b[p])
	p++
	if al == 0 || al > maxAddr || p+al != len(b) {
		return nil, fmt.Errorf("%w: socket name of %d bytes in %d remaining", ErrBadToken, al, len(b)-p)
	}
	t.Addr = string(b[p:])
	if strings.IndexByte(t.Addr, 0) >= 0 {
		return nil, fmt.Errorf("%w: socket name holds a NUL", ErrBadToken)
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
