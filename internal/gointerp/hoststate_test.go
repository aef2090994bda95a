package gointerp

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// harnessErr is a host package's variable, as a kit's errors are.
var harnessErr = strconv.ErrRange

// TestHostStateSeesChangedVariables runs interpreted code that assigns to
// host variables, or only reads them, and checks Changed names exactly the
// variables it changed.
func TestHostStateSeesChangedVariables(t *testing.T) {
	harness := interp.Exports{"example.com/harness/harness": {
		"Err": reflect.ValueOf(&harnessErr).Elem(),
	}}
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"reads only", "_ = context.Canceled.Error() + strconv.ErrSyntax.Error() + harness.Err.Error() + time.UTC.String()", nil},
		{"swaps two errors", "a, b := strconv.ErrRange, strconv.ErrSyntax\n\tstrconv.ErrSyntax, strconv.ErrRange = a, b", []string{"strconv.ErrRange", "strconv.ErrSyntax"}},
		{"clears a standard error", "context.Canceled = nil", []string{"context.Canceled"}},
		{"replaces a harness error", "harness.Err = context.DeadlineExceeded", []string{"example.com/harness.Err"}},
		{"changes a location in place", "*time.UTC = *time.FixedZone(\"X\", 3600)", []string{"time.UTC"}},
		{"repoints a location", "time.Local = time.UTC", []string{"time.Local"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer restoreHostVars()()
			src, diags := ParseSource("x.go", "package x\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"strconv\"\n\t\"time\"\n\n\t\"example.com/harness\"\n)\n\n"+
				"var _ = errors.New\n\nfunc Main() {\n\t"+tc.body+"\n}\n", []string{"example.com/harness"})
			if diags != nil {
				t.Fatal(diags)
			}
			i, err := NewInterpreter(InterpreterOptions{Packages: harness})
			if err != nil {
				t.Fatal(err)
			}
			if diags := Eval(i, src); diags != nil {
				t.Fatal(diags)
			}
			state := TakeHostState(harness)
			if state.Len() < 8 {
				t.Fatalf("only %d host variables measured", state.Len())
			}
			main, err := i.Eval(src.Package + ".Main")
			if err != nil {
				t.Fatal(err)
			}
			main.Interface().(func())()
			if got := state.Changed(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changed %q, want %q", got, tc.want)
			}
		})
	}
}

// restoreHostVars saves the variables the test's code changes and returns
// what puts them back.
func restoreHostVars() func() {
	canceled, syntax, rng, herr := context.Canceled, strconv.ErrSyntax, strconv.ErrRange, harnessErr
	local, utc := time.Local, *time.UTC
	return func() {
		context.Canceled, strconv.ErrSyntax, strconv.ErrRange, harnessErr = canceled, syntax, rng, herr
		time.Local, *time.UTC = local, utc
	}
}
