package stream

import (
	"bytes"
	"strings"
	"testing"
)

type unit struct {
	text       string
	start, end int64
}

func decodeAll(chunks ...string) (string, []unit, *Plain) {
	p := NewPlain(0)
	var out strings.Builder
	var units []unit
	for _, c := range chunks {
		p.Feed([]byte(c), func(t []byte, s, e int64) {
			out.Write(t)
			units = append(units, unit{string(t), s, e})
		})
	}
	return out.String(), units, p
}

func TestPlainStripsSequences(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello\r\n", "hello\n"},
		{"sgr split pattern", "ER\x1b[0mROR\r\n", "ERROR\n"},
		{"osc bel", "\x1b]0;title\x07prompt$ ", "prompt$ "},
		{"osc st", "\x1b]133;A\x1b\\$ ", "$ "},
		{"dcs", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"charset", "\x1b(Bx\x1b(0y", "xy"},
		{"bracketed paste toggle", "\x1b[?2004hroot# ", "root# "},
		{"lone cr after text is a line break", "10%\r20%\r\n", "10%\n20%\n"},
		{"cr at a line start shows nothing", "ls\r\n\x1b[?2004l\rout\r\n", "ls\nout\n"},
		{"cr cr lf is one line end", "a\r\r\nb", "a\nb"},
		{"bel and backspace dropped", "a\x07b\x08c", "abc"},
		{"tab kept", "a\tb", "a\tb"},
		{"utf8", "é日😀", "é日😀"},
		{"invalid utf8", "a\xffb\xc3(", "a\uFFFDb\uFFFD("},
		{"stray c1 is not csi", "a\x9b31mb", "a\uFFFD31mb"},
	}
	for _, c := range cases {
		got, _, _ := decodeAll(c.in)
		if got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
}

func TestPlainChunkBoundaries(t *testing.T) {
	in := "ER\x1b[31;1mR\x1b]0;t\x07OR é日😀\r\nnext\r\x1b[Kline\r\n"
	want, wantUnits, _ := decodeAll(in)
	for split := 0; split <= len(in); split++ {
		got, units, _ := decodeAll(in[:split], in[split:])
		if got != want {
			t.Fatalf("split at %d: got %q want %q", split, got, want)
		}
		if len(units) != len(wantUnits) {
			t.Fatalf("split at %d: %d units, want %d", split, len(units), len(wantUnits))
		}
		for i := range units {
			if units[i] != wantUnits[i] {
				t.Fatalf("split at %d: unit %d = %+v want %+v", split, i, units[i], wantUnits[i])
			}
		}
	}
}

func TestPlainRawRangesCoverText(t *testing.T) {
	in := "a\x1b[1mb\r\nc"
	_, units, p := decodeAll(in)
	want := []unit{{"a", 0, 1}, {"b", 5, 6}, {"\n", 6, 8}, {"c", 8, 9}}
	if len(units) != len(want) {
		t.Fatalf("units %+v", units)
	}
	for i := range want {
		if units[i] != want[i] {
			t.Errorf("unit %d = %+v want %+v", i, units[i], want[i])
		}
	}
	if p.Clean() != int64(len(in)) {
		t.Errorf("Clean = %d want %d", p.Clean(), len(in))
	}
}

func TestPlainCleanStopsBeforePendingState(t *testing.T) {
	for _, tc := range []struct {
		in    string
		clean int64
	}{
		{"ab\r", 2},       // CR may be followed by LF
		{"ab\x1b[3", 2},   // unfinished CSI
		{"ab\xe6\x97", 2}, // half a rune
		{"ab", 2},
	} {
		_, _, p := decodeAll(tc.in)
		if p.Clean() != tc.clean {
			t.Errorf("%q: Clean = %d want %d", tc.in, p.Clean(), tc.clean)
		}
	}
}

func TestPlainUnterminatedStringGivesUp(t *testing.T) {
	in := "\x1b]0;" + strings.Repeat("x", maxSequence+10) + "\r\nVISIBLE\r\n"
	got, _, _ := decodeAll(in)
	if !strings.Contains(got, "VISIBLE") {
		t.Fatalf("text after an unterminated OSC was swallowed")
	}
}

