package cli

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"

	"github.com/gfxcuda/gfxcuda/internal/label"
)

// The paths the demo times, in the order its pictures' captions list them.
const (
	pathVulkan    = iota // Vulkan renders and runs the tensor pass, no host copy
	pathRoundTrip        // render, read back to the host (and upload to CUDA): the pictures
	pathKernel           // zero-copy: Vulkan renders, a CUDA kernel converts
	pathVkInCUDA         // zero-copy: Vulkan renders and converts into CUDA memory
	numPaths
)

// demoPicture collects what the pictures' captions say: each path's rate
// and check, as the demo measured them.
type demoPicture struct {
	rate  [numPaths]float64 // frames per second; 0: did not run
	check [numPaths]int     // 0: not checked, 1: matches the Go reference, -1: does not
}

func (p *demoPicture) ran(path int, rate float64) { p.rate[path] = rate }

// checked records a check's result (err from demo.report) and returns err.
func (p *demoPicture) checked(path int, err error) error {
	p.check[path] = 1
	if err != nil {
		p.check[path] = -1
	}
	return err
}

// Caption colours, taken from the GIF's palette (Plan 9) so that the text
// stays crisp there too.
var (
	capBG    = plan9(color.RGBA{0, 0, 0, 255})
	capText  = plan9(color.RGBA{255, 255, 255, 255})
	capDim   = plan9(color.RGBA{170, 170, 170, 255})
	capOK    = plan9(color.RGBA{68, 238, 68, 255})
	capBad   = plan9(color.RGBA{255, 68, 68, 255})
	capTitle = plan9(color.RGBA{255, 221, 68, 255})
)

func plan9(c color.Color) color.Color { return color.Palette(palette.Plan9).Convert(c) }

// ms formats milliseconds with three significant digits or more.
func ms(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func sp(text string, c color.Color) label.Span { return label.Span{Text: text, Color: c} }

// footer is the strip under the cameras: the devices and every path's
// frame rate and check, as this run measured them. cudaWhy is why there
// was no CUDA (nil: there was).
func (dm *demo) footer(width int, cudaWhy error) []label.Line {
	cudaName := ""
	if cudaWhy == nil && dm.dev != nil {
		d := dm.dev.CUDA().Device()
		cudaName = fmt.Sprintf("device %d", d.Ordinal())
		if n, err := d.Name(); err == nil {
			cudaName = n
		}
	}
	return dm.pic.footer(width, dm.vd.Physical().Name, cudaName)
}

// captioned puts frame (views cameras side by side) between a strip of
// camera titles and the footer's strip.
func captioned(frame *image.RGBA, views int, foot []label.Line) *image.RGBA {
	fw, h := frame.Bounds().Dx(), frame.Bounds().Dy()
	w := fw / views
	head := label.Height(1)
	out := image.NewRGBA(image.Rect(0, 0, fw, head+h+label.Height(len(foot))))
	for y := 0; y < h; y++ {
		i := frame.PixOffset(frame.Rect.Min.X, frame.Rect.Min.Y+y)
		copy(out.Pix[out.PixOffset(0, head+y):], frame.Pix[i:i+fw*4])
	}
	for v := 0; v < views; v++ {
		label.Draw(out, image.Rect(v*w, 0, (v+1)*w, head), capBG, []label.Line{
			{sp(fmt.Sprintf("camera %d/%d", v+1, views), capTitle), sp(": Vulkan render, read back", capText)},
		})
	}
	label.Draw(out, image.Rect(0, head+h, fw, out.Bounds().Dy()), capBG, foot)
	return out
}

// footer is the caption under the cameras, width pixels wide: the
// devices, then one line per path (two where one is too narrow). cudaName
// is "" without CUDA.
func (p *demoPicture) footer(width int, vulkanName, cudaName string) []label.Line {
	withCUDA := cudaName != ""
	if !withCUDA {
		cudaName = "none"
	}
	lines := []label.Line{{sp("Vulkan: ", capTitle), sp(vulkanName, capText), sp("   CUDA: ", capTitle), sp(cudaName, capText)}}
	rt := "host round trip: render, read back"
	if withCUDA {
		rt += ", upload"
	}
	type row struct {
		path int
		name string
	}
	rows := []row{{pathVulkan, "Vulkan render + tensor pass (no host copy)"}, {pathRoundTrip, rt}}
	if withCUDA {
		rows = append(rows, row{pathKernel, "zero-copy: CUDA kernel converts"}, row{pathVkInCUDA, "zero-copy: Vulkan converts into CUDA memory"})
	}
	fit := label.Fits(width)
	for _, r := range rows {
		name := sp(r.name, capText)
		var rest label.Line
		if rate := p.rate[r.path]; rate > 0 {
			rest = append(rest, sp(fmt.Sprintf("%8.0f frames/s %7s ms/frame   ", rate, ms(1000/rate)), capText))
		} else {
			rest = append(rest, sp(fmt.Sprintf("%-37s", "    (did not run)"), capDim))
		}
		switch {
		case r.path == pathRoundTrip:
			rest = append(rest, sp("made the pictures above", capDim))
		case p.check[r.path] > 0:
			rest = append(rest, sp("tensor matches Go ref", capOK))
		case p.check[r.path] < 0:
			rest = append(rest, sp("MISMATCH", capBad))
		default:
			rest = append(rest, sp("not checked", capDim))
		}
		const nameCol = 44
		if one := append(label.Line{sp(fmt.Sprintf("%-*s", nameCol, r.name), capText)}, rest...); one.Len() <= fit {
			lines = append(lines, one)
		} else {
			lines = append(lines, label.Line{name}, append(label.Line{sp("  ", capText)}, rest...))
		}
	}
	if !withCUDA {
		lines = append(lines, label.Text("zero-copy to CUDA: skipped, no CUDA here (gfxcuda doctor says why)", capDim))
	}
	return lines
}
