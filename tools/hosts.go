package tools

import (
	"maps"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostSchema is the host argument every tool takes (list_panes' shows it).
func hostSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: ptr(1), Description: "The pane's host: local (default) or a --host name."}
}

// everyHostSchema is the host argument of a tool that lists every host's.
func everyHostSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", MinLength: ptr(1), Description: "Only this host's (local or a --host name). Default: every host."}
}

// withHost is tool with the host argument added to its input schema,
// unless it has its own.
func withHost(tool *mcp.Tool) *mcp.Tool {
	c := *tool
	in := *tool.InputSchema.(*jsonschema.Schema)
	if in.Properties["host"] != nil {
		return tool
	}
	props := make(map[string]*jsonschema.Schema, len(in.Properties)+1)
	for k, v := range in.Properties {
		props[k] = v
	}
	props["host"] = hostSchema()
	in.Properties = props
	c.InputSchema = &in
	return &c
}

// withoutHost is tool as served when no other host is configured: the
// host argument (still accepted) is not advertised.
func withoutHost(tool *mcp.Tool) *mcp.Tool {
	in, ok := tool.InputSchema.(*jsonschema.Schema)
	if !ok || in.Properties["host"] == nil {
		return tool
	}
	c := *tool
	cp := *in
	cp.Properties = maps.Clone(in.Properties)
	delete(cp.Properties, "host")
	c.InputSchema = &cp
	return &c
}

func hostErrorsSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: "Hosts that could not answer, when no host was given (empty when every host answered).", Items: outputObject(map[string]*jsonschema.Schema{
		"host":  str("The host's name."),
		"error": str("Why it could not answer (ssh's own message when the link is down)."),
	})}
}
