package world_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestProviderAnswersCiteTheirRule: each situation the page's rules
// describe gets the answer of the rule that describes it, and the request
// log and the trace say which rule that was.
func TestProviderAnswersCiteTheirRule(t *testing.T) {
	slow := world.Fault{Request: 1, Kind: world.FaultSlow, Processing: 30 * time.Second}
	slow500 := world.Fault{Request: 1, Kind: world.FaultSlow, Processing: 30 * time.Second,
		Then: &world.Fault{Kind: world.FaultHTTPError, Status: 500, Type: "api_error"}}
	long := strings.Repeat("k", world.MaxKeyLength+1)
	tests := []struct {
		name   string
		faults []world.Fault
		sends  []struct {
			key    string
			amount int64
			charge string
			after  time.Duration
		}
		want []string // the rule of each request's answer, in order
	}{
		{"a success executes", nil, sends("k1", 2500), []string{"P14"}},
		{"a repeat replays the success", nil, sends("k1", 2500, "k1", 2500), []string{"P14", "P5"}},
		{"other parameters under a used key", nil, sends("k1", 2500, "k1", 1000), []string{"P14", "P6"}},
		{"a key still running", []world.Fault{slow}, sends("k1", 2500, "k1", 2500), []string{"N2", "P7"}},
		{"a saved 5xx replays", []world.Fault{slow500}, sendsAfter(time.Minute, "k1", 2500, "k1", 2500, "k1", 2500), []string{"N2", "P8", "P8"}},
		{"a key too long", nil, sends(long, 2500), []string{"P4"}},
		{"a 429", []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 429}}, sends("k1", 2500), []string{"P13"}},
		{"a 401", []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 401}}, sends("k1", 2500), []string{"P3"}},
		{"a validation 400", []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 400}}, sends("k1", 2500), []string{"P3"}},
		{"a validation 400 under a key with a saved answer replays it instead", []world.Fault{{Request: 1, Kind: world.FaultLostReply}, {Request: 2, Kind: world.FaultHTTPError, Status: 400}},
			sends("k1", 2500, "k1", 2500), []string{"N2", "P5"}},
		{"a validation 400 under a key still running is a 409 instead", []world.Fault{slow, {Request: 2, Kind: world.FaultHTTPError, Status: 400}},
			sends("k1", 2500, "k1", 2500), []string{"N2", "P7"}},
		{"too much", nil, sends("k1", 20000), []string{"P11"}},
		{"already refunded", nil, sends("k1", 10000, "k2", 10000), []string{"P14", "P10"}},
		{"unknown charge", nil, []struct {
			key    string
			amount int64
			charge string
			after  time.Duration
		}{{"k1", 2500, "ch_9", 0}}, []string{"P12"}},
		{"a 5xx", []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 503}}, sends("k1", 2500), []string{"P14"}},
		{"a connection error", []world.Fault{{Request: 1, Kind: world.FaultConnection}}, sends("k1", 2500), []string{"N1"}},
		{"a lost request", []world.Fault{{Request: 1, Kind: world.FaultLostRequest}}, sends("k1", 2500), []string{"N2"}},
		{"a pruned key runs anew", nil, sendsAfter(25*time.Hour, "k1", 2500, "k1", 2500), []string{"P14", "P14"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := providerWorld(t, tt.faults, func(ctx context.Context, w *world.Worker) {
				for _, s := range tt.sends {
					time.Sleep(s.after)
					p := params(s.key, s.amount)
					if s.charge != "" {
						p.Charge = s.charge
					}
					var got []answer
					send(ctx, w, p, &got)
				}
			})
			var rules []string
			for _, q := range env.Provider().Requests() {
				rules = append(rules, q.Rule)
			}
			if strings.Join(rules, " ") != strings.Join(tt.want, " ") {
				t.Errorf("answers cite %v, want %v", rules, tt.want)
			}
			for _, e := range env.Trace() {
				if e.Kind == world.KindReply && e.Rule == "" {
					t.Errorf("the trace's answer %q cites no rule", e.Text)
				}
				if e.Rule != "" && world.RuleWords(e.Rule) == "" {
					t.Errorf("the trace cites %q, which is no rule of the table", e.Rule)
				}
			}
		})
	}
}

