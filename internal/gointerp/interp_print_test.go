package gointerp

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestPrintBuiltins runs testdata/printbuiltins natively and interpreted
// and compares what the builtins print and println wrote (to stderr
// natively, to the interpreter's stdout interpreted).
func TestPrintBuiltins(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	const file = "testdata/printbuiltins/main.go"
	want, err := exec.Command("go", "run", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, want)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src, diags := ParseSource("main.go", string(text), nil)
	if diags != nil {
		t.Fatalf("refused: %v", diags)
	}
	var got bytes.Buffer
	i, err := NewInterpreter(InterpreterOptions{Stdout: &got, Stderr: &got})
	if err != nil {
		t.Fatal(err)
	}
	if diags := Eval(i, src); diags != nil {
		t.Fatalf("does not run: %v", diags)
	}
	if got.String() != string(want) {
		t.Errorf("interpreted output differs from native:\n%s", lineDiff(string(want), got.String()))
	}
}
