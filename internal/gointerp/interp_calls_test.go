package gointerp

import (
	"regexp"
	"strings"
	"testing"
)

// TestCallRewrites checks what interp_calls.go rewrites and what it leaves
// as written; testdata/forms (receivers.go, returns.go, stringers.go)
// checks that the rewritten programs still mean what Go says.
func TestCallRewrites(t *testing.T) {
	const head = "package p\n\nimport \"fmt\"\n\ntype T struct{ n int }\n\nfunc (t *T) inc(k int) int { t.n += k; return t.n }\n\nfunc (t T) get() int { return t.n }\n\nfunc (t *T) pair() (int, int) { return t.n, 1 }\n\n"
	tests := []struct {
		name, body string
		want, not  []string
	}{
		{"receiver call", "func (t *T) twice() int { t.inc(1); return t.inc(1) }",
			[]string{"faultlineTmpM_T_inc(t, 1); return faultlineTmpM_T_inc(t, 1)", "func faultlineTmpM_T_twice(t *T, ) int"}, nil},
		{"value method on a pointer copies", "func (t *T) v() int { return t.get() }",
			[]string{"faultlineTmpM_T_get(*t, )"}, nil},
		{"pointer method on a value takes its address", "func (t T) p() int { return t.inc(1) }",
			[]string{"faultlineTmpM_T_inc(&t, 1)"}, nil},
		{"composite literal", "func F() int { x := &T{}; return x.inc(2) }",
			[]string{"faultlineTmpM_T_inc(x, 2)"}, nil},
		{"var with a type", "func F() int { var x T; return x.get() }",
			[]string{"faultlineTmpM_T_get(x, )"}, nil},
		{"a shadowing name is not the receiver", "func (t *T) s() int { { t := struct{ inc func(int) int }{}; _ = t }; return 0 }\nfunc G(t interface{ inc(int) int }) int { return t.inc(1) }",
			[]string{"return t.inc(1)"}, nil},
		{"defer and go stay method calls", "func (t *T) d() { defer t.inc(1); go t.inc(2) }",
			[]string{"defer t.inc(1)", "go t.inc(2)"}, nil},
		{"a sole call argument may give several values", "func (t *T) m() int { return t.sum(t.pair()) }\nfunc (t *T) sum(a, b int) int { return a + b }",
			[]string{"t.sum(faultlineTmpM_T_pair(t, ))"}, []string{"faultlineTmpM_T_sum(t, "}},
		{"forwarding methods keep the method set", "",
			[]string{"func (faultlineTmp", ") inc(faultlineTmp", " int) int { return faultlineTmpM_T_inc(faultlineTmp"}, nil},
		{"a builtin among returned values", "func R(s []int) (int, int) { return 1, len(s) }",
			[]string{"return 1, (len(s))"}, nil},
		{"a call's result passed to fmt", "func P(t *T) { fmt.Println(t.get(), fmt.Sprint(t.pair())) }",
			[]string{"fmt.Println((faultlineTmpM_T_get(*t, ))"}, []string{"fmt.Sprint((faultlineTmpM_T_pair"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, diags := ParseSource("p.go", head+tt.body+"\n", nil)
			if diags != nil {
				t.Fatal(diags)
			}
			for _, w := range tt.want {
				if !strings.Contains(src.Text, w) {
					t.Errorf("rewritten source lacks %q:\n%s", w, src.Text)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(src.Text, n) {
					t.Errorf("rewritten source has %q:\n%s", n, src.Text)
				}
			}
			if got, want := strings.Count(src.Text[:strings.LastIndex(src.Text, "\n\nfunc (faultlineTmp")], "\n"), strings.Count(head+tt.body, "\n"); got != want {
				t.Errorf("the rewrite moved lines: %d lines before the forwarders, want %d", got, want)
			}
		})
	}
}

// TestDiagnosticsKeepColumns: the interpreter's messages about rewritten
// lines give the column as submitted, not as rewritten.
func TestDiagnosticsKeepColumns(t *testing.T) {
	const head = "package p\n\ntype T struct{ n int }\n\n"
	tests := []struct {
		body      string
		line, col int
		msg       string
	}{
		// A method call turned into a function call, on a line whose
		// declaration was rewritten too.
		{"func (t *T) a() int { return t.b(1, 2) }\nfunc (t *T) b(k int) int { return k }", 5, 37, "too many arguments"},
		{"func (t *T) a() int { return t.b(\"x\") }\nfunc (t *T) b(k int) int { return k }", 5, 34, "cannot convert"},
		{"func (t *T) a(k string) int { return k }", 5, 38, "cannot use k"},
		// After a tuple assignment's rewrite on the same line.
		{"func F() int { var a, b int; a, b = 1, 2; return \"x\" + a + b }", 5, 50, ""},
	}
	for _, tt := range tests {
		src, diags := ParseSource("p.go", head+tt.body+"\n", nil)
		if diags != nil {
			t.Fatal(diags)
		}
		i, err := NewInterpreter(InterpreterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := Eval(i, src)
		if len(got) == 0 || got[0].Line != tt.line || got[0].Column != tt.col || !strings.Contains(got[0].Message, tt.msg) {
			t.Errorf("%s:\ngot %v, want line %d:%d %q", tt.body, got, tt.line, tt.col, tt.msg)
		}
	}
}

// TestEmbeddedInterfaceForwarders: a struct embedding an interface gets a
// forwarding method for each method it does not have otherwise, and none
// where it declares the method, has a field of its name, or another
// embedded field may promote it too.
func TestEmbeddedInterfaceForwarders(t *testing.T) {
	const src = "package p\n\nimport \"fmt\"\n\ntype L interface{ log(s string) string; count() int }\n\ntype M interface{ log(s string) string }\n\n" +
		"type A struct { L; n int }\n\ntype B struct { L; n int }\n\nfunc (B) log(s string) string { return s }\n\ntype C struct { L; M }\n\ntype D struct { fmt.Stringer; count int; L }\n"
	got, diags := ParseSource("p.go", src, nil)
	if diags != nil {
		t.Fatal(diags)
	}
	for _, want := range []string{
		") log(faultlineTmp", " string) string { return faultlineTmp", ".L.log(faultlineTmp",
		") count() int { return faultlineTmp", ") String() string { return faultlineTmp",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("no %q in:\n%s", want, got.Text)
		}
	}
	forwards := func(typ, method string) bool {
		return regexp.MustCompile(`func \(faultlineTmp\d+ ` + typ + `\) ` + method + `\([^{]*\{ (return )?faultlineTmp\d+\.(L|M|Stringer)\.`).MatchString(got.Text)
	}
	for _, c := range []struct{ typ, method string }{{"A", "log"}, {"A", "count"}, {"B", "count"}, {"C", "count"}, {"D", "String"}, {"D", "log"}} {
		if !forwards(c.typ, c.method) {
			t.Errorf("%s has no forwarder %s:\n%s", c.typ, c.method, got.Text)
		}
	}
	for _, c := range []struct{ typ, method string }{{"B", "log"}, {"C", "log"}, {"D", "count"}} {
		if forwards(c.typ, c.method) {
			t.Errorf("%s got a forwarder %s it must not have:\n%s", c.typ, c.method, got.Text)
		}
	}
}
