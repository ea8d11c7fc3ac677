package bench

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSummary(t *testing.T) {
	m, s := Summary([]float64{5, 1, 3, 2, 4})
	if m != 3 || math.Abs(s-(4.6-1.4)/3) > 0.5 {
		t.Errorf("Summary = %v, %v", m, s)
	}
	if m, _ := Summary(nil); !math.IsNaN(m) {
		t.Errorf("empty Summary = %v", m)
	}
}

func sample() *Report {
	r := &Report{Device: "test GPU", Date: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Figures: []Figure{
		{Group: "copy", Name: "native", Value: 1000, Unit: "GB/s"},
		{Group: "copy", Name: "imported", Value: 980, Unit: "GB/s", Against: "native", Target: 0.95},
		{Group: "latency", Name: "bare switch", Value: 300, Unit: "µs"},
		{Group: "latency", Name: "library", Value: 360, Unit: "µs", Against: "bare switch", Target: 1 / 1.1},
	}}
	r.Compare()
	return r
}

func TestCompare(t *testing.T) {
	r := sample()
	if f := r.Figures[1]; math.Abs(f.Ratio-0.98) > 1e-9 || f.Met == nil || !*f.Met {
		t.Errorf("bandwidth figure %+v", f)
	}
	// Times: lower is better, so 360 µs against 300 µs is a ratio of 0.83, below 1/1.1.
	if f := r.Figures[3]; math.Abs(f.Ratio-300.0/360) > 1e-9 || f.Met == nil || *f.Met {
		t.Errorf("latency figure %+v", f)
	}
}

func TestRender(t *testing.T) {
	r := sample()
	var tb bytes.Buffer
	r.WriteTable(&tb)
	for _, want := range []string{"COPY", "0.98× vs native", "target ≥ 0.95×: met", "NOT met"} {
		if !strings.Contains(tb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tb.String())
		}
	}
	var jb bytes.Buffer
	if err := r.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(jb.Bytes(), &back); err != nil || len(back.Figures) != 4 {
		t.Errorf("JSON round trip: %v", err)
	}
	var pb bytes.Buffer
	if err := r.WritePNG(&pb); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&pb)
	if err != nil || img.Bounds().Dx() < 500 {
		t.Errorf("PNG: %v", err)
	}
}

// A paired figure keeps the ratio it measured; Compare judges only its
// target.
func TestComparePaired(t *testing.T) {
	r := Report{Figures: []Figure{
		{Group: "g", Name: "base", Value: 100, Unit: "frames/s"},
		{Group: "g", Name: "x", Value: 90, Unit: "frames/s", Against: "base", Ratio: 0.97, Target: 0.95, Paired: true},
		{Group: "g", Name: "y", Value: 90, Unit: "frames/s", Against: "base", Target: 0.95},
	}}
	r.Compare()
	if f := r.Figures[1]; f.Ratio != 0.97 || f.Met == nil || !*f.Met {
		t.Errorf("paired: ratio %v met %v, want 0.97 met", f.Ratio, f.Met)
	}
	if f := r.Figures[2]; f.Ratio != 0.9 || f.Met == nil || *f.Met {
		t.Errorf("unpaired: ratio %v met %v, want 0.9 not met", f.Ratio, f.Met)
	}
}
