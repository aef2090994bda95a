package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/storage"
)

// Grader grades submissions; *grading.Dispatcher satisfies it. Admit
// takes a job's place in the queue for a client address, or refuses at
// once (a *grading.BusyError); GradeAdmitted grades it: what the code did
// is in the Report, the error is the grading system's (busy, a broken
// child, ctx ended). RetryAfter is when the address's first job should
// end. Plan names a problem's scenarios (false: nothing grades it).
type Grader interface {
	Admit(key string) (*grading.Ticket, error)
	GradeAdmitted(ctx context.Context, ticket *grading.Ticket, job grading.Request, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error)
	RetryAfter(key string) time.Duration
	Plan(problem string) (grading.Plan, bool)
}

// DefaultGradesPerAddress is how many gradings one client address may have
// running or queued at once. Each person has one at a time; three lets a
// few people behind one NAT (a classroom) grade together, each further one
// told to retry in the seconds a grading takes, and it caps what one
// address can hold: with fair places (the pool's) another address's
// Grade waits for at most one running job, not for the first address's
// queue.
const DefaultGradesPerAddress = 3

// codeStore is what the code workspace and grading need from storage;
// *storage.Store satisfies it.
type codeStore interface {
	SaveCodeDraftIn(ctx context.Context, attemptID int64, lang, code string) (storage.CodeDraft, error)
	CodeDraftIn(ctx context.Context, attemptID int64, lang string) (storage.CodeDraft, error)
	StartOwnedGradeRunIn(ctx context.Context, attemptID int64, problem, lang string, seed int64, source string, claim storage.GradeClaim) (storage.GradeRun, error)
	FinishGradeRun(ctx context.Context, id int64, end storage.GradeRunEnd) error
	RenewGradeLeases(ctx context.Context, owner string, lease time.Duration) ([]int64, error)
	ExpireGradeLeases(ctx context.Context, message string) ([]int64, error)
	ExpireGradeLease(ctx context.Context, id int64, message string) (bool, error)
	GradeRun(ctx context.Context, id int64) (storage.GradeRun, error)
	LatestGradeRunIn(ctx context.Context, attemptID int64, lang string) (storage.GradeRun, error)
	AppendGradeProgress(ctx context.Context, id, seq int64, data []byte) error
	GradeProgressAfter(ctx context.Context, id, after int64, limit int) ([]storage.GradeProgress, error)
	DeleteGradeProgress(ctx context.Context, id int64) error
	Dialect() string
}

const (
	// gradeTimeout bounds one grading from the press of Grade: waiting for
	// a place in the pool plus the child's own wall-clock limit (20 s),
	// with room for a full queue ahead of it.
	gradeTimeout = 2 * time.Minute
	// finishTimeout bounds recording a run's end, which must happen even
	// when the grading context has ended.
	finishTimeout = 10 * time.Second
	// defaultSeed is the seed of a run that names none: the same code then
	// gives the same report, so a change in the report is the code's.
	defaultSeed = 1
	// DefaultGradeLease is grading.DefaultLease, the lease of a solo
	// grade run.
	DefaultGradeLease = grading.DefaultLease
)

// errGradingStopped is claim's error once the server is shutting down.
var errGradingStopped = grading.ErrStopped

// gradingRuns runs gradings in the background and bridges them to the
// pages: each running job's progress so far is a live.MemoryLog whose
// appends are announced on broker. Finished runs are read from storage,
// not from here. A run's progress is per instance: only the instance that
// grades a run streams its progress; another one follows it to its end,
// which is announced on shared too.
//
// What must hold across instances is in the store: a run is owned by
// instance, under a lease that leases (grading.Leases, the heartbeat)
// renews while it has runs going;
// one run per user and perAddress per client address are checked where
// the run is inserted (storage.GradeClaim). The maps below are this
// instance's own runs, and its claims, which also cover Checks: those are
// never stored, so their limits are per instance.
type gradingRuns struct {
	grader   Grader
	store    codeStore
	log      *slog.Logger
	broker   live.Broker
	shared   live.Broker // every instance's; nil: none
	timeout  time.Duration
	instance string        // this instance's id, the owner of its runs
	lease    time.Duration // see DefaultGradeLease

	ctx  context.Context // ends when the server stops grading
	stop context.CancelFunc
	wg   sync.WaitGroup

	perAddress int // runs at once per client address

	mu   sync.Mutex
	live map[int64]*liveRun // by run id
	// places are the claims: one per user, perAddress per client address.
	places *grading.Places[*liveRun]
	// leases keeps this instance's runs' leases renewed (made at the first
	// run, from the fields above).
	leases *grading.Leases[int64]
}

