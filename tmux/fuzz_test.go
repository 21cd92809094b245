package tmux

import (
	"bytes"
	"strings"
	"testing"
)

// addTranscriptSeeds adds every line of every recorded transcript.
func addTranscriptSeeds(f *testing.F, add func(line []byte)) {
	for _, data := range readTranscripts(f) {
		for _, line := range transcriptLines(data) {
			add(line)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	addTranscriptSeeds(f, func(line []byte) { f.Add(line) })
	for _, s := range []string{
		"", "%", "%output", "%output %", "%output %1", "%output %1 ", "%output %01 x",
		"%extended-output %1 0 :", "%extended-output %1 0 : ", "%extended-output %1 : : :",
		"%extended-output %1 0 x : y : z", "%begin 1 2 3", "%end   1\t2 3 ", "%error -1 2 -3",
		"%pause %", "%pause %1 %2", "%exit too far behind",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)

		if g, ok := parseGuard(line); ok {
			if g.kind != "begin" && g.kind != "end" && g.kind != "error" {
				t.Fatalf("parseGuard(%q): kind %q", line, g.kind)
			}
			if !bytes.HasPrefix(line, []byte("%"+g.kind+" ")) {
				t.Fatalf("parseGuard(%q): kind %q does not match the line", line, g.kind)
			}
		}

		pane, payload, _, ok := parseOutput(line)
		if ok {
			if pane < 0 {
				t.Fatalf("parseOutput(%q): pane %d", line, pane)
			}
			if !bytes.HasSuffix(line, payload) {
				t.Fatalf("parseOutput(%q): payload %q is not a suffix of the line", line, payload)
			}
			if !bytes.HasPrefix(line, []byte("%output %")) && !bytes.HasPrefix(line, []byte("%extended-output %")) {
				t.Fatalf("parseOutput(%q) accepted a non-output line", line)
			}
			_ = Unescape(nil, payload)
		} else if payload != nil || pane != 0 {
			t.Fatalf("parseOutput(%q) failed but returned %d, %q", line, pane, payload)
		}

		if n, ok := parseNotification(line); ok {
			if n.Name == "" || strings.Contains(n.Name, " ") {
				t.Fatalf("parseNotification(%q): name %q", line, n.Name)
			}
			if !bytes.HasPrefix(line, []byte("%"+n.Name)) || !bytes.HasSuffix(line, []byte(n.Args)) {
				t.Fatalf("parseNotification(%q) = %+v", line, n)
			}
			if p, ok := n.PaneArg(); ok && p < 0 {
				t.Fatalf("PaneArg(%q) = %d", n.Args, p)
			}
		}

		if !bytes.Equal(line, orig) {
			t.Fatalf("a parser modified its input: %q became %q", orig, line)
		}
	})
}

// validEscapes counts the escapes Unescape may decode: a backslash and
// three octal digits, scanning left to right without overlap.
func validEscapes(p []byte) int {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) && isOct(p[i+1]) && isOct(p[i+2]) && isOct(p[i+3]) {
			n++
			i += 3
		}
	}
	return n
}

func FuzzUnescape(f *testing.F) {
	addTranscriptSeeds(f, func(line []byte) {
		if _, payload, _, ok := parseOutput(line); ok {
			f.Add(payload)
		}
	})
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	f.Add(all)
	for _, s := range []string{``, `\`, `\0`, `\01`, `\012`, `\0123`, `\\\`, `\8\9`, `\400`, `a\134\134b`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The escaping tmux 3.3a does always decodes back to the bytes.
		if got := Unescape(nil, tmuxEscape(data)); !bytes.Equal(got, data) {
			t.Fatalf("Unescape(escape(%q)) = %q", data, got)
		}
		// Arbitrary input: no panic, dst kept, and only valid escapes shrink.
		out := Unescape([]byte("dst"), data)
		if !bytes.HasPrefix(out, []byte("dst")) {
			t.Fatalf("Unescape dropped dst: %q", out)
		}
		out = out[3:]
		if min := len(data) - 3*validEscapes(data); len(out) < min {
			t.Fatalf("Unescape(%q) = %q: %d bytes, want at least %d", data, out, len(out), min)
		}
		// Without a backslash nothing changes.
		if bytes.IndexByte(data, '\\') < 0 && !bytes.Equal(out, data) {
			t.Fatalf("Unescape(%q) = %q", data, out)
		}
	})
}
