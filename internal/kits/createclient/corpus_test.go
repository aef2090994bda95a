package createclient_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	blindresend "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/blind-resend"
	claimerrorignored "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/claim-error-ignored"
	claimskippedwhenplanned "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/claim-skipped-when-planned"
	conflictisfailure "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/conflict-is-failure"
	connectclearsdoubt "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/connect-clears-doubt"
	dec5claimerrorignored "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-claim-error-ignored"
	dec5conflictisfailure "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-conflict-is-failure"
	dec5connectclearsdoubt "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-connect-clears-doubt"
	dec5connectretriedforever "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-connect-retried-forever"
	dec5expiredkeyresent "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-expired-key-resent"
	dec5finisherrorswallowed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-finish-error-swallowed"
	dec5foundplandatedfromsave "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-found-plan-dated-from-save"
	dec5keyfromcontents "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-key-from-contents"
	dec5leaseneverrenewed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-lease-never-renewed"
	dec5leaseoverbound "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-lease-over-bound"
	dec5readerrorswallowed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-read-error-swallowed"
	dec5replayed5xxresent "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-replayed-5xx-resent"
	dec5retryafterfirstonly "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-retry-after-first-only"
	dec5saveplanerrorignored "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-save-plan-error-ignored"
	dec5searchfailureismiss "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-search-failure-is-miss"
	dec5searchlagforgotten "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-search-lag-forgotten"
	dec5trustsrefusalaftertimeout "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-trusts-refusal-after-timeout"
	dec5unknownafterfirsttimeout "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec5-unknown-after-first-timeout"
	dec6408atonce "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-408-at-once"
	dec6bareresend "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-bare-resend"
	dec6doubtendsearly "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-doubt-ends-early"
	dec6failedsearchisempty "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-failed-search-is-empty"
	dec6finisherrorswallowed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-finish-error-swallowed"
	dec6foundplandatedfromsave "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-found-plan-dated-from-save"
	dec6keyagedfromrestart "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-key-aged-from-restart"
	dec6keypersend "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-key-per-send"
	dec6leaseoverbound "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-lease-over-bound"
	dec6refusalafterdoubtfailed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-refusal-after-doubt-failed"
	dec6replayresent "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-replay-resent"
	dec6retryafterignored "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-retry-after-ignored"
	dec6searchatonce "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-search-at-once"
	dec6searchlagforgotten "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/dec6-search-lag-forgotten"
	finisherrorswallowed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/finish-error-swallowed"
	givesupindoubtearly "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/gives-up-in-doubt-early"
	ignoresretryafter "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/ignores-retry-after"
	keyfromcontents "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/key-from-contents"
	leaselapsesmidcall "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/lease-lapses-mid-call"
	leaseoutlivesredelivery "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/lease-outlives-redelivery"
	memoperattempt "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/memo-per-attempt"
	neversavesplan "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/never-saves-plan"
	newkeyinloop "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/newkey-in-loop"
	noclaim "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/no-claim"
	plandatedfromsave "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/plan-dated-from-save"
	readerrorswallowed "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/read-error-swallowed"
	replayed5xxresent "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/replayed-5xx-resent"
	resendsreplaysforever "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/resends-replays-forever"
	retriesrefusals "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/retries-refusals"
	retrieswhilenothinglands "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/retries-while-nothing-lands"
	reusesexpiredkey "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/reuses-expired-key"
	saveplanerrorignored "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/save-plan-error-ignored"
	searchfailurefinal "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/search-failure-final"
	searchfailureismiss "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/search-failure-is-miss"
	searchhalfsecondearly "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/search-half-second-early"
	searchlagforgotten "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/search-lag-forgotten"
	searchtoosoon "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/search-too-soon"
	timeoutisfailure "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/timeout-is-failure"
	trustsrefusal "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/trusts-refusal"
	twoattempts "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/broken/two-attempts"
	asyncattempts "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/asyncattempts"
	attemptdeadlines "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/attemptdeadlines"
	dec5embedding "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-embedding"
	dec5generics "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-generics"
	dec5iterators "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-iterators"
	dec5plainloop "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-plainloop"
	dec5renewer "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-renewer"
	dec5statemachine "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-statemachine"
	dec5strategies "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-strategies"
	dec5tabledriven "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec5-tabledriven"
	dec6asyncselect "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-asyncselect"
	dec6doubtlog "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-doubtlog"
	dec6embedded "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-embedded"
	dec6generickinds "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-generickinds"
	dec6labelled "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-labelled"
	dec6ownerrors "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-ownerrors"
	dec6rangefunc "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-rangefunc"
	dec6statefns "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/dec6-statefns"
	derivedkey "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/derivedkey"
	embeddedpaths "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/embeddedpaths"
	fixedwait "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/fixedwait"
	genericsettle "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/genericsettle"
	history "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/history"
	imperative "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/imperative"
	iterators "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/iterators"
	settlehelper "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/settlehelper"
	statemachine "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/statemachine"
	strategies "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/strategies"
	verdicttable "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/correct/verdicttable"
	reference "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/reference"
)