func newGradingRuns(g Grader, store codeStore, log *slog.Logger) *gradingRuns {
	ctx, stop := context.WithCancel(context.Background())
	return &gradingRuns{grader: g, store: store, log: log, broker: live.NewInProcess(), timeout: gradeTimeout,
		instance: grading.InstanceID(), lease: DefaultGradeLease,
		perAddress: DefaultGradesPerAddress, ctx: ctx, stop: stop,
		live: map[int64]*liveRun{}, places: grading.NewPlaces[*liveRun]()}
}

// claimOf is the store's side of a run's claim: the user's one place and
// one of its address's, under this instance's lease.
func (g *gradingRuns) claimOf(userID, addr string) storage.GradeClaim {
	return storage.GradeClaim{Owner: g.instance, Lease: g.lease, UserID: userID, ClientKey: addr,
		PerAddress: g.perAddress, Expired: messageAbandoned}
}

// StopGrading cancels the gradings still running (each is recorded as a
// system error the user can retry), ends the progress streams, refuses new
// gradings, and waits until every grading has recorded its end or ctx
// ends. Call it when the server shuts down, before closing the store.
func (s *Server) StopGrading(ctx context.Context) error {
	g := s.grading
	if g == nil {
		return nil
	}
	g.places.Close()
	g.stop()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("web: stop grading: %w", ctx.Err())
	}
}

// errAddressBusy is claim's error when the client's address has its
// maximum of runs going.
var errAddressBusy = grading.ErrAddressBusy

// claim reserves the user's one grading place, one of its address's
// (addr, a clientaddr.Key). When the user already has a run going it
// returns that run instead, and a nil claim.
func (g *gradingRuns) claim(userID, addr string, total int) (claimed, existing *liveRun, err error) {
	r := &liveRun{userID: userID, addr: addr, total: total}
	place, other, err := g.places.Claim(userID, addr, g.perAddress, r)
	switch {
	case err != nil:
		return nil, nil, err
	case other != nil:
		return nil, other.Run, nil
	}
	r.place = place
	return r, nil, nil
}

// release gives up a claim whose run could not be started.
func (g *gradingRuns) release(r *liveRun) { g.places.Release(r.place) }

// holdAddress takes one of addr's grading places for a grading that is
// not the user's own (a room's run), counted with this instance's Grades
// and Checks; release frees it.
func (g *gradingRuns) holdAddress(addr string) (release func(), err error) {
	return g.places.HoldAddress(addr, g.perAddress)
}

// start grades job in the background as run id, under the claim r, in the
// place ticket holds in the grader's queue.
func (g *gradingRuns) start(r *liveRun, id int64, job grading.Request, ticket *grading.Ticket) {
	g.mu.Lock()
	r.id = id
	r.events = live.NewMemoryLog(runTopic(id), g.broker)
	if g.sharesProgress() {
		g.startMirror(r)
	}
	g.live[id] = r
	if g.leases == nil {
		cfg := grading.GradeLeases(g.store, messageAbandoned)
		cfg.Owner, cfg.Lease, cfg.OnExpired, cfg.Log, cfg.Ctx, cfg.WG = g.instance, g.lease, g.announceEnds, g.log, g.ctx, &g.wg
		g.leases = grading.NewLeases(cfg)
	}
	r.leased = g.leases.Start(id, g.timeout)
	r.ctx = r.leased.Ctx
	g.mu.Unlock()
	go g.run(r, job, ticket)
}

// sharesProgress reports whether runs' progress goes through the store
// too: when other instances can stream them, which takes a database that
// several serve (SQLite serves one process).
func (g *gradingRuns) sharesProgress() bool {
	return g.shared != nil && g.store.Dialect() != "sqlite"
}

// mirrored is one progress event on its way to the other instances.
type mirrored struct {
	seq  int64
	data []byte
}

