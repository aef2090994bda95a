package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestReviewQueueAndMarkedRubric answers a shipped question in the browser
// with a guess of the key points covered, and checks the three parts of
// issue 29 as a candidate meets them: the matcher's marks beside the key
// points (with the answer's words highlighted, no box ticked for them),
// the review queue at /review and on the catalogue, and My practice's
// chart of guesses against ticks. Every page is axe-clean in both themes.
func TestReviewQueueAndMarkedRubric(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const (
		setPath = "/sets/applied-ai-rapid-fire"
		field   = "answer-what-is-idempotency-and-why-do-we-need-idempotent-operations"
		box     = "#" + field + "-box"
	)
	bothThemes := func(label string) {
		t.Helper()
		for _, theme := range []string{"light", "dark"} {
			if theme == "dark" {
				emulateDark(t, ctx)
			} else {
				lightTheme(t, ctx)
			}
			checkAxe(t, ctx, label+", "+theme)
		}
	}

	visitOK(t, ctx, setPath)
	waitFor(t, ctx, box+" [data-timer-clock]")
	if !exists(t, ctx, "#"+field+"-predicted") {
		t.Fatalf("no guess of the key points in %s", box)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID(field+"-predicted"), "5")); err != nil {
		t.Fatal(err)
	}
	focusAndType(t, ctx, "#"+field, "Running it twice leaves things as once. Reuse the same key on every retry; never a new key for every retry. Otherwise we charge the customer twice.")
	waitBoxState(t, ctx, box, "running")
	evalJS[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelector(%s).click(); return true })()`, jsString(box+" form[data-timed-form] button[type=submit]")))
	waitFor(t, ctx, box+" form[data-self-assessment]")

	// The marks: one per key point with phrases, beside the checkboxes,
	// none of which the matcher ticked.
	waitFor(t, ctx, box+" [data-matched-answer] mark.match-hit")
	marks := evalJS[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(e => e.dataset.match)`, jsString(box+" .match-mark")))
	if len(marks) != 6 || marks[0] != "covered" || marks[2] != "covered" || marks[4] != "covered" || marks[1] != "not-found" {
		t.Fatalf("marks %q; want 6, the definition, the key and the money covered, where repeats come from not found", marks)
	}
	if n := count(t, ctx, box+` input[name="covered"]:checked`); n != 0 {
		t.Fatalf("%d key points ticked before the candidate ticked any", n)
	}
	hits := evalJS[string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(e => e.textContent).join("|")`, jsString(box+" mark.match-hit")))
	if !strings.Contains(hits, "same key on every retry") || !strings.Contains(hits, "charge the customer twice") {
		t.Errorf("highlighted %q; want the words that earned the marks", hits)
	}
	bothThemes(setPath + " with the matcher's marks")

	// Tick three of six after guessing five: over-confident by two.
	evalJS[bool](t, ctx, fmt.Sprintf(`(() => { const f = document.querySelector(%s);
		[0, 2, 4].forEach(i => f.querySelectorAll('input[name="covered"]')[i].click());
		f.querySelector("button[type=submit]").click(); return true })()`, jsString(box+" form[data-self-assessment]")))
	waitUntil(t, ctx, `"Saved: 3 of 6 key points covered"`, `document.body.innerText.includes("Saved: 3 of 6 key points covered")`)

	visitOK(t, ctx, "/review")
	waitFor(t, ctx, "[data-review-later] [data-review-item]")
	if got := text(t, ctx, "[data-review-later] [data-review-item] a"); !strings.Contains(got, "What is idempotency") {
		t.Errorf("the queue lists %q; want the idempotency question", got)
	}
	if got := text(t, ctx, "[data-review-later] [data-review-item] .meta"); !strings.Contains(got, "Reviewed 1 time in a row; latest interval 1 day") {
		t.Errorf("the item's schedule reads %q", got)
	}
	bothThemes("/review")

	visitOK(t, ctx, "/")
	if got := text(t, ctx, "[data-review-notice]"); !strings.Contains(got, "Nothing due for review") {
		t.Errorf("the catalogue's review line reads %q", got)
	}

	visitOK(t, ctx, "/practice")
	waitFor(t, ctx, `[data-calibration] svg[role="img"]`)
	if got := text(t, ctx, "[data-calibration] table tbody"); !strings.Contains(got, "5 of 6") || !strings.Contains(got, "3 of 6") || !strings.Contains(got, "over by 2 points") {
		t.Errorf("the calibration table reads %q", got)
	}
	bothThemes("/practice with the calibration chart")
	requireNoPageExceptions(t, ctx)
}
