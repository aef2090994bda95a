package rooms

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/storage"
)

// A room's run is its instance's under a lease, as a solo grade run is:
// grading.Leases, the one heartbeat of the process's runs, renews it every
// third of a lease while it grades, and a run whose lease passed lost its
// server, so the room's next Run (or any instance's heartbeat) records its
// end and the room can grade again within one lease, not after the whole
// grading timeout. An instance that was out of touch past its lease finds
// its run taken over: its grading is stopped and the end recorded by the
// instance that took it stands alone.

// DefaultRunLease is how long a room's run stays its instance's without a
// heartbeat: the solo grade's lease (web.DefaultGradeLease), so a dead
// server's run blocks a room no longer than it blocks a solo Grade.
const DefaultRunLease = grading.DefaultLease

// messageLost ends a run whose server stopped before recording its end.
const messageLost = "The server grading this run stopped before it finished; run it again."

// runKey names a room's run among the runs this instance grades.
type runKey struct {
	room string
	run  int64
}

// newLeases is the heartbeat of this instance's room runs.
func (s *Service) newLeases() *grading.Leases[runKey] {
	return grading.NewLeases(grading.LeasesConfig[runKey]{
		Renew: func(ctx context.Context, owner string, lease time.Duration) ([]runKey, error) {
			renewed, err := s.store.RenewRoomRunLeases(ctx, owner, s.now().Add(lease))
			keys := make([]runKey, len(renewed))
			for i, l := range renewed {
				keys[i] = runKey{l.RoomID, l.Run}
			}
			return keys, err
		},
		// The ends are appended to the rooms' logs as they are found.
		Expire: func(ctx context.Context) ([]runKey, error) { return nil, s.ReapLostRuns(ctx) },
		Owner:  s.instance, Lease: s.runLease, Log: s.log, Ctx: s.runCtx, WG: &s.runs,
	})
}

// runAlive reports whether r, unfinished, may still end by itself: its
// lease has not passed, or it has none yet and started less than a lease
// ago (its lease is written just after its start).
func (s *Service) runAlive(lease storage.RoomRunLease, r Run, now time.Time) bool {
	if lease.Run == r.Run {
		return !lease.Until.Before(now)
	}
	return now.Sub(r.Started) < s.runLease
}

// expectedEnd is when a run going for clientKey should end, as the grader
// estimates it (the one asking is most often the one who ran it): at
// least a second, at most the grading timeout.
func (s *Service) expectedEnd(clientKey string) time.Duration {
	wait := time.Second
	if est, ok := s.grader.(interface{ RetryAfter(string) time.Duration }); ok {
		wait = max(wait, est.RetryAfter(clientKey))
	}
	return min(wait, gradeTimeout)
}

// reapRun records the end of room's unfinished run r when its server has
// stopped, and reports whether r is over (it was dead); false: r is alive.
func (s *Service) reapRun(ctx context.Context, roomID string, r Run, now time.Time) (bool, error) {
	lease, err := s.store.RoomRunLeaseOf(ctx, roomID)
	if err != nil {
		return false, err
	}
	if s.runAlive(lease, r, now) {
		return false, nil
	}
	if lease.Run == r.Run {
		took, err := s.store.TakeExpiredRoomRunLease(ctx, roomID, r.Run, now)
		if err != nil {
			return false, err
		}
		if !took {
			// Another instance took it (and records its end), or its owner
			// renewed it just now: then it is alive after all.
			again, err := s.store.RoomRunLeaseOf(ctx, roomID)
			return err == nil && again.Run != r.Run, err
		}
	}
	return true, s.finishLost(ctx, roomID, r.Item, r.Run)
}

// finishLost appends the end of a run whose server stopped.
func (s *Service) finishLost(ctx context.Context, roomID string, item int, run int64) error {
	ev, err := newEvent(storage.ActorSystem, KindRunFinished, RunFinished{Item: item, Run: run, Status: "system-error", Summary: messageLost})
	if err != nil {
		return err
	}
	out, err := s.store.AppendRoomEvents(ctx, roomID, s.now(), ev)
	if err != nil {
		return fmt.Errorf("rooms: record the end of lost run %d of room %s: %w", run, roomID, err)
	}
	s.log.Info("rooms: a run's server stopped before it finished; recorded its end", slog.String("room", roomID), slog.Int64("run", run))
	s.publish(ctx, roomID, out[0].Seq)
	return nil
}

// holdLease leases the room's run to this instance and keeps the lease
// renewed until its end is recorded; cancel stops the run's grading if
// another instance takes it over.
func (s *Service) holdLease(ctx context.Context, roomID string, run int64, cancel context.CancelFunc) (*grading.Lease[runKey], error) {
	if err := s.store.LeaseRoomRun(ctx, roomID, run, s.instance, s.now().Add(s.runLease)); err != nil {
		return nil, err
	}
	return s.leases.Hold(runKey{roomID, run}, cancel), nil
}

// mayFinish reports whether this instance still records the end of the
// room's run, once its grading has returned: its lease was not taken over
// (and now lasts another whole lease, for the end to be appended in).
func (s *Service) mayFinish(ctx context.Context, roomID string, run int64, l *grading.Lease[runKey]) bool {
	if l != nil && s.leases.Finishing(l) {
		return false
	}
	kept, err := s.store.KeepRoomRunLease(ctx, roomID, run, s.instance, s.now().Add(s.runLease))
	if err != nil {
		// The end is appended anyway: a run lost twice is shown once (the
		// view keeps the first end), a run never ended blocks the room.
		s.log.Warn("rooms: checking a run's lease failed", slog.String("room", roomID), slog.Int64("run", run), slog.Any("err", err))
		return true
	}
	return kept || l == nil
}

// dropLease gives the run's lease up once its end is recorded.
func (s *Service) dropLease(ctx context.Context, roomID string, run int64, l *grading.Lease[runKey]) {
	if l != nil {
		s.leases.Drop(l)
	}
	if err := s.store.EndRoomRunLease(ctx, roomID, run); err != nil {
		s.log.Warn("rooms: giving up a run's lease failed", slog.String("room", roomID), slog.Int64("run", run), slog.Any("err", err))
	}
}

// ReapLostRuns records the end of every run whose lease has passed (its
// server stopped), so the rooms' pages show it at once.
func (s *Service) ReapLostRuns(ctx context.Context) error {
	now := s.now()
	expired, err := s.store.ExpiredRoomRunLeases(ctx, now, 100)
	if err != nil {
		return err
	}
	for _, l := range expired {
		took, err := s.store.TakeExpiredRoomRunLease(ctx, l.RoomID, l.Run, now)
		if err != nil {
			return err
		}
		if !took || l.Run == 0 {
			// Taken by another instance, or a reservation whose run never
			// started: nothing to record.
			continue
		}
		item := 0
		if evs, err := s.store.RoomEvents(ctx, l.RoomID, l.Run-1, 1); err == nil && len(evs) == 1 && evs[0].Kind == KindRunStarted {
			var p RunStarted
			if decode(evs[0], &p) == nil {
				item = p.Item
			}
		}
		if err := s.finishLost(ctx, l.RoomID, item, l.Run); err != nil {
			// An ended room takes no more events; its run ends with it.
			s.log.Warn("rooms: recording a lost run's end failed", slog.String("room", l.RoomID), slog.Any("err", err))
		}
	}
	return nil
}
