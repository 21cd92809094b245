package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// shellStartup times the shell's own start-up to its first prompt with the
// pane's rc files and environment, and no tmux or tmuxmcp: `bash --login
// -i` (as the pane's shell is started) reading `exit` at its first prompt.
// It is the floor a fresh pane's round trip is held to.
func (w *world) shellStartup(ctx context.Context, n int) (sample, error) {
	s := sample{name: "bash --login -i to its first prompt and exit, the pane's rc files (start-up floor)"}
	for i := 0; i < n; i++ {
		cmd := exec.CommandContext(ctx, "bash", "--login", "-i")
		cmd.Env = w.target.Env
		cmd.Dir = filepath.Join(w.tmp, "home")
		cmd.Stdin = strings.NewReader("exit\n")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return s, fmt.Errorf("bash start-up: %w", err)
		}
		s.d = append(s.d, time.Since(start))
	}
	return s, nil
}

// startupRows compare a fresh pane's round trip with the shell's own
// start-up: the bound is start-up + 10 ms.
func startupRows(rep *report, fresh, startup sample) {
	const sec = "2 run round trip"
	d := fresh.p(0.5) - startup.p(0.5)
	rep.add(row{sec, startup.name, startup.summary(), "—", "", "", ""})
	rep.add(row{sec, fresh.name, "p50 " + msf(fresh.p(0.5)) + " ms", "start-up p50 " + msf(startup.p(0.5)),
		fmt.Sprintf("%+.2f ms (p50)", ms(d)), "p50 ≤ start-up + 10 ms", verdict(d <= 10*time.Millisecond)})
}

// promptPause is how long after a call on a pane returned the next call on
// it is made in the prompt-cost row: an agent's pause between calls, long
// enough for a 200 ms prompt to be drawn, so the row measures whether a
// result waits for the prompt and not whether the next command does.
const promptPause = 400 * time.Millisecond

// slowPromptRC is added to the run section's .bashrc: a pane created with
// BENCH_PROMPT_SLEEP set draws a prompt that takes that long (as one that
// asks git for the branch does).
const slowPromptRC = "if [ -n \"${BENCH_PROMPT_SLEEP-}\" ]; then PS1='$(sleep '\"$BENCH_PROMPT_SLEEP\"')$ '; fi\n"

// promptCost times run_shell_command true in a bash pane whose prompt
// costs 200 ms and in one with a plain prompt, the two taking turns, each
// call promptPause after the last one on its pane returned.
func promptCost(ctx context.Context, w *world, c *client, n int) (plain, slow sample, err error) {
	rc := filepath.Join(w.tmp, "home", ".bashrc")
	f, err := os.OpenFile(rc, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return plain, slow, err
	}
	_, err = f.WriteString(slowPromptRC)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return plain, slow, err
	}
	plain.name = fmt.Sprintf("run_shell_command true, existing pane (bash), plain prompt, %v between calls", promptPause)
	slow.name = fmt.Sprintf("run_shell_command true, existing pane (bash), a prompt that costs 200 ms, %v between calls", promptPause)
	panes := make([]string, 2)
	for k, env := range []map[string]any{{}, {"BENCH_PROMPT_SLEEP": "0.2"}} {
		cp, err := c.call(ctx, "create_pane", map[string]any{"waitMs": 20000, "env": env})
		if err != nil {
			return plain, slow, err
		}
		if cp["ready"] != true {
			return plain, slow, fmt.Errorf("prompt-cost pane %v: not ready (%v)", cp["paneId"], cp["notReadyReason"])
		}
		panes[k], _ = cp["paneId"].(string)
	}
	samples := []*sample{&plain, &slow}
	last := make([]time.Time, 2)
	for i := 0; i < n; i++ {
		for k, s := range samples {
			time.Sleep(time.Until(last[k].Add(promptPause)))
			one, err := c.runs(ctx, s.name, 1, map[string]any{"paneId": panes[k], "command": "true"})
			if err != nil {
				return plain, slow, err
			}
			last[k] = time.Now()
			s.d = append(s.d, one.d...)
		}
	}
	return plain, slow, nil
}

// promptRows: a prompt that costs 200 ms may add at most 10 % to the round
// trip with a plain one.
func promptRows(rep *report, plain, slow sample) {
	const sec = "2 run round trip"
	add := ratio(slow.p(0.5), plain.p(0.5)) - 1
	rep.add(row{sec, plain.name, plain.summary(), "—", "", "", ""})
	rep.add(row{sec, slow.name, slow.summary(), "plain prompt p50 " + msf(plain.p(0.5)),
		fmt.Sprintf("%+.0f %% (p50)", add*100), "p50 ≤ plain + 10 %", verdict(add <= 0.10)})
}