// The corpus: every solution package, natively compiled, by its folder.
var correct = map[string]createclient.Entry{
	"reference":                 reference.CreatePayment,
	"correct/statemachine":      statemachine.CreatePayment,
	"correct/strategies":        strategies.CreatePayment,
	"correct/derivedkey":        derivedkey.CreatePayment,
	"correct/imperative":        imperative.CreatePayment,
	"correct/fixedwait":         fixedwait.CreatePayment,
	"correct/history":           history.CreatePayment,
	"correct/verdicttable":      verdicttable.CreatePayment,
	"correct/settlehelper":      settlehelper.CreatePayment,
	"correct/asyncattempts":     asyncattempts.CreatePayment,
	"correct/attemptdeadlines":  attemptdeadlines.CreatePayment,
	"correct/genericsettle":     genericsettle.CreatePayment,
	"correct/embeddedpaths":     embeddedpaths.CreatePayment,
	"correct/iterators":         iterators.CreatePayment,
	"correct/dec5-embedding":    dec5embedding.CreatePayment,
	"correct/dec5-generics":     dec5generics.CreatePayment,
	"correct/dec5-iterators":    dec5iterators.CreatePayment,
	"correct/dec5-plainloop":    dec5plainloop.CreatePayment,
	"correct/dec5-renewer":      dec5renewer.CreatePayment,
	"correct/dec5-statemachine": dec5statemachine.CreatePayment,
	"correct/dec5-strategies":   dec5strategies.CreatePayment,
	"correct/dec5-tabledriven":  dec5tabledriven.CreatePayment,
	"correct/dec6-asyncselect":  dec6asyncselect.CreatePayment,
	"correct/dec6-doubtlog":     dec6doubtlog.CreatePayment,
	"correct/dec6-embedded":     dec6embedded.CreatePayment,
	"correct/dec6-generickinds": dec6generickinds.CreatePayment,
	"correct/dec6-labelled":     dec6labelled.CreatePayment,
	"correct/dec6-ownerrors":    dec6ownerrors.CreatePayment,
	"correct/dec6-rangefunc":    dec6rangefunc.CreatePayment,
	"correct/dec6-statefns":     dec6statefns.CreatePayment,
}

