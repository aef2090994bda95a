package e2e

import (
	"strings"
	"testing"
)

// TestPractiseAScreen: the screen's page shows a candidate what the screen
// holds but not the interviewer's script; "Practise this screen" walks its
// steps in order, each saying where it stands, each step's start opens the
// problem or the set's one-at-a-time run, and the last step leads back.
// axe-core is clean on every step, and nothing scrolls sideways at 390 px.
func TestPractiseAScreen(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const screen = "/screens/applied-ai-tech-screen"
	visitOK(t, ctx, screen)
	for _, script := range []string{"What to listen for", "For the interviewer", "Score each half"} {
		if pageTextContains(t, ctx, script) {
			t.Errorf("the candidate's screen page shows the interviewer's %q", script)
		}
	}

	clickAndLoad(t, ctx, "[data-practise-screen]")
	steps := []struct{ start, startPath, next string }{
		{"Open the problem", "/problems/async-refund", "Next step: Applied AI rapid-fire"},
		{"Start the questions, one at a time", "/sets/applied-ai-rapid-fire/rapid", ""},
	}
	for i, st := range steps {
		progress := "Step " + string(rune('1'+i)) + " of 2"
		if got := text(t, ctx, "[data-screen-progress]"); got != progress {
			t.Fatalf("step %d says %q; want %q", i+1, got, progress)
		}
		if got := text(t, ctx, `[aria-current="step"]`); got == "" {
			t.Errorf("step %d: no step of the list is marked current", i+1)
		}
		checkAxe(t, ctx, "step "+string(rune('1'+i))+" of practising the screen")
		if got := text(t, ctx, "[data-step-start]"); got != st.start {
			t.Errorf("step %d's start reads %q; want %q", i+1, got, st.start)
		}
		clickAndLoad(t, ctx, "[data-step-start]")
		if path := evalJS[string](t, ctx, `location.pathname`); !strings.HasPrefix(path, st.startPath) {
			t.Errorf("step %d's start opened %s; want %s", i+1, path, st.startPath)
		}
		visitOK(t, ctx, screen+"/practice/"+string(rune('1'+i)))
		if st.next != "" {
			if got := text(t, ctx, "[data-next-step]"); !strings.HasPrefix(got, st.next) {
				t.Errorf("step %d's way on reads %q; want %q", i+1, got, st.next)
			}
			clickAndLoad(t, ctx, "[data-next-step]")
		}
	}
	if exists(t, ctx, "[data-next-step]") {
		t.Error("the last step offers a next step")
	}
	setViewport(t, ctx, 390, 844)
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("a step of the screen scrolls %.0f px sideways at 390 px", over)
	}
	clickAndLoad(t, ctx, "[data-screen-done]")
	if path := evalJS[string](t, ctx, `location.pathname`); path != screen+"/practice/summary" {
		t.Errorf("the last step led to %s; want %s", path, screen+"/practice/summary")
	}
	requireNoPageExceptions(t, ctx)
}
