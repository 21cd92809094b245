package tools

import (
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmuxmcp/tmuxmcp/cursor"
	"github.com/tmuxmcp/tmuxmcp/stream"
)

// PaneIDPattern is the pattern of a tmux pane id.
const PaneIDPattern = `^%\d+$`

// maxSafeInt is the largest integer a JSON number holds exactly.
const maxSafeInt = 9007199254740991

func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if required == nil {
		required = []string{}
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           props,
		Required:             required,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// outputObject is an object whose every property is required.
func outputObject(props map[string]*jsonschema.Schema) *jsonschema.Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	slices.Sort(req)
	return object(props, req...)
}

func str(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: desc}
}

func boolean(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "boolean", Description: desc}
}

func integer(desc string, min, max float64) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Description: desc, Minimum: &min, Maximum: &max}
}

func count(desc string) *jsonschema.Schema { return integer(desc, 0, maxSafeInt) }

func withDefault(s *jsonschema.Schema, v any) *jsonschema.Schema {
	b, _ := json.Marshal(v)
	s.Default = b
	return s
}

// serverNoteSchema is the serverNote field of results.
func serverNoteSchema() *jsonschema.Schema {
	return nullable(str("Once, after tmuxmcp restarted its own tmux server: why it ended, and that panes and cursors are new. On a job: its server ended while it ran."))
}

// sandboxSchema is a pane's sandbox field.
func sandboxSchema() *jsonschema.Schema {
	return enum("The pane's sandbox (--sandbox).",
		"read-only", "workspace", "unsandboxed")
}

func enum(desc string, vals ...string) *jsonschema.Schema {
	e := make([]any, len(vals))
	for i, v := range vals {
		e[i] = v
	}
	return &jsonschema.Schema{Type: "string", Description: desc, Enum: e}
}

// nullable makes s accept null too, written as anyOf for portability.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	desc := s.Description
	s.Description = ""
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}, Description: desc}
}

func paneID(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: PaneIDPattern, Description: desc}
}

func cursorSchema(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: cursor.Pattern, Description: desc}
}

func streamFailureSchema() *jsonschema.Schema {
	return nullable(terms("Why the live stream ended or lost output, or null while it stayed valid", stream.Failures(), failureMeans(), ""))
}
