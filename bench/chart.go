package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// WritePNG draws the report as a bar chart: one panel per group, bars
// scaled to the largest figure of the group's unit, each labelled with its
// value and its ratio to its bound or baseline. The picture is as wide as
// its longest label needs; a long figure name wraps onto more lines.
func (r *Report) WritePNG(w io.Writer) error {
	const (
		rowH      = 22 // a row of one line
		lineH     = 14 // each further line of a wrapped name
		groupH    = 30
		barMaxW   = 420
		margin    = 16
		nameChars = 64 // names wrap at this many characters
		gap       = 12 // between the names and the bars
	)
	face := basicfont.Face7x13
	// The built-in font is ASCII only: the signs the figures use are
	// spelled in it, any other character is a "?".
	signs := strings.NewReplacer("→", "->", "↔", "<->", "µ", "u", "×", "x", "—", "-", "–", "-", "−", "-", "≥", ">=", "≤", "<=",
		"±", "+/-", "…", "...")
	ascii := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > unicode.MaxASCII {
				return '?'
			}
			return r
		}, signs.Replace(s))
	}
	measure := func(s string) int { return font.MeasureString(face, s).Ceil() }
	type row struct {
		f     *Figure
		name  []string // its lines
		label string
		h     int
	}
	groups := []string{}
	seen := map[string]bool{}
	rows := make([]row, len(r.Figures))
	title := ascii(fmt.Sprintf("gfxcuda bench — %s — %s", r.Device, r.Date.Format("2006-01-02")))
	nameW, labelW, width := 0, 0, 2*margin+measure(title)
	for i := range r.Figures {
		f := &r.Figures[i]
		if !seen[f.Group] {
			seen[f.Group] = true
			groups = append(groups, f.Group)
			width = max(width, 2*margin+measure(ascii(f.Group)))
		}
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
		rw := row{f: f, name: wrap(ascii(f.Name), nameChars), label: ascii(label)}
		rw.h = rowH + (len(rw.name)-1)*lineH
		for _, l := range rw.name {
			nameW = max(nameW, measure(l))
		}
		labelW = max(labelW, measure(rw.label))
		rows[i] = rw
	}
	barX := margin + 8 + nameW + gap
	width = max(width, barX+barMaxW+6+labelW+margin)
	height := 2*margin + 30 + len(groups)*groupH
	for _, rw := range rows {
		height += rw.h
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	text := func(x, y int, c color.Color, s string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	text(margin, margin+12, color.Black, title)
	y := margin + 30
	palette := []color.RGBA{{66, 133, 244, 255}, {219, 68, 55, 255}, {244, 160, 0, 255}, {15, 157, 88, 255}, {171, 71, 188, 255}}
	for gi, g := range groups {
		y += groupH
		text(margin, y-8, color.RGBA{40, 40, 40, 255}, ascii(g))
		maxByUnit := map[string]float64{}
		for _, f := range r.Figures {
			if f.Group == g && f.Value > maxByUnit[f.Unit] {
				maxByUnit[f.Unit] = f.Value
			}
		}
		for _, rw := range rows {
			f := rw.f
			if f.Group != g {
				continue
			}
			for li, l := range rw.name {
				text(margin+8, y+14+li*lineH, color.Black, l)
			}
			n := 0
			if m := maxByUnit[f.Unit]; m > 0 {
				n = int(float64(barMaxW) * f.Value / m)
			}
			c := palette[gi%len(palette)]
			if f.Met != nil && !*f.Met {
				c = color.RGBA{200, 200, 200, 255}
			}
			draw.Draw(img, image.Rect(barX, y+4, barX+max(n, 1), y+rowH-4), image.NewUniform(c), image.Point{}, draw.Src)
			text(barX+max(n, 1)+6, y+14, color.Black, rw.label)
			y += rw.h
		}
	}
	return png.Encode(w, img)
}

// wrap breaks s into lines of at most n characters, at spaces where it
// can (a word longer than n is cut).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > n {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			r := []rune(word)
			lines, word = append(lines, string(r[:n])), string(r[n:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= n:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
