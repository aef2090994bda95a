package scenariofile

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestErrorsNameFileAndLine(t *testing.T) {
	doc := "scenarios:\n  - name: a\n    calls: [1, 2]\n  - name: b\n    budget: nope\n"
	var into struct {
		Scenarios []struct {
			Name   string
			Calls  []int
			Budget int
		}
	}
	err := Error("s.yaml", yaml.Unmarshal([]byte(doc), &into))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:5: ") {
		t.Fatalf("decoding error %v; want it at s.yaml:5", err)
	}
	if err := Error("s.yaml", yaml.Unmarshal([]byte("a: [\n"), &into)); err == nil || !strings.HasPrefix(err.Error(), "s.yaml:") {
		t.Fatalf("syntax error %v; want it to name the file", err)
	}

	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	l := &Linter{File: "s.yaml", Root: &root}
	tests := []struct {
		path []any
		want int
	}{
		{[]any{"scenarios", 1, "budget"}, 5},
		{[]any{"scenarios", 0, "calls", 1}, 3},
		{[]any{"scenarios", 1, "missing"}, 4}, // what holds the missing key
		{[]any{"scenarios", 7}, 2},            // past the end: the sequence
	}
	for _, tt := range tests {
		if got := l.Line(tt.path...); got != tt.want {
			t.Errorf("Line(%v) = %d; want %d", tt.path, got, tt.want)
		}
	}
	l.Errf(l.Line("scenarios", 1, "budget"), "budget %q is not a duration", "nope")
	if len(l.Errs) != 1 || l.Errs[0].Error() != `s.yaml:5: budget "nope" is not a duration` {
		t.Errorf("Errs = %v", l.Errs)
	}
}

func TestDecodeRefusesUnknownKeysAtTheirLine(t *testing.T) {
	var into struct{ Kit string }
	if _, err := Decode("s.yaml", []byte("kit: refund\nkits: x\n"), &into); err == nil || !strings.Contains(err.Error(), "s.yaml:2: ") {
		t.Fatalf("Decode of an unknown key: %v; want an error at s.yaml:2", err)
	}
	l, err := Decode("s.yaml", []byte("kit: refund\n"), &into)
	if err != nil || into.Kit != "refund" || l.Line("kit") != 1 {
		t.Fatalf("Decode = %v, %q, line %d; want no error, refund, line 1", err, into.Kit, l.Line("kit"))
	}
}
