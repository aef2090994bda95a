package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAccessibility runs axe-core on every page of the app, and on the
// problem and set pages in the states a candidate brings them to (hints
// shown, answer material revealed). A serious or critical violation fails.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))

	pages := []struct {
		name, path string
		status     int
	}{
		{"catalogue", "/", http.StatusOK},
		{"catalogue filtered by a tag", "/?topic=idempotency", http.StatusOK},
		{"catalogue filtered to nothing", "/?topic=no-such-topic", http.StatusOK},
		{"code problem", "/problems/async-refund", http.StatusOK},
		{"timed-answer problem", "/problems/idempotent-create-client", http.StatusOK},
		{"rapid-fire set", "/sets/applied-ai-rapid-fire", http.StatusOK},
		{"screen", "/screens/applied-ai-tech-screen", http.StatusOK},
		{"unknown problem (404)", "/problems/no-such-problem", http.StatusNotFound},
		{"unknown path (404)", "/no/such/page", http.StatusNotFound},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			if status := visit(t, ctx, p.path); status != p.status {
				t.Fatalf("GET %s: status %d, want %d", p.path, status, p.status)
			}
			checkAxe(t, ctx, p.path)
		})
	}

	t.Run("problem after revealing hints", func(t *testing.T) {
		visitOK(t, ctx, "/problems/async-refund")
		openTab(t, ctx, "part-1-tab")
		clickInPlace(t, ctx, `form[action$="/hints"] button[type=submit]`)
		waitFor(t, ctx, "#part-1-hint-1")
		checkAxe(t, ctx, "/problems/async-refund with hint 1 of part 1 shown")
	})
	t.Run("problem after revealing the answer material", func(t *testing.T) {
		visitOK(t, ctx, "/problems/async-refund")
		openTab(t, ctx, "ws-answer-tab")
		clickInPlace(t, ctx, `form[action$="/reveal"] button[type=submit]`)
		waitFor(t, ctx, "#answer-material")
		checkAxe(t, ctx, "/problems/async-refund with the answer material revealed")
	})
	t.Run("set after revealing a model answer", func(t *testing.T) {
		visitOK(t, ctx, "/sets/applied-ai-rapid-fire")
		clickInPlace(t, ctx, `form[action$="/reveal"] button[type=submit]`)
		waitFor(t, ctx, ".answer-material")
		checkAxe(t, ctx, "/sets/applied-ai-rapid-fire with a model answer revealed")
	})
	t.Run("my practice", func(t *testing.T) {
		if status := visit(t, ctx, "/practice"); status != http.StatusOK {
			t.Fatalf("/practice answers %d; want 200", status)
		}
		checkAxe(t, ctx, "/practice after using the problems and the set")
	})
	requireNoPageExceptions(t, ctx)
}

// TestAccessibilityOfTimedAnswer runs axe-core on the timed answer box in
// each state a candidate sees: idle, running, submitted with the model
// answer and the self-assessment, and after saving the self-assessment.
func TestAccessibilityOfTimedAnswer(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const path = "/problems/idempotent-create-client"
	visitOK(t, ctx, path)
	waitFor(t, ctx, `[data-timed-box][data-state="idle"]`)
	checkAxe(t, ctx, path+" with the box idle")

	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("answer-text"))); err != nil {
		t.Fatal(err)
	}
	typeKeys(t, ctx, "Treat the outcome as unknown and retry with the same key.")
	waitFor(t, ctx, `[data-timed-box][data-state="running"]`)
	checkAxe(t, ctx, path+" with the clock running")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-timed-box] form button[type=submit]`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "form[data-self-assessment]")
	checkAxe(t, ctx, path+" after submitting, with the model answer and key points")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[data-self-assessment] input[name="covered"]`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[data-self-assessment] button[type=submit]`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, `"Saved: 1 of N key points covered"`, `/Saved: 1 of \d+ key points covered/.test(document.body.innerText)`)
	checkAxe(t, ctx, path+" after saving the self-assessment")
	requireNoPageExceptions(t, ctx)
}

// TestAccessibilityOfGrading runs axe-core on the code workspace with the
// editor mounted, and on the grading report of the starter code with a
// failed scenario's trace opened.
func TestAccessibilityOfGrading(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(4*time.Minute))
	const path = "/problems/async-refund"
	visitOK(t, ctx, path)
	waitFor(t, ctx, "[data-code-workspace] .cm-editor")
	checkAxe(t, ctx, path+" with the editor mounted")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("grade-button"), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the report of the starter code", `document.querySelector("#grade-report section.grade-report")`, 3*time.Minute)
	evalJS[bool](t, ctx, `(() => { const d = document.querySelector("#grade-report .grade-fail details"); if (d) d.open = true; return !!d })()`)
	checkAxe(t, ctx, path+" with the starter's report and a trace opened")
	requireNoPageExceptions(t, ctx)

	// The run's own page (the permalink, and the path without JavaScript)
	// and the history that lists the run.
	runURL := evalJS[string](t, ctx, `(() => { const a = document.querySelector('a[href*="/runs/"]:not([href*="/scenarios/"])'); return a ? a.getAttribute("href") : "" })()`)
	if runURL == "" {
		runURL = path + "/runs/1"
	}
	visitOK(t, ctx, runURL)
	waitFor(t, ctx, "section.grade-report")
	checkAxe(t, ctx, runURL+", the run page")
	visitOK(t, ctx, "/practice")
	waitFor(t, ctx, "table.runs")
	checkAxe(t, ctx, "/practice with a grader run")
}
