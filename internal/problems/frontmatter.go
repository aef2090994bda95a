package problems

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// tagsFront is the tags block of the front matter.
type tagsFront struct {
	Topics    []string `yaml:"topics"`
	Companies []string `yaml:"companies"`
	Roles     []string `yaml:"roles"`
}

// commonFront holds the keys every kind of content file accepts.
type commonFront struct {
	Slug    string    `yaml:"slug"`
	Title   string    `yaml:"title"`
	Summary string    `yaml:"summary"`
	Minutes int       `yaml:"minutes"`
	Tags    tagsFront `yaml:"tags"`
	Source  string    `yaml:"source"`
	// InterviewOnly keeps the item for live screens: see Catalog.Public.
	InterviewOnly bool `yaml:"interview_only"`
}

// codeFront is the code block of a problem's front matter.
type codeFront struct {
	Language  string `yaml:"language"`
	Starter   string `yaml:"starter"`
	Reference string `yaml:"reference"`
	Kit       string `yaml:"kit"`
	// Grader is the old spelling of kit, still read so content written
	// before kits keeps loading.
	Grader    string `yaml:"grader"`
	Scenarios string `yaml:"scenarios"`
	// PythonStarter and PythonReference are the same problem answered in
	// Python, for a kit with a Python API: both or neither.
	PythonStarter   string `yaml:"python_starter"`
	PythonReference string `yaml:"python_reference"`
}

type problemFront struct {
	commonFront `yaml:",inline"`
	Difficulty  string     `yaml:"difficulty"`
	TimedAnswer string     `yaml:"timed_answer"`
	Code        *codeFront `yaml:"code"`
}

type setFront struct {
	commonFront `yaml:",inline"`
}

type screenItemFront struct {
	Problem   string `yaml:"problem"`
	Questions string `yaml:"questions"`
	Minutes   int    `yaml:"minutes"`
	Note      string `yaml:"note"`
}

type screenFront struct {
	commonFront `yaml:",inline"`
	Items       []screenItemFront `yaml:"items"`
}

// contentFile is one Markdown file split into its front matter and body,
// with what is needed to turn offsets and YAML lines into file lines.
type contentFile struct {
	path string // relative to the content root
	src  []byte // the whole file, with CRLF normalised to LF

	front          []byte    // the YAML between the --- lines
	frontStartLine int       // file line of the first YAML line
	openLine       int       // file line of the opening ---
	root           yaml.Node // the parsed YAML, for key lines; zero when it did not parse
	frontOK        bool      // the YAML parsed (it may still have type errors)

	body          []byte
	bodyStartLine int // file line of the first body line
}

// splitFrontMatter separates the front matter from the body. A file with no
// front matter, or one whose front matter is never closed, gets a diagnostic
// and is not looked at further: without the closing line, where the body
// starts is a guess.
func splitFrontMatter(path string, src []byte, ds *diagnostics) (*contentFile, bool) {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	f := &contentFile{path: path, src: src, openLine: 1}

	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) == 0 || !isFenceLine(lines[0], "---") {
		ds.add(path, 1, "missing front matter: the file must start with a --- line, then YAML (slug, title, ...), then a closing --- line")
		return nil, false
	}
	offset := len(lines[0])
	for i := 1; i < len(lines); i++ {
		if isFenceLine(lines[i], "---") || isFenceLine(lines[i], "...") {
			f.front = src[len(lines[0]):offset]
			f.frontStartLine = 2
			f.body = src[offset+len(lines[i]):]
			f.bodyStartLine = i + 2
			return f, true
		}
		offset += len(lines[i])
	}
	ds.add(path, 1, "front matter is not closed: add a --- line after the YAML")
	return nil, false
}

func isFenceLine(line []byte, fence string) bool {
	return string(bytes.TrimRight(line, " \t\n")) == fence
}

// yamlContextErrors are yaml.v3 parser errors whose reported line is the
// 0-based line of the enclosing collection (a quirk of its error report),
// so one line too early for a file line.
var yamlContextErrors = map[string]bool{
	"did not find expected ',' or ']'":    true,
	"did not find expected ',' or '}'":    true,
	"did not find expected key":           true,
	"did not find expected '-' indicator": true,
}

