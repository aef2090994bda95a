package problems

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestInterviewOnly: interview_only marks a problem, set or screen; the
// public catalogue leaves them out, the whole one keeps them; a public
// screen with an interview-only step is an error naming the step's line,
// and an interview-only screen may use one.
func TestInterviewOnly(t *testing.T) {
	fsys := fixtureWith(map[string]*fstest.MapFile{
		problemPath: {Data: []byte(strings.Replace(goodProblem, "minutes: 30\n", "minutes: 30\ninterview_only: true\n", 1))},
		screenPath:  {Data: []byte(strings.Replace(goodScreen, "title: Demo screen\n", "title: Demo screen\ninterview_only: true\n", 1))},
	})
	cat, err := Load(fsys)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	p, _ := cat.Problem("refund-demo")
	sc, _ := cat.Screen("demo-screen")
	qs, _ := cat.Set("quick")
	if p == nil || !p.InterviewOnly || sc == nil || !sc.InterviewOnly || qs == nil || qs.InterviewOnly {
		t.Fatalf("interview_only read as problem %v, screen %v, set %v", p != nil && p.InterviewOnly, sc != nil && sc.InterviewOnly, qs != nil && qs.InterviewOnly)
	}
	pub := cat.Public()
	if _, ok := pub.Problem("refund-demo"); ok {
		t.Error("the public catalogue lists the interview-only problem")
	}
	if _, ok := pub.Screen("demo-screen"); ok {
		t.Error("the public catalogue lists the interview-only screen")
	}
	if _, ok := pub.Set("quick"); !ok {
		t.Error("the public catalogue lost a public set")
	}
	if len(cat.Problems) != 1 || len(cat.Screens) != 1 {
		t.Error("Public changed the whole catalogue")
	}

	// A public screen with an interview-only problem.
	var got []string
	for _, d := range Lint(edit(t, problemPath, "minutes: 30\n", "minutes: 30\ninterview_only: true\n")) {
		got = append(got, d.String())
	}
	want := []string{`screens/demo-screen.md:5: screen item 1 uses the interview-only problem refund-demo, which a public screen would show: add interview_only: true to this screen, or take the step out`}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got: %q\nwant: %q", got, want)
	}
	got = nil
	for _, d := range Lint(edit(t, setPath, "minutes: 10\n", "minutes: 10\ninterview_only: true\n")) {
		got = append(got, d.String())
	}
	if len(got) != 1 || !strings.Contains(got[0], "screen item 2 uses the interview-only questions quick") {
		t.Errorf("a public screen with an interview-only set: %q", got)
	}
}
