package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmuxmcp/tmuxmcp/engine"
)

// Catalog returns every tool's definition under cfg (its limits are named
// in the descriptions), without connecting to tmux: for documentation and
// schema snapshots.
func Catalog(cfg engine.Config) []*mcp.Tool {
	s := &Server{cfg: engine.WithDefaults(cfg)}
	var out []*mcp.Tool
	for _, t := range s.Tools() {
		out = append(out, t.Tool)
	}
	return out
}

// Markdown renders the tool reference that docs/tools.md embeds: each
// tool's description, then its arguments and result fields with type and
// bounds. A result table is written once: a later tool whose result has
// the same fields refers to the first tool's.
func Markdown(tools []*mcp.Tool) string {
	var b strings.Builder
	results := map[string]string{} // a result table -> the first tool that has it
	for _, t := range tools {
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\n", t.Name, t.Description)
		a := t.Annotations
		fmt.Fprintf(&b, "Annotations: readOnlyHint %v, destructiveHint %v, idempotentHint %v, openWorldHint %v.\n\n", a.ReadOnlyHint, deref(a.DestructiveHint, true), a.IdempotentHint, deref(a.OpenWorldHint, true))
		in := t.InputSchema.(*jsonschema.Schema)
		b.WriteString("| argument | type | required | description |\n|---|---|---|---|\n")
		writeFields(&b, in, true)
		var res strings.Builder
		writeFields(&res, t.OutputSchema.(*jsonschema.Schema), false)
		if first, ok := results[res.String()]; ok {
			fmt.Fprintf(&b, "\nThe result has the same fields as [`%s`](#%s)'s.\n\n", first, first)
			continue
		}
		results[res.String()] = t.Name
		b.WriteString("\n| result field | type | description |\n|---|---|---|\n")
		b.WriteString(res.String())
		b.WriteString("\n")
	}
	return b.String()
}

func deref(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

func writeFields(b *strings.Builder, s *jsonschema.Schema, withRequired bool) {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p := s.Properties[k]
		desc := strings.ReplaceAll(p.Description, "|", "\\|")
		if withRequired {
			fmt.Fprintf(b, "| `%s` | %s | %v | %s |\n", k, typeText(p), slices.Contains(s.Required, k), desc)
		} else {
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", k, typeText(p), desc)
		}
	}
}

// typeText describes a schema's type and bounds in a few words.
func typeText(s *jsonschema.Schema) string {
	if len(s.AnyOf) > 0 {
		var parts []string
		for _, a := range s.AnyOf {
			parts = append(parts, typeText(a))
		}
		return strings.Join(parts, " or ")
	}
	t := s.Type
	var extra []string
	if len(s.Enum) > 0 {
		var vals []string
		for _, v := range s.Enum {
			vals = append(vals, fmt.Sprint(v))
		}
		t = strings.Join(vals, " \\| ")
	}
	if s.Items != nil {
		t = "array of " + typeText(s.Items)
	}
	if s.Minimum != nil && *s.Minimum != 0 {
		extra = append(extra, fmt.Sprintf("≥ %v", *s.Minimum))
	}
	if s.Maximum != nil && *s.Maximum < maxSafeInt {
		extra = append(extra, fmt.Sprintf("≤ %v", *s.Maximum))
	}
	if s.MinItems != nil || s.MaxItems != nil {
		extra = append(extra, fmt.Sprintf("%d..%d items", derefInt(s.MinItems), derefInt(s.MaxItems)))
	}
	if s.MaxLength != nil {
		extra = append(extra, fmt.Sprintf("≤ %d chars", *s.MaxLength))
	}
	if s.Pattern != "" {
		extra = append(extra, "`"+strings.ReplaceAll(s.Pattern, "|", "\\|")+"`")
	}
	if len(s.Default) > 0 {
		extra = append(extra, "default "+string(s.Default))
	}
	if len(extra) > 0 {
		return t + " (" + strings.Join(extra, ", ") + ")"
	}
	return t
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
