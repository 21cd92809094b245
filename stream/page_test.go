package stream

import "testing"

// A raw page takes what fits: it stops at its byte limit on a character
// boundary (unless that would return nothing at all), and right after the
// line feed that reaches its line limit.
func TestARawPageTakesWholeCharactersAndStopsAtItsLineLimit(t *testing.T) {
	for _, tc := range []struct {
		name             string
		data             string
		held, maxBytes   int
		lines, maxLines  int
		wantN, wantLines int
		wantFull         bool
	}{
		{"all fits", "ab\ncd", 0, 100, 0, 0, 5, 1, false},
		{"cut at the byte limit", "abcdef", 0, 4, 0, 0, 4, 0, true},
		{"room left by what is held", "abcdef", 3, 4, 0, 0, 1, 0, true},
		{"no room left", "abc", 4, 4, 0, 0, 0, 0, true},
		{"cut before a split character", "aé", 0, 2, 0, 0, 1, 0, true},
		{"a lone split character is cut when nothing is held", "é", 0, 1, 0, 0, 1, 0, true},
		{"stop after the last line allowed", "a\nb\nc\n", 0, 100, 0, 2, 4, 2, true},
		{"lines held count toward the limit", "a\nb\n", 0, 100, 1, 2, 2, 2, true},
		{"no line limit", "a\nb\nc\n", 0, 100, 5, 0, 6, 8, false},
		{"line limit inside the byte limit", "a\nbcdef", 0, 4, 0, 1, 2, 1, true},
		{"lines past the byte cut do not count", "abcd\n", 0, 3, 0, 1, 3, 0, true},
	} {
		n, lines, full := rawTake([]byte(tc.data), tc.held, tc.maxBytes, tc.lines, tc.maxLines)
		if n != tc.wantN || lines != tc.wantLines || full != tc.wantFull {
			t.Errorf("%s: rawTake(%q, held %d, max %d, lines %d, max %d) = %d, %d, %v; want %d, %d, %v",
				tc.name, tc.data, tc.held, tc.maxBytes, tc.lines, tc.maxLines, n, lines, full, tc.wantN, tc.wantLines, tc.wantFull)
		}
	}
}

// A wait reads a chunk only up to its first gap byte (where events were
// dropped), and all of it when there is none.
func TestAWaitReadsAChunkUpToItsFirstGap(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from      int64
		data      string
		gaps      []int64
		wantData  string
		wantGapAt int64
	}{
		{"no gap", 10, "abcdef", nil, "abcdef", -1},
		{"a gap inside", 10, "abcdef", []int64{13}, "abc", 13},
		{"the first of two gaps", 10, "abcdef", []int64{11, 14}, "a", 11},
		{"a gap at the start", 10, "abcdef", []int64{10}, "", 10},
		{"no data", 10, "", nil, "", -1},
	} {
		c := chunk{from: tc.from, data: []byte(tc.data), gaps: tc.gaps}
		data, gapAt := c.untilGap()
		if string(data) != tc.wantData || gapAt != tc.wantGapAt {
			t.Errorf("%s: untilGap = %q, %d; want %q, %d", tc.name, data, gapAt, tc.wantData, tc.wantGapAt)
		}
	}
}
