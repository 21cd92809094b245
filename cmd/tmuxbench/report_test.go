package main

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func TestQuantilesAreNearestRankBelow(t *testing.T) {
	var s sample
	for i := 100; i >= 1; i-- {
		s.d = append(s.d, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := s.p(q); got != want {
			t.Errorf("p(%v) = %v, want %v", q, got, want)
		}
	}
	if (sample{}).p(0.5) != 0 {
		t.Error("an empty sample has a quantile")
	}
}

// The scale curve is well-formed SVG with one panel per series and a p50
// and a p99 line in each.
func TestScaleCurveIsValidSVG(t *testing.T) {
	mk := func(ms ...float64) sample {
		var s sample
		for _, m := range ms {
			s.d = append(s.d, time.Duration(m*float64(time.Millisecond)))
		}
		return s
	}
	var points []point
	for _, series := range []string{"panes", "waits elsewhere", "waits on the pane"} {
		for i, x := range []int{1, 10, 100} {
			points = append(points, point{series, x, mk(0.5+float64(i), 1+float64(i))})
		}
	}
	out := svg(points, mk(0.2), mk(0.4))
	d := xml.NewDecoder(strings.NewReader(out))
	polylines := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not XML: %v\n%s", err, out)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			polylines++
		}
	}
	if polylines != 6 {
		t.Fatalf("%d polylines, want 6 (p50 and p99 in 3 panels)", polylines)
	}
	for _, want := range []string{"panes=100 p99 2.50 ms", "waits on the pane", "reader p50 0.20 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}
