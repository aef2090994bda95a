package web

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var scriptSrcRE = regexp.MustCompile(`<script src="/static/([^"?]+)`)

// TestClockScriptsShareClockText: every page with a clock loads
// clock-text.js, the one home of how a clock reads, once and before the
// scripts that use it, whichever of them the page has.
func TestClockScriptsShareClockText(t *testing.T) {
	ts, _ := newTimedServer(t)
	b := ts.newBrowser(t)
	b.post("/screens/tech-screen/practice/start", nil)
	b.post("/sets/rapid/rapid/start", nil)
	tests := []struct {
		path string
		uses []string
	}{
		{"/sets/rapid", []string{"timed-answer.js"}},
		{"/sets/rapid/rapid?q=1", []string{"timed-answer.js", "run-clock.js"}},
		{"/sets/rapid/rapid/summary", []string{"timed-answer.js", "run-clock.js"}},
		{"/screens/tech-screen/practice/1", []string{"run-clock.js"}},
		{"/problems/refund-bug", []string{"timed-answer.js", "run-clock.js"}}, // its answer box and the screen's strip
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := b.get(tt.path)
			var scripts []string
			for _, m := range scriptSrcRE.FindAllStringSubmatch(p.body, -1) {
				scripts = append(scripts, m[1])
			}
			shared := slices.Index(scripts, "clock-text.js")
			if n := strings.Count(strings.Join(scripts, " "), "clock-text.js"); n != 1 {
				t.Fatalf("scripts %v load clock-text.js %d times; want once", scripts, n)
			}
			for _, s := range tt.uses {
				if i := slices.Index(scripts, s); i < shared {
					t.Errorf("scripts %v: %s at %d, clock-text.js at %d; want it loaded, after clock-text.js", scripts, s, i, shared)
				}
			}
		})
	}
	// A page without a clock does without.
	other := ts.newBrowser(t)
	if p := other.get("/"); strings.Contains(p.body, "clock-text.js") {
		t.Error("the catalogue loads clock-text.js")
	}
}
