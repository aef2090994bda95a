package faultsim

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// mutable prints what it holds when printed, and can change after Add.
type mutable struct{ n *int }

func (m mutable) String() string { return fmt.Sprint(*m.n) }

type status string // a named basic type with no methods: plain

// TestTraceTextIsWhatAddSaw checks that formatting later (which Add does
// for plain arguments) never changes an event's text: every argument that
// could print differently after Add is printed at once.
func TestTraceTextIsWhatAddSaw(t *testing.T) {
	n := 1
	slice := []int{1}
	tests := []struct {
		name   string
		format string
		args   []any
		change func()
		want   string
	}{
		{"plain values", "%s %d %v %t %.1f %s %q", []any{"a", 7, int64(-3), true, 2.5, 1500 * time.Millisecond, status("done")}, nil,
			`a 7 -3 true 2.5 1.5s "done"`},
		{"no arguments", "just text", nil, nil, "just text"},
		{"a Stringer that changes", "n=%s", []any{mutable{&n}}, func() { n = 2 }, "n=1"},
		{"a slice that changes", "%v", []any{slice}, func() { slice[0] = 9 }, "[1]"},
		{"a pointer that changes", "%d", []any{&n}, func() { n = 5 }, fmt.Sprintf("%d", &n)},
		{"an error", "failed: %v", []any{errors.New("boom")}, nil, "failed: boom"},
		{"nil", "%v", []any{nil}, nil, "<nil>"},
		{"a bad verb", "%d", []any{"x"}, nil, "%!d(string=x)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, slice[0] = 1, 1
			tr := NewTrace(time.Now())
			tr.Add("a", KindState, "first %d", 1)
			tr.Add("a", KindState, tt.format, tt.args...)
			if tt.change != nil {
				tt.change()
			}
			tr.Add("a", KindState, "last")
			ev := tr.Events()
			if len(ev) != 3 || ev[0].Text != "first 1" || ev[1].Text != tt.want || ev[2].Text != "last" {
				t.Fatalf("events %+v, want the middle one to say %q", ev, tt.want)
			}
			if tr.Len() != 3 {
				t.Errorf("Len %d, want 3", tr.Len())
			}
			// Asking again, and adding after asking, change nothing.
			tr.Add("b", KindState, "after %s", "asking")
			if again := tr.Events(); again[1].Text != tt.want || again[3].Text != "after asking" {
				t.Errorf("second Events %+v", again)
			}
		})
	}
}

func TestPlain(t *testing.T) {
	for _, tt := range []struct {
		arg  any
		want bool
	}{
		{"s", true}, {3, true}, {uint8(3), true}, {float32(1), true}, {time.Second, true}, {status("x"), true},
		{mutable{}, false}, {errors.New("e"), false}, {nil, false}, {[]int{}, false}, {new(int), false},
		{struct{ A int }{1}, false}, {map[string]int{}, false}, {time.Time{}, false},
	} {
		if got := plain([]any{tt.arg}); got != tt.want {
			t.Errorf("plain(%T) = %v, want %v", tt.arg, got, tt.want)
		}
	}
}