var broken = map[string]createclient.Entry{
	"blind-resend":                      blindresend.CreatePayment,
	"claim-skipped-when-planned":        claimskippedwhenplanned.CreatePayment,
	"conflict-is-failure":               conflictisfailure.CreatePayment,
	"ignores-retry-after":               ignoresretryafter.CreatePayment,
	"key-from-contents":                 keyfromcontents.CreatePayment,
	"lease-outlives-redelivery":         leaseoutlivesredelivery.CreatePayment,
	"two-attempts":                      twoattempts.CreatePayment,
	"gives-up-in-doubt-early":           givesupindoubtearly.CreatePayment,
	"memo-per-attempt":                  memoperattempt.CreatePayment,
	"never-saves-plan":                  neversavesplan.CreatePayment,
	"newkey-in-loop":                    newkeyinloop.CreatePayment,
	"no-claim":                          noclaim.CreatePayment,
	"resends-replays-forever":           resendsreplaysforever.CreatePayment,
	"replayed-5xx-resent":               replayed5xxresent.CreatePayment,
	"retries-refusals":                  retriesrefusals.CreatePayment,
	"reuses-expired-key":                reusesexpiredkey.CreatePayment,
	"search-failure-is-miss":            searchfailureismiss.CreatePayment,
	"search-half-second-early":          searchhalfsecondearly.CreatePayment,
	"search-lag-forgotten":              searchlagforgotten.CreatePayment,
	"search-too-soon":                   searchtoosoon.CreatePayment,
	"timeout-is-failure":                timeoutisfailure.CreatePayment,
	"trusts-refusal":                    trustsrefusal.CreatePayment,
	"retries-while-nothing-lands":       retrieswhilenothinglands.CreatePayment,
	"search-failure-final":              searchfailurefinal.CreatePayment,
	"lease-lapses-mid-call":             leaselapsesmidcall.CreatePayment,
	"save-plan-error-ignored":           saveplanerrorignored.CreatePayment,
	"claim-error-ignored":               claimerrorignored.CreatePayment,
	"read-error-swallowed":              readerrorswallowed.CreatePayment,
	"finish-error-swallowed":            finisherrorswallowed.CreatePayment,
	"connect-clears-doubt":              connectclearsdoubt.CreatePayment,
	"plan-dated-from-save":              plandatedfromsave.CreatePayment,
	"dec5-claim-error-ignored":          dec5claimerrorignored.CreatePayment,
	"dec5-conflict-is-failure":          dec5conflictisfailure.CreatePayment,
	"dec5-connect-clears-doubt":         dec5connectclearsdoubt.CreatePayment,
	"dec5-connect-retried-forever":      dec5connectretriedforever.CreatePayment,
	"dec5-expired-key-resent":           dec5expiredkeyresent.CreatePayment,
	"dec5-finish-error-swallowed":       dec5finisherrorswallowed.CreatePayment,
	"dec5-found-plan-dated-from-save":   dec5foundplandatedfromsave.CreatePayment,
	"dec5-key-from-contents":            dec5keyfromcontents.CreatePayment,
	"dec5-lease-never-renewed":          dec5leaseneverrenewed.CreatePayment,
	"dec5-lease-over-bound":             dec5leaseoverbound.CreatePayment,
	"dec5-read-error-swallowed":         dec5readerrorswallowed.CreatePayment,
	"dec5-replayed-5xx-resent":          dec5replayed5xxresent.CreatePayment,
	"dec5-retry-after-first-only":       dec5retryafterfirstonly.CreatePayment,
	"dec5-save-plan-error-ignored":      dec5saveplanerrorignored.CreatePayment,
	"dec5-search-failure-is-miss":       dec5searchfailureismiss.CreatePayment,
	"dec5-search-lag-forgotten":         dec5searchlagforgotten.CreatePayment,
	"dec5-trusts-refusal-after-timeout": dec5trustsrefusalaftertimeout.CreatePayment,
	"dec5-unknown-after-first-timeout":  dec5unknownafterfirsttimeout.CreatePayment,
	"dec6-408-at-once":                  dec6408atonce.CreatePayment,
	"dec6-bare-resend":                  dec6bareresend.CreatePayment,
	"dec6-doubt-ends-early":             dec6doubtendsearly.CreatePayment,
	"dec6-failed-search-is-empty":       dec6failedsearchisempty.CreatePayment,
	"dec6-finish-error-swallowed":       dec6finisherrorswallowed.CreatePayment,
	"dec6-found-plan-dated-from-save":   dec6foundplandatedfromsave.CreatePayment,
	"dec6-key-aged-from-restart":        dec6keyagedfromrestart.CreatePayment,
	"dec6-key-per-send":                 dec6keypersend.CreatePayment,
	"dec6-lease-over-bound":             dec6leaseoverbound.CreatePayment,
	"dec6-refusal-after-doubt-failed":   dec6refusalafterdoubtfailed.CreatePayment,
	"dec6-replay-resent":                dec6replayresent.CreatePayment,
	"dec6-retry-after-ignored":          dec6retryafterignored.CreatePayment,
	"dec6-search-at-once":               dec6searchatonce.CreatePayment,
	"dec6-search-lag-forgotten":         dec6searchlagforgotten.CreatePayment,
}

