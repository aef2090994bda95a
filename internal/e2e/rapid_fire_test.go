package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// rapidSet has three questions; the second runs out after five seconds,
// so the run shows the next question offered both on submit and on timeout.
const rapidSet = `---
slug: rapid-three
title: Three quick questions
---

Three questions asked one after another.

## What does an idempotency key protect against?

### Model answer

RAPID-ONE-MODEL: a retry being applied twice.

### Key points

- Retries applied twice
- The key is stored before the first send

## Which error does a lost reply look like?

### Model answer

RAPID-TWO-MODEL: a timeout, an unknown outcome.

### Key points

- A timeout

### Time limit

5s

## When is a refund safe to retry?

### Model answer

RAPID-THREE-MODEL: when the same key is sent again.

### Key points

- Same key
`

// TestRapidFireFromFirstQuestionToSummary runs a set one question at a
// time as a candidate would: answer and submit, let one question's time
// run out, answer the last, then read the summary with the time used and
// the self-assessment per question. axe checks a question and the summary,
// and the summary must not scroll sideways on a phone.
func TestRapidFireFromFirstQuestionToSummary(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("sets/rapid-three.md", rapidSet))
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	setViewport(t, ctx, 1366, 900)
	visitOK(t, ctx, "/sets/rapid-three")
	clickAndLoad(t, ctx, `a[href="/sets/rapid-three/rapid?q=1"]`)

	for n := 1; n <= 3; n++ {
		if got := text(t, ctx, "h1"); got != fmt.Sprintf("Question %d of 3", n) {
			t.Fatalf("the heading reads %q; want question %d of 3", got, n)
		}
		if got := count(t, ctx, "section.question"); got != 1 {
			t.Fatalf("question %d: %d questions on the page; want one", n, got)
		}
		if exists(t, ctx, "[data-rapid-next]") {
			t.Fatalf("question %d offers the next step before it is answered", n)
		}
		if n == 1 {
			checkAxe(t, ctx, "a rapid-fire question")
		}
		focusAndType(t, ctx, "section.question [data-timed-box] textarea", fmt.Sprintf("Answer %d: the same key.", n))
		waitUntil(t, ctx, "the server to record the start", `document.querySelector("[data-timer-session]").value !== ""`)
		if n == 2 {
			// Let the five seconds run out: the box locks, stores the answer
			// and offers the next question by itself.
			waitUntil(t, ctx, "the next question after the time ran out", `!!document.querySelector("[data-rapid-next]")`, 20*time.Second)
		} else {
			evalJS[bool](t, ctx, `(() => { document.querySelector("section.question [data-timed-box] button[type=submit]").click(); return true })()`)
			waitUntil(t, ctx, "the next step after submitting", `!!document.querySelector("[data-rapid-next]")`)
		}
		if n == 1 {
			// Tick one of the two key points.
			evalJS[bool](t, ctx, `(() => {
				document.querySelector('form[data-self-assessment] input[name="covered"]').click();
				document.querySelector("form[data-self-assessment] button[type=submit]").click();
				return true })()`)
			waitUntil(t, ctx, "the self-assessment to save", `document.body.textContent.includes("Saved: 1 of 2 key points covered")`)
			// The next question is right under the answer: no second
			// answer box open between them, nothing listed twice; at
			// 1366x900 and on a 390 px phone, in both themes.
			for _, size := range weblightSizes {
				setViewport(t, ctx, size.width, size.height)
				answer := boxOf(t, ctx, "[data-answer-compare]")
				next := boxOf(t, ctx, "[data-rapid-next]")
				height := evalJS[float64](t, ctx, `document.documentElement.scrollHeight`)
				t.Logf("answered at %s: comparison %.0f-%.0f px, next %.0f px down, page %.0f px", size.name, answer.Top, answer.Bottom, next.Top, height)
				if gap := next.Top - answer.Bottom; gap > 120 || gap < 0 {
					t.Errorf("at %s the next question is %.0f px under the answer's comparison; want it right under (0 to 120 px)", size.name, gap)
				}
				if evalJS[bool](t, ctx, `document.querySelector("section.question textarea").checkVisibility()`) {
					t.Errorf("at %s a second answer box is open under the answer", size.name)
				}
				if n := evalJS[int](t, ctx, `[...document.querySelectorAll("section.question h3")].filter(h => /key points/i.test(h.textContent)).length`); n != 1 {
					t.Errorf("at %s: %d key-point lists on the answered question; want one", size.name, n)
				}
				noSidewaysScroll(t, ctx, "an answered rapid-fire question at "+size.name)
				checkAxeBothThemes(t, ctx, "an answered rapid-fire question at "+size.name)
			}
			setViewport(t, ctx, 1366, 900)
		}
		want := fmt.Sprintf("Next: question %d of 3", n+1)
		if n == 3 {
			want = "See the summary"
		}
		if got := text(t, ctx, "[data-rapid-next]"); got != want {
			t.Fatalf("the next step reads %q; want %q", got, want)
		}
		clickAndLoad(t, ctx, "[data-rapid-next]")
	}

	if got := text(t, ctx, "h1"); got != "Summary" {
		t.Fatalf("after the last question the heading reads %q", got)
	}
	rows := evalJS[[]string](t, ctx, `[...document.querySelectorAll("table.rapid-summary tbody tr")].map(r => r.innerText.replace(/\s+/g, " "))`)
	if len(rows) != 3 {
		t.Fatalf("the summary has %d rows; want 3: %q", len(rows), rows)
	}
	for i, want := range [][]string{
		{"What does an idempotency key protect against?", "Timed: 0:", "1 of 2 key points covered"},
		{"Which error does a lost reply look like?", "time ran out at 0:05", "Not assessed yet"},
		{"When is a refund safe to retry?", "Timed: 0:", "Not assessed yet"},
	} {
		for _, w := range want {
			if !strings.Contains(rows[i], w) {
				t.Errorf("summary row %d %q lacks %q", i+1, rows[i], w)
			}
		}
	}
	if got := text(t, ctx, "p.summary"); !strings.HasPrefix(got, "3 of 3 questions answered") {
		t.Errorf("the summary's total reads %q", got)
	}
	for _, size := range weblightSizes {
		setViewport(t, ctx, size.width, size.height)
		noSidewaysScroll(t, ctx, "the rapid-fire summary at "+size.name)
		checkAxeBothThemes(t, ctx, "the rapid-fire summary at "+size.name)
	}
	requireNoPageExceptions(t, ctx)
}

