package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// whatIfScenario is a scenario the refund starter fails because of one
// fault: its first reply is lost, and the starter sends the refund again
// under a new key.
const whatIfScenario = "#scenario-lost-reply"

// TestWhatIfReplayInPlace (issue 30): after a Grade of the starter, a
// failing scenario's what-if opens in place (its script and styles loaded
// only then); the keyboard chooses to deliver the lost reply and replays
// the run, and the answer lists the invariants whose verdict changed, with
// focus on it; the stored report is unchanged. Without a script the same
// choice is a page of its own. Axe-clean in both themes at both sizes.
func TestWhatIfReplayInPlace(t *testing.T) {
	t.Parallel()
	eachSizeAndTheme(t, func(t *testing.T, ctx context.Context, phone bool) {
		openCode(t, ctx, phone)
		if exists(t, ctx, `script[src*="what-if"], link[href*="what-if"]`) {
			t.Error("the what-if's script or styles load with the page; want them on first use")
		}
		gradeAndWait(t, ctx)
		sel := whatIfScenario
		evalJS[bool](t, ctx, `(() => { const d = document.querySelector(`+jsString("#grade-report "+sel)+`);
			for (let p = d; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true; return true })()`)
		link := sel + " [data-what-if-link] a"
		waitFor(t, ctx, link)
		broken := evalJS[int](t, ctx, `document.querySelectorAll("#grade-report .grade-violations li").length`)
		evalJS[bool](t, ctx, `(document.querySelector(`+jsString(link)+`).focus(), true)`)
		pressKey(t, ctx, kb.Enter)
		form := sel + " section.grade-what-if form[data-what-if-form]"
		waitFor(t, ctx, form)
		waitUntil(t, ctx, "the what-if's script", `window.FaultlineWhatIf`)
		if !evalJS[bool](t, ctx, `document.activeElement === document.querySelector(`+jsString(sel+" section.grade-what-if h4")+`)`) {
			t.Errorf("focus after the what-if came is on %s; want its heading", focused(t, ctx))
		}
		checkAxe(t, ctx, codeProblem+" with a what-if open")

		// The keyboard: the first choice is the lost reply; Space picks it,
		// Enter on the button replays.
		radio := form + ` input[type="radio"][value="fault-1"]`
		label := text(t, ctx, form+` label[for="`+evalJS[string](t, ctx, `document.querySelector(`+jsString(radio)+`).id`)+`"]`)
		if !strings.HasPrefix(label, "Deliver the lost reply") {
			t.Errorf("the what-if's first choice reads %q; want it to deliver the lost reply", label)
		}
		evalJS[bool](t, ctx, `(document.querySelector(`+jsString(radio)+`).focus(), true)`)
		pressKey(t, ctx, " ")
		if !evalJS[bool](t, ctx, `document.querySelector(`+jsString(radio)+`).checked`) {
			t.Fatal("Space did not choose the lost reply")
		}
		if f := tabUntil(t, ctx, "the replay button", 8, func(f focusedElement) bool { return f.Tag == "button" }); !f.indicated() {
			t.Errorf("the replay button has focus with no visible indicator: %s", f)
		}
		pressKey(t, ctx, kb.Enter)
		result := sel + " section.grade-what-if [data-what-if-result]"
		waitUntil(t, ctx, "the what-if's answer", `document.querySelector(`+jsString(result)+`)`, gradeWait)
		heading := text(t, ctx, result+" h5")
		t.Logf("the answer: %s", heading)
		if !strings.HasPrefix(heading, "Without the lost reply") {
			t.Errorf("the answer's heading is %q; want it to say the lost reply was delivered", heading)
		}
		changes := evalJS[[]string](t, ctx, `[...document.querySelectorAll(`+jsString(result+" .grade-what-if-changes li")+`)].map(li => li.textContent.replace(/\s+/g, " ").trim())`)
		t.Logf("what changed: %q", changes)
		healed := 0
		for _, c := range changes {
			if strings.Contains(c, "broken → before, now held") {
				healed++
			}
		}
		if healed == 0 {
			t.Errorf("no invariant broken in the grade holds once the lost reply is delivered: %q", changes)
		}
		if !evalJS[bool](t, ctx, `document.activeElement === document.querySelector(`+jsString(result+" h5")+`)`) {
			t.Errorf("focus after the answer is on %s; want its heading", focused(t, ctx))
		}
		if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("the page scrolls %.0f px sideways with the what-if's answer", over)
		}
		if got := evalJS[int](t, ctx, `document.querySelectorAll("#grade-report .grade-violations li").length`); got != broken {
			t.Errorf("the report lists %d broken invariants after the what-if; want the grade's %d", got, broken)
		}
		if dir := os.Getenv("FAULTLINE_SCREENSHOTS"); dir != "" {
			// what-if-1366x900-light.png and the like.
			name := strings.ReplaceAll(strings.TrimPrefix(t.Name(), "TestWhatIfReplayInPlace/"), "/", "-")
			screenshotTo(t, ctx, sel+" section.grade-what-if", filepath.Join(dir, "what-if-"+name+".png"))
		}
		checkAxe(t, ctx, codeProblem+" with a what-if's answer")

		// Without a script: the link's page, and the choice sent as a form.
		href := evalJS[string](t, ctx, `document.querySelector(`+jsString(form)+`).getAttribute("action")`)
		visitOK(t, ctx, href+"?change=fault-1")
		waitFor(t, ctx, "main h1")
		waitFor(t, ctx, "main section.grade-what-if [data-what-if-result] .grade-what-if-changes li")
		checkAxe(t, ctx, href)
	})
}
