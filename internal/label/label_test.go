package label

import (
	"image"
	"image/color"
	"testing"
)

// pattern is a picture standing for a render: every pixel different.
func pattern(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), uint8(x ^ y), 255})
		}
	}
	return img
}

var (
	bg    = color.RGBA{0, 0, 0, 255}
	white = color.RGBA{255, 255, 255, 255}
	green = color.RGBA{0, 221, 0, 255}
)

func TestDraw(t *testing.T) {
	const w, h = 260, 80
	img := pattern(w, h)
	orig := pattern(w, h)
	strip := image.Rect(10, 20, 220, 20+Height(2))
	Draw(img, strip, bg, []Line{
		Text("Vulkan render", white),
		{{"32 frames/s  ", white}, {"bytes match", green}},
	})
	// Outside the strip: the picture, untouched.
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !(image.Point{x, y}).In(strip) && img.RGBAAt(x, y) != orig.RGBAAt(x, y) {
				t.Fatalf("pixel %d,%d outside the strip changed", x, y)
			}
		}
	}
	// Inside: the background, and text where each line's text is.
	count := func(r image.Rectangle, c color.RGBA) int {
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if img.RGBAAt(x, y) == c {
					n++
				}
			}
		}
		return n
	}
	text1 := image.Rect(strip.Min.X+Pad, strip.Min.Y+Pad, strip.Min.X+Pad+Text("Vulkan render", white).Width(), strip.Min.Y+Pad+LineHeight)
	if n := count(text1, white); n < 13*5 {
		t.Errorf("line 1: %d white pixels where its 13 characters are", n)
	}
	if n := count(text1, bg); n < text1.Dx()*text1.Dy()/2 {
		t.Errorf("line 1: %d background pixels around the text", n)
	}
	line2 := text1.Add(image.Pt(0, LineHeight))
	green2 := image.Rect(line2.Min.X+13*CharWidth, line2.Min.Y, line2.Min.X+24*CharWidth, line2.Max.Y)
	if n := count(green2, green); n < 11*5 {
		t.Errorf("line 2: %d green pixels where \"bytes match\" is", n)
	}
	if n := count(image.Rect(line2.Min.X, line2.Min.Y, green2.Min.X, line2.Max.Y), green); n != 0 {
		t.Errorf("line 2: green before its green span")
	}
	// Right of the longer line, the strip is background only.
	if n := count(image.Rect(green2.Max.X, strip.Min.Y, strip.Max.X, strip.Max.Y), bg); n != (strip.Max.X-green2.Max.X)*strip.Dy() {
		t.Errorf("the strip right of the text is not all background")
	}
}

func TestDrawClips(t *testing.T) {
	img := pattern(60, 40)
	orig := pattern(60, 40)
	strip := image.Rect(5, 5, 40, 5+Height(1))
	Draw(img, strip, bg, []Line{Text("a line much longer than the strip is wide", white), Text("a second line below the strip", white)})
	whiteIn := 0
	for y := 0; y < 40; y++ {
		for x := 0; x < 60; x++ {
			in := (image.Point{x, y}).In(strip)
			if !in && img.RGBAAt(x, y) != orig.RGBAAt(x, y) {
				t.Fatalf("pixel %d,%d outside the strip changed", x, y)
			}
			if in && img.RGBAAt(x, y) == white {
				whiteIn++
			}
		}
	}
	if whiteIn == 0 {
		t.Error("no text in the strip")
	}
	// A strip partly outside the image is drawn where it overlaps.
	Draw(img, image.Rect(50, 30, 90, 60), bg, []Line{Text("x", white)})
	if img.RGBAAt(59, 39) != bg {
		t.Error("the overlapping part of the strip is not filled")
	}
}

func TestASCII(t *testing.T) {
	for in, want := range map[string]string{
		"320×192":        "320x192",
		"Vulkan → CUDA":  "Vulkan -> CUDA",
		"a · b — c":      "a | b - c",
		"tab\there":      "tab?here",
		"日本":             "??",
		"plain ASCII ~!": "plain ASCII ~!",
	} {
		if got := ASCII(in); got != want {
			t.Errorf("ASCII(%q) = %q, want %q", in, got, want)
		}
	}
	if n := (Line{{"1×2", white}, {"→", green}}).Len(); n != 5 {
		t.Errorf("Len = %d, want 5", n)
	}
	if Fits(7*10+2*Pad) != 10 || Fits(3) != 0 {
		t.Error("Fits")
	}
}
