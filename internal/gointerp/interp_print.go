package gointerp

import (
	"go/ast"
	"reflect"
	"strconv"
)

// The builtins print and println: yaegi printed each value with fmt's %v
// and a space between values for both, so print("a", "b") gave "a b"
// where Go gives "ab", println of a nil pointer "<nil>" where Go gives
// "0x0", of a slice its elements where Go gives "[len/cap]0xaddress".
// Every call of either (not one deferred or started with go, which other
// rewrites shape) becomes a call of the runtime package's Print or
// Println, which print as Go's runtime does, to the interpreter's stdout
// as yaegi's builtins did.

// printBuiltins rewrites print(...) and println(...).
func (rw *rewriter) printBuiltins() {
	skip := map[*ast.CallExpr]bool{}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			skip[n.Call] = true
		case *ast.GoStmt:
			skip[n.Call] = true
		case *ast.CallExpr:
			id, ok := n.Fun.(*ast.Ident)
			if !ok || id.Obj != nil || id.Name != "print" && id.Name != "println" || skip[n] {
				return true
			}
			at, end := rw.off(id.Pos()), rw.off(id.End())
			if rw.replaced(at, end) || rw.edited(at, end) {
				return true
			}
			name := "Print"
			if id.Name == "println" {
				name = "Println"
			}
			rw.add(at, end, runtimeName+"."+name)
			rw.importRuntime()
		}
		return true
	})
}

// runtimeFor is the runtime package for an interpreter writing to stdout.
func runtimeFor(stdout interface{ Write([]byte) (int, error) }) map[string]reflect.Value {
	syms := make(map[string]reflect.Value, len(runtimeSymbols)+2)
	for k, v := range runtimeSymbols {
		syms[k] = v
	}
	syms["Print"] = reflect.ValueOf(func(a ...any) { _, _ = stdout.Write(runtimePrint(a, false)) })
	syms["Println"] = reflect.ValueOf(func(a ...any) { _, _ = stdout.Write(runtimePrint(a, true)) })
	return syms
}

// runtimePrint formats a as Go's print (ln false) or println does.
func runtimePrint(a []any, ln bool) []byte {
	var b []byte
	for k, x := range a {
		if ln && k > 0 {
			b = append(b, ' ')
		}
		b = appendPrinted(b, x)
	}
	if ln {
		b = append(b, '\n')
	}
	return b
}

func appendPrinted(b []byte, x any) []byte {
	v := unboxed(x)
	if !v.IsValid() {
		return append(b, "nil"...)
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Float32:
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 32)
	case reflect.Float64:
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 64)
	case reflect.Complex64:
		return append(b, strconv.FormatComplex(v.Complex(), 'g', -1, 64)...)
	case reflect.Complex128:
		return append(b, strconv.FormatComplex(v.Complex(), 'g', -1, 128)...)
	case reflect.String:
		return append(b, v.String()...)
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return strconv.AppendUint(append(b, "0x"...), uint64(v.Pointer()), 16)
	case reflect.Slice:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(v.Len()), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(v.Cap()), 10)
		b = append(b, "]0x"...)
		return strconv.AppendUint(b, uint64(v.Pointer()), 16)
	}
	return append(b, "(?)"...)
}
