package tools

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servedOn is a tool as tools/list sends it, with the host argument
// advertised when other hosts are configured (remote).
func servedOn(t *mcp.Tool, remote bool) *mcp.Tool {
	if remote {
		return served(t)
	}
	return served(withoutHost(t))
}

// served is a tool as tools/list sends it, within 24 KiB with other hosts
// (TestTheToolListFitsItsBudget). Its output schema keeps the contract a
// client validates against — types, enums, nullability, every field
// required, the cursor and pane-id patterns (seed 003) — without the
// fields' descriptions, numeric bounds and additionalProperties: false,
// so that a client holding this list accepts fields a later tmuxmcp adds.
// Clients rarely show output schemas to the model; the fields an agent
// acts on are named in the tool's description, and docs/tools.md and
// Catalog keep the whole schema. Its input schema is whole but for
// wireInput's cuts; its annotations drop a title the tool has already and
// destructiveHint where readOnlyHint makes it meaningless.
func served(t *mcp.Tool) *mcp.Tool {
	c := *t
	if out, ok := t.OutputSchema.(*jsonschema.Schema); ok {
		c.OutputSchema = wire(out)
	}
	if in, ok := t.InputSchema.(*jsonschema.Schema); ok {
		c.InputSchema = wireInput(in)
	}
	if a := t.Annotations; a != nil {
		ca := *a
		if a.Title == t.Title {
			ca.Title = "" // the tool's own title says it
		}
		if a.ReadOnlyHint {
			ca.DestructiveHint = nil // meaningless for a read-only tool
		}
		c.Annotations = &ca
	}
	return &c
}

// wireInput is an input schema as sent: whole, but for a maximum that is
// only JSON's largest exact integer (no bound at all), and the
// descriptions of a required id (paneId, jobId: the pattern and the
// tool's own description say what it is) and of the host a pane or job is
// on (list_panes' description and the server instructions say how to
// pass it); docs/tools.md keeps them.
func wireInput(in *jsonschema.Schema) *jsonschema.Schema {
	c := *in
	c.Properties = make(map[string]*jsonschema.Schema, len(in.Properties))
	for k, v := range in.Properties {
		cv := *v
		if v.Maximum != nil && *v.Maximum == maxSafeInt {
			cv.Maximum = nil
		}
		if (k == "paneId" || k == "jobId") && slices.Contains(in.Required, k) || k == "host" && v.Description == hostSchema().Description {
			cv.Description = ""
		}
		c.Properties[k] = &cv
	}
	return &c
}

// wire copies s without descriptions, bounds or defaults; a nullable
// type, written anyOf [T, null] in the full schema, is sent as the type
// list [T, "null"], and an enum as its values alone (null among them when
// nullable), which validate the same and cost a third of the bytes.
func wire(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.AnyOf[0].Type != "" && s.AnyOf[0].Properties == nil && s.AnyOf[0].Items == nil {
		t := s.AnyOf[0]
		if t.Enum != nil {
			return &jsonschema.Schema{Enum: append(slices.Clone(t.Enum), nil)} // null is one of the values
		}
		return &jsonschema.Schema{Types: []string{t.Type, "null"}, Pattern: t.Pattern}
	}
	if s.Enum != nil {
		return &jsonschema.Schema{Enum: s.Enum} // the values say the type
	}
	c := &jsonschema.Schema{Type: s.Type, Types: s.Types, Pattern: s.Pattern, Required: s.Required, Items: wire(s.Items)}
	if a := s.AdditionalProperties; a != nil && a.Not == nil {
		c.AdditionalProperties = wire(a) // a map's values (groups); "no other fields" is not sent
	}
	if s.Properties != nil {
		c.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = wire(v)
		}
	}
	for _, a := range s.AnyOf {
		c.AnyOf = append(c.AnyOf, wire(a))
	}
	return c
}
