package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestWorkspaceStagesWhatGivesPartOneAway: on the shipped refund problem
// the harness reference is held back in a staged panel until the
// candidate has started (a saved draft), and what the grader checks is
// hidden beside the results until there is a result.
func TestWorkspaceStagesWhatGivesPartOneAway(t *testing.T) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cat.Problem("async-refund")
	if !ok {
		t.Fatal("no shipped async-refund problem")
	}
	var checks, reference []problems.Section
	for _, sec := range p.Sections {
		if sec.Title == checksSectionTitle {
			checks = append(checks, sec)
		} else {
			reference = append(reference, sec)
		}
	}
	if len(checks) != 1 || len(reference) == 0 {
		t.Fatalf("async-refund has %d %q sections and %d others; want one and some", len(checks), checksSectionTitle, len(reference))
	}
	ts := newTestServer(t, cat)
	b := ts.newBrowser(t)
	pg := b.get("/problems/async-refund")
	if pg.status != 200 {
		t.Fatalf("status %d", pg.status)
	}
	stagedTab := regexp.MustCompile(`<button[^>]*aria-controls="ws-reference"[^>]*data-staged`)
	tests := []struct {
		name string
		ok   bool
	}{
		{"the reference panel holds the harness", strings.Contains(section(pg.body, `id="ws-reference"`), reference[0].Body.HTML)},
		{"its tab is staged", stagedTab.MatchString(pg.body)},
		{"not yet opened", strings.Contains(pg.body, `data-reference-open="false"`)},
		{"the checks are hidden with the results", regexp.MustCompile(`<details class="grade-checks" id="grade-checks" hidden`).MatchString(pg.body)},
		{"the checks are not in the statement", !strings.Contains(section(pg.body, `id="ws-statement"`), checks[0].Body.HTML)},
		{"the statement keeps the original helpers", strings.Contains(section(pg.body, `id="ws-statement"`), "GetRecord")},
	}
	for _, tc := range tests {
		if !tc.ok {
			t.Errorf("before anything is written: %s: no", tc.name)
		}
	}
	// The statement before the reference names none of Part 2's tools.
	for _, word := range []string{"Claim(", "lease", "LeaseUntil"} {
		if strings.Contains(section(pg.body, `id="ws-statement"`), word) {
			t.Errorf("the statement panel names %q before Part 2", word)
		}
	}
	b.postCode("/problems/async-refund/code", "package refund\n", true)
	after := b.get("/problems/async-refund")
	if !strings.Contains(after.body, `data-reference-open="true"`) {
		t.Error("after a saved draft the reference is still held back")
	}
}

// section is the HTML from the element with attr to the next panel.
func section(body, attr string) string {
	i := strings.Index(body, attr)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest[len(attr):], "ws-panel"); j >= 0 {
		return rest[:len(attr)+j]
	}
	return rest
}