func FuzzPlain(f *testing.F) {
	f.Add([]byte("ER\x1b[0mROR\r\n"), 3)
	f.Add([]byte("\x1b]0;t\x07é日😀\r\n"), 5)
	f.Add([]byte("\xff\xc3(\x9b1m"), 1)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		one, u1, p1 := decodeAll(string(in))
		two, u2, p2 := decodeAll(string(in[:split]), string(in[split:]))
		if one != two || len(u1) != len(u2) || p1.Clean() != p2.Clean() {
			t.Fatalf("split changes the result: %q vs %q", one, two)
		}
		var last int64
		for _, u := range u1 {
			if u.start < last || u.end <= u.start || u.end > int64(len(in)) {
				t.Fatalf("bad range %+v after %d", u, last)
			}
			last = u.end
		}
		if !bytes.Equal([]byte(one), bytes.ToValidUTF8([]byte(one), nil)) {
			t.Fatalf("invalid UTF-8 out: %q", one)
		}
		// FeedRuns gives the same units, some joined into runs whose bytes
		// map one to one onto their raw range.
		var units []unit
		pr := NewPlain(0)
		for _, piece := range [][]byte{in[:split], in[split:]} {
			pr.FeedRuns(piece, func(text []byte, s, e int64) {
				if len(text) > 1 && text[0] < 0x80 {
					if e-s != int64(len(text)) {
						t.Fatalf("run %q has raw range %d-%d", text, s, e)
					}
					for k := range text {
						units = append(units, unit{string(text[k]), s + int64(k), s + int64(k) + 1})
					}
					return
				}
				units = append(units, unit{string(text), s, e})
			})
		}
		if len(units) != len(u1) || pr.Clean() != p1.Clean() {
			t.Fatalf("FeedRuns: %d units, Feed: %d", len(units), len(u1))
		}
		for i := range units {
			if units[i] != u1[i] {
				t.Fatalf("unit %d: FeedRuns %+v, Feed %+v", i, units[i], u1[i])
			}
		}
	})
}

// A regex skipped for lacking its required literal must be one that could
// not have matched: the prefilter never changes a result.
func TestRegexPrefilterNeverChangesAMatch(t *testing.T) {
	pats := []string{`ab(?#c)*`, `ab(?#x)?`, `ab(?#x){0}`, `ab*c`, `abc?`, `ab{2}x`, `^ERROR: (\w+)$`, `a|bc`, `x-y=z`, `(?i)abc`, `abc(?=d)`,
		`Done in \d+ms`, `\$ $`, `ready (\d+)`, `^never-1 (\d+)$`, `"q" <x>`, `ab+c`}
	lines := []string{"a", "ac", "abbc", "ab", "abx", "abbx", "ERROR: disk", "x ERROR: disk", "bc", "x-y=z", "ABC", "abcd",
		"Done in 12ms", "$ ", "ready 42", "never-1 7", `say "q" <x>`, "abbbc", "", "ab c"}
	for _, p := range pats {
		with, err := NewMatcher([]string{p}, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		without, _ := NewMatcher([]string{p}, true, 0)
		without.reLits = make([][]byte, len(without.res))
		for _, l := range lines {
			a, okA, _ := with.Find([]byte(l), 0)
			b, okB, _ := without.Find([]byte(l), 0)
			if okA != okB || a.Text != b.Text {
				t.Errorf("pattern %q on %q: with prefilter %v %q, without %v %q", p, l, okA, a.Text, okB, b.Text)
			}
		}
	}
	for p, want := range map[string]string{`^never-1 (\d+)$`: "never-1", `ab(?#c)*`: "", `abc?`: "ab", `ab*c`: "", `a|bc`: "", `Done in \d+ms`: "Done in ", `(?i)abc`: ""} {
		if got := string(requiredLiteral(p)); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestPrintableRunAgreesWithPrintable(t *testing.T) {
	for b := 0; b < 256; b++ {
		for pos := 0; pos < 20; pos++ {
			p := bytes.Repeat([]byte{'a'}, 20)
			p[pos] = byte(b)
			want := 20
			if !printable(byte(b)) {
				want = pos
			}
			if got := printableRun(p); got != want {
				t.Fatalf("byte %#x at %d: run %d, want %d", b, pos, got, want)
			}
		}
	}
}

// An OSC title with non-ASCII text is dropped whole from plain text.
func TestPlainDropsAnOSCTitleWithNonASCIIText(t *testing.T) {
	if got, _, _ := decodeAll("\x1b]0;café ✔ done\x07X\n"); got != "X\n" {
		t.Fatalf("plain = %q", got)
	}
}

// CR CR LF (ONLCR applied to a program's CRLF) is one newline in plain
// text.
func TestPlainTurnsCRCRLFIntoOneNewline(t *testing.T) {
	if got, _, _ := decodeAll("a\r\r\nb\r\r\n"); got != "a\nb\n" {
		t.Fatalf("plain = %q", got)
	}
}
