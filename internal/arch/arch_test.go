package arch

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// maxLines is the most lines a function may take, from its func keyword
// to its closing brace.
const maxLines = 100

// tmuxCommands are the tmux command names only package tmux may write.
var tmuxCommands = []string{
	"send-keys", "capture-pane", "display-message", "list-panes", "list-windows", "list-sessions",
	"list-clients", "kill-pane", "kill-server", "kill-session", "new-session", "new-window",
	"split-window", "select-pane", "set-option", "show-options", "display-popup", "paste-buffer",
	"set-buffer", "load-buffer", "delete-buffer", "wait-for", "resize-pane", "respawn-pane",
	"pipe-pane", "refresh-client", "has-session",
}

// speakers are the directories whose source may speak tmux's command
// language: the tmux room itself, and the harnesses that drive tmux as a
// user would (tests, the benchmark).
var speakers = []string{"tmux", "cmd/tmuxbench", "internal/tmuxtest", "internal/sshtest", "internal/bench"}

// module is the module's Go source, parsed.
type module struct {
	root  string // the directory of go.mod
	path  string // the module path
	fset  *token.FileSet
	files []*file
}

// file is one parsed Go file.
type file struct {
	rel  string // slash-separated, relative to the module root
	dir  string // rel's directory: the package, "." at the root
	test bool   // a _test.go file
	ast  *ast.File
}

// loadModule parses the module that holds this test once for all tests.
var loadModule = sync.OnceValues(func() (*module, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return nil, err
	}
	m := &module{root: root, fset: token.NewFileSet()}
	if m.path, err = modulePath(filepath.Join(root, "go.mod")); err != nil {
		return nil, err
	}
	return m, filepath.WalkDir(root, m.visit)
})

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", fmt.Errorf("read module path: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", gomod)
}

// visit parses one Go file of the walk, skipping what the go tool skips
// (testdata, vendor, hidden and _ directories) and nested modules.
func (m *module) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return err
	}
	name := d.Name()
	if d.IsDir() {
		if p == m.root {
			return nil
		}
		if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
			return filepath.SkipDir
		}
		return nil
	}
	if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return nil
	}
	f, err := parser.ParseFile(m.fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	rel, err := filepath.Rel(m.root, p)
	if err != nil {
		return fmt.Errorf("relative path of %s: %w", p, err)
	}
	rel = filepath.ToSlash(rel)
	m.files = append(m.files, &file{rel: rel, dir: path.Dir(rel), test: strings.HasSuffix(name, "_test.go"), ast: f})
	return nil
}

// mustLoad is the module, or the test's end.
func mustLoad(t *testing.T) *module {
	t.Helper()
	m, err := loadModule()
	if err != nil {
		t.Fatalf("load the module's source: %v", err)
	}
	if len(m.files) == 0 {
		t.Fatalf("no Go files under %s", m.root)
	}
	return m
}

// under reports whether the slash path rel is dir or inside it.
func under(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// funcName is a function's name as a reader finds it: Type.Method for a
// method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

func TestNoFunctionIsOverAHundredLines(t *testing.T) {
	m := mustLoad(t)
	var long []string
	for _, f := range m.files {
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start := m.fset.Position(fn.Type.Func).Line
			n := m.fset.Position(fn.Body.Rbrace).Line - start + 1
			if n > maxLines {
				long = append(long, fmt.Sprintf("%s:%d %s %d", f.rel, start, funcName(fn), n))
			}
		}
	}
	if len(long) > 0 {
		t.Errorf("%d functions are over %d lines (file:line name lines); a long one is a type waiting to be named:\n\t%s",
			len(long), maxLines, strings.Join(long, "\n\t"))
	}
}

// speaksTmux says what in the string literal s is tmux's command
// language: a #{} format or a command name ("" when nothing is).
func speaksTmux(s string) string {
	switch {
	case strings.Contains(s, "#{"):
		return "a #{} format"
	case slices.Contains(tmuxCommands, s):
		return "a tmux command name"
	}
	return ""
}

func TestOnlyTmuxSpeaksTmux(t *testing.T) {
	m := mustLoad(t)
	var found []string
	for _, f := range m.files {
		if f.test || slices.ContainsFunc(speakers, func(d string) bool { return under(f.rel, d) }) {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s:%d: unquote %s: %v", f.rel, m.fset.Position(lit.Pos()).Line, lit.Value, err)
				return true
			}
			if what := speaksTmux(s); what != "" {
				found = append(found, fmt.Sprintf("%s:%d %s (%s)", f.rel, m.fset.Position(lit.Pos()).Line, lit.Value, what))
			}
			return true
		})
	}
	if len(found) > 0 {
		t.Errorf("%d string literals outside package tmux speak tmux's command language; call a typed method of tmux.Fleet or tmux.Target instead (add one in tmux/):\n\t%s",
			len(found), strings.Join(found, "\n\t"))
	}
}

