package tools

import (
	"fmt"
	"slices"
	"strings"
)

// Tool sets for --tools: a client that needs less pays for less context.
// observe only reads (it never types, starts or stops anything); run
// runs commands and follows them; panes makes, closes and types into
// panes; all is every tool.
func toolSet(name string) []string {
	switch name {
	case "observe":
		return []string{"list_panes", "wait_for_text", "capture_since", "capture_pane", "list_commands", "await_command_result"}
	case "run":
		return []string{"run_shell_command", "await_command_result", "cancel_command", "list_commands"}
	case "panes":
		return []string{"list_panes", "create_pane", "kill_pane", "type_text", "send_keys", "ask_person"}
	}
	return nil
}

// AllToolNames is every tool's name, in the order Tools lists them.
func AllToolNames() []string {
	return []string{"wait_for_text", "capture_since", "capture_pane", "type_text", "send_keys", "list_panes",
		"create_pane", "kill_pane", "run_shell_command", "await_command_result", "cancel_command", "list_commands", "ask_person"}
}

// ToolSetNames are the set names --tools takes, besides tool names.
const ToolSetNames = "observe, run, panes, all"

// SelectTools reads a --tools value: tool names and set names, separated
// by commas ("" or "all": every tool). It returns the tools to serve in
// the order Tools lists them, or an error naming what it does not know.
func SelectTools(spec string, all []string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		name := strings.TrimSpace(part)
		switch {
		case name == "all":
			return all, nil
		case toolSet(name) != nil:
			for _, t := range toolSet(name) {
				want[t] = true
			}
		case slices.Contains(all, name):
			want[name] = true
		default:
			return nil, fmt.Errorf("--tools %q: %q is neither a tool nor a set; use sets (%s) or tool names (%s), comma-separated", spec, name, ToolSetNames, strings.Join(all, ", "))
		}
	}
	var out []string
	for _, t := range all {
		if want[t] {
			out = append(out, t)
		}
	}
	return out, nil
}
