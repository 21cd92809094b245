package tools

import "testing"

func TestAPaneStartedWithArgvNamesItsProgram(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cr := e.ok(t, "create_pane", map[string]any{"argv": []string{"sleep", "30"}})
	for _, p := range e.ok(t, "list_panes", map[string]any{}).M["panes"].([]any) {
		m := p.(map[string]any)
		if m["paneId"] == cr.Str("paneId") && m["currentCommand"] != "sleep" {
			t.Fatalf("currentCommand %v, want sleep", m["currentCommand"])
		}
	}
	if c := e.ok(t, "capture_pane", map[string]any{"paneId": cr.Str("paneId")}); c.Str("currentCommand") != "sleep" {
		t.Fatalf("capture_pane currentCommand %v", c.M["currentCommand"])
	}
}