// startMirror has run r's progress events carried to the other instances
// by a goroutine of their own, in order: the goroutine that reads the
// grading child's results must never wait on the database, or a slow one
// would stall the child's pipe until its wall-clock limit blamed the code,
// or drop the report when the child ends. An event that finds the queue
// full is dropped, which costs the other instances' streams that event.
func (g *gradingRuns) startMirror(r *liveRun) {
	queue := make(chan mirrored, 256)
	drained := make(chan struct{})
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer close(drained)
		for m := range queue {
			g.mirrorProgress(r, m.seq, m.data)
		}
	}()
	closed := false // under r.mu, which addProgress holds when it calls mirror
	r.mirror = func(r *liveRun, seq int64, data []byte) {
		if closed {
			return
		}
		select {
		case queue <- mirrored{seq, data}:
		default:
			g.log.Warn("web: a grade run's progress came faster than the store took it; the other instances miss one event", "run", r.id)
		}
	}
	r.mirrorDone = func() {
		r.mu.Lock()
		closed = true
		close(queue)
		r.mu.Unlock()
		select {
		case <-drained:
		case <-time.After(finishTimeout):
		}
	}
}

// mirrorProgress records run r's progress event seq in the store and
// announces it on the shared broker, for the streams following the run
// from other instances (followElsewhere). A failure costs those streams
// that event, nothing else.
func (g *gradingRuns) mirrorProgress(r *liveRun, seq int64, data []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), finishTimeout)
	defer cancel()
	if err := g.store.AppendGradeProgress(ctx, r.id, seq, data); err != nil {
		g.log.Warn("web: recording a grade run's progress for the other instances failed", "run", r.id, "err", err)
		return
	}
	if err := g.shared.Publish(ctx, runTopic(r.id), seq); err != nil {
		g.log.Warn("web: announcing a grade run's progress to the other instances failed", "run", r.id, "err", err)
	}
}

// announceEnds wakes the streams following runs that ended elsewhere than
// on their owner (the owner is gone), wherever they are: they read the
// end from the store. The sequence number only has to pass what a stream
// has sent, which no run's few dozen events come near.
func (g *gradingRuns) announceEnds(ctx context.Context, ids []int64) {
	if g.shared == nil {
		return
	}
	for _, id := range ids {
		if err := g.shared.Publish(ctx, runTopic(id), math.MaxInt64); err != nil {
			g.log.Warn("web: announcing a grade run's end to the other instances failed", "run", id, "err", err)
		}
	}
}

// lookup returns the run if it is still going (or has just ended and not
// yet been forgotten).
func (g *gradingRuns) lookup(id int64) *liveRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live[id]
}

// userRun returns the run the user has going, if any.
func (g *gradingRuns) userRun(userID string) *liveRun {
	place := g.places.Of(userID)
	if place == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if place.Run.id != 0 {
		return place.Run
	}
	return nil
}

func (g *gradingRuns) forget(r *liveRun) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.live, r.id)
	g.places.Release(r.place)
}

