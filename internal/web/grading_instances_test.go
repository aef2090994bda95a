package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/live/pgbroker"
	"github.com/faultline-dev/faultline/internal/pgtest"
	"github.com/faultline-dev/faultline/internal/storage"
)

// storeOpener gives each instance its handle on one shared database, and
// its handle on the broker the instances share.
type storeOpener func(t *testing.T) (*storage.Store, live.Broker)

func openStore(t *testing.T, db string) *storage.Store {
	t.Helper()
	store, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// instanceStores are the databases two instances share in these tests.
// SQLite serves one process, so its instances share one store and one
// in-process broker (two registries over one store); on Postgres each
// has its own store and LISTEN/NOTIFY broker, as two processes would.
var instanceStores = []struct {
	name string
	open func(t *testing.T) storeOpener
}{
	{"sqlite", func(t *testing.T) storeOpener {
		store := openStore(t, filepath.Join(t.TempDir(), "shared.db"))
		broker := live.NewInProcess()
		t.Cleanup(broker.Close)
		return func(*testing.T) (*storage.Store, live.Broker) { return store, broker }
	}},
	{"postgres", func(t *testing.T) storeOpener {
		db := pgtest.URL(t)
		return func(t *testing.T) (*storage.Store, live.Broker) {
			broker, err := pgbroker.Open(context.Background(), db, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(broker.Close)
			return openStore(t, db), broker
		}
	}},
}

// forEachInstanceStore runs f with a fresh shared database of each kind.
func forEachInstanceStore(t *testing.T, f func(t *testing.T, open storeOpener)) {
	for _, s := range instanceStores {
		t.Run(s.name, func(t *testing.T) { f(t, s.open(t)) })
	}
}

// newInstance is one server instance on the shared database, with its
// own grading registry, announcing on the broker every instance shares,
// as serve wires them.
// instanceSeq numbers the instances the tests start.
var instanceSeq atomic.Int64

func newInstance(t *testing.T, open storeOpener, g Grader, lease time.Duration) *testServer {
	t.Helper()
	store, broker := open(t)
	// Each instance owns its leases under a name of its own, as separate
	// processes would: one shared name would let any instance's heartbeat
	// renew every instance's runs.
	app, err := New(Config{Catalog: gradingCatalog(), Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Grader: g, Broker: broker, GradeLease: lease, Instance: fmt.Sprintf("test-instance-%d", instanceSeq.Add(1))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := app.StopGrading(ctx); err != nil {
			t.Errorf("StopGrading: %v", err)
		}
	})
	return &testServer{Server: ts, app: app, store: store}
}

// on is the same browser (its cookies: the same user) talking to another
// instance, as a load balancer without sticky sessions sends it.
func (b *browser) on(ts *testServer) *browser {
	return &browser{t: b.t, ts: ts, client: b.client}
}

func storedStatus(t *testing.T, ts *testServer, id int64) storage.GradeRun {
	t.Helper()
	r, err := ts.store.GradeRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Two instances on one store, each grading: neither marks the other's
// run as abandoned, however long the runs take; a user grading on A is
// refused a second run on B; B follows A's run to its report.
func TestTwoInstancesKeepEachOthersRuns(t *testing.T) {
	const lease = 500 * time.Millisecond
	forEachInstanceStore(t, func(t *testing.T, open storeOpener) {
		ga := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
		gb := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
		a := newInstance(t, open, ga, lease)
		b := newInstance(t, open, gb, lease)

		onA := a.newBrowser(t)
		runA := onA.startGrade("package refund // ON-A")
		runB := b.newBrowser(t).startGrade("package refund // ON-B")
		// Each instance's page of the other's run, and their sweeps, over
		// several leases.
		onB := onA.on(b)
		deadline := time.Now().Add(4 * lease)
		for time.Now().Before(deadline) {
			onB.get(runA.RunURL).mustNotContain(t, messageAbandoned)
			time.Sleep(lease / 4)
		}
		for _, r := range []struct {
			ts *testServer
			id int64
		}{{a, runA.RunID}, {b, runB.RunID}} {
			if got := storedStatus(t, r.ts, r.id); got.Status != storage.GradeRunning {
				t.Fatalf("run %d is %s (%q) after four leases; want running: its owner is alive", r.id, got.Status, got.Message)
			}
		}

		// The user's one place is held across instances.
		again := onB.postCode("/problems/"+gradedSlug+"/grade", "package refund // AGAIN-ON-B", true)
		if again.status != http.StatusConflict {
			t.Fatalf("a second Grade on B while A grades: status %d (%s); want 409", again.status, again.body)
		}
		var got gradeStarted
		json.Unmarshal([]byte(again.body), &got)
		if got.RunID != runA.RunID {
			t.Errorf("the refused Grade points at run %d; want A's %d", got.RunID, runA.RunID)
		}

		// B's stream of A's run ends with A's report.
		stream := onB.events(runA.EventsURL)
		if stream.resp.StatusCode != http.StatusOK {
			t.Fatalf("B's stream of A's run: status %d", stream.resp.StatusCode)
		}
		for range 3 {
			ga.gate <- struct{}{}
		}
		ev := stream.next()
		for ev.name == "" || ev.name == "progress" {
			ev = stream.next()
		}
		if rep := decode[reportData](t, ev, "report"); rep.RunID != runA.RunID || rep.Verdict != "fail" {
			t.Errorf("B streamed %+v; want A's report", rep)
		}
		for range 3 {
			gb.gate <- struct{}{}
		}
	})
}

// An instance that dies (kill -9: nothing recorded, no more heartbeats)
// leaves its run running; after the lease another instance finishes it as
// a system error the user can retry, and the user may grade again there.
func TestADeadInstancesRunIsTakenOver(t *testing.T) {
	const lease = 500 * time.Millisecond
	forEachInstanceStore(t, func(t *testing.T, open storeOpener) {
		gb := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
		b := newInstance(t, open, gb, lease)
		user := b.newBrowser(t)
		user.get("/problems/" + gradedSlug) // the identity
		ctx := context.Background()
		uid := user.userID()
		att, err := b.store.StartAttempt(ctx, uid, storage.KindProblem, gradedSlug)
		if err != nil {
			t.Fatal(err)
		}
		// The dead instance's run, as it left it.
		dead, err := b.store.StartOwnedGradeRun(ctx, att.ID, gradedSlug, 1, "package refund // DEAD",
			storage.GradeClaim{Owner: "dead-instance", Lease: lease, UserID: uid, ClientKey: "127.0.0.1", PerAddress: 3})
		if err != nil {
			t.Fatal(err)
		}
		url := gradeRunURL(gradedSlug, dead.ID)
		user.get(url).mustNotContain(t, messageAbandoned)
		stream := user.events(url + "/events")

		// Another user's run on B keeps B's heartbeat going, whose sweep
		// finishes the dead run without anyone looking at it.
		other := b.newBrowser(t).startGrade("package refund // OTHER")
		waitUntilTrue(t, func() bool { return storedStatus(t, b, dead.ID).Status != storage.GradeRunning })
		if got := storedStatus(t, b, dead.ID); got.Status != storage.GradeSystemError || got.Message != messageAbandoned {
			t.Errorf("the dead instance's run is %s %q; want a system error saying so", got.Status, got.Message)
		}
		// The stream that was following it from B ends with that (perhaps
		// after a reconnect, which the browser makes by itself).
		var ev event
		for ev.name == "" {
			select {
			case e, ok := <-stream.events:
				if !ok {
					stream = user.events(url + "/events")
					continue
				}
				ev = e
			case <-time.After(10 * time.Second):
				t.Fatal("the stream of the dead run did not end within 10 s")
			}
		}
		if msg := decode[messageData](t, ev, "system-error"); msg.Message != messageAbandoned {
			t.Errorf("the stream ended with %q", msg.Message)
		}
		user.get(url).mustContain(t, messageAbandoned)
		user.startGrade("package refund // RETRY")
		for range 6 {
			gb.gate <- struct{}{}
		}
		_ = other
	})
}

// A run graded on A streams its progress, scenario by scenario, to a page
// on B, numbered as A numbers it, then its report; a browser reconnecting
// to B resumes after the last event it had. Postgres only: SQLite serves
// one process, whose pages stream its runs from its memory.
func TestProgressStreamsFromAnyInstance(t *testing.T) {
	const lease = 5 * time.Second
	for _, s := range instanceStores {
		if s.name != "postgres" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			open := s.open(t)
			ga := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
			a := newInstance(t, open, ga, lease)
			b := newInstance(t, open, &fakeGrader{}, lease)
			onA := a.newBrowser(t)
			run := onA.startGrade("package refund // ON-A")
			onB := onA.on(b)
			stream := onB.events(run.EventsURL)
			if stream.resp.StatusCode != http.StatusOK {
				t.Fatalf("B's stream of A's run: status %d", stream.resp.StatusCode)
			}
			scenarios := failingReport().Scenarios
			var last string
			for i, sc := range scenarios {
				ga.gate <- struct{}{}
				ev := stream.next()
				for ev.name == "" {
					ev = stream.next()
				}
				p := decode[progressData](t, ev, "progress")
				if p.Finished != i+1 || p.Name != sc.Name || ev.id != strconv.Itoa(i+1) {
					t.Fatalf("B's event %d = #%s %+v; want scenario %q, finished %d", i+1, ev.id, p, sc.Name, i+1)
				}
				last = ev.id
				if i == 0 {
					// The browser drops the stream and comes back to B.
					stream = onB.eventsAfter(run.EventsURL, last)
				}
			}
			ga.gate <- struct{}{}
			ev := stream.next()
			for ev.name == "" {
				ev = stream.next()
			}
			if rep := decode[reportData](t, ev, "report"); rep.RunID != run.RunID || rep.Verdict != "fail" {
				t.Errorf("B streamed %+v after the progress; want A's report", rep)
			}
			if n, _ := strconv.Atoi(ev.id); ev.id != "" && n <= len(scenarios) {
				t.Errorf("the report came as event %s, not after the progress (last %s)", ev.id, last)
			}
			waitUntilTrue(t, func() bool {
				p, err := a.store.GradeProgressAfter(context.Background(), run.RunID, 0, 10)
				return err == nil && len(p) == 0
			})
		})
	}
}

// stalledProgressStore is a store whose writes of progress for the other
// instances wait until release is closed, as a slow database would.
type stalledProgressStore struct {
	*storage.Store
	release chan struct{}
}

func (s stalledProgressStore) AppendGradeProgress(ctx context.Context, id, seq int64, data []byte) error {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.AppendGradeProgress(ctx, id, seq, data)
}

// TestSlowStoreDoesNotStallTheGrader: on Postgres each scenario's progress
// is also written for the other instances, and that write must not hold
// up the goroutine reading the grading child, or a slow database would
// stall the child's pipe until its time limit blamed the code. With every
// such write stuck, the owner's own stream still gets every scenario.
func TestSlowStoreDoesNotStallTheGrader(t *testing.T) {
	for _, s := range instanceStores {
		if s.name != "postgres" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			open := s.open(t)
			release := make(chan struct{})
			store, broker := open(t)
			ga := &fakeGrader{report: failingReport(), gate: make(chan struct{})}
			app, err := New(Config{Catalog: gradingCatalog(), Store: stalledProgressStore{store, release},
				Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Grader: ga, Broker: broker, GradeLease: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(app)
			t.Cleanup(func() {
				ts.CloseClientConnections()
				ts.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				app.StopGrading(ctx)
			})
			a := &testServer{Server: ts, app: app, store: store}
			onA := a.newBrowser(t)
			run := onA.startGrade("package refund // SLOW-STORE")
			stream := onA.events(run.EventsURL)
			// A stuck write gives up after finishTimeout (10 s): an event
			// that waited for one would come too late.
			stream.gap = finishTimeout / 2
			for i, sc := range failingReport().Scenarios {
				select {
				case ga.gate <- struct{}{}:
				case <-time.After(finishTimeout / 2):
					t.Fatalf("the grader could not go on to scenario %d: it waits on the store's write of the last one's progress", i+1)
				}
				ev := stream.next()
				for ev.name == "" {
					ev = stream.next()
				}
				if p := decode[progressData](t, ev, "progress"); p.Name != sc.Name {
					t.Fatalf("event %d = %+v; want scenario %q", i+1, p, sc.Name)
				}
			}
			close(release)
			ga.gate <- struct{}{}
			if rep := decode[reportData](t, stream.waitFor("report"), "report"); rep.RunID != run.RunID {
				t.Errorf("the report is of run %d; want %d", rep.RunID, run.RunID)
			}
		})
	}
}
