package cli

import (
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/internal/label"
)

func lineText(l label.Line) string {
	var sb strings.Builder
	for _, s := range l {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// TestDemoFooter: each path's rate, ms per frame and check, on one line
// where the picture is wide, on two where it is narrow.
func TestDemoFooter(t *testing.T) {
	var p demoPicture
	p.ran(pathVulkan, 1250)
	p.ran(pathRoundTrip, 200)
	p.ran(pathKernel, 2500)
	p.checked(pathVulkan, nil)
	p.checked(pathKernel, nil)
	p.checked(pathVkInCUDA, errors.New("3 of 9 elements wrong"))
	foot := p.footer(960, "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3")
	var got []string
	for _, l := range foot {
		got = append(got, lineText(l))
	}
	want := []string{
		"Vulkan: NVIDIA H100 80GB HBM3   CUDA: NVIDIA H100 80GB HBM3",
		"Vulkan render + tensor pass (no host copy)      1250 frames/s   0.800 ms/frame   tensor matches Go ref",
		"host round trip: render, read back, upload       200 frames/s    5.00 ms/frame   made the pictures above",
		"zero-copy: CUDA kernel converts                 2500 frames/s   0.400 ms/frame   tensor matches Go ref",
		"zero-copy: Vulkan converts into CUDA memory     (did not run)                    MISMATCH",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("footer:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range foot {
		if l.Width()+2*label.Pad > 960 {
			t.Errorf("line %q is wider than the picture", lineText(l))
		}
	}
	if c := foot[4][len(foot[4])-1].Color; c != capBad {
		t.Errorf("MISMATCH in %v, want the alarm colour", c)
	}

	// Narrow: name, then the figures indented; no CUDA: one line says so.
	var q demoPicture
	q.ran(pathVulkan, 48)
	q.ran(pathRoundTrip, 40)
	q.checked(pathVulkan, nil)
	foot = q.footer(128, "llvmpipe (LLVM 15.0.6, 256 bits)", "")
	got = got[:0]
	for _, l := range foot {
		got = append(got, lineText(l))
	}
	if len(got) != 6 || got[1] != "Vulkan render + tensor pass (no host copy)" || !strings.HasPrefix(got[2], "        48 frames/s   20.83 ms/frame") ||
		!strings.Contains(got[0], "CUDA: none") || !strings.HasPrefix(got[5], "zero-copy to CUDA: skipped") {
		t.Errorf("narrow footer without CUDA:\n%s", strings.Join(got, "\n"))
	}
}

// TestDemoCaptioned: the cameras are copied unchanged between the title
// strip and the footer, and both strips have text on a dark background.
func TestDemoCaptioned(t *testing.T) {
	const w, h, views = 96, 40, 2
	frame := image.NewRGBA(image.Rect(0, 0, views*w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < views*w; x++ {
			frame.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y * 5), 200, 255})
		}
	}
	var p demoPicture
	p.ran(pathVulkan, 48)
	p.ran(pathRoundTrip, 40)
	p.checked(pathVulkan, nil)
	foot := p.footer(views*w, "llvmpipe", "")
	out := captioned(frame, views, foot)
	head := label.Height(1)
	if b := out.Bounds(); b != image.Rect(0, 0, views*w, head+h+label.Height(len(foot))) {
		t.Fatalf("captioned picture is %v", b)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < views*w; x++ {
			if out.RGBAAt(x, head+y) != frame.RGBAAt(x, y) {
				t.Fatalf("camera pixel %d,%d changed", x, y)
			}
		}
	}
	bg := capBG.(color.RGBA)
	strips := map[string]image.Rectangle{
		"camera 1 title": image.Rect(0, 0, w, head),
		"camera 2 title": image.Rect(w, 0, 2*w, head),
		"footer":         image.Rect(0, head+h, views*w, out.Bounds().Dy()),
	}
	for name, r := range strips {
		nbg, ntext := 0, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if out.RGBAAt(x, y) == bg {
					nbg++
				} else {
					ntext++
				}
			}
		}
		if nbg < r.Dx()*r.Dy()/2 || ntext < 50 {
			t.Errorf("%s: %d background and %d text pixels", name, nbg, ntext)
		}
	}
}
