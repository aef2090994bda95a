package rooms

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/collab/collabtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/storage/storagetest"
	"github.com/faultline-dev/faultline/internal/timer"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeGrader reports what report says, after release is closed (when set).
type fakeGrader struct {
	report  *gradewire.Report
	err     error
	release chan struct{}
	jobs    chan grading.Request
	stopped atomic.Bool // a grading's context ended while it waited for release
}

func (g *fakeGrader) Admit(string) (*sandbox.Ticket, error) { return nil, g.err }

// Plan grades the refund problem only, as the server does with its
// built-in scenarios.
func (g *fakeGrader) Plan(problem string) (grading.Plan, bool) {
	return grading.Plan{Scenarios: []string{"lost-reply"}}, problem == "async-refund"
}
func (g *fakeGrader) GradeAdmitted(ctx context.Context, _ *sandbox.Ticket, job grading.Request, _ func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	if g.jobs != nil {
		g.jobs <- job
	}
	if g.release != nil {
		select {
		case <-g.release: // released before the wait: the grading ends normally
		default:
			select {
			case <-g.release:
			case <-ctx.Done():
				g.stopped.Store(true)
				return nil, ctx.Err()
			}
		}
	}
	return g.report, nil
}

var testCatalog = sync.OnceValues(func() (*problems.Catalog, error) { return problems.Load(content.FS) })

type fixture struct {
	svc   *Service
	store *storage.Store
	clock *fakeClock
	g     *fakeGrader
	cat   *problems.Catalog
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	cat, err := testCatalog()
	if err != nil {
		t.Fatal(err)
	}
	st := storagetest.Open(t)
	clock := &fakeClock{t: time.UnixMilli(1_800_000_000_000).UTC()}
	g := &fakeGrader{report: &gradewire.Report{Status: gradewire.StatusFail, Summary: gradewire.Summary{ScenariosPassed: 3, ScenariosTotal: 9},
		Scenarios: []gradewire.ScenarioReport{{Name: "lost-reply", Invariants: []gradewire.InvariantResult{{ID: "no-double-refund", Status: gradewire.InvariantViolated}}}}}}
	svc, err := New(Config{Store: st, Catalog: cat, Grader: g, Now: clock.Now, TTL: time.Hour,
		Creates: ratelimit.New(ratelimit.Per(3, time.Hour), clock.Now)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close(context.Background()) })
	return &fixture{svc: svc, store: st, clock: clock, g: g, cat: cat}
}

func (f *fixture) create(t testing.TB, kind, slug string) (Links, Access, Access) {
	t.Helper()
	ctx := context.Background()
	l, err := f.svc.Create(ctx, "addr-"+t.Name(), kind, slug)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	ia, err := f.svc.Authenticate(ctx, l.RoomID, l.InterviewerKey)
	if err != nil || ia.Role != Interviewer {
		t.Fatalf("interviewer link: %v, role %q", err, ia.Role)
	}
	ca, err := f.svc.Authenticate(ctx, l.RoomID, l.CandidateKey)
	if err != nil || ca.Role != Candidate {
		t.Fatalf("candidate link: %v, role %q", err, ca.Role)
	}
	return l, ia, ca
}

func TestLinksAndAuthentication(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	l, _, _ := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	other, _, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	for _, key := range []string{l.InterviewerKey, l.CandidateKey} {
		raw, err := base64.RawURLEncoding.DecodeString(key)
		if err != nil || len(raw) < 16 {
			t.Fatalf("key %q: %d bytes, %v; want at least 128 random bits", key, len(raw), err)
		}
	}
	r, err := f.store.Room(ctx, l.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	for _, stored := range [][]byte{r.InterviewerHash, r.CandidateHash} {
		if strings.Contains(string(stored), l.InterviewerKey) || strings.Contains(string(stored), l.CandidateKey) {
			t.Fatal("the store holds a key, not only its hash")
		}
	}
	cases := []struct {
		name, room, key string
		want            error
	}{
		{"wrong key", l.RoomID, otherFirst(l.InterviewerKey), ErrNotFound},
		{"another room's interviewer key", l.RoomID, other.InterviewerKey, ErrNotFound},
		{"another room's candidate key", l.RoomID, other.CandidateKey, ErrNotFound},
		{"no key", l.RoomID, "", ErrNotFound},
		{"no such room", "nope", l.InterviewerKey, ErrNotFound},
		{"huge key", l.RoomID, strings.Repeat("a", 10_000), ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := f.svc.Authenticate(ctx, tc.room, tc.key); !errors.Is(err, tc.want) {
				t.Fatalf("Authenticate = %v; want %v", err, tc.want)
			}
		})
	}
}

