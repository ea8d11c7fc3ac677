// Package label draws lines of text on a filled strip of an image: captions
// for the pictures gfxcuda writes (the demo's PNG and GIF). It uses
// golang.org/x/image's basicfont 7×13, an ASCII bitmap font, so text is
// crisp at 1:1 and survives a GIF's palette; common non-ASCII characters
// are spelled in ASCII ("×" as "x", "→" as "->") and others become "?".
package label

import (
	"image"
	"image/color"
	"image/draw"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

const (
	// CharWidth is the advance of every character, in pixels.
	CharWidth = 7
	// LineHeight is the distance between the tops of two lines.
	LineHeight = 14
	// Pad is the margin between a strip's edge and its text.
	Pad = 3
)

// Span is text in one colour.
type Span struct {
	Text  string
	Color color.Color
}

// Line is one line of spans, drawn one after the other.
type Line []Span

// Text is a line of one colour.
func Text(s string, c color.Color) Line { return Line{{s, c}} }

// Len is the line's length in characters as drawn.
func (l Line) Len() int {
	n := 0
	for _, s := range l {
		n += utf8.RuneCountInString(ASCII(s.Text))
	}
	return n
}

// Width is the line's width in pixels, without Pad.
func (l Line) Width() int { return l.Len() * CharWidth }

// Height is the height of a strip of n lines, with Pad above and below.
func Height(n int) int { return n*LineHeight + 2*Pad }

// Fits says how many characters fit on a line in a strip w pixels wide.
func Fits(w int) int { return max(0, (w-2*Pad)/CharWidth) }

var spell = strings.NewReplacer("×", "x", "→", "->", "←", "<-", "↔", "<->", "·", "|", "—", "-", "–", "-",
	"≥", ">=", "≤", "<=", "µ", "u", "…", "...")

// ASCII is s as the font draws it.
func ASCII(s string) string {
	s = spell.Replace(s)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// Draw fills r of dst with bg and draws lines in it from its top left,
// Pad pixels in. Text that does not fit is cut at r's edges: no pixel
// outside r changes.
func Draw(dst *image.RGBA, r image.Rectangle, bg color.Color, lines []Line) {
	r = r.Intersect(dst.Bounds())
	if r.Empty() {
		return
	}
	sub := dst.SubImage(r).(*image.RGBA)
	draw.Draw(sub, r, image.NewUniform(bg), image.Point{}, draw.Src)
	face := basicfont.Face7x13
	for i, l := range lines {
		d := font.Drawer{Dst: sub, Face: face,
			Dot: fixed.P(r.Min.X+Pad, r.Min.Y+Pad+i*LineHeight+face.Ascent)}
		for _, s := range l {
			d.Src = image.NewUniform(s.Color)
			d.DrawString(ASCII(s.Text))
		}
	}
}
