package stream

import (
	"slices"
	"testing"
)

func TestMasksStayAscendingAndDisjointWhateverTheOrder(t *testing.T) {
	cases := []struct {
		add  []span
		want []span
	}{
		{[]span{{10, 20}, {30, 40}}, []span{{10, 20}, {30, 40}}},
		{[]span{{10, 20}, {20, 30}}, []span{{10, 30}}},
		// A range before the last ones is inserted, not merged with them.
		{[]span{{10, 20}, {30, 40}, {50, 60}, {25, 26}}, []span{{10, 20}, {25, 26}, {30, 40}, {50, 60}}},
		{[]span{{10, 20}, {30, 40}, {50, 60}, {35, 52}}, []span{{10, 20}, {30, 60}}},
		{[]span{{10, 20}, {30, 40}, {5, 8}}, []span{{5, 8}, {10, 20}, {30, 40}}},
		{[]span{{10, 20}, {30, 40}, {0, 100}}, []span{{0, 100}}},
		{[]span{{10, 20}, {15, 15}}, []span{{10, 20}}},
	}
	for _, c := range cases {
		s := &PaneStream{}
		for _, m := range c.add {
			s.addMask(m.start, m.end)
		}
		if !slices.Equal(s.masks, c.want) {
			t.Errorf("add %v: masks %v, want %v", c.add, s.masks, c.want)
		}
	}
}
