package gointerp

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/traefik/yaegi/stdlib"

	"github.com/faultline-dev/faultline/internal/gointerp/allowedstd"
)

// TestTablesAreYaegis checks that allowedstd's copies are yaegi's symbol
// tables of every allowed package, symbol for symbol, and that every
// interface mapping yaegi keeps for one of their functions is kept with
// the same interfaces: a submission sees the standard packages as yaegi's
// stdlib gives them. It fails when yaegi is updated and they are not
// copied again (see allowedstd's doc).
func TestTablesAreYaegis(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(allowedstd.Symbols)), keys(AllowedStdlib); !slices.Equal(got, want) {
		t.Errorf("allowedstd has the tables of %q, want those of the allowed packages %q", got, want)
	}
	for _, p := range AllowedStdlib {
		key := SymbolKey(p)
		ours, yaegis := allowedstd.Symbols[key], stdlib.Symbols[key]
		if len(yaegis) == 0 {
			t.Errorf("yaegi's stdlib has no table for %s", key)
			continue
		}
		if got, want := slices.Sorted(maps.Keys(ours)), slices.Sorted(maps.Keys(yaegis)); !slices.Equal(got, want) {
			t.Errorf("%s: symbols %q, yaegi's %q", key, got, want)
			continue
		}
		for name, v := range yaegis {
			if got, want := shape(ours[name].Type(), "allowedstd."), shape(v.Type(), "stdlib."); got != want {
				t.Errorf("%s.%s: type %s, yaegi's %s", key, name, got, want)
			}
			if v.Kind() == reflect.Func && !v.IsNil() && ours[name].Pointer() != v.Pointer() {
				t.Errorf("%s.%s: another function than yaegi's", key, name)
			}
			if mt, ok := stdlib.MapTypes[v]; ok && !slices.Equal(allowedstd.MapTypes[ours[name]], mt) {
				t.Errorf("%s.%s: interface mapping %v, yaegi's %v", key, name, allowedstd.MapTypes[ours[name]], mt)
			}
		}
	}
	for v := range allowedstd.MapTypes {
		if _, ok := stdlib.MapTypes[v]; !ok {
			t.Errorf("allowedstd maps %v, which yaegi does not", v)
		}
	}
}

// shape describes t, and the fields of the struct a pointer type points
// to (yaegi's interface wrappers), with the package name of its own
// types, pkg, left out: the copies' wrappers are types of another package.
func shape(t reflect.Type, pkg string) string {
	s := t.String()
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		for i := range t.Elem().NumField() {
			f := t.Elem().Field(i)
			s += " " + f.Name + " " + f.Type.String()
		}
	}
	return strings.ReplaceAll(s, pkg, "")
}

func keys(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		out = append(out, SymbolKey(p))
	}
	slices.Sort(out)
	return out
}
