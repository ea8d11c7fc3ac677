package cli

// gfxcuda run's data files: inputs read from .npy, .png or raw files,
// results written as .npy or .png, or summarized on stdout.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/half"
	"github.com/gfxcuda/gfxcuda/internal/npy"
	"github.com/gfxcuda/gfxcuda/shader"
)

// readInput reads a data file: an .npy's data, a PNG's RGBA8 pixels (with
// its size), or raw bytes.
func readInput(path string) (data []byte, w, h int, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, 0, 0, err
		}
		if a.FortranOrder {
			return nil, 0, 0, fmt.Errorf("%s is in Fortran order; save it C-contiguous (numpy.ascontiguousarray)", path)
		}
		return a.Data, 0, 0, nil
	case ".png":
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, 0, err
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		b := img.Bounds()
		rgba := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := range b.Dy() {
			for x := range b.Dx() {
				rgba.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
			}
		}
		return rgba.Pix, b.Dx(), b.Dy(), nil
	}
	data, err = os.ReadFile(path)
	return data, 0, 0, err
}

// bufferArray describes a buffer's contents as an array: dtype and shape.
func bufferArray(m *shader.Module, s *slotRes) (string, []int) {
	n := int(s.buf.Size())
	r := &s.r
	if f := s.buf.Format(); f != 0 {
		in := f.Info()
		shape := []int{n / in.BytesPerTexel}
		if in.DTypeLanes > 1 {
			shape = append(shape, in.DTypeLanes)
		}
		return in.DType.TypeStr(), shape
	}
	if r.Kind == shader.StorageBuffer && r.Size == 0 {
		if e, ok := m.ArrayElement(r.Set, r.Binding); ok && e.Stride > 0 && n%int(e.Stride) == 0 {
			count := n / int(e.Stride)
			if e.Packed() {
				if dt := scalarDType(e.Scalar, e.Bits); dt != "" {
					if e.Count == 1 {
						return dt, []int{count}
					}
					return dt, []int{count, e.Count}
				}
			}
			return "|u1", []int{count, int(e.Stride)}
		}
	}
	return "|u1", []int{n}
}

func scalarDType(s shader.ScalarType, bits int) string {
	c := map[shader.ScalarType]string{shader.ScalarFloat: "f", shader.ScalarInt: "i", shader.ScalarUint: "u"}[s]
	if c == "" || bits%8 != 0 || bits == 0 || bits > 64 {
		return ""
	}
	if bits == 8 {
		return "|" + c + "1"
	}
	return fmt.Sprintf("<%s%d", c, bits/8)
}

// textureArray describes a texture as an array: dtype and shape (depth,
// height, width, channels, dropping the dimensions it lacks).
func textureArray(t *compute.Texture) (string, []int) {
	in := t.Format().Info()
	var shape []int
	switch t.Dim() {
	case 3:
		shape = []int{int(t.Depth()), int(t.Height()), int(t.Width())}
	case 2:
		shape = []int{int(t.Height()), int(t.Width())}
	default:
		shape = []int{int(t.Width())}
	}
	if in.DTypeLanes > 1 {
		shape = append(shape, in.DTypeLanes)
	}
	return in.DType.TypeStr(), shape
}

func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// readSlot reads a slot's buffer or texture back, with the dtype and
// shape that describe its contents as an array.
func readSlot(m *shader.Module, s *slotRes) (data []byte, dtype string, shape []int, err error) {
	if s.buf != nil {
		data, err = s.buf.Readback()
		dtype, shape = bufferArray(m, s)
	} else {
		data, err = s.tex.Readback()
		dtype, shape = textureArray(s.tex)
	}
	return data, dtype, shape, err
}

// writeOutput reads a slot back and writes it to file.
func writeOutput(m *shader.Module, s *slotRes, file string) (string, error) {
	data, dtype, shape, err := readSlot(m, s)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(filepath.Ext(file), ".png") {
		img, err := toImage(s.tex, data)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return "", err
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("PNG %dx%d", img.Bounds().Dx(), img.Bounds().Dy()), nil
	}
	if err := npy.WriteFile(file, npy.Array{Descr: dtype, Shape: shape, Data: data}); err != nil {
		return "", err
	}
	return dtype + " " + shapeString(shape), nil
}

