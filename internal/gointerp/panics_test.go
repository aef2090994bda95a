package gointerp

import "testing"

// TestIsInterpreterPanic pins which panic messages are the interpreter's
// own failure (the referee grades the code) and which are the code's.
func TestIsInterpreterPanic(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"reflect: call of reflect.Value.Len on zero Value", true},
		{"12:3: reflect.Set: value of type *interp.node is not assignable to type func()", true},
		{"reflect: reflect.Value.Set using unaddressable value", true},
		{"reflect.Value.Convert: value of type int cannot be converted to type interp.valueInterface", true},
		{"reflect.MakeChan: unidirectional channel type", true},
		{"reflect: cannot use *struct { Xcode int } as type error in Call", true},
		// The code's own panics, and yaegi's stand-ins for Go's runtime
		// errors, are the code's.
		{"boom", false},
		{"reflect: slice index out of range", false},
		{"runtime error: index out of range [2] with length 2", false},
	}
	for _, tt := range tests {
		if got := IsInterpreterPanic(tt.msg); got != tt.want {
			t.Errorf("IsInterpreterPanic(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
