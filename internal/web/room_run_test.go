package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// gatedRoomGrader is roomGrader whose runs wait for the gate when it is
// set (closing it lets every run end).
type gatedRoomGrader struct {
	roomGrader
	gate chan struct{}
}

func (g gatedRoomGrader) GradeAdmitted(ctx context.Context, t *sandbox.Ticket, job grading.Request, p func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.roomGrader.GradeAdmitted(ctx, t, job, p)
}

// newRoomGradingServer is newRoomTestServer with solo grading on (the
// per-address places a room's Run shares) and cfg's limits.
func newRoomGradingServer(t *testing.T, g rooms.Grader, configure func(*Config)) *roomTestServer {
	t.Helper()
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clock := &roomTestClock{t: time.Now()}
	broker := live.NewInProcess()
	t.Cleanup(broker.Close)
	svc, err := rooms.New(rooms.Config{Store: store, Catalog: cat, Publisher: broker, Grader: g, Now: clock.now, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Catalog: cat, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Rooms: svc, Broker: broker,
		Grader: &fakeGrader{retry: 7 * time.Second}}
	configure(&cfg)
	app, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	t.Cleanup(ts.Close)
	t.Cleanup(func() {
		svc.Close(context.Background())
		app.StopGrading(context.Background())
	})
	return &roomTestServer{Server: ts, app: app, svc: svc, clock: clock, cat: cat}
}

func (ts *roomTestServer) runsFinished(t *testing.T, id, ikey string) bool {
	t.Helper()
	a, err := ts.svc.Authenticate(context.Background(), id, ikey)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := ts.svc.InterviewerView(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range iv.Runs {
		if !r.Finished {
			return false
		}
	}
	return len(iv.Runs) > 0
}

// A room's Run is charged what it stores (the shared code and the report
// it may keep), as a Grade is, not only its small form: with a budget of
// 768 KiB at once the first run is taken and the second refused, as a
// Grade would be, and nothing of it is stored.
func TestRoomRunChargedToTheWriteBudget(t *testing.T) {
	ts := newRoomGradingServer(t, roomGrader{}, func(c *Config) { c.WriteRate = WriteRate(64) })
	id, ikey, _ := ts.room(t, "problem:async-refund")
	if r := ts.do(t, "POST", "/rooms/"+id+"/run", ikey, ""); r.status != http.StatusOK {
		t.Fatalf("first run: %d %s", r.status, r.body)
	}
	waitFor(t, func() bool { return ts.runsFinished(t, id, ikey) })
	r := ts.do(t, "POST", "/rooms/"+id+"/run", ikey, "")
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "Nothing of this was stored") {
		t.Fatalf("second run: %d %s; want 429 for the write budget", r.status, r.body)
	}
	if r.header.Get("Retry-After") == "" {
		t.Error("the refusal has no Retry-After")
	}
	a, _ := ts.svc.Authenticate(context.Background(), id, ikey)
	if iv, err := ts.svc.InterviewerView(context.Background(), a); err != nil || len(iv.Runs) != 1 {
		t.Errorf("runs after the refusal: %d, %v; want 1", len(iv.Runs), err)
	}
}

// A room's Run takes one of its address's grading places for as long as
// it runs (-grades-per-address), shared with the address's Grades and
// Checks: one address's rooms cannot run more at once than it could grade.
func TestRoomRunLimitedPerAddress(t *testing.T) {
	gate := make(chan struct{})
	ts := newRoomGradingServer(t, gatedRoomGrader{gate: gate}, func(c *Config) { c.GradesPerAddress = 2 })
	type room struct{ id, ikey string }
	var rs []room
	for range 3 {
		id, ikey, _ := ts.room(t, "problem:async-refund")
		rs = append(rs, room{id, ikey})
	}
	for _, r := range rs[:2] {
		if resp := ts.do(t, "POST", "/rooms/"+r.id+"/run", r.ikey, ""); resp.status != http.StatusOK {
			t.Fatalf("run in room %s: %d %s", r.id, resp.status, resp.body)
		}
	}
	resp := ts.do(t, "POST", "/rooms/"+rs[2].id+"/run", rs[2].ikey, "")
	if resp.status != http.StatusTooManyRequests || !strings.Contains(resp.body, "2 gradings from your network address") {
		t.Fatalf("a third run from the address: %d %s; want 429 for the per-address limit", resp.status, resp.body)
	}
	if got := resp.header.Get("Retry-After"); got != "7" {
		t.Errorf("Retry-After %q; want the grader's estimate, 7", got)
	}
	close(gate)
	for _, r := range rs[:2] {
		waitFor(t, func() bool { return ts.runsFinished(t, r.id, r.ikey) })
	}
	if resp := ts.do(t, "POST", "/rooms/"+rs[2].id+"/run", rs[2].ikey, ""); resp.status != http.StatusOK {
		t.Fatalf("a run once the others ended: %d %s", resp.status, resp.body)
	}
}
