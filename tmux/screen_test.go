package tmux

import (
	"reflect"
	"testing"
	"time"
)

func TestACaptureAsksForExactlyTheRowsGiven(t *testing.T) {
	row := func(n int) *int { return &n }
	cases := []struct {
		c    Capture
		want []string
	}{
		{Capture{}, []string{"capture-pane", "-p", "-J", "-t", "%3"}},
		{Capture{Escapes: true}, []string{"capture-pane", "-p", "-J", "-t", "%3", "-e"}},
		{Capture{Start: row(-500), End: row(7)}, []string{"capture-pane", "-p", "-J", "-t", "%3", "-S", "-500", "-E", "7"}},
	}
	for _, c := range cases {
		if got := c.c.args(3); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}

func TestClientsTellPeopleFromControlClients(t *testing.T) {
	got := parseClients([]string{
		"0\x1f/dev/pts/3\x1f$1\x1f@2\x1f%4\x1f1796320857",
		"1\x1fclient-123\x1f$1\x1f@1\x1f\x1f",
		"0\x1f\x1f$1\x1f@1\x1f%1\x1f1", // no name: cannot be shown a popup
		"garbage",
	})
	want := []Client{{Name: "/dev/pts/3", Session: "$1", Window: "@2", Pane: 4, Activity: time.Unix(1796320857, 0)}, {Name: "client-123", Control: true, Session: "$1", Window: "@1", Pane: -1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
}
