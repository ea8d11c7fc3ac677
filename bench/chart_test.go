package bench

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"
)

// The chart fits its labels: the longest value label ends before the right
// edge, with the margin white, and a long figure name never runs under
// its bar (it wraps onto more lines).
func TestChartLabelsFit(t *testing.T) {
	met := false
	r := Report{Device: "NVIDIA H200", Date: time.Now(), Figures: []Figure{
		{Group: "compute: compushady's work", Name: "dispatch(1,1,1) waited, 1000 in a row", Value: 17.23, Unit: "µs"},
		{Group: "compute: compushady's work", Name: "readback 64 MiB into a preallocated slice, imported per call, " +
			"with a name much longer than the name column − and signs → outside ASCII", Value: 34.84, Unit: "GB/s",
			Ratio: 1633.9, RefModel: "H100", Met: &met},
		{Group: "ring", Name: "gfxcuda.Producer → CUDA consumer in another process and network namespace (filesystem socket), 16 slots",
			Value: 123456.7, Unit: "frames/s", Ratio: 0.96, Met: &met},
	}}
	var b bytes.Buffer
	if err := r.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	bounds := img.Bounds()
	white := func(x, y int) bool {
		c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
		return c.R == 255 && c.G == 255 && c.B == 255
	}
	// The right margin is white: no label is cut at the edge.
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Max.X - 8; x < bounds.Max.X; x++ {
			if !white(x, y) {
				t.Fatalf("pixel (%d,%d) in the right margin of the %v chart is not white: a label runs off the edge", x, y, bounds)
			}
		}
	}
	// The bars start at one x (the leftmost coloured, not black or grey,
	// pixel); on every row of a bar the few columns before it are white.
	colourful := func(x, y int) bool {
		c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
		return !(c.R == c.G && c.G == c.B)
	}
	barX := bounds.Max.X
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < barX; x++ {
			if colourful(x, y) || color.RGBAModel.Convert(img.At(x, y)) == (color.RGBA{200, 200, 200, 255}) {
				barX = x
				break
			}
		}
	}
	if barX == bounds.Max.X {
		t.Fatal("no bar found")
	}
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		if white(barX, y) {
			continue // not a bar's row
		}
		for x := barX - 4; x < barX; x++ {
			if !white(x, y) {
				t.Fatalf("pixel (%d,%d), just before the bars at x %d, is not white: a figure's name runs under its bar", x, y, barX)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one two three four", 9, "one two|three|four"},
		{"averyveryverylongword x", 8, "averyver|yverylon|gword x"},
		{"", 5, ""},
	} {
		if got := strings.Join(wrap(c.s, c.n), "|"); got != c.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
