package stream

import "testing"

func TestTailKeepsLastLines(t *testing.T) {
	tl := tail{limit: 1 << 10}
	tl.write([]byte("one\ntwo\nthree\nfour\n"))
	got, om, dl := tl.result(2)
	if got != "three\nfour\n" || om != int64(len("one\ntwo\n")) || dl != 2 {
		t.Fatalf("got %q omitted %d dropped %d", got, om, dl)
	}
	tl = tail{limit: 1 << 10}
	tl.write([]byte("a\nb\npartial"))
	if got, _, dl := tl.result(2); got != "b\npartial" || dl != 1 {
		t.Fatalf("partial line: got %q dropped %d", got, dl)
	}
}

func TestTailByteLimitCutsAtRuneBoundary(t *testing.T) {
	tl := tail{limit: 5}
	tl.write([]byte("ab\n日本語"))
	got, om, _ := tl.result(0)
	if got != "本語" && got != "語" {
		t.Fatalf("got %q", got)
	}
	if int(om)+len(got) != len("ab\n日本語") {
		t.Fatalf("omitted %d + kept %d != total", om, len(got))
	}
}