// TestRapidFireRevealInPlace: revealing a rapid-fire question's model
// answer without answering keeps the run's page (the server's redirect
// leads to the set), shows the answer and offers the next question; at
// 1366x900 and 390x844, axe-clean in both themes.
func TestRapidFireRevealInPlace(t *testing.T) {
	t.Parallel()
	a := startApp(t, withContentFile("sets/rapid-three.md", rapidSet))
	// Each size in a browser of its own: a new candidate, nothing revealed.
	for _, size := range weblightSizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, size.width, size.height)
			visitOK(t, ctx, "/sets/rapid-three/rapid?q=1")
			evalJS[bool](t, ctx, `(window.faultlineSamePage = true)`)
			clickInPlace(t, ctx, `section.question form[action$="/reveal"] button[type=submit]`)
			waitFor(t, ctx, "section.question .answer-material")
			if !evalJS[bool](t, ctx, `window.faultlineSamePage === true && location.pathname === "/sets/rapid-three/rapid"`) {
				t.Fatalf("the reveal left the run's page for %s", evalJS[string](t, ctx, `location.href`))
			}
			if got := text(t, ctx, "[data-rapid-next]"); got != "Next: question 2 of 3" {
				t.Errorf("after the reveal the next step reads %q; want the next question", got)
			}
			if id := activeElementID(t, ctx); id != "q-"+evalJS[string](t, ctx, `document.querySelector("section.question").id.slice(2)`)+"-material" {
				t.Errorf("after the reveal focus is on #%s; want the revealed material", id)
			}
			noSidewaysScroll(t, ctx, "a rapid-fire question revealed in place at "+size.name)
			checkAxeBothThemes(t, ctx, "a rapid-fire question revealed in place at "+size.name)
			requireNoPageExceptions(t, ctx)
		})
	}
}
