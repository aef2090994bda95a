package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestCheck: a Check saves the draft, grades only the quick scenarios, is
// not stored as a grade run, and answers the script with the result.
func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		report      *gradewire.Report
		err         error
		script      bool
		status      int
		wantInBody  []string
		wantVerdict string
		// notInBody: what only a Grade may say. A Check's few scenarios
		// cannot judge every defect of the original, and its report is of
		// the code just sent, so never of "an earlier version".
		notInBody []string
	}{
		{name: "failing code, from the script", report: failingReport(), script: true, status: http.StatusOK,
			wantInBody:  []string{"1 of 2 quick scenarios passed", "Check: 1 of 2 quick scenarios failed", "LOST-REPLY-TITLE", "HAPPY-PATH-TITLE"},
			notInBody:   []string{"Grade: failed", "defects of the original fixed", "NO-KEY-DEFECT", "LOST-CLAIM-MISTAKE", "earlier version"},
			wantVerdict: gradewire.StatusFail},
		{name: "a compile error, from the script", report: compileErrorReport(), script: true, status: http.StatusOK,
			wantInBody: []string{"does not compile", "COMPILE-MARKER", "Check: could not run the code"},
			notInBody:  []string{"Grade: could not be graded", "earlier version"}, wantVerdict: gradewire.StatusError},
		{name: "failing code, from a plain form", report: failingReport(), status: http.StatusOK,
			wantInBody: []string{"Check of your code", "1 of 2 quick scenarios passed", "back to your code",
				"Check: 1 of 2 quick scenarios failed", "HAPPY-PATH-TITLE", "LOST-REPLY-TITLE"},
			notInBody: []string{"Grade: failed", "defects of the original fixed", "NO-KEY-DEFECT", "LOST-CLAIM-MISTAKE", "earlier version"}},
		{name: "the grader busy", err: &sandbox.BusyError{}, script: true, status: http.StatusServiceUnavailable,
			wantInBody: []string{"busy", "Your code is saved"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGrader{report: tc.report, err: tc.err}
			ts := newGradingTestServer(t, g)
			b := ts.newBrowser(t)
			const code = "package refund\n// CHECKED-CODE\n"
			p := b.postCode("/problems/"+gradedSlug+"/check", code, tc.script)
			if p.status != tc.status {
				t.Fatalf("status %d; want %d: %s", p.status, tc.status, p.body)
			}
			for _, w := range tc.wantInBody {
				if !strings.Contains(p.body, w) {
					t.Errorf("the answer lacks %q: %s", w, p.body)
				}
			}
			for _, w := range tc.notInBody {
				if strings.Contains(p.body, w) {
					t.Errorf("a Check says %q: %s", w, p.body)
				}
			}
			if tc.wantVerdict != "" {
				var res checkResult
				if err := json.Unmarshal([]byte(p.body), &res); err != nil {
					t.Fatalf("the answer is not JSON: %v", err)
				}
				if res.Verdict != tc.wantVerdict {
					t.Errorf("verdict %q; want %q", res.Verdict, tc.wantVerdict)
				}
				if len(res.Scenarios) != len(tc.report.Scenarios) {
					t.Errorf("%d scenarios in the answer; the report had %d", len(res.Scenarios), len(tc.report.Scenarios))
				}
			}
			jobs := g.graded()
			if len(jobs) != 1 {
				t.Fatalf("%d gradings; want 1", len(jobs))
			}
			want := shippedPlan(gradedSlug).Check
			if len(want) == 0 || !slices.Equal(jobs[0].Only, want) || jobs[0].Source != code {
				t.Errorf("graded scenarios %v of %q; want the check's %v", jobs[0].Only, jobs[0].Source, want)
			}
			// The draft is saved; no grade run is stored.
			page := b.get("/problems/" + gradedSlug)
			if !strings.Contains(page.body, "CHECKED-CODE") {
				t.Error("the checked code is not the saved draft")
			}
			if strings.Contains(page.body, "/runs/") {
				t.Error("the check was stored as a grade run")
			}
			// The one place is free again: a Grade can start.
			if g.err == nil {
				b.startGrade(code)
			}
		})
	}
}

// TestCheckWhileGradeRuns: one grading at a time per user, Check included.
func TestCheckWhileGradeRuns(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts := newGradingTestServer(t, g)
	b := ts.newBrowser(t)
	b.startGrade("package refund\n")
	p := b.postCode("/problems/"+gradedSlug+"/check", "package refund\n// SECOND\n", true)
	if p.status != http.StatusConflict || !strings.Contains(p.body, "still running") {
		t.Errorf("a Check during a Grade: status %d %s; want 409 saying the Grade is still running", p.status, p.body)
	}
	close(g.gate)
	// The Grade reaches the grader in the background, later on a slower
	// store (Postgres); the Check's 409 came back without grading, so
	// once the Grade's job is there the count is final.
	waitFor(t, func() bool { return len(g.graded()) > 0 })
	if jobs := g.graded(); len(jobs) != 1 || strings.Contains(jobs[0].Source, "SECOND") {
		t.Errorf("%d gradings (%v); only the Grade's, and the Check must not have graded", len(jobs), jobs)
	}
}

// TestCheckReportOfTheStarter: the starter's report read as a Check is
// headed as a Check, names each scenario it ran with how it ended, and
// counts no defect (the starter fixes none; a Check cannot tell).
func TestCheckReportOfTheStarter(t *testing.T) {
	rep := goldenReport(t, starterGolden)
	var buf bytes.Buffer
	if err := checkReport(rep).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc := parseFragment(t, buf.String())
	h := doc.byID["check-grade-report-h"]
	if h == nil || !strings.HasPrefix(textOf(h), "Check: ") {
		t.Errorf("the heading is not a Check's: %.200s", buf.String())
	}
	for _, bad := range []string{"Grade: ", "defects of the original fixed", "Defects of the original code", "data-grade-stale", "earlier version"} {
		if strings.Contains(buf.String(), bad) {
			t.Errorf("a Check's report says %q", bad)
		}
	}
	ran := doc.byID["check-check-ran-h"]
	if ran == nil {
		t.Fatal("no list of the scenarios the check ran")
	}
	for _, sc := range rep.Scenarios {
		link := "#check-" + scenarioAnchor(sc.Name)
		found := false
		for _, a := range find(doc.root, tagged("a")) {
			if attr(a, "href") == link && textOf(a) == sc.Title {
				found = true
			}
		}
		if !found {
			t.Errorf("the scenario %s (%q) is not listed with a link to its run", sc.Name, sc.Title)
		}
	}
}
