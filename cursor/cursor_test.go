package cursor

import (
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var id StreamID
	for i := range id {
		id[i] = byte(i * 17)
	}
	for _, off := range []int64{0, 1, 4096, 1<<53 - 1} {
		c := Cursor{Stream: id, Offset: off}
		got, err := Parse(c.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.String(), err)
		}
		if got != c {
			t.Fatalf("round trip %v != %v", got, c)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good := "ltxc1." + strings.Repeat("ab", 16) + "."
	for _, s := range []string{
		"",
		"ltxc1",
		good,
		good + "01",                   // leading zero
		good + "-1",                   // negative
		good + "1x",                   // junk
		good + "99999999999999999999", // overflow
		"ltxc2." + strings.Repeat("ab", 16) + ".0",
		"ltxc1." + strings.Repeat("AB", 16) + ".0", // uppercase hex
		"ltxc1." + strings.Repeat("ab", 15) + ".0", // short id
	} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted a malformed cursor", s)
		} else if !strings.Contains(err.Error(), "cursor") {
			t.Errorf("Parse(%q) error %q does not say it is about a cursor", s, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("ltxc1." + strings.Repeat("0f", 16) + ".0")
	f.Add("ltxc1." + strings.Repeat("0f", 16) + ".12345")
	f.Add("ltxc1..")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			return
		}
		if c.String() != s {
			t.Fatalf("accepted %q but re-encodes as %q", s, c.String())
		}
	})
}
