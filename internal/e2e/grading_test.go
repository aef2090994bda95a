package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/faultline-dev/faultline/content"
)

// gradeWait bounds one grading from the press of Grade to the report on
// the page: a grading takes well under a second here, but a loaded CI
// machine starts its child slowly.
const gradeWait = 45 * time.Second

const codeProblem = "/problems/async-refund"

// contentFile reads a file of the shipped content, e.g. the reference
// solution.
func contentFile(t *testing.T, path string) string {
	t.Helper()
	b, err := fs.ReadFile(content.FS, path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openWorkspace loads the code problem and waits for the editor to mount.
func openWorkspace(t *testing.T, ctx context.Context) {
	t.Helper()
	visitOK(t, ctx, codeProblem)
	waitFor(t, ctx, "[data-code-workspace] .cm-editor[data-editor]")
	waitUntil(t, ctx, "the workspace script to hand out the editor",
		`document.getElementById("code-editor-textarea").faultlineEditor`)
}

// setCode replaces the editor's text through its API, as a paste would.
func setCode(t *testing.T, ctx context.Context, code string) {
	t.Helper()
	evalJS[bool](t, ctx, fmt.Sprintf(`(document.getElementById("code-editor-textarea").faultlineEditor.setValue(%s), true)`, jsString(code)))
}

// gradeAndWait presses Grade with the mouse and waits for the report.
func gradeAndWait(t *testing.T, ctx context.Context) {
	t.Helper()
	evalJS[bool](t, ctx, `(document.getElementById("grade-button").click(), true)`)
	waitForReport(t, ctx)
}

func waitForReport(t *testing.T, ctx context.Context) {
	t.Helper()
	waitUntil(t, ctx, "the grade report", `document.querySelector("#grade-report section.grade-report")`, gradeWait)
}

func TestGradeStarterShowsFailedScenarios(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	openWorkspace(t, ctx)

	// The editor holds the starter before anything is saved.
	starter := contentFile(t, "problems/async-refund/starter/refund.go")
	if got := evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`); got != starter {
		t.Fatalf("the editor does not hold the starter code:\n%s", shorten(got))
	}
	gradeAndWait(t, ctx)

	if n := count(t, ctx, "#grade-report .grade-scenario.grade-fail"); n == 0 {
		t.Fatal("grading the starter shows no failed scenario")
	}
	// Every failed scenario explains itself: a violated invariant with a
	// message in plain words, and its run drawn to open. (Those whose part
	// is loaded when opened are checked in TestScenarioPartsLoadWhenOpened.)
	unexplained := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#grade-report .grade-scenario.grade-fail:not([data-scenario-src])")]
		.filter(s => !s.querySelector(".grade-violations li") && !s.querySelector(".grade-message"))
		.map(s => s.id)`)
	if len(unexplained) > 0 {
		t.Errorf("failed scenarios without an explanation: %v", unexplained)
	}
	if !exists(t, ctx, "#grade-report .grade-scenario.grade-fail figure.grade-sequence svg") {
		t.Error("no failed scenario has a sequence diagram")
	}
	progress := text(t, ctx, "#grade-progress")
	if !strings.Contains(progress, "scenarios passed") {
		t.Errorf("#grade-progress after the report = %q", progress)
	}
	if id := evalJS[string](t, ctx, `document.activeElement.closest("#grade-report") ? document.activeElement.tagName : ""`); id != "H2" {
		t.Errorf("focus after the report is on %q; want the report's heading", id)
	}
	checkAxe(t, ctx, codeProblem+" with a failing report")

	// A reload shows the last report, and the code.
	openWorkspace(t, ctx)
	if !exists(t, ctx, "#grade-report .grade-scenario.grade-fail") {
		t.Error("after a reload the last report is gone")
	}
	checkAxe(t, ctx, codeProblem+" reloaded with its last report")
	requireNoPageExceptions(t, ctx)
}

func TestGradeReferenceHoldsEveryInvariant(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	openWorkspace(t, ctx)
	reference := contentFile(t, "problems/async-refund/reference/refund.go")
	setCode(t, ctx, reference)
	gradeAndWait(t, ctx)

	if !exists(t, ctx, "#grade-report section.grade-report.grade-pass") {
		t.Fatalf("the reference did not pass: %s", shorten(text(t, ctx, "#grade-report")))
	}
	held := count(t, ctx, "#grade-report .grade-invariant.grade-held")
	violated := count(t, ctx, "#grade-report .grade-invariant.grade-violated")
	if held == 0 || violated != 0 {
		t.Errorf("invariants: %d held, %d violated; want all held", held, violated)
	}
	if n := count(t, ctx, "#grade-report .grade-scenario.grade-fail"); n != 0 {
		t.Errorf("%d scenarios failed", n)
	}
	checkAxe(t, ctx, codeProblem+" with a passing report")

	// The code graded is the code kept: a reload brings the reference back.
	openWorkspace(t, ctx)
	if got := evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`); got != reference {
		t.Errorf("after a reload the editor holds %q", shorten(got))
	}
	requireNoPageExceptions(t, ctx)
}

func TestCompileErrorMarkedAtItsLine(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	openWorkspace(t, ctx)

	// Line 10 calls a function that does not exist.
	const badLine = 10
	broken := `package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return undefinedHelper(ctx, requestID)
}
`
	setCode(t, ctx, broken)
	gradeAndWait(t, ctx)

	if !exists(t, ctx, "#grade-report section.grade-report.grade-error") {
		t.Fatalf("the report is not a compile error: %s", shorten(text(t, ctx, "#grade-report")))
	}
	// The editor marks the line; the view says which line the mark is on.
	waitFor(t, ctx, ".cm-editor .cm-lintRange-error")
	lines := evalJS[[]int](t, ctx, `(() => {
		const view = document.getElementById("code-editor-textarea").faultlineEditor.view;
		return [...document.querySelectorAll(".cm-editor .cm-lintRange-error")]
			.map(el => view.state.doc.lineAt(view.posAtDOM(el)).number);
	})()`)
	if len(lines) == 0 || lines[0] != badLine {
		t.Errorf("diagnostic marks on lines %v; want line %d", lines, badLine)
	}
	if !exists(t, ctx, ".cm-editor .cm-gutter-lint .cm-lint-marker-error") {
		t.Error("no error marker in the editor's gutter")
	}
	// The list under the editor names the line and takes the cursor there.
	item := text(t, ctx, "#code-diagnostics button")
	if !strings.HasPrefix(item, fmt.Sprintf("Line %d", badLine)) || !strings.Contains(item, "undefinedHelper") {
		t.Errorf("diagnostic list item = %q", item)
	}
	evalJS[bool](t, ctx, `(document.querySelector("#code-diagnostics button").click(), true)`)
	cursorLine := evalJS[int](t, ctx, `(() => {
		const view = document.getElementById("code-editor-textarea").faultlineEditor.view;
		return view.hasFocus ? view.state.doc.lineAt(view.state.selection.main.head).number : -1;
	})()`)
	if cursorLine != badLine {
		t.Errorf("after choosing the diagnostic the cursor is on line %d (-1: editor not focused); want %d", cursorLine, badLine)
	}
	checkAxe(t, ctx, codeProblem+" with a compile error marked")
	requireNoPageExceptions(t, ctx)
}

func TestKeyboardAloneCompletesAGradingRun(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	openWorkspace(t, ctx)

	// Tab into the editor, type, leave it the documented way (Escape, then
	// Tab) and Tab on to Grade.
	inEditor := `document.activeElement && document.activeElement.classList.contains("cm-content")`
	for i := 0; ; i++ {
		if i == 80 {
			t.Fatal("80 Tab presses did not reach the code editor")
		}
		pressTab(t, ctx, 1)
		if evalJS[bool](t, ctx, inEditor) {
			break
		}
	}
	pressKey(t, ctx, kb.End, chromedp.ModifierCtrl)
	typeKeys(t, ctx, "// typed by keyboard")
	pressKey(t, ctx, kb.Escape)
	pressTab(t, ctx, 1)
	if evalJS[bool](t, ctx, inEditor) {
		t.Fatal("Escape then Tab did not leave the editor")
	}
	f := focused(t, ctx)
	for i := 0; f.ID != "grade-button"; i++ {
		if i == 5 {
			t.Fatalf("focus after the editor went to %v, not to Grade within 5 Tabs", f)
		}
		pressTab(t, ctx, 1)
		f = focused(t, ctx)
	}
	if !f.indicated() {
		t.Errorf("the Grade button shows no focus ring: outline %q", f.Outline)
	}
	pressKey(t, ctx, kb.Enter)
	waitForReport(t, ctx)
	if id := evalJS[string](t, ctx, `document.activeElement.closest("#grade-report") ? document.activeElement.tagName : ""`); id != "H2" {
		t.Errorf("focus after the report is on %q; want the report's heading", id)
	}
	if !strings.Contains(evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").value`), "// typed by keyboard") {
		t.Error("the typed text is not in the code that was graded")
	}
	requireNoPageExceptions(t, ctx)
}

func TestCodeAutosavedAndRestored(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	openWorkspace(t, ctx)
	evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
	pressKey(t, ctx, kb.End, chromedp.ModifierCtrl)
	typeKeys(t, ctx, "// kept across a reload")
	waitUntil(t, ctx, `#code-save-status to say "Saved"`, `document.getElementById("code-save-status").textContent === "Saved"`)
	openWorkspace(t, ctx)
	if got := evalJS[string](t, ctx, `document.getElementById("code-editor-textarea").faultlineEditor.getValue()`); !strings.HasSuffix(got, "// kept across a reload") {
		t.Errorf("after a reload the editor ends with %q", shorten(got[max(0, len(got)-60):]))
	}
	requireNoPageExceptions(t, ctx)
}
