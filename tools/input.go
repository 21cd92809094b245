package tools

import "github.com/google/jsonschema-go/jsonschema"

func inputOutSchema() *jsonschema.Schema {
	return outputObject(map[string]*jsonschema.Schema{
		"paneId":    paneID("The pane typed into."),
		"cursor":    cursorSchema("The stream position before the input: pass it to wait_for_text to catch the response, however fast it came."),
		"submitted": boolean("Enter (C-m, C-j, KPEnter, or type_text's submit) was sent: a line was handed to the program. False for every other key, even one that ends or discards the line (C-c, C-u, C-d, Escape)."),
	})
}
