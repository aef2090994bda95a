package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/storage"
)

// Grader grades code; *grading.Dispatcher satisfies it, as for solo
// practice. Plan says whether anything grades a problem.
type Grader interface {
	Admit(key string) (*grading.Ticket, error)
	GradeAdmitted(ctx context.Context, ticket *grading.Ticket, job grading.Request, progress func(gradewire.ScenarioReport)) (*gradewire.Report, error)
	Plan(problem string) (grading.Plan, bool)
}

const (
	// gradeTimeout bounds one grading, waiting for a place included, as
	// solo grading does.
	gradeTimeout = 2 * time.Minute
	// roomGradeSeed is fixed, so the same code gives the same report.
	roomGradeSeed = 1
	// finishTimeout bounds recording a run's end after its context ended.
	finishTimeout = 10 * time.Second
	// MaxReportBytes bounds a report kept in the log (twice once shared).
	// The refund starter's is 593 KiB of JSON (58 scenarios, each failure
	// with its minimal run, cut where its invariant broke, and every
	// run's story), its reference's 452 KiB; only code that logs at
	// length in every scenario passes this, and its run keeps its
	// summary alone, as solo grading trims such reports.
	// (TestReportsFitARoom in the refund kit keeps both under 90% of it.)
	// A run is charged its code and this cap against the address's write
	// budget, whose burst is 768 KiB: the cap must leave room for the code
	// (TestRoomRunChargedToTheWriteBudget).
	MaxReportBytes = 704 << 10
)

// BusyError refuses a run while the grader is full or the room's previous
// run is still going.
type BusyError struct {
	RetryAfter time.Duration
	Message    string
}

func (e *BusyError) Error() string { return "rooms: " + e.Message }

// Grading reports whether rooms can run the grader.
func (s *Service) Grading() bool { return s.grader != nil }

// RunLimits are the interviewer's client address's limits a room's Run
// is held to, the same a solo Grade is: a place among the address's
// gradings for the run's whole life, and its write budget charged for
// what the run stores. The caller owns both; a nil func is no limit.
type RunLimits struct {
	// ClientKey is the address's limit key (clientaddr.Key), its turn in
	// the grader's queue.
	ClientKey string
	// Hold takes one of the address's grading places; release is called
	// once the run's end is recorded (or the run is refused). Its error
	// refuses the run and Run returns it as it is.
	Hold func() (release func(), err error)
	// Charge takes bytes from the address's write budget. Its error
	// refuses the run and Run returns it as it is.
	Charge func(bytes int64) error
	// PerAddress, when more than 0, is how many runs the address may have
	// going at once on every instance, its solo grade runs counted (the
	// store's count, storage.ReserveRoomRun): past it Run returns
	// grading.ErrAddressBusy. Hold is this instance's count, which also
	// covers what the store does not record (a Check).
	PerAddress int
}

// RunStoredBytes is what a run of code adds to the room's log at most:
// the code, kept with run.started, and the largest report run.finished
// keeps.
func RunStoredBytes(code string) int64 { return int64(len(code)) + MaxReportBytes }

