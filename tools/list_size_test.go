package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

// toolListBudget is what tools/list may cost every agent's context;
// with --host it carries a host argument per tool, within hostsBudget.
// (Raised by 512 bytes for the sandbox: each pane's sandbox field and
// run_shell_command's escalate.)
const (
	toolListBudget = 24<<10 + 512
	hostsBudget    = 26<<10 + 512
)

// tools/list, as a client receives it, fits in 24 KB (26 KB with other
// hosts configured, when every tool advertises host), and every tool
// still has an output schema that validates its results (the tests check
// each result against the full one).
func TestTheToolListFitsItsBudget(t *testing.T) {
	for _, c := range []struct {
		remote bool
		budget int
	}{{false, toolListBudget}, {true, hostsBudget}} {
		var list []*mcp.Tool
		for _, tool := range Catalog(engine.Config{}) {
			list = append(list, servedOn(tool, c.remote))
		}
		b, err := json.Marshal(&mcp.ListToolsResult{Tools: list})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tools/list (other hosts: %v): %d bytes for %d tools", c.remote, len(b), len(list))
		if len(b) > c.budget {
			for _, tool := range list {
				one, _ := json.Marshal(tool)
				t.Logf("  %-22s %5d bytes (description %d)", tool.Name, len(one), len(tool.Description))
			}
			t.Fatalf("tools/list is %d bytes, over its budget of %d", len(b), c.budget)
		}
	}
}

// The served (lean) output schemas accept a result whose nullable fields
// are null and whose enums take their values (every result of the tests
// is checked against the full schema besides).
func TestLeanOutputSchemasAcceptNulls(t *testing.T) {
	for _, tool := range Catalog(engine.Config{}) {
		full := tool.OutputSchema.(*jsonschema.Schema)
		thin := served(tool).OutputSchema.(*jsonschema.Schema)
		rt, err := thin.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		sample := map[string]any{}
		for k, p := range full.Properties {
			switch {
			case p.AnyOf != nil:
				sample[k] = nil
			case p.Enum != nil:
				sample[k] = p.Enum[0]
			}
		}
		if err := rt.Validate(sample); err != nil {
			t.Errorf("%s: the served output schema refuses %v: %v", tool.Name, sample, err)
		}
	}
}
