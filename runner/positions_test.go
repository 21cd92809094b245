package runner

import (
	"testing"

	"github.com/tmuxmcp/tmuxmcp/jobs"
)

// A cursor a result handed out maps to exactly the output after it, however
// long the output grows; any other cursor maps to a place at or before it
// (output repeated, never skipped); a cursor before the command's start is
// all of the output, one at its end none of it.
func TestACursorHandedOutMapsExactlyAndAnyOtherNeverSkipsOutput(t *testing.T) {
	var p positions
	p.add(100, 0) // the start mark's end
	handed := map[int64]int64{}
	for i := int64(1); i <= 5000; i++ {
		p.add(100+10*i, 7*i) // each piece: 10 bytes of stream, 7 of output
		if i%997 == 0 {
			p.hold()
			handed[100+10*i] = 7 * i
		}
	}
	if len(p.at) > maxPositions {
		t.Fatalf("%d pairs kept, want at most %d", len(p.at), maxPositions)
	}
	saved := p.saved(100+10*5000+30, 7*5000)
	if len(saved) > savedPositions+len(handed)+1 {
		t.Fatalf("the record keeps %d pairs", len(saved))
	}
	for _, at := range [][]jobs.Position{p.at, saved} {
		for s, o := range handed {
			if got := outputAt(at, s); got != o {
				t.Fatalf("the handed-out cursor at %d maps to output %d, want %d", s, got, o)
			}
		}
		for s := int64(0); s < 100+10*5000; s += 333 {
			exact := int64(0)
			if s >= 100 {
				exact = 7 * ((s - 100) / 10)
			}
			if got := outputAt(at, s); got > exact {
				t.Fatalf("the cursor at %d maps to output %d, past %d: output would be skipped", s, got, exact)
			}
		}
		if outputAt(at, 50) != 0 {
			t.Fatal("a cursor before the start is not all of the output")
		}
	}
	if got := outputAt(saved, 100+10*5000+30); got != 7*5000 {
		t.Fatalf("the end maps to %d, want all %d bytes", got, 7*5000)
	}
}