func TestExpiredAndEndedRoomsRefuse(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	l, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	ended, endedIA, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	if _, err := f.svc.End(ctx, endedIA); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{ended.InterviewerKey, ended.CandidateKey} {
		if _, err := f.svc.Authenticate(ctx, ended.RoomID, key); !errors.Is(err, ErrEnded) {
			t.Fatalf("ended room: %v; want ErrEnded", err)
		}
	}
	if _, err := f.svc.ReleaseNextHint(ctx, endedIA); !errors.Is(err, ErrEnded) {
		t.Fatalf("a hint in an ended room, with access from before: %v; want ErrEnded", err)
	}
	f.clock.Add(time.Hour)
	for _, key := range []string{l.InterviewerKey, l.CandidateKey} {
		if _, err := f.svc.Authenticate(ctx, l.RoomID, key); !errors.Is(err, ErrExpired) {
			t.Fatalf("expired room: %v; want ErrExpired", err)
		}
	}
	if _, err := f.svc.ReleaseNextHint(ctx, ia); !errors.Is(err, ErrExpired) {
		t.Fatalf("a hint in an expired room, with access from before: %v; want ErrExpired", err)
	}
}

func TestCreateRefusals(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var in *InputError
	for _, tc := range []struct{ kind, slug string }{{"screen", "nope"}, {"problem", "nope"}, {"set", "applied-ai-rapid-fire"}} {
		if _, err := f.svc.Create(ctx, "a", tc.kind, tc.slug); !errors.As(err, &in) {
			t.Errorf("Create(%s, %s) = %v; want an InputError", tc.kind, tc.slug, err)
		}
	}
	for i := range 3 {
		if _, err := f.svc.Create(ctx, "busy", storage.RoomFromProblem, "async-refund"); err != nil {
			t.Fatalf("room %d: %v", i+1, err)
		}
	}
	var rl *RateLimitedError
	if _, err := f.svc.Create(ctx, "busy", storage.RoomFromProblem, "async-refund"); !errors.As(err, &rl) || rl.RetryAfter <= 0 {
		t.Fatalf("fourth room from one address: %v; want a RateLimitedError", err)
	}
	if _, err := f.svc.Create(ctx, "another", storage.RoomFromProblem, "async-refund"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

// TestInterviewerActionsRefuseTheCandidate: every interviewer action,
// with the candidate's access.
func TestInterviewerActionsRefuseTheCandidate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, _, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	actions := map[string]func() error{
		"release hint": func() error { _, err := f.svc.ReleaseNextHint(ctx, ca); return err },
		"next item":    func() error { _, err := f.svc.NextItem(ctx, ca); return err },
		"timer":        func() error { _, err := f.svc.Timer(ctx, ca, TimerStart, 0); return err },
		"run":          func() error { _, err := f.svc.Run(ctx, ca, RunLimits{ClientKey: "k"}); return err },
		"share":        func() error { _, err := f.svc.Share(ctx, ca, 1); return err },
		"notes":        func() error { _, err := f.svc.SaveNotes(ctx, ca, "x"); return err },
		"score":        func() error { _, err := f.svc.Score(ctx, ca, 1, 0, 2, nil, ""); return err },
		"recommend":    func() error { _, err := f.svc.Recommend(ctx, ca, "yes"); return err },
		"end":          func() error { _, err := f.svc.End(ctx, ca); return err },
		"view":         func() error { _, err := f.svc.InterviewerView(ctx, ca); return err },
	}
	for name, act := range actions {
		t.Run(name, func(t *testing.T) {
			if err := act(); !errors.Is(err, ErrForbidden) {
				t.Fatalf("%s as the candidate: %v; want ErrForbidden", name, err)
			}
		})
	}
	evs, err := f.store.RoomEvents(ctx, ca.Room.ID, 0, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the refused actions left %d events, %v; want only room.created", len(evs), err)
	}
}

// TestCandidateViewHoldsNoInterviewerData walks a room through every kind
// of interviewer-only event, then looks for any of it, and for the
// content's interviewer material, in everything the candidate gets.
func TestCandidateViewHoldsNoInterviewerData(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	must := func(_ storage.RoomEvent, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.svc.SaveNotes(ctx, ia, "NOTE-MARKER <script>alert(1)</script>"))
	must(f.svc.Score(ctx, ia, 1, 0, 2, nil, "SCORE-NOTE-MARKER"))
	must(f.svc.Recommend(ctx, ia, "strong_yes"))
	must(f.svc.Signal(ctx, ca, SignalPasteCode, 4242))
	must(f.svc.Signal(ctx, ca, SignalHidden, 0))
	must(f.svc.Signal(ctx, ca, SignalVisible, 0))
	close(f.g.releaseChan())
	run, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Close(ctx); err != nil { // waits for the run's end
		t.Fatal(err)
	}
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.Runs) != 1 || !iv.Runs[0].Finished || iv.Runs[0].Verdict != gradewire.StatusFail {
		t.Fatalf("interviewer's runs = %+v; want the one finished run", iv.Runs)
	}
	if !strings.Contains(string(iv.NotesHTML), "NOTE-MARKER") || strings.Contains(string(iv.NotesHTML), "<script>") {
		t.Fatalf("notes HTML = %q; want the text with its raw HTML not passed through", iv.NotesHTML)
	}
	if len(iv.Signals) != 3 || iv.Recommend != "strong_yes" || len(iv.Scores) != 1 {
		t.Fatalf("interviewer view: %d signals, recommendation %q, %d scores", len(iv.Signals), iv.Recommend, len(iv.Scores))
	}

	secrets := []string{"NOTE-MARKER", "SCORE-NOTE-MARKER", "strong_yes", "4242", "lost-reply", "no-double-refund"}
	p := ia.Items[0].Problem
	for _, part := range p.Parts {
		for _, r := range part.Rubric {
			secrets = append(secrets, r.Text.Source)
		}
	}
	for _, fu := range p.FollowUps {
		secrets = append(secrets, fu.Text.Source)
	}
	secrets = append(secrets, firstLine(p.ModelAnswer.Source), ia.Items[0].Script[:60], firstLine(f.svc.Screen(ia).Intro.Source))
	look := func(when string, evs PublicEvents, cv CandidateView) {
		t.Helper()
		blob, _ := json.Marshal(struct {
			Events PublicEvents
			View   CandidateView
		}{evs, cv})
		for _, s := range secrets {
			if s != "" && strings.Contains(string(blob), s) {
				t.Errorf("%s: the candidate's data holds %q", when, s)
			}
		}
	}
	evs, err := f.svc.ReadPublic(ctx, ca.Room.ID)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := f.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	look("before sharing", evs, cv)
	if len(cv.Shared) != 0 {
		t.Fatalf("an unshared run reached the candidate: %+v", cv.Shared)
	}
	must(f.svc.Share(ctx, ia, run.Seq))
	cv, err = f.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	if len(cv.Shared) != 1 || cv.Shared[0].Verdict != gradewire.StatusFail {
		t.Fatalf("after sharing, the candidate has %+v; want the run", cv.Shared)
	}
	// Once shared the report is the candidate's; the rest stays hidden.
	secrets = secrets[:4]
	evs, _ = f.svc.ReadPublic(ctx, ca.Room.ID)
	look("after sharing", evs, cv)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (g *fakeGrader) releaseChan() chan struct{} {
	g.release = make(chan struct{})
	return g.release
}

func TestHintsInOrderAndIdempotent(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	all := ia.Items[0].hints()
	if len(all) < 2 {
		t.Fatalf("async-refund has %d hints; the test needs two", len(all))
	}
	// Two tabs pressing "release next" at once both ask for the first
	// hint; the fold keeps one.
	ev, err := newEvent(storage.ActorInterviewer, KindHintReleased, HintReleased{Item: 0, Part: all[0].Part, Index: all[0].Index})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.AppendRoomEvents(ctx, ia.Room.ID, f.clock.Now(), ev, ev); err != nil {
		t.Fatal(err)
	}
	cv, err := f.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	if len(cv.Current.Hints) != 1 || cv.Current.HintsLeft != len(all)-1 {
		t.Fatalf("after a doubled first release: %d hints, %d left; want 1 and %d", len(cv.Current.Hints), cv.Current.HintsLeft, len(all)-1)
	}
	for range len(all) - 1 {
		if _, err := f.svc.ReleaseNextHint(ctx, ia); err != nil {
			t.Fatal(err)
		}
	}
	var in *InputError
	if _, err := f.svc.ReleaseNextHint(ctx, ia); !errors.As(err, &in) {
		t.Fatalf("releasing past the last hint: %v; want an InputError", err)
	}
	cv, _ = f.svc.CandidateView(ctx, ca)
	for i, h := range cv.Current.Hints {
		if h.Part != all[i].Part || h.Index != all[i].Index || h.HTML == "" {
			t.Fatalf("hint %d = %+v; want %+v with its text", i, h, all[i])
		}
	}
}

func TestClock(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	limit := ia.Items[0].Limit
	steps := []struct {
		action  string
		by      time.Duration
		advance time.Duration
		ok      bool
		running bool
		left    time.Duration
	}{
		{TimerPause, 0, 0, false, false, limit},
		{TimerStart, 0, 10 * time.Minute, true, true, limit - 10*time.Minute},
		{TimerStart, 0, 0, false, true, limit - 10*time.Minute},
		{TimerPause, 0, 5 * time.Minute, true, false, limit - 10*time.Minute},
		{TimerExtend, 5 * time.Minute, 0, true, false, limit - 5*time.Minute},
		{TimerExtend, 2 * time.Hour, 0, false, false, limit - 5*time.Minute},
		{TimerResume, 0, 2 * time.Minute, true, true, limit - 7*time.Minute},
		{"stop", 0, 0, false, true, limit - 7*time.Minute},
	}
	for i, st := range steps {
		_, err := f.svc.Timer(ctx, ia, st.action, st.by)
		if (err == nil) != st.ok {
			t.Fatalf("step %d (%s): err %v; want ok %v", i, st.action, err, st.ok)
		}
		f.clock.Add(st.advance)
		cv, err := f.svc.CandidateView(ctx, ca)
		if err != nil {
			t.Fatal(err)
		}
		if (cv.Clock.Phase == timer.ClockRunning) != st.running || cv.Clock.RemainingMS != st.left.Milliseconds() {
			t.Fatalf("step %d (%s): clock %+v; want running %v, %v left", i, st.action, cv.Clock, st.running, st.left)
		}
	}
}

func TestNextItemWalksTheScreen(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	if len(ia.Items) < 3 || ia.Items[0].Problem == nil || ia.Items[1].Question == nil {
		t.Fatalf("the screen's items: %d, the first a problem, the second a question", len(ia.Items))
	}
	if _, err := f.svc.SaveAnswer(ctx, ca, 0, "not a question", false); err == nil {
		t.Fatal("an answer to the problem step was kept")
	}
	for i := 1; i < len(ia.Items); i++ {
		if _, err := f.svc.NextItem(ctx, ia); err != nil {
			t.Fatalf("to item %d: %v", i, err)
		}
	}
	if _, err := f.svc.NextItem(ctx, ia); err == nil {
		t.Fatal("moved past the last item")
	}
	last := len(ia.Items) - 1
	if _, err := f.svc.SaveAnswer(ctx, ca, last, "my answer", false); err != nil {
		t.Fatal(err)
	}
	cv, err := f.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	if cv.Current.Index != last || !cv.Current.IsQuestion || cv.Answer != "my answer" || cv.Current.Title != ia.Items[last].Question.Text {
		t.Fatalf("candidate's current item = %+v, answer %q", cv.Current, cv.Answer)
	}
}

func TestHiddenTimeByTheServersClock(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	if _, err := f.svc.Signal(ctx, ca, SignalHidden, 0); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(42 * time.Second)
	if _, err := f.svc.Signal(ctx, ca, SignalVisible, 999_999); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Signal(ctx, ia, SignalHidden, 0); err == nil {
		t.Fatal("the interviewer sent a candidate's signal")
	}
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.Signals) != 2 || iv.Signals[1].HiddenMS != 42_000 {
		t.Fatalf("signals = %+v; want hidden then visible after 42 s", iv.Signals)
	}
}

