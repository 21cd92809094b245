package main

import (
	"strings"
	"testing"
)

func TestDoctorWarnsAboutAShellThatStartsSlowly(t *testing.T) {
	// Not parallel: doctorWith sets HOME and SHELL (t.Setenv).
	out, err := doctorWith(t, t.TempDir(), "/bin/bash", "30s", map[string]string{".profile": ". ~/.bashrc\n", ".bashrc": "PS1='$ '\nsleep 2.5\n"})
	if err != nil || !strings.Contains(out, "WARNING: slow, over 2s") {
		t.Fatalf("a .bashrc that takes 2.5 s: %v\n%s", err, out)
	}
}
