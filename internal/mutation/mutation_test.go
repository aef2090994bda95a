package mutation

import (
	"strings"
	"testing"
)

// traceOpt names the trace function of the sources below.
var traceOpt = Options{Trace: "example.com/kit/api.Logf"}

// TestTraceRule: the trace-only rule classifies a mutant only when the
// statement it changes does nothing but write trace lines, judged by what
// the statement calls and evaluates, not by names alone.
func TestTraceRule(t *testing.T) {
	const kit = `"example.com/kit/api"`
	file := func(imports, decls, body string) string {
		return "package p\n\nimport (\n\t\"context\"\n" + imports + "\n)\n\n" + decls +
			"\nfunc run(ctx context.Context, id string, n int, err error, ch chan int, f func() int) {\n" + body + "\n}\n"
	}
	tests := []struct {
		name, src, op, marker string
		want                  bool
	}{
		{"a log line", file(kit, "", `api.Logf(ctx, "try %d of %s: %v", n+1, id, err)`), OpDropStatement, "Logf", true},
		{"a log line with err.Error()", file(kit, "", `api.Logf(ctx, "%s", "x: "+err.Error())`), OpDropStatement, "Logf", true},
		{"a renamed import", file("kit "+kit, "", `kit.Logf(ctx, "try %d", n)`), OpDropStatement, "Logf", true},
		{"an argument that calls", file(kit, "", `api.Logf(ctx, "%d", f())`), OpDropStatement, "Logf", false},
		{"an argument that receives", file(kit, "", `api.Logf(ctx, "%d", <-ch)`), OpDropStatement, "Logf", false},
		{"an argument that can panic", file(kit, "", `api.Logf(ctx, "%d", 10/n)`), OpDropStatement, "Logf", false},
		{"a spread argument", file(kit, "", `api.Logf(ctx, "%d", []any{n}...)`), OpDropStatement, "Logf", false},
		{"another package's Logf", file(`api "example.com/other/api"`, "", `api.Logf(ctx, "%d", n)`), OpDropStatement, "Logf", false},
		{"another function of the package", file(kit, "", `api.Printf(ctx, "%d", n)`), OpDropStatement, "Printf", false},
		{"a local that shadows the package", file(kit, "type logger struct{}\n\nfunc (logger) Logf(context.Context, string, ...any) {}\n",
			"api := logger{}\n\tapi.Logf(ctx, \"%d\", n)"), OpDropStatement, "api.Logf", false},
		{"a file with its own Error method", file(kit, "type myErr struct{}\n\nfunc (myErr) Error() string { return \"\" }\n", `api.Logf(ctx, "%v", err)`), OpDropStatement, "Logf", false},
		{"a store write", file(kit, "", `api.MarkDone(ctx, id)`), OpDropStatement, "MarkDone", false},
		{"an if that only logs", file(kit, "", "if n > 1 {\n\t\tapi.Logf(ctx, \"%d\", n)\n\t}"), OpDropStatement, "if n > 1", true},
		{"an if that also writes", file(kit, "", "if n > 1 {\n\t\tapi.Logf(ctx, \"%d\", n)\n\t\tapi.MarkDone(ctx, id)\n\t}"), OpDropStatement, "if n > 1", false},
		{"an if whose condition calls", file(kit, "", "if f() > 1 {\n\t\tapi.Logf(ctx, \"%d\", n)\n\t}"), OpDropStatement, "if f() > 1", false},
		{"a constant in a log line", file(kit, "", `api.Logf(ctx, "try %d", n+1)`), OpZeroConstant, "n+", true},
		{"a constant in a write", file(kit, "", `api.MarkFailed(ctx, id, id[:1])`), OpZeroConstant, "id[:", false},
		{"negated between two log lines", file(kit, "", "if n > 1 {\n\t\tapi.Logf(ctx, \"a\")\n\t} else {\n\t\tapi.Logf(ctx, \"b\")\n\t}"), OpNegateCondition, "if ", true},
		{"negated: log and return, else log", file(kit, "", "if err := api.MarkDone(ctx, id); err != nil {\n\t\tapi.Logf(ctx, \"a\")\n\t\treturn\n\t}\n\tapi.Logf(ctx, \"b\")"), OpNegateCondition, "if err", true},
		{"negated: log and return, else write", file(kit, "", "if err := api.MarkDone(ctx, id); err != nil {\n\t\tapi.Logf(ctx, \"a\")\n\t\treturn\n\t}\n\tapi.MarkFailed(ctx, id, \"\")"), OpNegateCondition, "if err", false},
		{"negated: a write in the body", file(kit, "", "if n > 1 {\n\t\tapi.MarkDone(ctx, id)\n\t}"), OpNegateCondition, "if ", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{traceOpt, {}} {
				ms, err := Mutants(tc.src, opt)
				if err != nil {
					t.Fatal(err)
				}
				var found bool
				for _, m := range ms {
					if m.Operator != tc.op || !strings.Contains(m.FirstChanged(), tc.marker) {
						continue
					}
					found = true
					// Without a trace function, no rule applies.
					want := tc.want && opt.Trace != ""
					if got := m.Equivalent == RuleTraceOnly; got != want {
						t.Errorf("%+v: %s (%s): classified %v, want %v", opt, m.ID, m.FirstChanged(), got, want)
					}
				}
				if !found {
					t.Fatalf("no %s mutant changes a line with %q", tc.op, tc.marker)
				}
			}
		})
	}
}

