package createclient_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

// TestRulesAreOnThePage keeps the table the fakes execute and the page a
// candidate reads in step: each rule is a bullet of problem.md carrying
// its id and the table's words.
func TestRulesAreOnThePage(t *testing.T) {
	page, err := os.ReadFile(problemDir + "/problem.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range createclient.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s is in the table twice", r.ID)
		}
		seen[r.ID] = true
		if bullet := "- **" + r.ID + "** " + r.Text + "\n"; !strings.Contains(string(page), bullet) {
			t.Errorf("the page has no bullet %q", bullet)
		}
	}
}

// TestEveryAnswerCitesARule grades the corpus's clients and wants every
// answer the fakes put in a trace (the store's, the vendor's, the
// queue's, and each reply a worker gets) to cite a rule of the table, and
// only events no rule decides (a send, a call starting or returning, the
// caller's own deadline, the scenario's history) to cite none.
func TestEveryAnswerCitesARule(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range createclient.Rules() {
		ids[r.ID] = true
	}
	cited := map[string]bool{}
	for _, entry := range []createclient.Entry{correct["reference"], correct["correct/imperative"], broken["reuses-expired-key"]} {
		rep := gradeNative(t, entry, faultsim.Options{Seeds: 1})
		for _, sc := range rep.Scenarios {
			{
				for _, e := range sc.Trace {
					// The engine's own lines (a call starts, returns, dies) are
					// kind call, reply and crash; the fakes' are their own kinds.
					answer := e.Actor == "vendor" || e.Actor == "queue" || e.Kind == "store" || e.Kind == "reply" && !strings.HasPrefix(e.Text, "CreatePayment(")
					switch {
					case e.Rule != "" && !ids[e.Rule]:
						t.Errorf("%s: %q cites rule %s, which the table lacks", sc.Name, e.Text, e.Rule)
					case answer && e.Rule == "" && !strings.Contains(e.Text, "the caller stopped waiting"):
						t.Errorf("%s: the answer %q (%s) cites no rule", sc.Name, e.Text, e.Actor)
					case !answer && e.Rule != "":
						t.Errorf("%s: %q is no answer, yet cites %s", sc.Name, e.Text, e.Rule)
					}
					cited[e.Rule] = true
				}
			}
		}
	}
	// Rules that decide answers must each be seen deciding one.
	for _, id := range []string{"S1", "S2", "S3", "S4", "S5", "Q1", "V2", "V3", "V4", "V5", "V6", "V8", "V9", "V10", "V11"} {
		if !cited[id] {
			t.Errorf("no trace cites rule %s", id)
		}
	}
}

// TestInvariantsAreThePagesChecks: each invariant a report names is, in
// its title, a bullet of the page's list of what the grader checks, so a
// candidate recognises the rule that was broken.
func TestInvariantsAreThePagesChecks(t *testing.T) {
	page, err := os.ReadFile(problemDir + "/problem.md")
	if err != nil {
		t.Fatal(err)
	}
	checks := string(page)
	checks = checks[strings.Index(checks, "## What the grader checks"):strings.Index(checks, "## What a strong answer covers")]
	for _, inv := range (createclient.Kit{}).Invariants() {
		if !strings.Contains(checks, "- "+inv.Title+".\n") && !strings.Contains(checks, "- "+inv.Title+" (") {
			t.Errorf("invariant %s: the page lists no check %q", inv.ID, inv.Title)
		}
	}
}

// TestKeyRulesComeBeforeTheScript: a scenario that lint would refuse (a
// 422 scripted for a resend under a key whose first request landed) still
// cannot make the fake break its rules: the vendor answers the repeat by
// V5, with the payment, and the trace says so.
func TestKeyRulesComeBeforeTheScript(t *testing.T) {
	sc := &createclient.Scenario{Name: "excluded", Title: "a script the rules exclude",
		Vendor: createclient.VendorSpec{Name: "keyed", Keys: true, KeyLifetime: 24 * time.Hour, LandsWithin: 30 * time.Second,
			Timeout: 10 * time.Second, Latency: 50 * time.Millisecond, Processing: 100 * time.Millisecond},
		Operations: []createclient.OperationSpec{{ID: "op-1", Amount: 4200, Currency: "EUR", Payee: "acme", Memo: "m"}},
		Faults: []createclient.FaultSpec{{Request: 1, Kind: createclient.FaultTimeout, Lands: true},
			{Request: 2, Kind: createclient.FaultStatus, Status: 422}},
		Calls:  []createclient.CallSpec{{Worker: "worker-1", Op: "op-1"}},
		Expect: map[string][]string{"op-1": {"created"}},
	}
	rep, err := faultsim.Grade(context.Background(), createclient.Kit{}, []faultsim.Scenario{sc}, faultsimtest.Native{Entry: correct["reference"]},
		faultsimtest.Bubble(t), faultsim.Options{Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Scenarios[0]
	if res.Status != faultsim.StatusPass || len(res.EndState) == 0 || !strings.HasPrefix(res.EndState[0], "op-1 is created (pay_1)") {
		t.Errorf("status %s, end state %q: want a pass with op-1 created", res.Status, res.EndState)
	}
	replayed := false
	for _, e := range res.Trace {
		if e.Actor == "vendor" && e.Rule == "V5" && strings.Contains(e.Text, "replays pay_1") && strings.Contains(e.Text, "request 2") {
			replayed = true
		}
		if e.Rule == "V10" {
			t.Errorf("the script's 422 was answered: %q", e.Text)
		}
	}
	if !replayed {
		t.Errorf("no V5 replay of pay_1 to request 2 in the trace: %+v", res.Trace)
	}
}