// run grades in a context detached from the request that asked for it:
// closing the tab does not stop a grading, and its end is always stored
// before the run leaves the registry, so a reader that misses it live
// finds it in storage.
func (g *gradingRuns) run(r *liveRun, job grading.Request, ticket *grading.Ticket) {
	defer r.leased.Done()
	ctx := r.ctx
	report, err := g.grader.GradeAdmitted(ctx, ticket, job, r.addProgress)
	// From here the heartbeat leaves the run alone: once its end is
	// recorded the store no longer renews it, which is not a takeover.
	storeCtx, cancelStore, taken := r.leased.Finished(finishTimeout)
	defer cancelStore()
	end := g.endOf(ctx, r.id, report, err)
	if taken {
		end = storage.GradeRunEnd{Status: storage.GradeSystemError, Message: messageAbandoned}
	}

	stored := storage.GradeRun{ID: r.id, Problem: job.Problem, Source: job.Source, Status: end.Status, Message: end.Message,
		RetryAfter: end.RetryAfter, ReportJSON: end.ReportJSON}
	switch err := g.store.FinishGradeRun(storeCtx, r.id, end); {
	case errors.Is(err, storage.ErrRunFinished):
		// Another instance took the run over: its ending stands, and the
		// streams here end with what every other instance shows.
		if run, err := g.store.GradeRun(storeCtx, r.id); err == nil {
			stored = run
		}
	case err != nil:
		g.log.Error("web: recording the end of a grade run failed", slog.Int64("run", r.id), slog.Any("err", err))
	}
	if r.mirror != nil {
		// The end is recorded: a stream elsewhere reads it, not these,
		// once the events still on their way are written.
		r.mirrorDone()
		if err := g.store.DeleteGradeProgress(storeCtx, r.id); err != nil {
			g.log.Warn("web: forgetting a grade run's progress failed", "run", r.id, "err", err)
		}
	}
	// Forgotten before the final event goes out: a user who reads the
	// report and presses Grade at once must find their place free. Streams
	// already following the run hold it and still get the event, whose
	// report each renders as it sends it (eventsFor), not this goroutine.
	g.forget(r)
	seq := r.finish(stored)
	if g.shared != nil {
		// Streams following the run from other instances read its end
		// from the store when woken.
		if err := g.shared.Publish(storeCtx, runTopic(r.id), seq); err != nil {
			g.log.Warn("web: announcing a grade run's end to the other instances failed", "run", r.id, "err", err)
		}
	}
}

// Messages for gradings that ended without a report.
const (
	messageGraderBroke = "The grader failed while grading this code; that is our fault, not your code's. Your code is saved: grade it again."
	messageStopped     = "The server stopped while this code was being graded. Your code is saved: grade it again."
	messageAbandoned   = "The server grading this code stopped before it finished. Your code is saved: grade it again."
)

// endOf turns what Grade returned into the run's stored end.
func (g *gradingRuns) endOf(ctx context.Context, id int64, report *gradewire.Report, err error) storage.GradeRunEnd {
	var busy *grading.BusyError
	switch {
	case err == nil && report != nil:
		data, merr := json.Marshal(report)
		if merr != nil {
			g.log.Error("web: encoding a grade report failed", slog.Int64("run", id), slog.Any("err", merr))
			return storage.GradeRunEnd{Status: storage.GradeSystemError, Message: messageGraderBroke}
		}
		return storage.GradeRunEnd{Status: storage.GradeDone, Message: report.Message, Summary: summarize(report), ReportJSON: data}
	case errors.As(err, &busy):
		wait := max(busy.RetryAfter, time.Second)
		return storage.GradeRunEnd{Status: storage.GradeBusy, RetryAfter: wait, Message: busyMessage(wait)}
	case errors.Is(err, grading.ErrBusy):
		return storage.GradeRunEnd{Status: storage.GradeBusy, RetryAfter: 5 * time.Second, Message: busyMessage(5 * time.Second)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return storage.GradeRunEnd{Status: storage.GradeSystemError, Message: fmt.Sprintf(
			"Grading took longer than %s, waiting for the grader included, and was stopped. The grader is probably overloaded. Your code is saved: grade it again in a minute.",
			g.timeout)}
	case g.ctx.Err() != nil:
		return storage.GradeRunEnd{Status: storage.GradeSystemError, Message: messageStopped}
	}
	if err == nil {
		err = errors.New("the grader returned neither a report nor an error")
	}
	g.log.Error("web: grading failed", slog.Int64("run", id), slog.Any("err", err))
	return storage.GradeRunEnd{Status: storage.GradeSystemError, Message: messageGraderBroke}
}

func busyMessage(wait time.Duration) string {
	return "The grader is busy; try again in " + strconv.Itoa(retrySeconds(wait)) + " s. Your code is saved."
}

func retrySeconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }

// summarize computes the figures the history shows from a report.
func summarize(r *gradewire.Report) storage.GradeSummary {
	sm := storage.GradeSummary{Verdict: r.Status, ScenariosPassed: r.Summary.ScenariosPassed, ScenariosTotal: r.Summary.ScenariosTotal}
	for _, sc := range r.Scenarios {
		for _, inv := range sc.Invariants {
			switch inv.Status {
			case gradewire.InvariantHeld:
				sm.InvariantsHeld++
				sm.InvariantsTotal++
			case gradewire.InvariantViolated:
				sm.InvariantsTotal++
			}
		}
	}
	for _, d := range r.Summary.DefectsOfKind(gradewire.DefectKindOriginal) {
		sm.DefectsTotal++
		if d.Fixed {
			sm.DefectsFixed++
		}
	}
	return sm
}