// Run starts the grader on the current item's code as the shared editor
// holds it, in the background; the run's end is appended as run.finished
// (interviewer only) when it comes. It is held to limits as a solo Grade
// is: the address's place is taken before anything is written, then its
// write budget is charged RunStoredBytes.
func (s *Service) Run(ctx context.Context, a Access, limits RunLimits) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	if s.grader == nil {
		return storage.RoomEvent{}, &BusyError{RetryAfter: time.Minute, Message: "grading is off on this server"}
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	it, _ := f.sh.item(f.sh.current)
	if !it.HasCode() {
		return storage.RoomEvent{}, inputErrorf("%q has no code to grade", it.Title())
	}
	if _, ok := s.grader.Plan(it.Problem.Slug); !ok {
		return storage.RoomEvent{}, inputErrorf("%q has no grader", it.Title())
	}
	// One run at a time: a run whose server stopped is over once its
	// lease passes (its end is recorded here), as a solo Grade's is.
	now := s.now()
	for _, r := range f.pv.runs {
		if r.Finished {
			continue
		}
		over, err := s.reapRun(ctx, a.Room.ID, r, now)
		if err != nil {
			return storage.RoomEvent{}, err
		}
		if !over {
			return storage.RoomEvent{}, &BusyError{RetryAfter: s.expectedEnd(limits.ClientKey),
				Message: "the previous run is still going; its report comes first"}
		}
	}
	// A lease left on a run that has ended (its release failed), or on a
	// run reserved by a server that stopped before starting it, would hold
	// the room: it goes.
	if l, err := s.store.RoomRunLeaseOf(ctx, a.Room.ID); err == nil && l.Owner != "" {
		switch r := f.pv.run(l.Run); {
		case r != nil && r.Finished:
			s.dropLease(ctx, a.Room.ID, l.Run, nil)
		case l.Run == 0 && l.Until.Before(now):
			if _, err := s.store.TakeExpiredRoomRunLease(ctx, a.Room.ID, 0, now); err != nil {
				return storage.RoomEvent{}, err
			}
		}
	}
	code, version, err := s.CodeText(ctx, a, it)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	release := func() {}
	if limits.Hold != nil {
		if release, err = limits.Hold(); err != nil {
			return storage.RoomEvent{}, err
		}
	}
	if limits.Charge != nil {
		if err := limits.Charge(RunStoredBytes(code)); err != nil {
			release()
			return storage.RoomEvent{}, err
		}
	}
	ticket, err := s.grader.Admit(limits.ClientKey)
	if busy := (*grading.BusyError)(nil); errors.As(err, &busy) {
		release()
		return storage.RoomEvent{}, &BusyError{RetryAfter: max(busy.RetryAfter, time.Second), Message: "the grader is busy"}
	}
	if err != nil {
		release()
		return storage.RoomEvent{}, err
	}
	// The room's lease is taken before the run starts, counted among the
	// address's runs on every instance; a second Run of the room racing
	// this one on another instance finds it taken.
	reserved, err := s.store.ReserveRoomRun(ctx, a.Room.ID, s.instance, s.now().Add(s.runLease), limits.ClientKey, limits.PerAddress)
	if err != nil || !reserved {
		ticket.Release()
		release()
		switch {
		case errors.Is(err, storage.ErrAddressBusy):
			return storage.RoomEvent{}, grading.ErrAddressBusy
		case err != nil:
			return storage.RoomEvent{}, err
		}
		return storage.RoomEvent{}, &BusyError{RetryAfter: s.expectedEnd(limits.ClientKey),
			Message: "the previous run is still going; its report comes first"}
	}
	started, err := s.appendOne(ctx, a, KindRunStarted, RunStarted{Item: it.Index, DocVersion: version, Source: code})
	if err != nil {
		s.dropLease(context.WithoutCancel(ctx), a.Room.ID, 0, nil)
		ticket.Release()
		release()
		return storage.RoomEvent{}, err
	}
	gradeCtx, cancel := context.WithTimeout(s.runCtx, gradeTimeout)
	lease, err := s.holdLease(ctx, a.Room.ID, started.Seq, cancel)
	if err != nil {
		// Without its lease the run is taken for lost a lease after its
		// start; it still grades, and its end still counts if it comes.
		s.log.Warn("rooms: leasing a run failed", slog.String("room", a.Room.ID), slog.Int64("run", started.Seq), slog.Any("err", err))
	}
	job := grading.Request{Problem: it.Problem.Slug, Source: code, Seed: roomGradeSeed, File: it.File()}
	s.runs.Add(1)
	go s.grade(gradeCtx, cancel, lease, a, it.Index, started.Seq, job, ticket, release)
	return started, nil
}