// TestCorpusIsComplete keeps the tables above and the folders in step: a
// solution added on disk and not here would never be graded.
func TestCorpusIsComplete(t *testing.T) {
	for dir, table := range map[string]map[string]createclient.Entry{"solutions/broken": broken} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if _, ok := table[e.Name()]; !ok {
				t.Errorf("%s/%s is not in the corpus table", dir, e.Name())
			}
		}
	}
	entries, _ := os.ReadDir("solutions/correct")
	for _, e := range entries {
		if _, ok := correct["correct/"+e.Name()]; !ok {
			t.Errorf("solutions/correct/%s is not in the corpus table", e.Name())
		}
	}
	if len(correct) < 4 || len(broken) < 8 {
		t.Errorf("corpus has %d correct and %d broken solutions, want at least 4 and 8", len(correct), len(broken))
	}
}

var defectLine = regexp.MustCompile(`(?m)^// defect: ([a-z-]+)$`)

func defectOf(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("solutions/broken", name, "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := defectLine.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s has no // defect: line", name)
	}
	id := string(m[1])
	if !slices.Contains(createclient.InvariantIDs(), id) {
		t.Fatalf("%s names defect %q, which is no invariant", name, id)
	}
	return id
}

func TestCorrectSolutionsPass(t *testing.T) {
	for name, entry := range correct {
		t.Run(name, func(t *testing.T) {
			rep := gradeNative(t, entry, faultsim.Options{Seeds: 20})
			if f := rep.Failed(); len(f) > 0 {
				t.Errorf("failed %v", f)
				for _, sc := range rep.Scenarios {
					for _, inv := range sc.Invariants {
						if !inv.Held {
							t.Logf("%s / %s (%s): %s", sc.Name, inv.ID, inv.Run, strings.Join(inv.Evidence, "; "))
						}
					}
				}
			}
		})
	}
}

func TestBrokenSolutionsAreCaught(t *testing.T) {
	for name, entry := range broken {
		t.Run(name, func(t *testing.T) {
			want := defectOf(t, name)
			rep := gradeNative(t, entry, faultsim.Options{Seeds: 20})
			var where []string
			for sc, ids := range rep.Failed() {
				if slices.Contains(ids, want) {
					where = append(where, sc)
				}
			}
			if len(where) == 0 {
				t.Errorf("defect %s was not caught; failed: %v", want, fmt.Sprint(rep.Failed()))
			}
		})
	}
}

// TestSearchSettlesDoubt pins down two outcomes the page allows and a
// grader could silently stop reaching: a client that keeps searching
// through the outage of search-down finds the payment once the index is
// back, and one that searches after a replayed 500 and finds nothing may
// record failed, because the payment certainly does not exist.
func TestSearchSettlesDoubt(t *testing.T) {
	rep := gradeNative(t, correct["correct/imperative"], faultsim.Options{Seeds: 3})
	want := map[string]string{
		"search-down":                          "op-1 is created (pay_1)",
		"replayed-error-with-reference-absent": "op-1 is failed",
	}
	for _, sc := range rep.Scenarios {
		w, ok := want[sc.Name]
		if !ok {
			continue
		}
		delete(want, sc.Name)
		if sc.Status != faultsim.StatusPass {
			t.Errorf("%s: %s, want pass", sc.Name, sc.Status)
		}
		if len(sc.EndState) == 0 || !strings.HasPrefix(sc.EndState[0], w) {
			t.Errorf("%s ends %q, want %q", sc.Name, sc.EndState, w)
		}
	}
	for name := range want {
		t.Errorf("no scenario %s", name)
	}
}