// knowsNothing finds the sentences of a package doc that say what the
// package must not know: "It knows nothing of MCP, tools or approval."
// The list runs to the first '.', ':' or ';'.
var knowsNothing = regexp.MustCompile(`knows\s+nothing\s+of\s+([^.:;]*)`)

// aside is a parenthesised aside inside such a list: "streams (output
// buffers)" names streams.
var aside = regexp.MustCompile(`\([^)]*\)`)

// listSeparator separates the words of such a list.
var listSeparator = regexp.MustCompile(`\s*,\s*|\s+(?:or|and|nor)\s+`)

// unknownWords reads what a package doc says the package knows nothing
// of: the words, in order, as written.
func unknownWords(doc string) []string {
	var words []string
	for _, m := range knowsNothing.FindAllStringSubmatch(doc, -1) {
		list := strings.Join(strings.Fields(aside.ReplaceAllString(m[1], " ")), " ")
		for _, w := range listSeparator.Split(list, -1) {
			w = strings.TrimPrefix(w, "of ")
			w = strings.TrimPrefix(w, "the ")
			if w = strings.TrimSpace(w); w != "" {
				words = append(words, w)
			}
		}
	}
	return words
}

// vocabulary maps a word a package doc may say it knows nothing of to the
// import path (and the paths under it) that knowing it takes. Paths that
// start with "/" are the module's own packages.
var vocabulary = map[string]string{
	"mcp": "github.com/modelcontextprotocol/go-sdk", "http": "net/http", "json": "encoding/json",
	"tmux": "/tmux", "tools": "/tools", "approval": "/approval", "policy": "/policy", "policies": "/policy",
	"jobs": "/jobs", "runner": "/runner", "stream": "/stream", "streams": "/stream",
	"shell": "/shell", "shells": "/shell", "audit": "/audit", "host": "/host", "hosts": "/host",
	"engine": "/engine", "cursor": "/cursor", "cursors": "/cursor", "input": "/input",
	"machine": "/machine", "machines": "/machine",
}

// forbidden is the import path word names for module mod, or "".
func forbidden(mod, word string) string {
	p := vocabulary[strings.ToLower(word)]
	if strings.HasPrefix(p, "/") {
		return mod + p
	}
	return p
}

func TestKnowsNothingSentencesAreRead(t *testing.T) {
	for doc, want := range map[string][]string{
		"It knows nothing of MCP, tools or approval.":                          {"MCP", "tools", "approval"},
		"It knows\nnothing of tmux or MCP.":                                    {"tmux", "MCP"},
		"It knows nothing of tmux or of the tools: it moves messages.":         {"tmux", "tools"},
		"It knows nothing of MCP, cursors or streams (output buffers): bytes.": {"MCP", "cursors", "streams"},
		"It knows nothing of tmux (its protocol), MCP or JSON; more.":          {"tmux", "MCP", "JSON"},
		"It knows nothing of MCP or\napproval: tools/ decides.":                {"MCP", "approval"},
		"It knows all of tmux.":                                                nil,
	} {
		if got := unknownWords(doc); !slices.Equal(got, want) {
			t.Errorf("%q: read %q, want %q", doc, got, want)
		}
	}
}

// room is one package: its doc and its imports, test files aside.
type room struct {
	doc     string
	imports map[string]bool
}

// rooms gathers every package of m by directory.
func rooms(m *module) map[string]*room {
	rs := map[string]*room{}
	for _, f := range m.files {
		if f.test {
			continue
		}
		r := rs[f.dir]
		if r == nil {
			r = &room{imports: map[string]bool{}}
			rs[f.dir] = r
		}
		if f.ast.Doc != nil {
			r.doc += f.ast.Doc.Text() + "\n"
		}
		for _, imp := range f.ast.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err == nil {
				r.imports[p] = true
			}
		}
	}
	return rs
}

func TestEachRoomImportsNothingItSaysItDoesNotKnow(t *testing.T) {
	m := mustLoad(t)
	claims := 0
	rs := rooms(m)
	for _, dir := range slices.Sorted(maps.Keys(rs)) {
		for _, w := range unknownWords(rs[dir].doc) {
			claims++
			p := forbidden(m.path, w)
			if p == "" {
				t.Errorf("%s: its doc says it knows nothing of %q, a word the vocabulary does not know: use one it knows (a room's name, MCP, HTTP, JSON) or add it to vocabulary", dir, w)
				continue
			}
			for _, imp := range slices.Sorted(maps.Keys(rs[dir].imports)) {
				if imp == p || strings.HasPrefix(imp, p+"/") {
					t.Errorf("%s: its doc says it knows nothing of %s, but it imports %s", dir, w, imp)
				}
			}
		}
	}
	if claims == 0 {
		t.Fatal(`no package doc says "It knows nothing of ...": the docs or the sentence pattern changed`)
	}
}
