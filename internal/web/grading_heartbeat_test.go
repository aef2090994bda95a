package web

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// beatingStore is a grading registry's store that runs hooks right after a
// run's end is recorded and right after a lease renewal: the moments at
// which a heartbeat used to take a run of its own instance for lost.
type beatingStore struct {
	codeStore

	mu          sync.Mutex
	afterFinish func() // after every FinishGradeRun
	afterRenew  func() // after the next RenewGradeLeases only
}

func (s *beatingStore) FinishGradeRun(ctx context.Context, id int64, end storage.GradeRunEnd) error {
	err := s.codeStore.FinishGradeRun(ctx, id, end)
	s.mu.Lock()
	f := s.afterFinish
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return err
}

func (s *beatingStore) RenewGradeLeases(ctx context.Context, owner string, lease time.Duration) ([]int64, error) {
	ids, err := s.codeStore.RenewGradeLeases(ctx, owner, lease)
	s.mu.Lock()
	f := s.afterRenew
	s.afterRenew = nil
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return ids, err
}

// beatOnce beats g's heartbeat now (its lease keeper exists once a run
// has started).
func beatOnce(g *gradingRuns) {
	g.mu.Lock()
	ls := g.leases
	g.mu.Unlock()
	if ls != nil {
		ls.Beat()
	}
}

// beatingServer is a grading test server whose registry's store is a
// beatingStore. Its lease is the default, so its own heartbeat does not
// tick within a test: the test beats it.
func beatingServer(t *testing.T, g Grader) (*testServer, *beatingStore) {
	t.Helper()
	ts := newGradingTestServer(t, g)
	st := &beatingStore{codeStore: ts.app.grading.store}
	ts.app.grading.store = st
	return ts, st
}

// A heartbeat that lands between a run's end being recorded and the run
// leaving the registry finds the run no longer renewed, as the store has
// it finished. That is not a takeover: the run's stream still ends with
// its report, and the store keeps it.
func TestHeartbeatSparesARunThatHasJustEnded(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts, st := beatingServer(t, g)
	st.afterFinish = func() { beatOnce(ts.app.grading) }

	b := ts.newBrowser(t)
	run := b.startGrade("package refund // ENDS-AS-IT-BEATS")
	events := b.events(run.EventsURL)
	close(g.gate)
	ev := events.waitFor("report")
	if got := decode[reportData](t, ev, "report"); got.Verdict != failingReport().Status {
		t.Errorf("report verdict %q", got.Verdict)
	}
	if got := storedStatus(t, ts, run.RunID); got.Status != storage.GradeDone {
		t.Errorf("stored run: %s %q; want done", got.Status, got.Message)
	}
}

// A run started while a heartbeat renews the leases was recorded too late
// for that renewal to include it. That is not a takeover either: it grades
// to its report.
func TestHeartbeatSparesARunStartedDuringTheRenewal(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
	ts, st := beatingServer(t, g)

	firstBrowser := ts.newBrowser(t)
	first := firstBrowser.startGrade("package refund // FIRST")
	second := ts.newBrowser(t)
	var started gradeStarted
	st.afterRenew = func() { started = second.startGrade("package refund // STARTED-DURING-THE-RENEWAL") }
	beatOnce(ts.app.grading)
	if started.RunID == 0 {
		t.Fatal("the second run was not started during the renewal")
	}

	firstEvents := firstBrowser.events(first.EventsURL)
	events := second.events(started.EventsURL)
	close(g.gate)
	decode[reportData](t, firstEvents.waitFor("report"), "report")
	decode[reportData](t, events.waitFor("report"), "report")
	for _, id := range []int64{first.RunID, started.RunID} {
		if got := storedStatus(t, ts, id); got.Status != storage.GradeDone {
			t.Errorf("stored run %d: %s %q; want done", id, got.Status, got.Message)
		}
	}
}
