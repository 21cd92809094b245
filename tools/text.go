package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/jsonschema-go/jsonschema"
)

// The text content of a result is its structured content as compact JSON
// with what says nothing left out, so an agent reading it pays only for
// what happened: `run_shell_command true` is about 180 bytes instead of
// 530. structuredContent keeps every field. The rule, which docs/tools.md
// and the server instructions state:
//
//   - A field that is null, false, 0, "" or an empty array or object is
//     left out of the text, unless the field is nullable (exitCode 0,
//     ready false: there absence means null, so the zero is kept) or its
//     zero is itself the answer (zeroAnswers: cursorX 0, panes []).
//   - A field at its usual value (usual: host local, decision
//     auto-approved, launchOutcome STARTED, outputFileComplete true) is
//     left out.

// zeroAnswers are fields whose zero is itself the answer: a position, or
// the list a tool was called for.
var zeroAnswers = map[string]bool{"cursorX": true, "cursorY": true, "windowIndex": true, "panes": true, "commands": true}

// usual are fields left out of the text at the value they nearly always
// have, as JSON.
var usual = map[string]string{
	"host":               `"local"`,
	"decision":           `"auto-approved"`,
	"launchOutcome":      `"STARTED"`,
	"outputFileComplete": `true`,
	"ingest":             `"pipe"`,
}

// leanText is the text content of a result: b (its JSON) without the
// fields the rule above leaves out, in the same order, compact and
// without HTML escaping. schema is the result's output schema, which says
// which fields are nullable.
func leanText(b []byte, schema *jsonschema.Schema) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	if _, err := leanValue(dec, schema, &out); err != nil {
		return nil, fmt.Errorf("lean text: %w", err)
	}
	return out.Bytes(), nil
}

// leanValue copies the next JSON value from dec to out, leaning its
// objects, and says whether it is a zero (null, false, 0, "", [] or {}).
func leanValue(dec *json.Decoder, schema *jsonschema.Schema, out *bytes.Buffer) (zero bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return leanObject(dec, schema, out)
		}
		return leanArray(dec, schema, out)
	case nil:
		out.WriteString("null")
		return true, nil
	case bool:
		fmt.Fprint(out, t)
		return !t, nil
	case json.Number:
		out.WriteString(t.String())
		f, err := t.Float64()
		return err == nil && f == 0, nil
	case string:
		s, err := marshal(t)
		out.Write(s)
		return t == "", err
	}
	return false, fmt.Errorf("unexpected token %v", tok)
}

func leanObject(dec *json.Decoder, schema *jsonschema.Schema, out *bytes.Buffer) (bool, error) {
	type member struct {
		key   string
		value []byte
		zero  bool
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		key, _ := tok.(string)
		var v bytes.Buffer
		zero, err := leanValue(dec, property(schema, key), &v)
		if err != nil {
			return false, err
		}
		members = append(members, member{key, v.Bytes(), zero})
	}
	if _, err := dec.Token(); err != nil { // }
		return false, err
	}
	out.WriteByte('{')
	n := 0
	for _, m := range members {
		switch {
		case m.zero && !zeroAnswers[m.key] && !(acceptsNull(property(schema, m.key)) && string(m.value) != "null"):
			continue
		case usual[m.key] == string(m.value):
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		k, _ := marshal(m.key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(m.value)
		n++
	}
	out.WriteByte('}')
	return n == 0, nil
}

func leanArray(dec *json.Decoder, schema *jsonschema.Schema, out *bytes.Buffer) (bool, error) {
	var items *jsonschema.Schema
	if s := nonNull(schema); s != nil {
		items = s.Items
	}
	out.WriteByte('[')
	n := 0
	for dec.More() {
		if n > 0 {
			out.WriteByte(',')
		}
		if _, err := leanValue(dec, items, out); err != nil {
			return false, err
		}
		n++
	}
	if _, err := dec.Token(); err != nil && err != io.EOF { // ]
		return false, err
	}
	out.WriteByte(']')
	return n == 0, nil
}

// property is the schema of an object's field key (nil when unknown).
func property(s *jsonschema.Schema, key string) *jsonschema.Schema {
	if s = nonNull(s); s == nil {
		return nil
	}
	return s.Properties[key]
}

// nonNull is s, or the non-null branch of a nullable s.
func nonNull(s *jsonschema.Schema) *jsonschema.Schema {
	if s != nil && len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" {
		return s.AnyOf[0]
	}
	return s
}

// acceptsNull says whether s accepts null.
func acceptsNull(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	for _, a := range s.AnyOf {
		if a.Type == "null" {
			return true
		}
	}
	for _, t := range s.Types {
		if t == "null" {
			return true
		}
	}
	return false
}