var (
	yamlLineMessage = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknownKey  = regexp.MustCompile(`^field (\S+) not found in type .*$`)
)

// decodeFront decodes the front matter strictly into out: unknown keys are
// errors, since a misspelt key would otherwise be ignored without a word.
// Every YAML error becomes a diagnostic on its file line.
func (f *contentFile) decodeFront(out any, ds *diagnostics) {
	if err := yaml.Unmarshal(f.front, &f.root); err != nil {
		f.yamlDiagnostics(err, ds)
		return
	}
	f.frontOK = true
	if len(bytes.TrimSpace(f.front)) == 0 {
		return
	}
	if f.root.Kind == yaml.DocumentNode && len(f.root.Content) == 1 && f.root.Content[0].Kind != yaml.MappingNode {
		ds.add(f.path, f.yamlLine(f.root.Content[0].Line), "front matter must be YAML keys and values (slug: ..., title: ...)")
		f.frontOK = false
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(f.front))
	dec.KnownFields(true)
	if err := dec.Decode(out); err != nil && !errors.Is(err, io.EOF) {
		f.yamlDiagnostics(err, ds)
	}
}

func (f *contentFile) yamlDiagnostics(err error, ds *diagnostics) {
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) {
		for _, msg := range typeErr.Errors {
			f.yamlMessage(msg, ds)
		}
		return
	}
	f.yamlMessage(err.Error(), ds)
}

func (f *contentFile) yamlMessage(msg string, ds *diagnostics) {
	m := yamlLineMessage.FindStringSubmatch(msg)
	if m == nil {
		ds.add(f.path, f.openLine, "front matter: %s", strings.TrimPrefix(msg, "yaml: "))
		return
	}
	line, _ := strconv.Atoi(m[1])
	text := m[2]
	if yamlContextErrors[text] {
		line++
	}
	if k := yamlUnknownKey.FindStringSubmatch(text); k != nil {
		ds.add(f.path, f.yamlLine(line), "front matter: unknown key %q", k[1])
		return
	}
	ds.add(f.path, f.yamlLine(line), "front matter: %s", text)
}

// yamlLine turns a line of the YAML text into a line of the file.
func (f *contentFile) yamlLine(line int) int {
	if line <= 0 {
		return f.openLine
	}
	return f.frontStartLine + line - 1
}

// mapping returns the top-level mapping of the front matter, or nil.
func (f *contentFile) mapping() *yaml.Node {
	if !f.frontOK || len(f.root.Content) == 0 || f.root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return f.root.Content[0]
}

// valueNode finds the value at a path of keys, or nil.
func valueNode(n *yaml.Node, keys ...string) *yaml.Node {
	_, value := lookup(n, keys...)
	return value
}

// lookup follows a path of keys. It returns the deepest key node found on
// the way and, when the whole path exists, its value.
func lookup(n *yaml.Node, keys ...string) (deepestKey, value *yaml.Node) {
	for _, key := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return deepestKey, nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				deepestKey, next = n.Content[i], n.Content[i+1]
				break
			}
		}
		if next == nil {
			return deepestKey, nil
		}
		n = next
	}
	return deepestKey, n
}

// keyLine is the file line of the key at a path of keys. When the key is
// absent it is the line of the closest enclosing key (code: for a missing
// code.reference), or the opening --- line for a missing top-level key.
func (f *contentFile) keyLine(keys ...string) int {
	if key, _ := lookup(f.mapping(), keys...); key != nil {
		return f.yamlLine(key.Line)
	}
	return f.openLine
}

// itemLine is the file line of element i of the sequence at key.
func (f *contentFile) itemLine(key string, i int) int {
	seq := valueNode(f.mapping(), key)
	if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
		return f.keyLine(key)
	}
	return f.yamlLine(seq.Content[i].Line)
}

// itemKeyLine is the file line of a key inside element i of the sequence at
// key, falling back to the element's line.
func (f *contentFile) itemKeyLine(key string, i int, field string) int {
	seq := valueNode(f.mapping(), key)
	if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
		return f.keyLine(key)
	}
	if n := valueNode(seq.Content[i], field); n != nil {
		return f.yamlLine(n.Line)
	}
	return f.yamlLine(seq.Content[i].Line)
}
