// Package scenariofile is what every kit's scenarios file shares: YAML
// whose every error names the file and the line, whether the decoder found
// it or the kit's own checks did (with lines from the node tree).
package scenariofile

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Decode decodes data into v, refusing keys v does not declare, and
// returns a Linter over the same document for the kit's own checks.
func Decode(file string, data []byte, v any) (*Linter, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return nil, Error(file, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Error(file, err)
	}
	return &Linter{File: file, Root: &root}, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// Error restates a yaml decoding error as file:line: message, one per
// problem the decoder found.
func Error(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var errs []error
		for _, m := range te.Errors {
			errs = append(errs, lineError(file, m))
		}
		return errors.Join(errs...)
	}
	return lineError(file, strings.TrimPrefix(err.Error(), "yaml: "))
}

func lineError(file, msg string) error {
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		rest := msg[:m[0]] + msg[m[1]:]
		return fmt.Errorf("%s:%d: %s", file, n, strings.TrimPrefix(rest, "yaml: "))
	}
	return fmt.Errorf("%s: %s", file, msg)
}

// Linter collects a kit's checks of what the decoder cannot check, each at
// the line of what is wrong.
type Linter struct {
	File string
	Root *yaml.Node // the decoded document
	Errs []error
}

// Errf records a problem at line.
func (l *Linter) Errf(line int, format string, args ...any) {
	l.Errs = append(l.Errs, fmt.Errorf("%s:%d: %s", l.File, line, fmt.Sprintf(format, args...)))
}

// Node walks from the document along keys (strings) and indexes (ints);
// it returns the deepest node it reached, so a missing key is reported at
// the line of what holds it.
func (l *Linter) Node(path ...any) *yaml.Node {
	n := l.Root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return n
			}
			found := false
			for k := 0; k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == p {
					n, found = n.Content[k+1], true
					break
				}
			}
			if !found {
				return n
			}
		case int:
			if n.Kind != yaml.SequenceNode || p >= len(n.Content) {
				return n
			}
			n = n.Content[p]
		}
	}
	return n
}

// Line is the line of Node(path...).
func (l *Linter) Line(path ...any) int { return l.Node(path...).Line }