// pngCheck says why a texture cannot be written as PNG, if it cannot.
func pngCheck(t *compute.Texture) error {
	in := t.Format().Info()
	switch {
	case t.Dim() == 3:
		return fmt.Errorf("a 3D texture does not fit in a PNG")
	case in.Kind == format.Packed || in.Kind == format.SNorm || in.Kind == format.SInt:
		return fmt.Errorf("PNG holds no %s texels", t.Format())
	case in.Channels == 3:
		return fmt.Errorf("PNG holds no %s texels", t.Format())
	}
	return nil
}

// toImage converts texels to an image: 8-bit formats as they are, 16-bit
// integer formats at 16 bits, float formats clamped to [0, 1] at 8 bits;
// one channel is gray, two are red and green.
func toImage(t *compute.Texture, data []byte) (image.Image, error) {
	if err := pngCheck(t); err != nil {
		return nil, err
	}
	in := t.Format().Info()
	w, h := int(t.Width()), int(t.Height())
	ch := in.Channels
	elem := in.BytesPerTexel / ch
	at := func(i, c int) float64 { // channel c of texel i, in [0, 1] (integers: of their range)
		o := i*in.BytesPerTexel + c*elem
		switch {
		case in.Kind == format.Float && elem == 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[o:])))
		case in.Kind == format.Float && elem == 2:
			return float64(half.ToFloat32(binary.LittleEndian.Uint16(data[o:])))
		case elem == 1:
			return float64(data[o]) / 255
		case elem == 2:
			return float64(binary.LittleEndian.Uint16(data[o:])) / 65535
		default:
			return float64(binary.LittleEndian.Uint32(data[o:])) / math.MaxUint32
		}
	}
	clamp := func(v float64, maxv float64) uint16 {
		if v != v || v < 0 {
			return 0
		}
		return uint16(math.Round(min(v, 1) * maxv))
	}
	if elem == 2 && in.Kind != format.Float {
		if ch == 1 {
			img := image.NewGray16(image.Rect(0, 0, w, h))
			for i := range w * h {
				img.SetGray16(i%w, i/w, color.Gray16{Y: clamp(at(i, 0), 65535)})
			}
			return img, nil
		}
		img := image.NewNRGBA64(image.Rect(0, 0, w, h))
		for i := range w * h {
			c := color.NRGBA64{A: 65535}
			c.R = clamp(at(i, 0), 65535)
			c.G = clamp(at(i, 1), 65535)
			if ch == 4 {
				c.B, c.A = clamp(at(i, 2), 65535), clamp(at(i, 3), 65535)
			}
			img.SetNRGBA64(i%w, i/w, c)
		}
		return img, nil
	}
	if ch == 1 {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range w * h {
			img.Pix[i] = uint8(clamp(at(i, 0), 255))
		}
		return img, nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		p := img.Pix[4*i:]
		p[0], p[1], p[2], p[3] = uint8(clamp(at(i, 0), 255)), uint8(clamp(at(i, 1), 255)), 0, 255
		if ch == 4 {
			p[2], p[3] = uint8(clamp(at(i, 2), 255)), uint8(clamp(at(i, 3), 255))
		}
		if in.BGR {
			p[0], p[2] = p[2], p[0]
		}
	}
	return img, nil
}

// summarize prints a read-write resource's first values on stdout.
func summarize(w io.Writer, m *shader.Module, s *slotRes) error {
	data, dtype, shape, err := readSlot(m, s)
	if err != nil {
		return err
	}
	size, _ := npy.ItemSize(dtype)
	var vals []string
	for i := 0; i+size <= len(data) && len(vals) < 8; i += size {
		b := data[i : i+size]
		switch dtype[1:] {
		case "f4":
			vals = append(vals, strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 'g', -1, 32))
		case "f8":
			vals = append(vals, strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64))
		case "f2":
			vals = append(vals, strconv.FormatFloat(float64(half.ToFloat32(binary.LittleEndian.Uint16(b))), 'g', -1, 32))
		case "i4":
			vals = append(vals, strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b)))))
		case "u4":
			vals = append(vals, strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b)), 10))
		case "i2":
			vals = append(vals, strconv.Itoa(int(int16(binary.LittleEndian.Uint16(b)))))
		case "u2":
			vals = append(vals, strconv.Itoa(int(binary.LittleEndian.Uint16(b))))
		case "i1":
			vals = append(vals, strconv.Itoa(int(int8(b[0]))))
		default:
			vals = append(vals, strconv.Itoa(int(b[0])))
		}
	}
	more := ""
	if len(data) > 8*size {
		more = " ..."
	}
	fmt.Fprintf(w, "%s %s %s %s: [%s%s]\n", s.reg, s.r.Name, dtype, shapeString(shape), strings.Join(vals, " "), more)
	return nil
}
