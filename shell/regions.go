package shell

// InputRegions finds, in a pane's raw output as it is appended, what an
// integrated shell's line editor draws while tmuxmcp edits a command line:
// from where tmuxmcp first sends input after the shell's B mark (its
// prompt is drawn) to the shell's next C, D or A mark (the command starts,
// or the line was abandoned). That is the echo of typed text, and every
// redraw of it: syntax highlighting, autosuggestions, fish's per-token
// redraws, right prompts, vi-mode indicators, continuation and correction
// prompts. Waits do not match it, so text typed at the prompt never passes
// for the command's output. What comes at the prompt before any input (a
// background job's output, a job's end notice, a prompt redrawn by an
// async theme) stays visible. Only marks with the shell's own tag count.
type InputRegions struct {
	tag     string
	scanner *MarkScanner
	open    bool  // after a B mark, before the next C, D or A
	armed   bool  // input was sent in the open region: mask from from on
	armedAt int64 // where that input was sent
	from    int64 // where the masked (or the unreported part of it) starts
	end     int64 // the end of the bytes scanned so far
}

// NewInputRegions returns a scanner for the marks of the shell tagged tag
// (the shell's tag, as given to Launch), whose next byte is at offset at.
func NewInputRegions(tag string, at int64) *InputRegions {
	return &InputRegions{tag: MarkTag(tag), scanner: NewMarkScanner(at), end: at}
}

// Input says tmuxmcp sends input to the pane at offset at (sent), or did
// not send the input it announced at at after all (!sent).
func (r *InputRegions) Input(at int64, sent bool) {
	switch {
	case sent && r.open && !r.armed:
		r.armed, r.armedAt = true, at
		r.from = max(r.from, at, r.end-int64(len(r.scanner.pending)))
	case !sent && r.armed && r.armedAt == at:
		r.armed = false
	}
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
	r.end = at + int64(len(data))
	for _, m := range r.scanner.Feed(data) {
		if m.Tag != r.tag {
			continue
		}
		switch m.Kind {
		case 'B':
			if r.open && r.armed && m.Start > r.from {
				mask(r.from, m.Start)
			}
			// A prompt drawn again while a line is edited (a redraw with
			// the mark) keeps the edit going.
			r.open, r.from = true, m.End
		case 'A', 'C', 'D':
			if r.open && r.armed && m.Start > r.from {
				mask(r.from, m.Start)
			}
			r.open, r.armed = false, false
		}
	}
	if r.open && r.armed {
		// Report the open region so far; a mark split across appends is
		// held back by the scanner, so what is masked is never a mark.
		cut := r.end - int64(len(r.scanner.pending))
		if cut > r.from {
			mask(r.from, cut)
			r.from = cut
		}
	}
}