// grade runs in a context detached from the request (ctx, ended by
// cancel): the interviewer's tab closing does not stop it, and its end is
// appended, unless another instance took the run over (lease) and
// recorded its end. The address's place (release) is held until then.
func (s *Service) grade(ctx context.Context, cancel context.CancelFunc, lease *grading.Lease[runKey], a Access, item int, run int64, job grading.Request, ticket *grading.Ticket, release func()) {
	defer s.runs.Done()
	defer release()
	defer cancel()
	report, err := s.grader.GradeAdmitted(ctx, ticket, job, nil)
	storeCtx, cancelStore := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancelStore()
	if !s.mayFinish(storeCtx, a.Room.ID, run, lease) {
		s.log.Warn("rooms: a run was taken over by another instance, which recorded its end; its grading here is dropped",
			slog.String("room", a.Room.ID), slog.Int64("run", run))
		if lease != nil {
			s.leases.Drop(lease)
		}
		return
	}
	end := RunFinished{Item: item, Run: run}
	switch {
	case err == nil && report != nil:
		data, merr := json.Marshal(report)
		if merr != nil {
			s.log.Error("rooms: encoding a grade report failed", slog.String("room", a.Room.ID), slog.Any("err", merr))
			end.Status, end.Summary = "system-error", "The grader's report could not be kept."
			break
		}
		end.Status, end.Verdict, end.Summary = "done", report.Status, summaryOf(report)
		if len(data) <= MaxReportBytes {
			end.Report = data
		} else {
			end.Summary += " The full report was too large to keep (the code's output is long); run it with less logging to see it."
		}
	case errors.As(err, new(*grading.BusyError)) || errors.Is(err, grading.ErrBusy):
		end.Status, end.Summary = "busy", "The grader was busy; run it again in a moment."
	case s.runCtx.Err() != nil:
		end.Status, end.Summary = "system-error", "The server stopped while grading; run it again."
	default:
		s.log.Error("rooms: grading failed", slog.String("room", a.Room.ID), slog.Any("err", err))
		end.Status, end.Summary = "system-error", "The grader failed; that is the system's fault, not the code's. Run it again."
	}
	ev, err := newEvent(storage.ActorSystem, KindRunFinished, end)
	if err == nil {
		var out []storage.RoomEvent
		out, err = s.store.AppendRoomEvents(storeCtx, a.Room.ID, s.now(), ev)
		if err == nil {
			s.publish(storeCtx, a.Room.ID, out[0].Seq)
		}
	}
	// After the end: a lease given up first would let another instance
	// record this run as lost. When the end could not be appended the
	// lease goes all the same, so no heartbeat reaps the run: the room's
	// next Run records its end (reapRun).
	s.dropLease(storeCtx, a.Room.ID, run, lease)
	if err != nil {
		// An ended room takes no more events; the run is lost with it.
		s.log.Warn("rooms: recording the end of a run failed", slog.String("room", a.Room.ID), slog.Int64("run", run), slog.Any("err", err))
	}
}

func summaryOf(r *gradewire.Report) string {
	switch r.Status {
	case gradewire.StatusPass:
		return fmt.Sprintf("Every invariant held in all %d scenarios.", r.Summary.ScenariosTotal)
	case gradewire.StatusFail:
		return fmt.Sprintf("%d of %d scenarios passed.", r.Summary.ScenariosPassed, r.Summary.ScenariosTotal)
	}
	return "The code could not be graded: " + r.Message
}

// Share gives the candidate a finished run's report.
func (s *Service) Share(ctx context.Context, a Access, run int64) (storage.RoomEvent, error) {
	return s.ShareCharged(ctx, a, run, nil)
}

// ShareCharged is Share charging what it stores again (the report) to
// charge first, as Run is charged (RunLimits.Charge); nil: no charge.
func (s *Service) ShareCharged(ctx context.Context, a Access, run int64, charge func(bytes int64) error) (storage.RoomEvent, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return storage.RoomEvent{}, err
	}
	f, err := s.foldAll(ctx, a)
	if err != nil {
		return storage.RoomEvent{}, err
	}
	r := f.pv.run(run)
	if r == nil || !r.Finished {
		return storage.RoomEvent{}, inputErrorf("run %d has not finished", run)
	}
	if r.Shared {
		return storage.RoomEvent{}, inputErrorf("run %d is already shared", run)
	}
	if charge != nil {
		if err := charge(int64(len(r.Report) + len(r.Summary))); err != nil {
			return storage.RoomEvent{}, err
		}
	}
	return s.appendOne(ctx, a, KindRunShared, RunShared{Item: r.Item, Run: r.Run, Verdict: r.Verdict, Summary: r.Summary, Report: r.Report})
}

// invariantStatus finds an invariant's status in a stored report.
func invariantStatus(report json.RawMessage, scenario, invariant string) (string, bool) {
	if len(report) == 0 {
		return "", false
	}
	var r gradewire.Report
	if err := json.Unmarshal(report, &r); err != nil {
		return "", false
	}
	for _, sc := range r.Scenarios {
		if sc.Name != scenario {
			continue
		}
		for _, inv := range sc.Invariants {
			if inv.ID == invariant {
				return inv.Status, true
			}
		}
	}
	return "", false
}