// TestBadTraceOption: an Options.Trace that names no function is refused,
// not taken as "no rule".
func TestBadTraceOption(t *testing.T) {
	for _, trace := range []string{"Logf", "example.com/api.", ".Logf"} {
		if _, err := Mutants("package p\n", Options{Trace: trace}); err == nil || !strings.Contains(err.Error(), "Options.Trace") {
			t.Errorf("Trace %q: got %v, want an error naming Options.Trace", trace, err)
		}
	}
}

// TestMergeCases: merging two cases makes one clause in the first's place
// with either body, and a mutant that changes nothing is not made.
func TestMergeCases(t *testing.T) {
	src := "package p\n\nfunc f(x int) int {\n\tswitch x {\n\tcase 1:\n\t\treturn 10\n\tcase 2:\n\t\treturn 20\n\tcase 3:\n\t\treturn 20\n\t}\n\treturn 0\n}\n"
	ms, err := Mutants(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		if m.Operator == OpMergeCases || m.Operator == OpSwapCases {
			got = append(got, m.ID+" "+strings.Join(strings.Fields(m.After), " "))
		}
	}
	want := []string{
		"swap-cases@5:2 return 20 case 2: return 10",
		// Swapping or merging cases 2 and 3, of equal bodies, changes nothing: no mutant.
		"merge-cases@5:2 case 1, 2: return 10",
		"merge-cases@5:2/2 case 1, 2:", // the rest of the change is case 1's body, dropped
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, m := range ms {
		if m.Operator == OpMergeCases && !strings.Contains(strings.Join(strings.Fields(m.Source), " "), "case 1, 2:") {
			t.Errorf("%s: no merged case in\n%s", m.ID, m.Source)
		}
	}
}

// TestEveryOperator: each operator makes at least one mutant of a file that
// has what it changes, in the order Ops lists, each a parseable file.
func TestEveryOperator(t *testing.T) {
	src := `package p

type Req struct{ IdempotencyKey string }

func f(x int, key string) (Req, int) {
	if x > 3 {
		x++
	}
	switch x {
	case 1:
		x = 2
	case 2:
		x = 4
	}
	return Req{IdempotencyKey: key}, x
}
`
	ms, err := Mutants(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, m := range ms {
		if len(ops) == 0 || ops[len(ops)-1] != m.Operator {
			ops = append(ops, m.Operator)
		}
		if !strings.HasPrefix(m.Source, "package p") || m.Before == m.After {
			t.Errorf("%s: no change or no file:\n%s", m.ID, m.Source)
		}
	}
	if strings.Join(ops, " ") != strings.Join(Ops, " ") {
		t.Errorf("operators in order %v, want %v", ops, Ops)
	}
}
