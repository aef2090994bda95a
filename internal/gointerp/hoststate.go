package gointerp

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// HostState is what the host variables interpreted code can reach were
// when it was taken: yaegi hands a submission every exported variable of
// an allowed package as itself (context.Canceled, time.Local, a kit's
// errors), so `refundkit.ErrServer = nil` changes the host process's
// variable, and a process that runs another job after such code would
// run it in a world no fresh process has. A grading child that runs one
// job after another takes a HostState before its first job and asks
// Changed after each.
//
// Each variable's own bytes are kept, and for a pointer (or an interface
// holding one, as an error does) the bytes it points to, one level down:
// a swapped or cleared value, and a struct changed in place through the
// pointer (*time.UTC = ...), are both seen.
type HostState struct {
	vars []hostVar
}

type hostVar struct {
	name    string
	v       reflect.Value // addressable: the variable itself
	own     []byte
	pointee []byte // nil when it points to nothing, or to no fixed size
}

// TakeHostState measures the variables of the allowed standard packages,
// of the rewrites' own packages, and of extra (a kit's harness tables,
// keyed like interp.Exports).
func TakeHostState(extra ...interp.Exports) *HostState {
	// time.Local loads the zone on first use, filling the Location it
	// points to: load it now, so the first job's use of it is no change.
	_ = time.Local.String()
	tables := []interp.Exports{allowedSymbols(), {SymbolKey(RuntimePath): runtimeSymbols, SymbolKey(wrapperPath): wrapperSymbols}}
	tables = append(tables, extra...)
	seen := map[uintptr]bool{}
	s := &HostState{}
	for _, table := range tables {
		for pkg, syms := range table {
			for name, v := range syms {
				if !v.IsValid() || !v.CanAddr() || v.Type().Size() == 0 || seen[v.UnsafeAddr()] {
					continue
				}
				seen[v.UnsafeAddr()] = true
				hv := hostVar{name: pkgName(pkg) + "." + name, v: v}
				hv.own, hv.pointee = measure(v)
				s.vars = append(s.vars, hv)
			}
		}
	}
	slices.SortFunc(s.vars, func(a, b hostVar) int { return strings.Compare(a.name, b.name) })
	return s
}

// Changed names the variables whose bytes differ from when s was taken,
// in order; nil when none does.
func (s *HostState) Changed() []string {
	var changed []string
	for _, hv := range s.vars {
		own, pointee := measure(hv.v)
		if !bytes.Equal(own, hv.own) || !bytes.Equal(pointee, hv.pointee) {
			changed = append(changed, hv.name)
		}
	}
	return changed
}

// Len is how many variables s measures.
func (s *HostState) Len() int { return len(s.vars) }

// measure copies variable v's bytes, and those of what it points to.
func measure(v reflect.Value) (own, pointee []byte) {
	own = bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(v.UnsafeAddr())), v.Type().Size()))
	p := v
	if p.Kind() == reflect.Interface && !p.IsNil() {
		p = p.Elem()
	}
	if p.Kind() == reflect.Pointer && !p.IsNil() && p.Type().Elem().Size() > 0 {
		pointee = bytes.Clone(unsafe.Slice((*byte)(p.UnsafePointer()), p.Type().Elem().Size()))
	}
	return own, pointee
}

// pkgName is the import path of an interp.Exports key ("path/name").
func pkgName(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return key
}
