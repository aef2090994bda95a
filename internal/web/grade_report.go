package web

import (
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// failedListedOpen is how many failed scenarios the report lists unfolded;
// past it the list is folded (a report of the starter fails 35, and would
// otherwise fill a third screen), and "What broke" links into it.
const failedListedOpen = 8

// reportView is a grade report arranged to be read at a glance: a summary
// strip, the broken invariants (each explained once, with the scenarios
// where it broke), the held ones as a count, then the failed scenarios
// closed, each with its run drawn as a sequence diagram.
type reportView struct {
	R *gradewire.Report
	P string // prefix of every id, so two reports can share a page
	// SourceHash is sourceHash of the graded code: the page's script marks
	// the report stale when the editor's text no longer has it.
	SourceHash string
	// Check marks a quick Check's report: headed as one, listing the
	// scenarios it ran, and silent on what only a Grade judges.
	Check bool
	// RunURL is the stored run's page, which serves each scenario's part
	// of the report on its own (gradeRunScenario): with it, the runs of
	// the scenarios are loaded when opened, not sent with the report.
	// "": everything is inline (a room's report, a Check).
	RunURL string
	// Alone marks a scenario's part shown on a page of its own, whose
	// links into the rest of the report go to the run's page.
	Alone bool
	// NoReplay: a passed scenario's run cannot be asked for (a room's run:
	// the room's grader replays nothing), so a pass links no part.
	NoReplay bool
	// WholeURL is the page of the whole report when it is not RunURL (a
	// room's run: RunURL/report).
	WholeURL string
	// Of is the id of a heading outside the report that names whose it
	// is, added to its sections' names: a room's page shows several
	// reports, whose sections would otherwise be named alike.
	Of string

	Original       []gradewire.DefectStatus
	OriginalFixed  int
	Rewrite        []gradewire.DefectStatus
	RewriteAvoided int

	FirstFailure *gradewire.ScenarioReport // nil when nothing failed
	Broken       []brokenInvariant
	Held         []heldInvariant
	Failed       []failedScenario
	Passed       []gradewire.ScenarioReport
}

// brokenInvariant is one invariant violated in at least one scenario.
type brokenInvariant struct {
	ID, Title, Why string
	Defects        []string // titles of the seed defects its violations point to
	Evidence       string   // the first violation's message
	In             []brokenIn
	Checked        int // scenarios that checked it, held or not
}

// brokenIn is one scenario where an invariant broke, with what it saw.
type brokenIn struct {
	Scenario, Title, Message string
}

// heldInvariant is an invariant that held in every scenario that checked it.
type heldInvariant struct {
	ID, Title, Why string
	Scenarios      int
}

// failedScenario is a scenario that did not pass, with its first failing
// run in words and as a picture.
type failedScenario struct {
	S           gradewire.ScenarioReport
	Violated    []gradewire.InvariantResult
	Invocations []string
	// Diagram draws the refund grader's trace, whose actors and calls it
	// knows (a store, a provider, refunds); nil without a trace, and for
	// a kit's report, whose trace is listed as it is (Trace) instead.
	Diagram *sequenceDiagram
	Trace   []gradewire.TraceEvent
	// Later says the report sends only the scenario's title: its body
	// (what broke, the run) is loaded when it is opened. RunLater says the
	// body is here but the run (diagram or trace) is loaded when opened.
	Later, RunLater bool
}

// newRunReportView arranges the report of a stored run, whose scenarios'
// parts can be fetched from runURL. A report of the starter fails 48
// scenarios, each with a drawn run of 8 to 10 KB: sent whole it made the
// page after a Grade 611 KB of HTML. The first failure is sent whole, as
// the one read first; the other failures' runs are loaded when opened, and
// when the failed list is long enough to be folded, their bodies too. A
// passed scenario's run (a first run, which passed) is never sent: it can
// be opened from its entry.
func newRunReportView(r *gradewire.Report, sourceHash, runURL string) reportView {
	return deferRuns(newReportView(r, sourceHash, ""), runURL)
}

// deferRuns leaves out of v what newRunReportView loads when opened.
func deferRuns(v reportView, runURL string) reportView {
	v.RunURL = runURL
	if runURL == "" {
		return v
	}
	for i := range v.Failed {
		f := &v.Failed[i]
		switch {
		case i == 0:
		case len(v.Failed) > failedListedOpen:
			f.Later = true
		case f.Diagram != nil || len(f.Trace) > 0:
			f.RunLater = true
		}
		if f.Later || f.RunLater {
			f.Diagram, f.Trace = nil, nil
		}
	}
	return v
}

// scenarioURL is where the report's part for the named scenario is
// served on its own.
func (v reportView) scenarioURL(name string) string {
	return v.RunURL + "/scenarios/" + url.PathEscape(name)
}

// anchorURL links to the element of the report with id (without the
// prefix): on the same page, or on the run's page from a part alone.
func (v reportView) anchorURL(id string) string {
	if v.Alone && v.WholeURL != "" {
		return v.WholeURL + "#" + v.P + id
	}
	if v.Alone {
		return v.RunURL + "#" + v.P + id
	}
	return "#" + v.P + id
}

// scenarioPartURL is scenarioURL for a script: the part alone, without
// the page around it.
func (v reportView) scenarioPartURL(name string) string {
	return v.scenarioURL(name) + "?part=1"
}

// withGradeReport adds the report's stylesheet and script to a page that
// shows one, or may receive one from a grading run.
func (s *Server) withGradeReport(m pageMeta) pageMeta {
	m.CSS = append(m.CSS, s.assets.url("grade-report.css"))
	m.Scripts = append(m.Scripts, s.assets.url("grade-report.js"))
	return m
}

// newReportView arranges r; sourceHash is that of the code graded ("" when
// unknown: nothing is marked stale then); idPrefix starts every id.
// labelled is the aria-labelledby of the section headed by the heading
// whose id (without the prefix) is id.
func (v reportView) labelled(id string) string {
	if v.Of == "" {
		return v.P + id
	}
	return v.P + id + " " + v.Of
}

func newReportView(r *gradewire.Report, sourceHash, idPrefix string) reportView {
	v := reportView{R: r, SourceHash: sourceHash, P: idPrefix,
		Original: r.Summary.DefectsOfKind(gradewire.DefectKindOriginal),
		Rewrite:  r.Summary.DefectsOfKind(gradewire.DefectKindRewrite)}
	v.OriginalFixed = countFixed(v.Original)
	v.RewriteAvoided = countFixed(v.Rewrite)

	broken := map[string]*brokenInvariant{}
	var brokenOrder []string
	held := map[string]*heldInvariant{}
	var heldOrder []string
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if s.Status == gradewire.StatusPass {
			v.Passed = append(v.Passed, *s)
		} else {
			if v.FirstFailure == nil {
				v.FirstFailure = s
			}
			v.Failed = append(v.Failed, newFailedScenario(*s, r.Kit, idPrefix))
		}
		for _, inv := range s.Invariants {
			switch inv.Status {
			case gradewire.InvariantViolated:
				b := broken[inv.ID]
				if b == nil {
					b = &brokenInvariant{ID: inv.ID, Title: inv.Title, Why: inv.Why, Evidence: inv.Message}
					broken[inv.ID] = b
					brokenOrder = append(brokenOrder, inv.ID)
				}
				if t := r.DefectTitle(inv.Defect); t != "" && !contains(b.Defects, t) {
					b.Defects = append(b.Defects, t)
				}
				b.In = append(b.In, brokenIn{Scenario: s.Name, Title: s.Title, Message: inv.Message})
			case gradewire.InvariantHeld:
				h := held[inv.ID]
				if h == nil {
					h = &heldInvariant{ID: inv.ID, Title: inv.Title, Why: inv.Why}
					held[inv.ID] = h
					heldOrder = append(heldOrder, inv.ID)
				}
				h.Scenarios++
			}
		}
	}
	for _, id := range brokenOrder {
		b := broken[id]
		b.Checked = len(b.In)
		if h := held[id]; h != nil {
			b.Checked += h.Scenarios
		}
		v.Broken = append(v.Broken, *b)
	}
	for _, id := range heldOrder {
		if broken[id] == nil {
			v.Held = append(v.Held, *held[id])
		}
	}
	return v
}

