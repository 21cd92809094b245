package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/engine"
	"github.com/tmuxmcp/tmuxmcp/input"
)

// hostsBudget is what tools/list may cost every agent's context with
// other hosts configured (--host), when every tool advertises host;
// toolListBudget is the same without other hosts. ask_person (the 13th
// tool) raised both by 2 KiB; a client that wants less serves fewer tools
// (--tools).
const (
	hostsBudget    = 26 << 10
	toolListBudget = 26<<10 - 512
)

// tools/list, as a client receives it, fits in 26 KiB with other hosts
// configured, output schemas with required fields and patterns included.
func TestTheToolListFitsItsBudget(t *testing.T) {
	for _, c := range []struct {
		remote bool
		budget int
	}{{false, toolListBudget}, {true, hostsBudget}} {
		b := listed(t, c.remote)
		t.Logf("tools/list (other hosts: %v): %d bytes", c.remote, len(b))
		if len(b) > c.budget {
			for _, tool := range servedList(c.remote) {
				one, _ := json.Marshal(tool)
				t.Logf("  %-22s %5d bytes (description %d)", tool.Name, len(one), len(tool.Description))
			}
			t.Fatalf("tools/list (other hosts: %v) is %d bytes, over its budget of %d", c.remote, len(b), c.budget)
		}
	}
}

// The output schemas tools/list sends are the contract seed 003 declares:
// every object lists every field as required (a result always has them
// all), every cursor field carries the cursor pattern, and every pane id
// the pane-id pattern; the input schemas' cursors carry it too.
func TestServedSchemasRequireEveryFieldAndPatternEveryCursor(t *testing.T) {
	for _, tool := range servedList(true) {
		out := roundTrip(t, tool.OutputSchema)
		requireAll(t, tool.Name+" output", out)
		patterns(t, tool.Name+" output", out)
		patterns(t, tool.Name+" input", roundTrip(t, tool.InputSchema))
	}
}

// requireAll fails unless every object in s requires all its fields.
func requireAll(t *testing.T, where string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	if s.Properties != nil {
		var keys []string
		for k := range s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		req := slices.Sorted(slices.Values(s.Required))
		if !slices.Equal(keys, req) {
			t.Errorf("%s: required %v, fields %v", where, req, keys)
		}
	}
	for k, p := range s.Properties {
		requireAll(t, where+"."+k, p)
	}
	requireAll(t, where+"[]", s.Items)
}

// patterns fails unless every cursor and pane id field of s has its
// pattern.
func patterns(t *testing.T, where string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	for k, p := range s.Properties {
		want := map[string]string{"cursor": cursor.Pattern, "paneId": PaneIDPattern, "targetPaneId": PaneIDPattern}[k]
		if want != "" && p.Pattern != want {
			t.Errorf("%s.%s: pattern %q, want %q", where, k, p.Pattern, want)
		}
		patterns(t, where+"."+k, p)
	}
	patterns(t, where+"[]", s.Items)
}

// A result the full output schema accepts — any nullable field null, any
// enum at any of its values — the served one accepts too.
func TestServedOutputSchemasAcceptWhatTheFullOnesAccept(t *testing.T) {
	for _, tool := range Catalog(engine.Config{}) {
		full := mustResolve(tool.OutputSchema.(*jsonschema.Schema))
		thin := mustResolve(roundTrip(t, served(tool).OutputSchema))
		for variant := 0; variant < 2; variant++ {
			sample := sampleOf(tool.OutputSchema.(*jsonschema.Schema), variant)
			if err := full.Validate(sample); err != nil {
				t.Fatalf("%s: the sample is wrong: %v: %v", tool.Name, err, sample)
			}
			if err := thin.Validate(sample); err != nil {
				t.Errorf("%s: the served output schema refuses %v: %v", tool.Name, sample, err)
			}
		}
	}
}

// sampleOf is a value s accepts: variant 0 has nullable fields null and
// enums at their first value, variant 1 nullable fields set and enums at
// their last.
func sampleOf(s *jsonschema.Schema, variant int) any {
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" {
		if variant == 0 {
			return nil
		}
		return sampleOf(s.AnyOf[0], variant)
	}
	if len(s.Enum) > 0 {
		return s.Enum[variant*(len(s.Enum)-1)]
	}
	switch {
	case s.Pattern == cursor.Pattern:
		return "ltxc1." + strings.Repeat("0a", 16) + ".12"
	case s.Pattern == PaneIDPattern:
		return "%1"
	}
	switch s.Type {
	case "object":
		m := map[string]any{}
		for k, p := range s.Properties {
			m[k] = sampleOf(p, variant)
		}
		return m
	case "array":
		return []any{sampleOf(s.Items, variant)}
	case "integer":
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 0
	case "boolean":
		return variant == 1
	}
	return "x"
}

// Every key send_keys' description names is one send_keys accepts.
func TestSendKeysDescriptionNamesOnlyKeysItAccepts(t *testing.T) {
	var desc string
	for _, tool := range Catalog(engine.Config{}) {
		if tool.Name == "send_keys" {
			desc = tool.InputSchema.(*jsonschema.Schema).Properties["keys"].Description
		}
	}
	names := regexp.MustCompile(`\b(?:[A-Z][A-Za-z]*|[CMS]-[A-Za-z]+|F1|F12|0x41|C-a|C-z)\b`).FindAllString(desc, -1)
	if len(names) < 20 {
		t.Fatalf("found only %v in %q", names, desc)
	}
	for _, n := range names {
		if n == "Keys" || n == "Alt" || n == "Another" || n == "Return" || n == "Esc" {
			continue // words, and the wrong spellings it names as such
		}
		if _, err := input.Parse(n); err != nil {
			t.Errorf("send_keys' description names %q: %v", n, err)
		}
	}
}

// servedList is every tool as tools/list sends it.
func servedList(remote bool) []*mcp.Tool {
	var list []*mcp.Tool
	for _, tool := range Catalog(engine.Config{}) {
		list = append(list, servedOn(tool, remote))
	}
	return list
}

// listed is tools/list's result, compact.
func listed(t *testing.T, remote bool) []byte {
	t.Helper()
	b, err := json.Marshal(&mcp.ListToolsResult{Tools: servedList(remote)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip is a schema as a client decodes it from the wire.
func roundTrip(t *testing.T, s any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out jsonschema.Schema
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", b, err))
	}
	return &out
}
