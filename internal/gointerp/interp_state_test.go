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

// TestStartsGoroutines: a go statement or any AfterFunc anywhere in the
// file (a later identifier included) marks it as starting goroutines of
// its own; code that only calls, sleeps and selects does not.
func TestStartsGoroutines(t *testing.T) {
	tests := []struct {
		name, body string
		want       bool
	}{
		{"plain calls", "time.Sleep(time.Second)\n\tselect {\n\tcase <-time.After(time.Second):\n\t}", false},
		{"go statement", "done := make(chan bool)\n\tgo func() { done <- true }()\n\t<-done", true},
		{"AfterFunc with arguments after it", "f := func() {}\n\tt := time.AfterFunc(time.Second, f)\n\tt.Stop()", true},
		{"context.AfterFunc", "stop := context.AfterFunc(context.Background(), func() {})\n\tstop()", true},
		{"a field whose name begins AfterFunc", "var x struct{ AfterFuncs int }\n\t_ = x.AfterFuncs", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code := "package x\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\nvar _ = context.Background\n\nfunc F() {\n\t" + tc.body + "\n}\n"
			src, diags := ParseSource("x.go", code, nil)
			if diags != nil {
				t.Fatal(diags)
			}
			if src.StartsGoroutines != tc.want {
				t.Fatalf("StartsGoroutines = %v, want %v", src.StartsGoroutines, tc.want)
			}
		})
	}
}
