package grading

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestRefereeGateOrder checks the order the referee's places go in, step
// by step: a check of a quick grade (a name starting "quick") comes
// before the checks of endless loops ("loop": low) that came first, and
// starts at once in the place kept for it when the others are held; the
// kept place's check moves into a place that frees; a loop's check never
// takes the kept place; and no more than places+1 checks run. (The old
// gate, a plain semaphore, ran them in arrival order, so a quick grade
// waited for every loop's native run.)
func TestRefereeGateOrder(t *testing.T) {
	type step struct {
		enter, leave string // a check that comes, or one that ends
		want         string // the checks holding a place after it, the kept place's marked "+"
	}
	tests := []struct {
		name   string
		places int
		steps  []step
	}{
		{"loops hold the places, quick ones come", 2, []step{
			{enter: "loop1", want: "loop1"},
			{enter: "loop2", want: "loop1 loop2"},
			{enter: "loop3", want: "loop1 loop2"},
			{enter: "loop4", want: "loop1 loop2"},
			{enter: "quick1", want: "loop1 loop2 quick1+"},
			{enter: "quick2", want: "loop1 loop2 quick1+"},
			// quick1 moves into loop1's place; quick2 takes the kept one.
			{leave: "loop1", want: "loop2 quick1 quick2+"},
			// quick2 moves into loop2's place; the kept one stays free.
			{leave: "loop2", want: "quick1 quick2"},
			{enter: "quick3", want: "quick1 quick2 quick3+"},
			// The loops' checks in the order they came.
			{leave: "quick1", want: "quick2 quick3"},
			{leave: "quick2", want: "loop3 quick3"},
			{leave: "quick3", want: "loop3 loop4"},
			{leave: "loop3", want: "loop4"},
			{leave: "loop4", want: ""},
		}},
		{"a quick check ends in the kept place", 1, []step{
			{enter: "loop1", want: "loop1"},
			{enter: "loop2", want: "loop1"},
			{enter: "quick1", want: "loop1 quick1+"},
			{leave: "quick1", want: "loop1"},
			{leave: "loop1", want: "loop2"},
			{leave: "loop2", want: ""},
		}},
		{"quick checks alone: first come, first served", 1, []step{
			{enter: "quick1", want: "quick1"},
			{enter: "quick2", want: "quick1 quick2+"},
			{enter: "quick3", want: "quick1 quick2+"},
			{enter: "quick4", want: "quick1 quick2+"},
			{leave: "quick1", want: "quick2 quick3+"},
			{leave: "quick3", want: "quick2 quick4+"},
			{leave: "quick2", want: "quick4"},
			{leave: "quick4", want: ""},
		}},
		{"loops alone never pass the places", 2, []step{
			{enter: "loop1", want: "loop1"},
			{enter: "loop2", want: "loop1 loop2"},
			{enter: "loop3", want: "loop1 loop2"},
			{leave: "loop2", want: "loop1 loop3"},
			{leave: "loop1", want: "loop3"},
			{leave: "loop3", want: ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newRefereeGate(tt.places)
			checks := map[string]*gateTicket{}
			for i, s := range tt.steps {
				switch {
				case s.enter != "":
					checks[s.enter] = g.queue(strings.HasPrefix(s.enter, "loop"))
				case s.leave != "":
					c := checks[s.leave]
					if c == nil || !granted(c) {
						t.Fatalf("step %d: %s leaves without a place", i, s.leave)
					}
					g.leave(c)
					delete(checks, s.leave)
				}
				var got []string
				for name, c := range checks {
					if granted(c) {
						if c.extra {
							name += "+"
						}
						got = append(got, name)
					}
				}
				slices.Sort(got)
				if g := strings.Join(got, " "); g != s.want {
					t.Fatalf("step %d (%+v): running %q, want %q", i, s, g, s.want)
				}
				if len(got) > tt.places+1 {
					t.Fatalf("step %d: %d checks run; at most %d places and the kept one", i, len(got), tt.places)
				}
			}
			if g.taken != 0 || g.extra != nil || len(g.waiting) != 0 {
				t.Errorf("after every check left: %d places taken, kept place %v, %d waiting", g.taken, g.extra, len(g.waiting))
			}
		})
	}
}

// granted reports whether check c has its place (its ready is closed).
func granted(c *gateTicket) bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// TestRefereeGateGivesUp checks that a check whose grade was stopped while
// waiting leaves the line and holds no place, and that a check that
// waited gets its place through enter when one frees.
func TestRefereeGateGivesUp(t *testing.T) {
	g := newRefereeGate(1)
	leave, err := g.enter(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.enter(ctx, true); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled wait: %v, want context.Canceled", err)
	}
	g.mu.Lock()
	if len(g.waiting) != 0 {
		t.Errorf("a canceled check is still in line (%d waiting)", len(g.waiting))
	}
	g.mu.Unlock()

	got := make(chan func())
	go func() {
		leave, err := g.enter(context.Background(), true)
		if err != nil {
			t.Error(err)
		}
		got <- leave
	}()
	leave()
	(<-got)()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.taken != 0 || len(g.waiting) != 0 {
		t.Errorf("%d places taken, %d waiting; want none", g.taken, len(g.waiting))
	}
}

// TestCombinedOutputNiced checks the nice value the native referee's build
// starts at: the children's own for a check that is not low (0 asks for
// it), and sandbox.LowNice for a low one. nice(1) prints its own.
func TestCombinedOutputNiced(t *testing.T) {
	if _, err := exec.LookPath("nice"); err != nil {
		t.Skip("no nice(1) on PATH")
	}
	own, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0) // Linux: 20 - nice
	if err != nil {
		t.Skip(err)
	}
	tests := []struct {
		nice, want int
	}{
		{0, sandbox.DefaultNice},
		{sandbox.DefaultNice, sandbox.DefaultNice},
		{sandbox.LowNice, sandbox.LowNice},
	}
	for _, tt := range tests {
		if 20-own > tt.want {
			t.Logf("this process runs at nice %d: a child cannot start at %d", 20-own, tt.want)
			continue
		}
		out, err := combinedOutputNiced(exec.Command("nice"), tt.nice)
		if err != nil {
			t.Fatalf("nice %d: %v\n%s", tt.nice, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(tt.want) {
			t.Errorf("started for nice %d, the build runs at %s; want %d", tt.nice, got, tt.want)
		}
	}
}