func TestScoresCiteTheRunsEvidence(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	run, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var in *InputError
	cases := []struct {
		name  string
		part  int
		point int
		score int
		cite  *Cite
		ok    bool
	}{
		{"plain", 1, 0, 2, nil, true},
		{"score too high", 1, 0, MaxScore + 1, nil, false},
		{"no such point", 1, 99, 1, nil, false},
		{"no such part", 9, 0, 1, nil, false},
		{"cites the run", 2, 0, 1, &Cite{Run: run.Seq, Scenario: "lost-reply", Invariant: "no-double-refund", Status: "held"}, true},
		{"cites no run", 2, 0, 1, &Cite{Run: 999, Scenario: "lost-reply", Invariant: "no-double-refund"}, false},
		{"cites no invariant", 2, 0, 1, &Cite{Run: run.Seq, Scenario: "lost-reply", Invariant: "nope"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Score(ctx, ia, tc.part, tc.point, tc.score, tc.cite, "")
			if tc.ok && err != nil || !tc.ok && !errors.As(err, &in) {
				t.Fatalf("Score = %v; want ok %v", err, tc.ok)
			}
		})
	}
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	got := iv.Scores[ScoreKey{Item: 0, Part: 2, Point: 0}]
	if got.Cite == nil || got.Cite.Status != gradewire.InvariantViolated {
		t.Fatalf("the cited score = %+v; want the run's status (violated), not the form's", got)
	}
}

