package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// point is one measurement of the scale curve.
type point struct {
	series string // "panes", "waits elsewhere" or "waits on the pane"
	x      int
	s      sample
}

// sectionScale is section 7: wait latency as the panes tmuxmcp records go
// 1 → 10 → 100 and the open waits 1 → 100 → 1000 (parked on other panes,
// at most 256 per pane as tmuxmcp allows), and as waits on the measured
// pane itself go 1 → 16 → 256.
func sectionScale(ctx context.Context, cfg config, rep *report) error {
	w, err := newWorld(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.close()
	n := cfg.n
	pane, err := w.shellPane(ctx)
	if err != nil {
		return err
	}
	// The session's first window is one more pane; kill it so the count is exact.
	first, _ := w.target.Run(ctx, "list-panes", "-t", "=bench:^", "-F", "#{pane_id}")
	if first != "" && first != pane {
		_, _ = w.target.Run(ctx, "kill-pane", "-t", first)
	}
	floor, err := w.measureFloor(ctx, pane, n, cfg.every)
	if err != nil {
		return err
	}
	c, err := w.startMCP(ctx, nil, "--wait-max", "10m")
	if err != nil {
		return err
	}
	defer c.close()
	sc := &scaleCurve{w: w, c: c, cfg: cfg, pane: pane, others: []string{}}
	for _, p := range []int{1, 10} {
		if err := sc.grow(ctx, p); err != nil {
			return err
		}
		if err := sc.measure(ctx, "panes", p); err != nil {
			return err
		}
	}
	sc.points = append(sc.points, point{"waits elsewhere", 1, sc.points[len(sc.points)-1].s})
	for _, k := range []int{100, 1000} {
		if err := sc.measureParked(ctx, "waits elsewhere", k, sc.others); err != nil {
			return err
		}
	}
	sc.points = append(sc.points, point{"waits on the pane", 1, sc.points[1].s})
	for _, k := range []int{16, 256} {
		if err := sc.measureParked(ctx, "waits on the pane", k, []string{pane}); err != nil {
			return err
		}
	}
	if err := sc.grow(ctx, cfg.panes); err != nil {
		return err
	}
	if err := sc.measure(ctx, "panes", cfg.panes); err != nil {
		return err
	}
	// The floor again with every pane open: what tmux itself adds.
	floorAll, err := w.measureFloor(ctx, pane, n, cfg.every)
	if err != nil {
		return err
	}
	rep.scale, rep.scaleFloor, rep.scaleFloorAll = sc.points, floor, floorAll
	for _, r := range scaleRows(sc.points, floor, floorAll, cfg.panes) {
		rep.add(r)
	}
	return nil
}

// scaleCurve is section 7 under way: the pane whose waits are measured,
// the other panes opened so far, and the points of the curve so far.
type scaleCurve struct {
	w      *world
	c      *client
	cfg    config
	pane   string
	others []string
	points []point
}

// scaleTags are the emitter tags of successive points, so no point counts
// another's lines. F is the floor's, measured on the same pane; M, P and Q
// are the ones the latency section uses.
const scaleTags = "ABCDEGHIJKLNORSTUVWXYZ"

// grow opens panes until tmuxmcp records total of them, the measured one
// included.
func (sc *scaleCurve) grow(ctx context.Context, total int) error {
	for len(sc.others)+1 < total {
		p, err := sc.w.shellPane(ctx)
		if err != nil {
			return err
		}
		sc.others = append(sc.others, p)
	}
	return nil
}

// measure measures wait latency on the pane as the point x of series.
func (sc *scaleCurve) measure(ctx context.Context, series string, x int) error {
	tag := string(scaleTags[len(sc.points)%len(scaleTags)])
	s, _, err := sc.w.measureWait(ctx, sc.c, sc.pane, tag, sc.cfg.n, sc.cfg.every)
	if err != nil {
		return fmt.Errorf("%s %d: %w", series, x, err)
	}
	sc.points = append(sc.points, point{series, x, s})
	return nil
}

// measureParked measures the point k of series while k-1 other waits are
// parked on panes, and ends them after.
func (sc *scaleCurve) measureParked(ctx context.Context, series string, k int, panes []string) error {
	stop, err := sc.c.park(ctx, k-1, panes, 10*time.Minute, time.Second+time.Duration(k)*time.Millisecond, never)
	if err != nil {
		return err
	}
	err = sc.measure(ctx, series, k)
	stop()
	return err
}

// scaleRows are section 7's rows in the summary table: the floor with one
// pane and with panes open, and each point against the first; the first
// point of each waits series repeats a panes point, so it has no row.
func scaleRows(points []point, floor, floorAll sample, panes int) []row {
	const sec = "7 scale"
	rows := []row{
		{sec, floor.name + ", 1 pane", floor.summary(), "—", "1.00", "", ""},
		{sec, fmt.Sprintf("%s, %d panes", floor.name, panes), floorAll.summary(), "1 pane p50 " + msf(floor.p(0.5)), fmt.Sprintf("%.2f (p50) %.2f (p99)", ratio(floorAll.p(0.5), floor.p(0.5)), ratio(floorAll.p(0.99), floor.p(0.99))), "", ""},
	}
	base := points[0].s
	for _, pt := range points {
		if pt.x == 1 && pt.series != "panes" {
			continue
		}
		rows = append(rows, row{sec, fmt.Sprintf("wait_for_text, %s = %d", pt.series, pt.x), pt.s.summary(), "1 pane p50 " + msf(base.p(0.5)), fmt.Sprintf("%.2f (p50) %.2f (p99)", ratio(pt.s.p(0.5), base.p(0.5)), ratio(pt.s.p(0.99), base.p(0.99))), "", ""})
	}
	return rows
}

// svg draws the scale curve: one panel per series, p50 and p99 of
// wait_for_text with the floor's p50 for reference (in the panes panel,
// measured at both ends), log x axis.
func svg(points []point, floor, floorAll sample) string {
	series := []string{"panes", "waits elsewhere", "waits on the pane"}
	const pw, ph, top, left, gap = 260, 200, 40, 50, 40
	width := left + len(series)*(pw+gap)
	height := top + ph + 60
	var ymax float64 = 1
	for _, p := range points {
		ymax = math.Max(ymax, ms(p.s.p(0.99)))
	}
	ymax = math.Ceil(ymax*1.15*2) / 2
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">wait_for_text latency, printed line → tool result (ms); floor = bare tmux -C reader p50 %s ms</text>`+"\n", left, msf(floor.p(0.5)))
	for i, name := range series {
		x0 := left + i*(pw+gap)
		var pts []point
		for _, p := range points {
			if p.series == name {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		lo, hi := math.Log10(float64(pts[0].x)), math.Log10(float64(pts[len(pts)-1].x))
		if hi == lo {
			hi = lo + 1
		}
		px := func(x int) float64 { return float64(x0) + (math.Log10(float64(x))-lo)/(hi-lo)*pw }
		py := func(v float64) float64 { return float64(top) + ph - v/ymax*ph }
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", x0, top, pw, ph)
		for t := 0.0; t <= ymax+1e-9; t += tickStep(ymax) {
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", x0, x0+pw, py(t), py(t), x0-4, py(t)+4, t)
		}
		fy, fy2 := py(ms(floor.p(0.5))), py(ms(floor.p(0.5)))
		if name == "panes" && len(floorAll.d) > 0 {
			fy2 = py(ms(floorAll.p(0.5)))
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="4 3"/>`+"\n", x0, x0+pw, fy, fy2)
		for _, q := range []struct {
			q     float64
			color string
		}{{0.5, "#1f77b4"}, {0.99, "#d62728"}} {
			var line []string
			for _, p := range pts {
				line = append(line, fmt.Sprintf("%.1f,%.1f", px(p.x), py(ms(p.s.p(q.q)))))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(line, " "), q.color)
			for _, p := range pts {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s=%d p%g %s ms</title></circle>`+"\n", px(p.x), py(ms(p.s.p(q.q))), q.color, name, p.x, q.q*100, msf(p.s.p(q.q)))
			}
		}
		for _, p := range pts {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", px(p.x), top+ph+16, p.x)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x0+pw/2, top+ph+34, name)
	}
	ly := top + ph + 52
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#1f77b4" stroke-width="2"/><text x="%d" y="%d">p50</text>`+"\n", left, left+20, ly, ly, left+24, ly+4)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#d62728" stroke-width="2"/><text x="%d" y="%d">p99</text>`+"\n", left+70, left+90, ly, ly, left+94, ly+4)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#888" stroke-dasharray="4 3"/><text x="%d" y="%d">floor p50</text>`+"\n", left+140, left+160, ly, ly, left+164, ly+4)
	b.WriteString("</svg>\n")
	return b.String()
}

func tickStep(ymax float64) float64 {
	for _, s := range []float64{0.25, 0.5, 1, 2, 5, 10, 20, 50, 100} {
		if ymax/s <= 8 {
			return s
		}
	}
	return 200
}
