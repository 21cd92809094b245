package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A plain command's result costs an agent about 190 bytes, not 530: the
// text leaves out what is null, false, 0 or usual, but keeps exitCode 0
// (a success, not "unknown"), and < > & read as printed. structuredContent
// still has every field, and validates against the output schema the
// client got from tools/list.
func TestAPlainCommandsTextIsLeanAndItsStructuredContentWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	schema := listedOutputSchema(t, e, "run_shell_command")
	for _, args := range []map[string]any{
		{"paneId": pane, "command": "true"},
		{"command": "true"}, // a fresh pane
	} {
		r := e.runCmd(t, args)
		t.Logf("%d bytes: %s", len(r.Text), r.Text)
		if len(r.Text) > 200 {
			t.Errorf("%v: the text is %d bytes, over 200: %s", args, len(r.Text), r.Text)
		}
		for _, want := range []string{`"status":"completed"`, `"exitCode":0`, `"jobId":"` + r.Str("jobId") + `"`, `"cursor":"`} {
			mustContain(t, "the text", r.Text, want)
		}
		for _, noise := range []string{"null", "false", `"output":""`, `"missedBytes"`, `"host":"local"`} {
			if strings.Contains(r.Text, noise) {
				t.Errorf("%v: the text has %s: %s", args, noise, r.Text)
			}
		}
		wholeAndValid(t, r, schema)
	}
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": `printf '%s\n' 'a<b>&c' >&2`})
	mustContain(t, "the text", r.Text, `"output":"a<b>&c\n"`)
	wholeAndValid(t, r, schema)
}

// While a job runs, its text says so with what an agent needs to go on:
// the cursor for await_command_result, and no exitCode.
func TestARunningJobsTextHasItsCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pane, _ := e.shell(t)
	r := e.runCmd(t, map[string]any{"paneId": pane, "command": "sleep 30", "background": true})
	t.Cleanup(func() { e.call(t, "cancel_command", map[string]any{"jobId": r.Str("jobId")}) })
	mustContain(t, "the text", r.Text, `"status":"running"`)
	mustContain(t, "the text", r.Text, `"cursor":"`+r.Str("cursor")+`"`)
	if strings.Contains(r.Text, "exitCode") {
		t.Errorf("a running job's text has an exitCode: %s", r.Text)
	}
	wholeAndValid(t, r, listedOutputSchema(t, e, "run_shell_command"))
}

// listedOutputSchema is a tool's output schema as tools/list gave it.
func listedOutputSchema(t *testing.T, e *env, name string) *jsonschema.Resolved {
	t.Helper()
	list, err := e.cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name != name {
			continue
		}
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Fatalf("tools/list has no %s", name)
	return nil
}

// wholeAndValid fails unless r's structured content has every field of
// a job result and validates against schema.
func wholeAndValid(t *testing.T, r result, schema *jsonschema.Resolved) {
	t.Helper()
	for k := range jobOutSchema().Properties {
		if _, ok := r.M[k]; !ok {
			t.Errorf("structuredContent has no %s: %v", k, r)
		}
	}
	if err := schema.Validate(r.M); err != nil {
		t.Errorf("structuredContent does not validate against the listed schema: %v: %v", err, r)
	}
}

// The rule, field by field: nullable zeros stay (absence there means
// null), places stay at 0, usual values go, nested objects are leaned too, order is kept and nothing
// is HTML-escaped.
func TestLeanTextKeepsTheZerosThatAnswer(t *testing.T) {
	schema := object(map[string]*jsonschema.Schema{
		"status":      str(""),
		"exitCode":    nullable(count("")),
		"ready":       nullable(boolean("")),
		"signal":      nullable(str("")),
		"cursorX":     count(""),
		"missedBytes": count(""),
		"output":      str(""),
		"host":        str(""),
		"done":        boolean(""),
		"panes":       {Type: "array", Items: object(map[string]*jsonschema.Schema{"dead": boolean(""), "deadStatus": nullable(count("")), "paneId": str("")})},
		"hostErrors":  {Type: "array", Items: str("")},
	})
	for _, c := range []struct{ in, want string }{
		{`{"status":"completed","exitCode":0,"ready":false,"signal":null,"cursorX":0,"missedBytes":0,"output":"","host":"local","done":false}`,
			`{"status":"completed","exitCode":0,"ready":false,"cursorX":0}`},
		{`{"status":"running","exitCode":null,"output":"<a>&b","host":"box","done":true}`,
			`{"status":"running","output":"<a>&b","host":"box","done":true}`},
		{`{"panes":[{"paneId":"%1","dead":false,"deadStatus":null},{"paneId":"%2","dead":true,"deadStatus":0}],"hostErrors":[]}`,
			`{"panes":[{"paneId":"%1"},{"paneId":"%2","dead":true,"deadStatus":0}]}`},
		{`{"missedBytes":12,"output":"x\ty\u001b"}`, `{"missedBytes":12,"output":"x\ty\u001b"}`},
	} {
		got, err := leanText([]byte(c.in), schema)
		if err != nil || string(got) != c.want {
			t.Errorf("leanText(%s)\n = %s, %v\nwant %s", c.in, got, err, c.want)
		}
	}
}
