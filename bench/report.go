// Package bench measures gfxcuda's hand-offs and copies on a GPU and reports
// the figures side by side with their bounds and baselines: as a table,
// as JSON and as a PNG chart. `gfxcuda bench` drives it.
package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Figure is one measured number.
type Figure struct {
	Group  string  `json:"group"`  // e.g. "copy bandwidth"
	Name   string  `json:"name"`   // e.g. "Vulkan-imported → CUDA"
	Value  float64 `json:"value"`  // median over Reps
	Unit   string  `json:"unit"`   // "GB/s", "frames/s", "µs", "ms"
	Reps   int     `json:"reps"`   // repetitions behind the median
	Spread float64 `json:"spread"` // (p90 - p10) / median, a noise indicator
	// Against is the bound or baseline this figure is compared with (the
	// Name of another Figure), Ratio = Value/that Value (for times, the
	// inverse, so that a ratio > 1 always means "better than").
	Against string  `json:"against,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`
	// Target is the ratio the figure should reach, with Met telling if it did.
	Target float64 `json:"target,omitempty"`
	Met    *bool   `json:"met,omitempty"`
	// RefModel is set when Against is a reference measured on other
	// hardware than this run's device: the model it was measured on
	// ("H100"). Target is then that machine's target, shown as a
	// reference, and Met stays unset: only a reference measured on the
	// same device model can be met or not.
	RefModel string `json:"ref_model,omitempty"`
	Note     string `json:"note,omitempty"`
	// Paired: Ratio was measured directly, as the median of per-repetition
	// ratios against Against run alternately in the same repetitions, and
	// Compare keeps it.
	Paired bool `json:"paired,omitempty"`
}

// Report is a run's figures, in the order measured.
type Report struct {
	Device  string    `json:"device"`
	Date    time.Time `json:"date"`
	Command string    `json:"command"`
	// Warnings say what made the run measure something else besides
	// gfxcuda (the Vulkan validation layer switched on, for one).
	Warnings []string `json:"warnings,omitempty"`
	Figures  []Figure `json:"figures"`
}

// Summary returns the median, and the p10–p90 spread relative to it.
func Summary(samples []float64) (median, spread float64) {
	if len(samples) == 0 {
		return math.NaN(), math.NaN()
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	q := func(p float64) float64 { return s[int(math.Round(p*float64(len(s)-1)))] }
	median = q(0.5)
	if median != 0 {
		spread = (q(0.9) - q(0.1)) / median
	}
	return median, spread
}

// lowerIsBetter reports whether the unit is a time.
func lowerIsBetter(unit string) bool {
	switch unit {
	case "µs", "us", "ms", "s", "ns":
		return true
	}
	return false
}

// Compare fills in Ratio (and Met, when Target is set) for every figure
// with an Against.
func (r *Report) Compare() {
	byName := map[string]Figure{}
	for _, f := range r.Figures {
		byName[f.Group+"/"+f.Name] = f
		byName[f.Name] = f
	}
	for i := range r.Figures {
		f := &r.Figures[i]
		if f.Against == "" {
			continue
		}
		if !f.Paired || f.Ratio <= 0 { // a paired ratio stands as measured
			b, ok := byName[f.Group+"/"+f.Against]
			if !ok {
				b, ok = byName[f.Against]
			}
			if !ok || b.Value == 0 || f.Value == 0 {
				continue
			}
			if lowerIsBetter(f.Unit) {
				f.Ratio = b.Value / f.Value
			} else {
				f.Ratio = f.Value / b.Value
			}
		}
		if f.Target > 0 && f.RefModel == "" {
			met := f.Ratio >= f.Target
			f.Met = &met
		}
	}
}

// WriteTable prints the report as an aligned table.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "gfxcuda bench on %s, %s\n", r.Device, r.Date.Format("2006-01-02 15:04 MST"))
	for _, m := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	group := ""
	for _, f := range r.Figures {
		if f.Group != group {
			group = f.Group
			fmt.Fprintf(tw, "\n%s\t\t\t\t\n", strings.ToUpper(group))
		}
		val := fmt.Sprintf("%s %s", fmtNum(f.Value), f.Unit)
		cmp := ""
		if f.Against != "" && f.Ratio > 0 {
			cmp = fmt.Sprintf("%.2f× vs %s", f.Ratio, f.Against)
			if f.RefModel != "" {
				cmp += " (" + f.RefModel + ")"
			}
		}
		tgt := ""
		if f.RefModel != "" && f.Target > 0 {
			tgt = fmt.Sprintf("reference (%s): target ≥ %.2g×", f.RefModel, f.Target)
		} else if f.Met != nil {
			mark := "met"
			if !*f.Met {
				mark = "NOT met"
			}
			tgt = fmt.Sprintf("target ≥ %.2g×: %s", f.Target, mark)
		}
		note := f.Note
		if f.Spread > 0.1 {
			note = strings.TrimSpace(note + fmt.Sprintf(" (noisy: p10–p90 ±%.0f%%)", 50*f.Spread))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", f.Name, val, cmp, tgt, note)
	}
	tw.Flush()
}

func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 10000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Progress draws a one-line progress bar on a terminal (stderr).
type Progress struct {
	w     io.Writer
	total int
	done  int
	start time.Time
	tty   bool
}

// NewProgress starts a progress bar of total steps on w.
func NewProgress(w io.Writer, total int) *Progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &Progress{w: w, total: total, start: time.Now(), tty: tty}
}

// Step advances the bar and shows what is being measured now.
func (p *Progress) Step(what string) {
	p.done++
	const width = 30
	n := width * p.done / max(p.total, 1)
	bar := strings.Repeat("█", n) + strings.Repeat("░", width-n)
	line := fmt.Sprintf("[%s] %d/%d %5.1fs %s", bar, p.done, p.total, time.Since(p.start).Seconds(), what)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Finish ends the bar's line.
func (p *Progress) Finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
