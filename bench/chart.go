package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// WritePNG draws the report as a bar chart: one panel per group, bars
// scaled to the largest figure of the group's unit, each labelled with its
// value and its ratio to its bound or baseline.
func (r *Report) WritePNG(w io.Writer) error {
	const (
		width   = 1100
		rowH    = 22
		groupH  = 30
		labelW  = 430
		barMaxW = 420
		margin  = 16
	)
	groups := []string{}
	seen := map[string]bool{}
	for _, f := range r.Figures {
		if !seen[f.Group] {
			seen[f.Group] = true
			groups = append(groups, f.Group)
		}
	}
	height := 2*margin + 30 + len(groups)*groupH + len(r.Figures)*rowH
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	// The built-in font is ASCII only.
	ascii := strings.NewReplacer("→", "->", "↔", "<->", "µ", "u", "×", "x", "—", "-", "–", "-", "≥", ">=")
	text := func(x, y int, c color.Color, s string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(ascii.Replace(s))
	}
	text(margin, margin+12, color.Black, fmt.Sprintf("gfxcuda bench — %s — %s", r.Device, r.Date.Format("2006-01-02")))
	y := margin + 30
	palette := []color.RGBA{{66, 133, 244, 255}, {219, 68, 55, 255}, {244, 160, 0, 255}, {15, 157, 88, 255}, {171, 71, 188, 255}}
	for gi, g := range groups {
		y += groupH
		text(margin, y-8, color.RGBA{40, 40, 40, 255}, g)
		maxByUnit := map[string]float64{}
		for _, f := range r.Figures {
			if f.Group == g && f.Value > maxByUnit[f.Unit] {
				maxByUnit[f.Unit] = f.Value
			}
		}
		for _, f := range r.Figures {
			if f.Group != g {
				continue
			}
			text(margin+8, y+14, color.Black, truncate(f.Name, 60))
			n := 0
			if m := maxByUnit[f.Unit]; m > 0 {
				n = int(float64(barMaxW) * f.Value / m)
			}
			c := palette[gi%len(palette)]
			if f.Met != nil && !*f.Met {
				c = color.RGBA{200, 200, 200, 255}
			}
			draw.Draw(img, image.Rect(labelW, y+4, labelW+max(n, 1), y+rowH-4), image.NewUniform(c), image.Point{}, draw.Src)
			label := fmt.Sprintf("%s %s", fmtNum(f.Value), f.Unit)
			if f.Ratio > 0 && f.RefModel != "" {
				label += fmt.Sprintf("  (%.2f× the %s reference)", f.Ratio, f.RefModel)
			} else if f.Ratio > 0 {
				label += fmt.Sprintf("  (%.2f×)", f.Ratio)
			}
			if f.Met != nil {
				if *f.Met {
					label += " target met"
				} else {
					label += " target NOT met"
				}
			}
			text(labelW+max(n, 1)+6, y+14, color.Black, label)
			y += rowH
		}
	}
	return png.Encode(w, img)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
