package e2e

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // to change a stored run's code
)

// TestPassedReplayRefusedSaysSoInPlace: when a passed scenario's run
// cannot be replayed (here the stored code no longer compiles, so the
// replay does not pass as the grade did), opening it shows why in the
// scenario, which keeps its link to try again; axe-clean.
func TestPassedReplayRefusedSaysSoInPlace(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	openCode(t, ctx, false)
	gradeAndWait(t, ctx)

	db, err := sql.Open("sqlite", "file:"+a.DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The draft too, so the report is not marked stale for the editor.
	for _, table := range []string{"grade_run_files SET source", "code_drafts SET code"} {
		if res, err := db.Exec(`UPDATE ` + table + ` = 'package refund // NO LONGER COMPILES'`); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%s: %d rows; want the one", table, n)
		}
	}

	openCode(t, ctx, false)
	waitFor(t, ctx, "#grade-report section.grade-report")
	passed := evalJS[string](t, ctx, `(() => { const d = document.querySelector("#grade-report .grade-scenario.grade-pass[data-scenario-src]");
		if (!d) return ""; d.closest(".grade-passed-fold").open = true; d.open = true; return "#" + d.id })()`)
	if passed == "" {
		t.Fatal("no passed scenario offers its run to load")
	}
	waitFor(t, ctx, passed+" .grade-replay-note .grade-replay-refused")
	if !exists(t, ctx, passed+"[data-scenario-src]") || exists(t, ctx, passed+" figure.grade-sequence") {
		t.Error("a refused replay drew a run or took the scenario's link away")
	}
	checkAxe(t, ctx, codeProblem+" with a refused replay")
}
