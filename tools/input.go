package tools

import "github.com/google/jsonschema-go/jsonschema"

func inputOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"paneId":    paneID("The pane typed into."),
		"cursor":    cursorSchema("The stream position before the input: pass it to wait_for_text to catch the response, however fast it came."),
		"submitted": boolean("Enter, or another key that ends or discards the line being typed (C-m, C-j, C-c, C-d, C-u, Escape, M- keys), was sent."),
	})
}
