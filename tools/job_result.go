package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmuxmcp/tmuxmcp/approval"
	"github.com/tmuxmcp/tmuxmcp/jobs"
)

func jobOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"jobId":              str("The job's id: pass it to await_command_result or cancel_command."),
		"host":               str("The host the job runs on: local, or a --host name."),
		"status":             terms("", jobs.Statuses(), statusMeans(), ""),
		"decision":           terms("Whether it was allowed to run", approval.Reported(), decisionMeans(), ""),
		"exitCode":           nullable(integer("The shell's exit status of the command ($?), or null while running or when unknown. Above 128 means killed by a signal (see signal).", 0, 255)),
		"signal":             nullable(str("The signal that ended it (e.g. SIGINT, SIGTERM), or null.")),
		"output":             str("The command's own output (stdout and stderr as the terminal showed them; no echo, prompt or marks), plain text. When it is longer than outputLimit: its first and last whole lines, with one line between them saying how many bytes and lines were left out (outputFile has them all)."),
		"outputBytes":        count("Total bytes of output so far."),
		"omittedBytes":       count("Bytes of the output left out of output (its middle) by outputLimit: read outputFile for all of it."),
		"outputFile":         nullable(str("A file holding the whole output, when output was cut; else null.")),
		"outputFileComplete": boolean("outputFile holds every byte of the output (true also when no file was needed). false: writing it failed (outputFileError says why: a full disk, an I/O error); output and outputBytes are still right."),
		"outputFileError":    nullable(str("Why outputFile is not whole, or null.")),
		"missedBytes":        count("Output lost before tmuxmcp could record it (evicted, or printed while tmuxmcp was restarting): non-zero means output is incomplete."),
		"foldedRedraws":      count("Times a line was redrawn in place (a progress bar's \\r, erase-line, cursor back or up); output and outputFile show each line once, as it ended."),
		"cursor":             nullable(cursorSchema("The job's one cursor: the position after the output this result covers (the command's end; while it runs, its output so far — never tmuxmcp's own typed line). Pass it as cursor to await_command_result (only what the command prints next), wait_for_text or capture_since (with paneId). null until the command has started, or once its pane's recording is gone.")),
		"paneId":             nullable(paneID("The pane it runs in, or null while no pane was chosen yet (a fresh pane waiting for approval, or blocked).")),
		"durationMs":         count("How long it has run."),
		"launchOutcome":      enum("STARTED: the command runs or ran (in a fresh pane whose shell is still starting, it is typed the moment the shell is ready); NOT_STARTED: nothing ran (status not_started).", "STARTED", "NOT_STARTED"),
		"launchError":        nullable(str("Why a not_started command did not start (the policy's reason for blocking it, its fresh pane's shell never got ready, the shell took it as unfinished), or null.")),
		"note":               nullable(str("What happened to the pane's shell integration: the command removed its hooks (exitCode is then unknown), they were put back before it ran, or end marks with conflicting exit statuses arrived (a background program forged one: exitCode is then null); else null.")),
		"shell":              nullable(enum("The shell that ran it — the command is that shell's language: bash, zsh, fish, or sh (sh, dash, ksh); null before it started.", "bash", "zsh", "fish", "sh")),
		"shellReady":         boolean("The pane's shell has the terminal back after the command: the next command, type_text or send_keys on the pane can go at once (each waits for a prompt still being drawn). false while running, for a fresh pane, or, in a sandboxed pane (where the result waits for the shell to read at its next prompt), when the prompt did not come back within 5 s of the command's end."),
		"waitingForInput":    boolean("With status running: its program is blocked reading the terminal and has printed nothing for 0.5 s — a question ([y/N], Password:), a REPL, a pager or an editor. The call returns as soon as that is so. Answer with type_text (submit: true) or send_keys (q quits a pager), or stop it with cancel_command; awaiting again only waits."),
		"foreground":         nullable(str("With waitingForInput: the program waiting (less, python3, sudo), else null.")),
		"prompt":             nullable(str("With waitingForInput: the text before the cursor on its line — the question it asks, a pager's : or (END) — else null.")),
		"serverNote":         serverNoteSchema(),
		"personInput":        boolean("A person typed into the pane while it ran (commands of 1 s or more): output may hold their keys."),
	})
}
