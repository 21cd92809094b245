package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/input"
)

// Set UPDATE_SNAPSHOTS=1 to rewrite testdata/schemas and docs/tools.md's tool
// reference after an intended change.
var update = os.Getenv("UPDATE_SNAPSHOTS") != ""

func TestToolSchemasMatchSnapshots(t *testing.T) {
	for _, tool := range Catalog(engine.Config{}) {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("..", "testdata", "schemas", tool.Name+".json")
		if update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: no snapshot (run UPDATE_SNAPSHOTS=1 go test ./tools): %v", tool.Name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: schema differs from %s; if intended, run UPDATE_SNAPSHOTS=1 go test ./tools", tool.Name, path)
		}
	}
}

func TestEveryToolIsDescribedAndAnnotatedExplicitly(t *testing.T) {
	readOnly := map[string]bool{"wait_for_text": true, "capture_since": true, "capture_pane": true, "list_panes": true, "await_command_result": true, "list_commands": true}
	tools := Catalog(engine.Config{})
	if len(tools) != 13 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tool := range tools {
		a := tool.Annotations
		switch {
		case tool.Description == "" || tool.Title == "":
			t.Errorf("%s: no description or title", tool.Name)
		case a == nil || a.Title == "" || a.OpenWorldHint == nil:
			t.Errorf("%s: annotations not set explicitly", tool.Name)
		case a.ReadOnlyHint != readOnly[tool.Name]:
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		case !a.ReadOnlyHint && a.DestructiveHint == nil:
			t.Errorf("%s: destructiveHint not set", tool.Name)
		case tool.InputSchema == nil || tool.OutputSchema == nil:
			t.Errorf("%s: missing schema", tool.Name)
		}
	}
}

func TestToolReferenceIsGenerated(t *testing.T) {
	docSection(t, "tools", Markdown(Catalog(engine.Config{})))
}

func TestKeyTableIsGenerated(t *testing.T) {
	docSection(t, "keys", input.Markdown())
}

// docSection checks (or with UPDATE_SNAPSHOTS rewrites) the part of
// docs/tools.md between <!-- name:start --> and <!-- name:end -->.
func docSection(t *testing.T, name, want string) {
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	path := filepath.Join("..", "docs", "tools.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, start), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("docs/tools.md has no %q ... %q section", start, end)
	}
	if update {
		readme = readme[:i+len(start)] + want + readme[j:]
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if readme[i+len(start):j] != want {
		t.Errorf("docs/tools.md %s section is out of date: run make docs", name)
	}
}
