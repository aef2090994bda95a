package refund

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestOwnerAliveAt: ends at the same virtual instant are ordered by their
// place in the trace; a lease expires at its instant.
func TestOwnerAliveAt(t *testing.T) {
	env := world.NewEnv(openGate{}, world.DefaultNetwork)
	start := env.Start()
	owner := &invocation{Invocation: Invocation{Worker: "worker-1"}, ended: endReturned, endedAt: time.Second, endSeq: 7}
	f := &runFacts{r: &run{env: env, invs: []*invocation{owner}}}
	held := refundkit.Record{Status: refundkit.StatusProcessing, Owner: "worker-1", LeaseUntil: start.Add(time.Minute)}
	tests := []struct {
		name string
		rec  refundkit.Record
		t    time.Duration
		seq  int
		want bool
	}{
		{"owner ends later in the same instant", held, time.Second, 5, true},
		{"owner had ended earlier in the same instant", held, time.Second, 9, false},
		{"owner ends at a later instant", held, 500 * time.Millisecond, 9, true},
		{"lease expired at that very instant", refundkit.Record{Status: refundkit.StatusProcessing, Owner: "worker-1", LeaseUntil: start.Add(time.Second)}, time.Second, 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.ownerAliveAt(tc.rec, tc.t, tc.seq); got != tc.want {
				t.Fatalf("ownerAliveAt = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCatalogueIsComplete: every invariant of the one table has its words,
// a defect the report knows and a check, under an id of its own.
func TestCatalogueIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, inv := range catalogue {
		switch {
		case inv.ID == "" || seen[inv.ID]:
			t.Errorf("invariant %q: missing or repeated id", inv.ID)
		case inv.Title == "" || inv.Why == "":
			t.Errorf("invariant %s: no title or why", inv.ID)
		case DefectTitle(inv.Defect) == "":
			t.Errorf("invariant %s points to unknown defect %q", inv.ID, inv.Defect)
		case inv.Check == nil:
			t.Errorf("invariant %s has no check", inv.ID)
		}
		seen[inv.ID] = true
	}
	if len(catalogue) != 15 {
		t.Errorf("%d invariants, want the 15 the problem page and content/README.md describe", len(catalogue))
	}
}

// TestInvariantsNameThePagesRule: every invariant carries the rule it
// judges in the page's own words (found verbatim on the page) and cites
// only rules of the fakes' table.
func TestInvariantsNameThePagesRule(t *testing.T) {
	page, err := content.FS.ReadFile("problems/async-refund/problem.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ")
	for _, inv := range catalogue {
		if inv.Page == "" || !strings.Contains(text, inv.Page) {
			t.Errorf("invariant %s: its words %q are not on the page", inv.ID, inv.Page)
		}
		for _, r := range inv.Rules {
			if world.RuleWords(r) == "" {
				t.Errorf("invariant %s cites %q, which is no rule of world.Rules", inv.ID, r)
			}
		}
	}
	for _, tt := range []struct {
		rules []string
		want  string
	}{
		{[]string{"P1", "P9"}, ` (the page: "No request is refunded twice"; rules P1, P9)`},
		{[]string{"P14"}, ` (the page: "No request is refunded twice"; rule P14)`},
		{nil, ` (the page: "No request is refunded twice")`},
	} {
		if got := (invariant{Page: "No request is refunded twice.", Rules: tt.rules}).broken(); got != tt.want {
			t.Errorf("broken() with rules %v = %s, want %s", tt.rules, got, tt.want)
		}
	}
}

// TestSameKeyEvidenceListsEveryKey: six requests under one key and one
// under another show both keys, each once.
func TestSameKeyEvidenceListsEveryKey(t *testing.T) {
	f := &runFacts{id: "r1"}
	for n := 1; n <= 6; n++ {
		f.requests = append(f.requests, world.Request{N: n, Worker: "worker-1", Key: "refund-r1"})
	}
	f.requests = append(f.requests, world.Request{N: 7, Worker: "worker-2", Key: "refund-r1-run2"})
	msg := checkSameKey(f)
	if strings.Count(msg, "refund-r1 (") != 1 || !strings.Contains(msg, "refund-r1-run2 (#7 by worker-2)") || !strings.Contains(msg, "4 more") {
		t.Fatalf("evidence %q: want each key once, the second one shown", msg)
	}
}
