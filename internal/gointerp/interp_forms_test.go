package gointerp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFormsMeanWhatGoMeans is the differential test of the interpreter:
// every program in testdata/forms (assignments of every shape, selects,
// ranges, closures over loop variables, methods, generics, control flow)
// runs natively, built by the go tool as Go 1.26 code, and interpreted
// after ParseSource's rewrites, and the two outputs must be the same line
// for line. A form the interpreter gets wrong needs a rewrite or a refusal
// (interp_rewrite.go), never a change here.
func TestFormsMeanWhatGoMeans(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	if raceEnabled {
		// yaegi's closures write their frame back after each call
		// (interp/run.go, getFunc) while another goroutine's closure of
		// the same frame reads it: the race detector fails the test for a
		// race inside the interpreter. The comparison runs without -race.
		t.Skip("yaegi's closure frames race under the race detector")
	}
	files, err := filepath.Glob("testdata/forms/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no forms: %v", err)
	}
	native := nativeForms(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		t.Run(name, func(t *testing.T) {
			got := interpretForm(t, file)
			want, ok := native[name]
			if !ok {
				t.Fatalf("the native build printed nothing for %s", name)
			}
			if got != want {
				t.Errorf("interpreted output differs from native:\n%s", lineDiff(want, got))
			}
		})
	}
}

// TestRefusedForms checks the forms the interpreter cannot run faithfully:
// each file in testdata/forms/refused must be refused (by the rewrites or
// at load) at the line marked "// refused: <words of the message>".
func TestRefusedForms(t *testing.T) {
	files, err := filepath.Glob("testdata/forms/refused/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no refused forms: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".go"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			line, want := 0, ""
			for k, l := range strings.Split(string(text), "\n") {
				if _, after, ok := strings.Cut(l, "// refused: "); ok {
					line, want = k+1, after
				}
			}
			if line == 0 {
				t.Fatal("no // refused: marker")
			}
			src, diags := ParseSource(filepath.Base(file), string(text), nil)
			if diags == nil {
				i, err := NewInterpreter(InterpreterOptions{})
				if err != nil {
					t.Fatal(err)
				}
				diags = Eval(i, src)
			}
			if len(diags) == 0 {
				t.Fatalf("not refused; want a refusal at line %d containing %q", line, want)
			}
			if diags[0].Line != line || !strings.Contains(diags[0].Message, want) {
				t.Fatalf("refused with %s; want line %d containing %q", diags[0], line, want)
			}
			for _, d := range diags {
				if d.Line < 1 {
					t.Errorf("a refusal names no line: %s", d)
				}
			}
		})
	}
}

// interpretForm runs the form's Main in a sandbox interpreter.
func interpretForm(t *testing.T, file string) (out string) {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src, diags := ParseSource(filepath.Base(file), string(text), nil)
	if diags != nil {
		return fmt.Sprintf("refused: %v\n", diags)
	}
	// Stderr gets the interpreter's own lines about panics passing through
	// interpreted frames, recovered or not; the native side prints none.
	var buf bytes.Buffer
	i, err := NewInterpreter(InterpreterOptions{Stdout: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if diags := Eval(i, src); diags != nil {
		return fmt.Sprintf("does not load: %v\n", diags)
	}
	v, err := i.Eval(src.Package + ".Main")
	if err != nil {
		t.Fatal(err)
	}
	// A form the interpreter mis-runs may never end: give up on it (its
	// goroutine leaks, which is fine in a failing test).
	done := make(chan string, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("panic: %v\n", r)
			}
		}()
		v.Interface().(func())()
		done <- ""
	}()
	select {
	case tail := <-done:
		return buf.String() + tail
	case <-time.After(20 * time.Second):
		return "did not finish in 20 s; so far:\n" + buf.String()
	}
}

// nativeForms builds every form into one program (a package each, in a
// temporary directory inside this module) and returns each one's output.
func nativeForms(t *testing.T, files []string) map[string]string {
	dir, err := os.MkdirTemp(".", "formsnative")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var imports, calls strings.Builder
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, name+".go"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&imports, "\t%q\n", "github.com/faultline-dev/faultline/internal/gointerp/"+filepath.Base(dir)+"/"+name)
		fmt.Fprintf(&calls, "\trun(%q, %s.Main)\n", name, name)
	}
	main := "package main\n\nimport (\n\t\"fmt\"\n" + imports.String() + ")\n\n" +
		"func run(name string, f func()) {\n\tfmt.Println(\"=== \" + name)\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tfmt.Printf(\"panic: %v\\n\", r)\n\t\t}\n\t}()\n\tf()\n}\n\n" +
		"func main() {\n" + calls.String() + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "forms")
	if out, err := exec.Command("go", "build", "-o", bin, "./"+filepath.Base(dir)).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("native forms: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, part := range strings.Split(string(out), "=== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		got[name] = body
	}
	return got
}

// lineDiff shows the lines that differ, numbered.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for k := 0; k < len(w) || k < len(g); k++ {
		var wl, gl string
		if k < len(w) {
			wl = w[k]
		}
		if k < len(g) {
			gl = g[k]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  native:      %s\n  interpreted: %s\n", k+1, wl, gl)
		}
	}
	return b.String()
}