func TestSharedCode(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	starter := ia.Items[0].Problem.Code.Starter
	n := collab.Length(collab.NormalizeNewlines(starter))
	insert := func(client, text string) collab.Update {
		return collab.Update{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[[0,%q,""],%d]`, text, n))}
	}
	icl, ccl := ClientID(ia), ClientID(ca)
	res, err := f.svc.Push(ctx, ca, 0, 0, []collab.Update{insert(ccl, "// candidate")})
	if err != nil || !res.Accepted() || res.Version != 1 {
		t.Fatalf("candidate's push = %+v, %v; want accepted at version 1", res, err)
	}
	res, err = f.svc.Push(ctx, ia, 0, 0, []collab.Update{insert(icl, "// interviewer")})
	if err != nil || !res.Conflict {
		t.Fatalf("interviewer's push from version 0 = %+v, %v; want a conflict", res, err)
	}
	if _, err := f.svc.Push(ctx, ca, 0, 1, []collab.Update{insert(icl, "x")}); err == nil {
		t.Fatal("the candidate pushed an update in the interviewer's name")
	}
	if _, err := f.svc.Push(ctx, ca, 5, 0, []collab.Update{insert(ccl, "x")}); err == nil {
		t.Fatal("a push to a step with no code was taken")
	}
	ups, err := f.svc.Pull(ctx, ia, 0, 0)
	if err != nil || len(ups) != 1 || ups[0].ClientID != ccl {
		t.Fatalf("Pull(0) = %v, %v; want the candidate's update", ups, err)
	}
	text, v, err := f.svc.CodeText(ctx, ia, ia.Items[0])
	if err != nil || v != 1 || text != "// candidate\n"+collab.NormalizeNewlines(starter) {
		t.Fatalf("CodeText = version %d, %v, text starting %q", v, err, text[:min(len(text), 30)])
	}
	evs, _ := f.store.RoomEvents(ctx, ia.Room.ID, 0, 0)
	if last := evs[len(evs)-1]; last.Kind != KindCodeUpdate || last.Actor != storage.ActorCandidate || last.Visibility != storage.VisibleToEveryone {
		t.Fatalf("the update's event = %+v; want a code.update by the candidate, for everyone", last)
	}
}

// TestDocStoreConformance runs collab's store tests on the rooms' log.
func TestDocStoreConformance(t *testing.T) {
	collabtest.TestStore(t, func(t *testing.T) collab.Store {
		f := newFixture(t)
		l, _, _ := f.create(t, storage.RoomFromProblem, "async-refund")
		return prefixed{DocStore{s: f.svc}, l.RoomID + "/"}
	})
}

// prefixed puts the conformance tests' documents in one room.
type prefixed struct {
	collab.Store
	prefix string
}

func (p prefixed) Append(ctx context.Context, doc string, base int, ups []collab.Update) error {
	return p.Store.Append(ctx, p.prefix+doc, base, ups)
}

func (p prefixed) Since(ctx context.Context, doc string, v int) ([]collab.Update, error) {
	return p.Store.Since(ctx, p.prefix+doc, v)
}

// TestALostRunFreesTheGrader: a run whose server stopped before its end
// blocks the next run only for its lease, and then shows as lost.
func TestALostRunFreesTheGrader(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	ev, err := newEvent(storage.ActorInterviewer, KindRunStarted, RunStarted{Item: 0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.AppendRoomEvents(ctx, ia.Room.ID, f.clock.Now(), ev); err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); !errors.As(err, &busy) {
		t.Fatalf("a run while one is going: %v; want a BusyError", err)
	}
	f.clock.Add(DefaultRunLease)
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil || len(iv.Runs) != 1 || !iv.Runs[0].Lost {
		t.Fatalf("runs past the lease = %+v, %v; want the one run, lost", iv.Runs, err)
	}
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); err != nil {
		t.Fatalf("a run after the lease: %v", err)
	}
}

// TestAHugeReportKeepsItsSummary: a report past MaxReportBytes is not put
// in the log; its verdict and summary are.
func TestAHugeReportKeepsItsSummary(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.g.report.Scenarios[0].Output = strings.Repeat("log line\n", MaxReportBytes/9+1)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	iv, err := f.svc.InterviewerView(ctx, ia)
	if err != nil || len(iv.Runs) != 1 {
		t.Fatalf("runs = %+v, %v", iv.Runs, err)
	}
	r := iv.Runs[0]
	if !r.Finished || r.Verdict != gradewire.StatusFail || len(r.Report) != 0 || !strings.Contains(r.Summary, "too large") {
		t.Fatalf("the huge run = finished %v, verdict %q, %d bytes of report, summary %q", r.Finished, r.Verdict, len(r.Report), r.Summary)
	}
}

// TestSweepDeletesRoomsPastTheirRetention: a room, open or ended, is kept
// for the retention after it expires (its interviewer still reads the
// record), then deleted with its log; a younger room stays.
func TestSweepDeletesRoomsPastTheirRetention(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	old, oldIA, oldCA := f.create(t, storage.RoomFromProblem, "async-refund")
	ended, endedIA, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	starter := collab.NormalizeNewlines(oldIA.Items[0].Problem.Code.Starter)
	up := collab.Update{ClientID: ClientID(oldCA), Changes: json.RawMessage(fmt.Sprintf(`[[0,"// kept a while"],%d]`, collab.Length(starter)))}
	if res, err := f.svc.Push(ctx, oldCA, 0, 0, []collab.Update{up}); err != nil || !res.Accepted() {
		t.Fatalf("Push = %+v, %v", res, err)
	}
	if _, err := f.svc.End(ctx, endedIA); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Hour + DefaultRetention - time.Millisecond) // the fixture's TTL is an hour
	young, _, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	if n, err := f.svc.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("Sweep a moment before the retention ends = %d, %v; want nothing deleted", n, err)
	}
	for _, l := range []Links{old, ended} {
		if a, err := f.svc.Authenticate(ctx, l.RoomID, l.InterviewerKey); a.Role != Interviewer || !errors.Is(err, ErrExpired) && !errors.Is(err, ErrEnded) {
			t.Fatalf("a closed room within its retention: role %q, %v; want its interviewer let in to the record", a.Role, err)
		}
	}
	f.clock.Add(time.Millisecond)
	if n, err := f.svc.Sweep(ctx); err != nil || n != 2 {
		t.Fatalf("Sweep at the end of the retention = %d, %v; want the 2 old rooms deleted", n, err)
	}
	for _, l := range []Links{old, ended} {
		for _, key := range []string{l.InterviewerKey, l.CandidateKey} {
			if _, err := f.svc.Authenticate(ctx, l.RoomID, key); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a deleted room's link: %v; want ErrNotFound", err)
			}
		}
		if evs, err := f.store.RoomEvents(ctx, l.RoomID, 0, 0); err != nil || len(evs) != 0 {
			t.Fatalf("a deleted room's log: %d events, %v; want none", len(evs), err)
		}
	}
	if _, err := f.svc.Authenticate(ctx, young.RoomID, young.CandidateKey); err != nil {
		t.Fatalf("the young room after the sweep: %v", err)
	}
}

// TestPushCarriesTheSelection: the cursor rides with the push, one event
// for both, labelled by the role whatever the page said; a selection
// outside the text or with a colour off the palette is refused.
func TestPushCarriesTheSelection(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	n := collab.Length(collab.NormalizeNewlines(ia.Items[0].Problem.Code.Starter))
	client := ClientID(ca)
	insert := func(text string, sel *collab.Selection) collab.Update {
		return collab.Update{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[[0,%q],%d]`, text, n)), Selection: sel}
	}
	before, _ := f.store.RoomEvents(ctx, ia.Room.ID, 0, 0)
	res, err := f.svc.Push(ctx, ca, 0, 0, []collab.Update{insert("ab", &collab.Selection{Anchor: 2, Head: 1, Name: "Interviewer", Colour: 1})})
	if err != nil || !res.Accepted() {
		t.Fatalf("Push = %+v, %v", res, err)
	}
	after, _ := f.store.RoomEvents(ctx, ia.Room.ID, 0, 0)
	if len(after) != len(before)+1 {
		t.Fatalf("a push with its cursor made %d events; want 1", len(after)-len(before))
	}
	var stored collab.Update
	if err := json.Unmarshal(after[len(after)-1].Payload, &stored); err != nil {
		t.Fatal(err)
	}
	if want := (collab.Selection{Anchor: 2, Head: 1, Name: "Candidate", Colour: 1}); stored.Selection == nil || *stored.Selection != want {
		t.Fatalf("the stored update's selection = %+v; want %+v", stored.Selection, want)
	}
	ups, err := f.svc.Pull(ctx, ia, 0, 0)
	if err != nil || len(ups) != 1 || ups[0].Selection == nil || ups[0].Selection.Head != 1 {
		t.Fatalf("the interviewer's pull = %+v, %v; want the update with its selection", ups, err)
	}
	if _, err := f.svc.Push(ctx, ca, 0, 1, []collab.Update{{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[%d]`, n+2)),
		Selection: &collab.Selection{Colour: 9}}}); err == nil {
		t.Fatal("a selection with colour 9 was taken")
	}
	res, err = f.svc.Push(ctx, ca, 0, 1, []collab.Update{{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[%d]`, n+2)),
		Selection: &collab.Selection{Anchor: n + 3, Head: 0}}})
	if err != nil || res.Rejected == "" {
		t.Fatalf("a selection past the text's end: %+v, %v; want it rejected", res, err)
	}
}