func sends(kv ...any) []struct {
	key    string
	amount int64
	charge string
	after  time.Duration
} {
	return sendsAfter(0, kv...)
}

// sendsAfter is sends with a pause of after before every send but the first.
func sendsAfter(after time.Duration, kv ...any) []struct {
	key    string
	amount int64
	charge string
	after  time.Duration
} {
	var out []struct {
		key    string
		amount int64
		charge string
		after  time.Duration
	}
	for i := 0; i+1 < len(kv); i += 2 {
		s := struct {
			key    string
			amount int64
			charge string
			after  time.Duration
		}{key: kv[i].(string), amount: int64(kv[i+1].(int))}
		if i > 0 {
			s.after = after
		}
		out = append(out, s)
	}
	return out
}

// TestRulesOnThePage: every rule of the table is on the async-refund page
// under its id, so a candidate who reads "(rule P7)" in a trace finds it.
func TestRulesOnThePage(t *testing.T) {
	page, err := content.FS.ReadFile("problems/async-refund/problem.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range world.Rules {
		if !strings.Contains(string(page), "**"+r.ID+".") && !strings.Contains(string(page), "("+r.ID+")") && !strings.Contains(string(page), "("+r.ID+":") {
			t.Errorf("the page does not label rule %s (%s): write **%s.** before its bullet, or (%s) in its table row", r.ID, r.Words, r.ID, r.ID)
		}
	}
}

// TestFaultValidateRefusesExcludedAnswers: a scripted fault may name only
// what the rules let a scenario arrange.
func TestFaultValidateRefusesExcludedAnswers(t *testing.T) {
	tests := []struct {
		name  string
		fault world.Fault
		want  string // in the error; "" when the fault is allowed
	}{
		{"a 400 in front of the keys", world.Fault{Kind: world.FaultHTTPError, Status: 400, BeforeKeys: true}, "rule P7"},
		{"a scripted 409", world.Fault{Kind: world.FaultHTTPError, Status: 409}, "rule P7"},
		{"a scripted 404", world.Fault{Kind: world.FaultHTTPError, Status: 404}, "rule P12"},
		{"a scripted idempotency_error", world.Fault{Kind: world.FaultHTTPError, Status: 400, Type: "idempotency_error"}, "rule P6"},
		{"a scripted charge_already_refunded", world.Fault{Kind: world.FaultHTTPError, Status: 400, Code: "charge_already_refunded"}, "P10"},
		{"a 403", world.Fault{Kind: world.FaultHTTPError, Status: 403}, "no rule of the page answers 403"},
		{"retry_after on a 503", world.Fault{Kind: world.FaultHTTPError, Status: 503, RetryAfter: time.Second}, "rule P13"},
		{"a slow request refused by validation", world.Fault{Kind: world.FaultSlow, Processing: time.Second, Then: &world.Fault{Kind: world.FaultHTTPError, Status: 400}}, "rule P14"},
		{"a request slower than the page allows", world.Fault{Kind: world.FaultSlow, Processing: time.Minute}, "rule P14"},
		{"a validation 400", world.Fault{Kind: world.FaultHTTPError, Status: 400}, ""},
		{"a 429 with Retry-After", world.Fault{Kind: world.FaultHTTPError, Status: 429, RetryAfter: time.Second}, ""},
		{"a slow 500", world.Fault{Kind: world.FaultSlow, Processing: 30 * time.Second, Then: &world.Fault{Kind: world.FaultHTTPError, Status: 500}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fault.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
	if err := world.ValidateLookupFault(world.Fault{Kind: world.FaultHTTPError, Status: 404}); err == nil || !strings.Contains(err.Error(), "P15") {
		t.Errorf("a scripted 404 look-up: got %v", err)
	}
}
