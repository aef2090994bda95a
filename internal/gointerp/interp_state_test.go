//go:build !nointerp

package gointerp

import "testing"

// TestFixedState: the state a run could change, or none, decides whether
// one interpreter may serve many processes.
func TestFixedState(t *testing.T) {
	const head = "package p\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\n"
	tests := []struct {
		name                   string
		body                   string
		resettable, fixedState bool
	}{
		{"no package variables", "func F() error { return errors.New(fmt.Sprint(1)) }\n", false, false},
		{"sentinels", "var ErrA = errors.New(\"a\")\nvar ErrB = fmt.Errorf(\"b\")\n\nfunc F() error { return ErrA }\n", true, true},
		{"a table only read", "var codes = map[string]int{\"a\": 1}\n\nfunc F(k string) error { if codes[k] > 0 { return nil }; return errors.New(k) }\n", true, true},
		{"a counter", "var n int\n\nfunc F() error { n++; return fmt.Errorf(\"%d\", n) }\n", true, false},
		{"a sentinel reassigned", "var ErrA = errors.New(\"a\")\n\nfunc F() error { ErrA = errors.New(\"b\"); return ErrA }\n", true, false},
		{"a table written", "var seen = map[string]bool{}\n\nfunc F(k string) error { seen[k] = true; return errors.New(k) }\n", true, false},
		{"an init", "func init() { fmt.Sprint() }\n\nfunc F() error { return errors.New(\"a\") }\n", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, diags := ParseResettable("p.go", head+tt.body, nil)
			if diags != nil {
				t.Fatal(diags)
			}
			if src.Resettable != tt.resettable || src.FixedState != tt.fixedState {
				t.Errorf("Resettable %v FixedState %v, want %v %v", src.Resettable, src.FixedState, tt.resettable, tt.fixedState)
			}
		})
	}
}
