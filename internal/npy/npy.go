// Package npy reads and writes NumPy's .npy files (format versions 1.0 to
// 3.0 on read, 1.0 on write): the array format `gfxcuda run` uses for
// buffers, readable with numpy.load.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Array is an n-dimensional array's raw little-endian bytes and description.
type Array struct {
	Descr        string // NumPy dtype string, e.g. "<f4", "|u1"
	FortranOrder bool
	Shape        []int
	Data         []byte
}

// ItemSize returns the bytes per element from Descr.
func ItemSize(descr string) (int, error) {
	m := regexp.MustCompile(`^[<>|=]?[biufc]([0-9]+)$`).FindStringSubmatch(descr)
	if m == nil {
		return 0, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	n, _ := strconv.Atoi(m[1])
	if n <= 0 || n > 16 {
		return 0, fmt.Errorf("npy: unsupported dtype %q", descr)
	}
	return n, nil
}

var magic = []byte("\x93NUMPY")

// Write writes a as a version 1.0 .npy file.
func Write(w io.Writer, a Array) error {
	size, err := ItemSize(a.Descr)
	if err != nil {
		return err
	}
	n := 1
	for _, d := range a.Shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", a.Shape)
		}
		n *= d
	}
	if n*size != len(a.Data) {
		return fmt.Errorf("npy: shape %v of %s needs %d bytes, have %d", a.Shape, a.Descr, n*size, len(a.Data))
	}
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(a.Shape) == 1 {
		shape += ","
	}
	fortran := "False"
	if a.FortranOrder {
		fortran = "True"
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }", a.Descr, fortran, shape)
	// Pad with spaces and end with \n so that the data starts 64-byte aligned.
	total := len(magic) + 2 + 2 + len(hdr) + 1
	hdr += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var buf bytes.Buffer
	buf.Write(magic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	buf.WriteString(hdr)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	_, err = w.Write(a.Data)
	return err
}

// ErrFormat is wrapped by errors about malformed files.
var ErrFormat = errors.New("npy: not a valid .npy file")

// Read parses a .npy file.
func Read(r io.Reader) (Array, error) {
	var a Array
	pre := make([]byte, 8)
	if _, err := io.ReadFull(r, pre); err != nil {
		return a, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if !bytes.Equal(pre[:6], magic) {
		return a, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return a, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return a, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return a, fmt.Errorf("%w: version %d.%d", ErrFormat, pre[6], pre[7])
	}
	if hlen > 1<<20 {
		return a, fmt.Errorf("%w: header of %d bytes", ErrFormat, hlen)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return a, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	h := string(hdr)
	m := regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`).FindStringSubmatch(h)
	if m == nil {
		return a, fmt.Errorf("%w: no descr in header %q", ErrFormat, h)
	}
	a.Descr = m[1]
	size, err := ItemSize(a.Descr)
	if err != nil {
		return a, err
	}
	if strings.HasPrefix(a.Descr, ">") && size > 1 {
		return a, fmt.Errorf("npy: big-endian dtype %q is not supported", a.Descr)
	}
	a.FortranOrder = regexp.MustCompile(`'fortran_order'\s*:\s*True`).MatchString(h)
	sm := regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`).FindStringSubmatch(h)
	if sm == nil {
		return a, fmt.Errorf("%w: no shape in header %q", ErrFormat, h)
	}
	n := 1
	for _, f := range strings.Split(sm[1], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return a, fmt.Errorf("%w: shape %q", ErrFormat, sm[1])
		}
		a.Shape = append(a.Shape, d)
		if d > 0 && n > (1<<40)/d {
			return a, fmt.Errorf("%w: shape %q too large", ErrFormat, sm[1])
		}
		n *= d
	}
	a.Data = make([]byte, n*size)
	if _, err := io.ReadFull(r, a.Data); err != nil {
		return a, fmt.Errorf("%w: data shorter than shape %v of %s: %v", ErrFormat, a.Shape, a.Descr, err)
	}
	return a, nil
}