// sequenceKit is the kit whose traces the sequence diagram reads: the
// refund family's actors (workers, the provider, the store) and its event
// kinds, which it had as the refund grader (kit "").
const sequenceKit = "refund"

// newFailedScenario arranges s, a scenario of a report by kit ("" for the
// refund grader).
func newFailedScenario(s gradewire.ScenarioReport, kit, idPrefix string) failedScenario {
	f := failedScenario{S: s}
	for _, inv := range s.Invariants {
		if inv.Status == gradewire.InvariantViolated {
			f.Violated = append(f.Violated, inv)
		}
	}
	for _, iv := range s.Invocations {
		f.Invocations = append(f.Invocations, invocationWords(iv))
	}
	switch {
	case len(s.Trace) == 0:
	case kit == "" || kit == sequenceKit:
		f.Diagram = newSequenceDiagram(idPrefix+"seq-"+s.Name, s.Trace, s.TraceTruncated)
	default:
		f.Trace = s.Trace
	}
	return f
}

func countFixed(ds []gradewire.DefectStatus) int {
	n := 0
	for _, d := range ds {
		if d.Fixed {
			n++
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// invocationWords says how one call of the entry point ended, with no
// blanks: an empty outcome or a nil error is named, not left out.
func invocationWords(iv gradewire.InvocationResult) string {
	who := iv.Worker
	switch iv.Ended {
	case "returned":
		outcome := "an empty outcome"
		if iv.Outcome != "" {
			outcome = strconv.Quote(iv.Outcome)
		}
		err := "a nil error"
		if iv.Error != "" {
			err = "the error " + strconv.Quote(iv.Error)
		}
		return who + " returned " + outcome + " and " + err
	case "panicked":
		if iv.Panic == "" {
			return who + " panicked"
		}
		return who + " panicked: " + iv.Panic
	case "crashed":
		if iv.CrashedAt == "" {
			return who + "'s process crashed"
		}
		return who + "'s process crashed " + iv.CrashedAt
	case "did-not-return":
		return who + " had not returned when the run ended"
	case "not-loaded":
		if iv.Error == "" {
			return who + "'s code could not be loaded"
		}
		return who + "'s code could not be loaded: " + iv.Error
	}
	return who + " " + iv.Ended
}

// sourceHash fingerprints graded code so the page can tell whether the
// editor still holds it. FNV-1a (32 bits) over the UTF-8 bytes: the script
// computes the same without crypto.subtle, which plain-HTTP pages lack, and
// a collision only means a stale report is not marked.
func sourceHash(src string) string {
	h := fnv.New32a()
	h.Write([]byte(src))
	return strconv.FormatUint(uint64(h.Sum32()), 16)
}

func ofWords(n, total int) string { return strconv.Itoa(n) + " of " + strconv.Itoa(total) }

func scenarioAnchor(name string) string { return "scenario-" + name }
func invariantAnchor(id string) string  { return "invariant-" + id }

func plainRuns(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}

func scenarioStatusWord(status string) string {
	switch status {
	case gradewire.StatusPass:
		return "passed"
	case gradewire.StatusFail:
		return "failed"
	case gradewire.StatusError:
		return "could not be graded"
	}
	return status
}

func scenarioWord(n int) string {
	if n == 1 {
		return "1 scenario"
	}
	return strconv.Itoa(n) + " scenarios"
}

// diagnosticWhere is "line 10, column 2: " for a diagnostic with a place.
func diagnosticWhere(d gradewire.Diagnostic) string {
	if d.Line == 0 {
		return ""
	}
	return "line " + strconv.Itoa(d.Line) + ", column " + strconv.Itoa(d.Column) + ": "
}

// verdictLine is the sentence under the heading. A compile error's message
// repeats its first diagnostic, which the list below gives: say how many
// instead, so each error is listed once.
func verdictLine(r *gradewire.Report) string {
	if r.Status == gradewire.StatusError && len(r.Diagnostics) > 0 {
		return "The code could not be graded: " + plural(len(r.Diagnostics), "problem") + " to fix first."
	}
	if r.Status == gradewire.StatusFail {
		failed := r.Summary.ScenariosTotal - r.Summary.ScenariosPassed
		return strconv.Itoa(failed) + " of " + strconv.Itoa(r.Summary.ScenariosTotal) + " scenarios failed."
	}
	return strings.TrimSpace(r.Message)
}

// failedHint says what opening a failed scenario shows: the refund
// grader's run drawn, a kit's listed event by event.
func failedHint(r *gradewire.Report) string {
	if r.Kit == "" || r.Kit == sequenceKit {
		return "open one to see its failing run drawn as a sequence diagram"
	}
	return "open one to see its failing run, event by event, and how it ended"
}

func stripClass(good bool) string {
	if good {
		return "grade-strip-ok"
	}
	return "grade-strip-bad"
}

func heldSummary(held, broken int) string {
	if broken == 0 {
		return plural(held, "invariant") + " held in every scenario that checks them"
	}
	if held == 1 {
		return "1 other invariant held in every scenario that checks it"
	}
	return strconv.Itoa(held) + " other invariants held in every scenario that checks them"
}