// scenarioTotal is how many scenarios grade problem, or 0 when its
// grader does not say (progress then counts without a total) or grading
// is off.
func (g *gradingRuns) scenarioTotal(problem string) int {
	if g == nil {
		return 0
	}
	plan, _ := g.grader.Plan(problem)
	return len(plan.Scenarios)
}

// liveRun is one grading in progress: its events so far ("progress" per
// finished scenario, then the final one) for the streams to follow, and
// the latest progress for the pages.
type liveRun struct {
	id     int64           // set by start
	events *live.MemoryLog // set by start
	// The grading's context and its lease, set by start: the heartbeat
	// ends ctx when another instance took the run over.
	ctx    context.Context
	leased *grading.Leased[int64]
	// mirror, set by start when other instances may follow the run,
	// carries each progress event to them (mirrorProgress).
	mirror func(r *liveRun, seq int64, data []byte)
	// mirrorDone, set with mirror, stops it and waits (bounded) for the
	// events already handed to it to be written.
	mirrorDone func()
	place      *grading.Place[*liveRun]
	userID     string
	addr       string // the client address's limit key
	total      int

	mu       sync.Mutex
	progress []progressData
	end      storage.GradeRun // as finish recorded it; its report is rendered when read
}

// runTopic names a run's events on the broker.
func runTopic(id int64) string { return "grade-run/" + strconv.FormatInt(id, 10) }

// progressData is the data of a progress event: one more scenario finished.
type progressData struct {
	Finished int    `json:"finished"`
	Total    int    `json:"total"` // 0 when unknown
	Failed   int    `json:"failed"`
	Name     string `json:"name"`
	Title    string `json:"title"`
	Status   string `json:"status"`
}

func (r *liveRun) addProgress(sc gradewire.ScenarioReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	failed := 0
	if n := len(r.progress); n > 0 {
		failed = r.progress[n-1].Failed
	}
	if sc.Status != gradewire.StatusPass {
		failed++
	}
	p := progressData{Finished: len(r.progress) + 1, Total: r.total, Failed: failed,
		Name: sc.Name, Title: sc.Title, Status: sc.Status}
	r.progress = append(r.progress, p)
	// Appended under mu, so the log's order is the progress's order; the
	// child reports scenarios one at a time, so the mirror's is too.
	ev := newEvent("progress", p)
	seq := r.append(ev, false)
	if r.mirror != nil {
		r.mirror(r, seq, ev.Data)
	}
}

// finish keeps the run's end and appends the event that stands for it,
// which ends its streams, and returns its number. The event carries
// nothing: a stream sends the end as finalOf builds it.
func (r *liveRun) finish(end storage.GradeRun) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.end = end
	return r.append(live.Event{Name: endEventName}, true)
}

// endEventName names the event that stands in the run's log for its end
// until a stream sends it: never sent as it is.
const endEventName = "end"

// eventsFor is the run's events after after, for a stream: the stand-in for
// the end is replaced by the final event, its report rendered here, in
// the reader's context, from the end finish kept.
func (r *liveRun) eventsFor(log *slog.Logger) live.Source {
	return func(ctx context.Context, after int64, limit int) ([]live.Event, error) {
		evs, err := r.events.EventsAfter(ctx, after, limit)
		if n := len(evs); n > 0 && evs[n-1].Last {
			r.mu.Lock()
			end := r.end
			r.mu.Unlock()
			ev, err := finalEvent(ctx, end)
			if err != nil {
				log.ErrorContext(ctx, "web: rendering a grade report failed", slog.Int64("run", r.id), slog.Any("err", err))
				ev = systemErrorEvent(messageGraderBroke)
			}
			ev.Seq, ev.Last = evs[n-1].Seq, true
			evs[n-1] = ev
		}
		return evs, err
	}
}

