package main

import (
	"testing"
	"time"
)

// The scale table has the floor with one pane and with every pane, then a
// row per point against the first, except the first point of each waits
// series: it repeats a panes point.
func TestTheScaleTableLeavesOutTheRepeatedFirstPointOfEachWaitsSeries(t *testing.T) {
	ms := func(m int) sample {
		return sample{name: "floor", d: []time.Duration{time.Duration(m) * time.Millisecond}}
	}
	points := []point{
		{"panes", 1, ms(1)},
		{"panes", 10, ms(2)},
		{"waits elsewhere", 1, ms(2)},
		{"waits elsewhere", 100, ms(3)},
		{"waits on the pane", 1, ms(1)},
		{"waits on the pane", 16, ms(4)},
		{"panes", 100, ms(5)},
	}
	rows := scaleRows(points, ms(1), ms(2), 100)
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 7: %v", len(rows), rows)
	}
	for _, tc := range []struct {
		i                     int
		what, baseline, ratio string
	}{
		{0, "floor, 1 pane", "—", "1.00"},
		{1, "floor, 100 panes", "1 pane p50 1.00", "2.00 (p50) 2.00 (p99)"},
		{2, "wait_for_text, panes = 1", "1 pane p50 1.00", "1.00 (p50) 1.00 (p99)"},
		{3, "wait_for_text, panes = 10", "1 pane p50 1.00", "2.00 (p50) 2.00 (p99)"},
		{4, "wait_for_text, waits elsewhere = 100", "1 pane p50 1.00", "3.00 (p50) 3.00 (p99)"},
		{5, "wait_for_text, waits on the pane = 16", "1 pane p50 1.00", "4.00 (p50) 4.00 (p99)"},
		{6, "wait_for_text, panes = 100", "1 pane p50 1.00", "5.00 (p50) 5.00 (p99)"},
	} {
		r := rows[tc.i]
		if r.section != "7 scale" || r.what != tc.what || r.baseline != tc.baseline || r.ratio != tc.ratio {
			t.Errorf("row %d = %+v, want %q, baseline %q, ratio %q", tc.i, r, tc.what, tc.baseline, tc.ratio)
		}
	}
}
