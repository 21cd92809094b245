package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestAllToolNamesAreTheToolsInTheirOrder(t *testing.T) {
	s := New(&fakeHosts{local: &fakeHost{}}, Options{})
	defer s.Close()
	if got := s.ToolNames(); !slices.Equal(got, AllToolNames()) {
		t.Fatalf("Tools() = %v, AllToolNames() = %v", got, AllToolNames())
	}
}

func TestToolsSelectsSetsAndNamesAndRefusesTheUnknown(t *testing.T) {
	all := AllToolNames()
	for spec, want := range map[string][]string{
		"":                           all,
		"all":                        all,
		"observe":                    {"wait_for_text", "capture_since", "capture_pane", "list_panes", "await_command_result", "list_commands"},
		"run":                        {"run_shell_command", "await_command_result", "cancel_command", "list_commands"},
		"observe, run_shell_command": {"wait_for_text", "capture_since", "capture_pane", "list_panes", "run_shell_command", "await_command_result", "list_commands"},
	} {
		got, err := SelectTools(spec, all)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SelectTools(%q) = %v, %v; want %v", spec, got, err, want)
		}
	}
	_, err := SelectTools("observe,run_command", all)
	if err == nil || !strings.Contains(err.Error(), `"run_command"`) || !strings.Contains(err.Error(), "observe, run, panes, all") {
		t.Fatalf("an unknown name: %v", err)
	}
}

// TestTheObserveSetCanOnlyRead: a server serving observe lists no tool
// that types, starts or stops anything, and a call to one is refused.
func TestTheObserveSetCanOnlyRead(t *testing.T) {
	serve, _ := SelectTools("observe", AllToolNames())
	s := New(&fakeHosts{local: &fakeHost{}}, Options{Serve: serve})
	defer s.Close()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.NewServer().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("observe serves %s, which is not read-only", tool.Name)
		}
	}
	if len(lt.Tools) != len(serve) {
		t.Errorf("%d tools listed, want %d", len(lt.Tools), len(serve))
	}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"command": "true"}}); err == nil && !r.IsError {
		t.Fatal("run_shell_command ran on an observe-only server")
	}
}