// TestCursorReportsAreBounded: four reports at once, then four a second;
// each participant counts on its own.
func TestCursorReportsAreBounded(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	report := func(a Access) error {
		_, err := f.svc.MoveCursor(ctx, a, Cursor{Item: 0, ClientID: ClientID(a), Anchor: 1, Head: 1})
		return err
	}
	for i := range 4 {
		if err := report(ca); err != nil {
			t.Fatalf("report %d: %v", i+1, err)
		}
	}
	var soon *TooSoonError
	if err := report(ca); !errors.As(err, &soon) || soon.RetryAfter <= 0 || soon.RetryAfter > 250*time.Millisecond {
		t.Fatalf("a fifth report at once: %v; want TooSoonError within 250 ms", err)
	}
	if err := report(ia); err != nil {
		t.Fatalf("the interviewer's report, while the candidate's are spent: %v", err)
	}
	f.clock.Add(250 * time.Millisecond)
	if err := report(ca); err != nil {
		t.Fatalf("a report 250 ms later: %v", err)
	}
}

// TestKeepCleanSweepsUntilStopped: the server's loop deletes a room once
// its retention has passed, at the next sweep, and returns when stopped.
func TestKeepCleanSweepsUntilStopped(t *testing.T) {
	f := newFixture(t)
	l, _, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.svc.KeepClean(ctx, 5*time.Millisecond) }()
	time.Sleep(20 * time.Millisecond) // a few sweeps while the room is young
	if _, err := f.store.Room(context.Background(), l.RoomID); err != nil {
		t.Fatalf("a young room was swept: %v", err)
	}
	f.clock.Add(time.Hour + DefaultRetention)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := f.store.Room(context.Background(), l.RoomID)
		if errors.Is(err, storage.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the room past its retention is still there after 10 s of sweeps: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("KeepClean did not return when its context ended")
	}
}

// otherFirst is key with its first character changed: a key that already
// began with "x" stayed the same key under a plain replacement.
func otherFirst(key string) string {
	if key[0] == 'x' {
		return "y" + key[1:]
	}
	return "x" + key[1:]
}
