package e2e

import (
	"strings"
	"testing"
)

// TestRunPageShowsTheCodeGraded: a run's own page shows the code it graded,
// read-only and numbered, beside the report at 1366x900 and after it on a
// 390 px phone, with nothing wider than the screen; and My practice on
// the phone keeps the runs table's column names. axe-clean in both themes.
func TestRunPageShowsTheCodeGraded(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	setViewport(t, ctx, 1366, 900)
	openWorkspace(t, ctx)
	gradeAndWait(t, ctx)
	starter := contentFile(t, "problems/async-refund/starter/refund.go")

	visitOK(t, ctx, codeProblem+"/runs/1")
	waitFor(t, ctx, ".run-source")
	shown := evalJS[string](t, ctx, `[...document.querySelectorAll(".run-source .run-line")].map(l => l.lastChild ? l.textContent.replace(/^\d+/, "") : "").join("\n")`)
	if strings.TrimSpace(shown) != strings.TrimSpace(starter) {
		t.Errorf("the run page's code is not the code graded:\n%s", shorten(shown))
	}
	report, code := boxOf(t, ctx, "#grade-report"), boxOf(t, ctx, ".run-code")
	t.Logf("at 1366x900: report left %.0f, width %.0f; code left %.0f, width %.0f", report.Left, report.Width, code.Left, code.Width)
	if code.Left < report.Left+report.Width-1 || code.Top > report.Top+200 {
		t.Errorf("the code is not beside the report at 1366 px (report %+v, code %+v)", report, code)
	}
	checkAxeBothThemes(t, ctx, "a run's page with its code at 1366x900")
	// My practice at 1366: the runs table as a table, with its header.
	visitOK(t, ctx, "/practice")
	waitFor(t, ctx, "table.runs")
	if !evalJS[bool](t, ctx, `document.querySelector("table.runs thead").checkVisibility()`) {
		t.Error("at 1366 px the runs table's header is hidden")
	}
	checkAxeBothThemes(t, ctx, "my practice at 1366x900")

	visitOK(t, ctx, codeProblem+"/runs/1")
	waitFor(t, ctx, ".run-source")
	setViewport(t, ctx, 390, 844)
	report, code = boxOf(t, ctx, "#grade-report"), boxOf(t, ctx, ".run-code")
	if code.Top < report.Top+report.Height-1 {
		t.Errorf("on a phone the code is not after the report (report %+v, code %+v)", report, code)
	}
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
		t.Errorf("the run page scrolls %.0f px sideways at 390 px", over)
	}
	checkAxeBothThemes(t, ctx, "a run's page with its code at 390x844")
	// My practice on the phone: the runs table's cells are stacked, each
	// with its column's name.
	visitOK(t, ctx, "/practice")
	waitFor(t, ctx, "table.runs")
	unlabelled := evalJS[[]string](t, ctx, `[...document.querySelectorAll("table.runs tbody td")]
		.filter(td => !getComputedStyle(td, "::before").content.includes(td.dataset.label || "no label"))
		.map(td => td.textContent.trim())`)
	if len(unlabelled) > 0 {
		t.Errorf("on a 390 px phone these cells of the runs table show no column name: %q", unlabelled)
	}
	noSidewaysScroll(t, ctx, "my practice at 390 px")
	checkAxeBothThemes(t, ctx, "my practice at 390x844")
	requireNoPageExceptions(t, ctx)
}