// append adds ev to the run's events. It cannot fail but by a bug: the
// broker is in-process and nothing follows the final event.
func (r *liveRun) append(ev live.Event, last bool) int64 {
	appended, err := r.events.Append(context.Background(), ev.Name, ev.Data, last)
	if err != nil {
		panic(fmt.Sprintf("web: run %d: %v", r.id, err))
	}
	return appended.Seq
}

// latest returns the last progress event, if any.
func (r *liveRun) latest() (progressData, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.progress) == 0 {
		return progressData{Total: r.total}, false
	}
	return r.progress[len(r.progress)-1], true
}

// reportData is the data of the final "report" event.
type reportData struct {
	RunID       int64                  `json:"run_id"`
	Verdict     string                 `json:"verdict"`
	Summary     string                 `json:"summary"`
	HTML        string                 `json:"html"`
	Diagnostics []gradewire.Diagnostic `json:"diagnostics"`
}

// busyData is the data of the final "busy" event.
type busyData struct {
	RetryAfterS int    `json:"retry_after_s"`
	Message     string `json:"message"`
}

// messageData is the data of the final "system-error" event.
type messageData struct {
	Message string `json:"message"`
}

// newEvent is a stream event with v as JSON data (one line: streams and
// their tests read it whole); its sequence number is given where it is
// appended.
func newEvent(name string, v any) live.Event {
	data, err := json.Marshal(v)
	if err != nil {
		// Only our own plain structs are encoded here; they always encode.
		panic(fmt.Sprintf("web: encode %s event: %v", name, err))
	}
	return live.Event{Name: name, Data: data}
}

func systemErrorEvent(message string) live.Event {
	return newEvent("system-error", messageData{Message: message})
}

// finalEvent is the last event of a finished run, built from what storage
// keeps, so a live stream and a late one send the same thing.
func finalEvent(ctx context.Context, run storage.GradeRun) (live.Event, error) {
	switch run.Status {
	case storage.GradeBusy:
		return newEvent("busy", busyData{RetryAfterS: retrySeconds(run.RetryAfter), Message: run.Message}), nil
	case storage.GradeSystemError:
		return systemErrorEvent(run.Message), nil
	case storage.GradeDone:
		if run.ReportJSON == nil { // trimmed: the summary is all there is
			msg := trimmedMessage(run.Trimmed)
			return newEvent("report", reportData{RunID: run.ID, Verdict: run.Summary.Verdict, Summary: msg,
				HTML: "<p class=\"note\">" + html.EscapeString(msg) + "</p>", Diagnostics: []gradewire.Diagnostic{}}), nil
		}
		report, err := decodeReport(run.ReportJSON)
		if err != nil {
			return live.Event{}, err
		}
		var buf bytes.Buffer
		runURL := "" // a run not known by its problem sends its report whole
		if run.Problem != "" {
			runURL = gradeRunURL(run.Problem, run.ID)
		}
		if err := runReport(report, sourceHash(run.Source), runURL).Render(ctx, &buf); err != nil {
			return live.Event{}, fmt.Errorf("web: render the report of run %d: %w", run.ID, err)
		}
		return newEvent("report", reportData{RunID: run.ID, Verdict: report.Status, Summary: reportSummary(report),
			HTML: buf.String(), Diagnostics: report.Diagnostics}), nil
	}
	return live.Event{}, fmt.Errorf("web: run %d has not finished (%s)", run.ID, run.Status)
}

func decodeReport(data []byte) (*gradewire.Report, error) {
	var r gradewire.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("web: decode a stored grade report: %w", err)
	}
	if r.Diagnostics == nil {
		r.Diagnostics = []gradewire.Diagnostic{}
	}
	return &r, nil
}

// reportSummary is the one line the progress region ends with.
func reportSummary(r *gradewire.Report) string {
	switch r.Status {
	case gradewire.StatusPass:
		return fmt.Sprintf("Graded: every invariant held in all %d scenarios.", r.Summary.ScenariosTotal)
	case gradewire.StatusFail:
		return fmt.Sprintf("Graded: %d of %d scenarios passed.", r.Summary.ScenariosPassed, r.Summary.ScenariosTotal)
	}
	if len(r.Diagnostics) > 0 {
		return fmt.Sprintf("The code could not be graded: %s.", plural(len(r.Diagnostics), "problem"))
	}
	return "The code could not be graded: " + r.Message
}
