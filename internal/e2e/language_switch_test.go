package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/faultline-dev/faultline/internal/pyenv"
)

func editorText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`)
}

// waitForLanguage waits until the workspace shows its code in lang, in
// that language's editor mode, after a switch reloaded the page.
func waitForLanguage(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	waitFor(t, ctx, `[data-code-workspace][data-lang="`+lang+`"] .cm-editor[data-editor="`+lang+`"]`)
	waitUntil(t, ctx, "the workspace script to hand out the editor",
		`document.getElementById("code-editor-textarea").faultlineEditor`)
}

// TestLanguageSwitchKeepsEachDraft: the refund problem is answered in Go
// or Python. Switching to Python (with the pointer) shows Python's starter
// in Python's editor mode; the Python reference typed there grades to a
// report; switching back (from the keyboard) finds the Go draft as it was
// left, and Python's draft waits for the next switch. axe is clean on the
// switch and on the Python report, in both themes.
func TestLanguageSwitchKeepsEachDraft(t *testing.T) {
	t.Parallel()
	if _, why := pyenv.Available(); why != "" {
		t.Skip("Python cannot be graded on this machine: " + why)
	}
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	openWorkspace(t, ctx)
	if got := text(t, ctx, "#code-lang legend"); got != "Language" {
		t.Fatalf("the language switch's legend is %q", got)
	}
	goDraft := contentFile(t, "problems/async-refund/starter/refund.go") + "\n// GO-DRAFT-MARKER\n"
	setCode(t, ctx, goDraft)
	checkAxeBothThemes(t, ctx, codeProblem+" with the language switch")

	// A click on Python saves the Go code first, then shows Python's.
	loadAfter(t, ctx, "click Python", chromedp.Click(chromedp.CSS(`#code-lang input[value="python"]`), chromedp.NodeVisible))
	waitForLanguage(t, ctx, "python")
	if got, want := editorText(t, ctx), contentFile(t, "problems/async-refund/starter/refund.py"); got != want {
		t.Fatalf("after switching to Python the editor holds:\n%s", shorten(got))
	}
	waitUntil(t, ctx, "focus back on the Python option after the switch",
		`document.activeElement && document.activeElement.matches('#code-lang input[value="python"]')`)
	if label := text(t, ctx, "#code-editor-label"); !strings.Contains(label, "refund.py") {
		t.Errorf("the code's label is %q; want refund.py", label)
	}

	// Python typed (as a paste would) grades to the same report.
	reference := contentFile(t, "problems/async-refund/reference/refund.py")
	setCode(t, ctx, reference)
	gradeAndWait(t, ctx)
	if !exists(t, ctx, "#grade-report section.grade-report.grade-pass") {
		t.Fatalf("the Python reference did not pass: %s", shorten(text(t, ctx, "#grade-report")))
	}
	if n := count(t, ctx, "#grade-report .grade-invariant.grade-violated"); n != 0 {
		t.Errorf("%d invariants violated by the Python reference", n)
	}
	checkAxeBothThemes(t, ctx, codeProblem+"?lang=python with a passing report")

	// Back to Go from the keyboard: the arrow chooses without leaving the
	// page, the button switches.
	evalJS[bool](t, ctx, `(document.querySelector('#code-lang input[value="python"]').focus(), true)`)
	pressKey(t, ctx, kb.ArrowUp)
	if exists(t, ctx, `[data-code-workspace][data-lang="go"]`) {
		t.Fatal("choosing with an arrow key switched at once")
	}
	evalJS[bool](t, ctx, `(document.getElementById("lang-switch-button").focus(), true)`)
	loadAfter(t, ctx, "press the switch button", chromedp.KeyEvent(kb.Enter))
	waitForLanguage(t, ctx, "go")
	if got := editorText(t, ctx); got != goDraft {
		t.Errorf("back in Go the editor holds:\n%s", shorten(got))
	}
	// The Go page shows no Python report: each language its own.
	if exists(t, ctx, "#grade-report section.grade-report") {
		t.Error("the Go workspace shows the Python run's report")
	}

	// And Python's draft is the reference, graded.
	visitOK(t, ctx, codeProblem+"?lang=python")
	waitForLanguage(t, ctx, "python")
	if got := editorText(t, ctx); got != reference {
		t.Errorf("Python's draft is:\n%s", shorten(got))
	}
	if !exists(t, ctx, "#grade-report section.grade-report.grade-pass") {
		t.Error("Python's page lost its report")
	}
	requireNoPageExceptions(t, ctx)
}
