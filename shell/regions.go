package shell

// InputRegions finds, in a pane's raw output as it is appended, what an
// integrated shell's line editor draws while a command line is edited:
// everything from the end of its B mark (the prompt is drawn) to its next
// C, D or A mark (the command starts, or the line was abandoned). That is
// the echo of typed text, and every redraw of it: syntax highlighting,
// autosuggestions, fish's per-token redraws, right prompts, vi-mode
// indicators, continuation and correction prompts. Waits do not match it,
// so text typed at the prompt never passes for the command's output. Only
// marks with the shell's own tag count.
type InputRegions struct {
	tag     string
	scanner *MarkScanner
	open    bool  // inside a region
	from    int64 // where the open region (or the unreported part of it) starts
}

// NewInputRegions returns a scanner for the marks of the shell tagged tag
// (the shell's tag, as given to Launch), whose next byte is at offset at.
func NewInputRegions(tag string, at int64) *InputRegions {
	return &InputRegions{tag: MarkTag(tag), scanner: NewMarkScanner(at)}
}

// Scan reads data, which starts at stream offset at, and calls mask for
// each range of it that the line editor drew.
func (r *InputRegions) Scan(data []byte, at int64, mask func(start, end int64)) {
	if r.scanner.at != at && len(r.scanner.pending) == 0 {
		// Bytes were skipped (evicted before they were scanned): resync.
		r.scanner = NewMarkScanner(at)
		if r.open {
			r.from = at
		}
	}
	for _, m := range r.scanner.Feed(data) {
		if m.Tag != r.tag {
			continue
		}
		switch m.Kind {
		case 'B':
			if r.open && m.Start > r.from {
				mask(r.from, m.Start)
			}
			r.open, r.from = true, m.End
		case 'A', 'C', 'D':
			if r.open && m.Start > r.from {
				mask(r.from, m.Start)
			}
			r.open = false
		}
	}
	end := at + int64(len(data))
	if r.open {
		// Report the open region so far; a mark split across appends is
		// held back by the scanner, so what is masked is never a mark.
		cut := end - int64(len(r.scanner.pending))
		if cut > r.from {
			mask(r.from, cut)
			r.from = cut
		}
	}
}
