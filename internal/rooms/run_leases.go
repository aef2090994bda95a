package rooms

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/storage"
)

// A room's run is its instance's under a lease, as a solo grade run is
// (internal/web's gradingRuns): the instance renews it every third of a
// lease while it grades, and a run whose lease passed lost its server, so
// the room's next Run (or any instance's heartbeat) records its end and the
// room can grade again within one lease, not after the whole grading
// timeout.

// DefaultRunLease is how long a room's run stays its instance's without a
// heartbeat: the solo grade's lease (web.DefaultGradeLease), so a dead
// server's run blocks a room no longer than it blocks a solo Grade.
const DefaultRunLease = grading.DefaultLease

// messageLost ends a run whose server stopped before recording its end.
const messageLost = "The server grading this run stopped before it finished; run it again."

// newInstanceID names this process among the instances on one database.
func newInstanceID() string {
	host, _ := os.Hostname()
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
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
// renewed until dropLease.
func (s *Service) holdLease(ctx context.Context, roomID string, run int64) error {
	if err := s.store.LeaseRoomRun(ctx, roomID, run, s.instance, s.now().Add(s.runLease)); err != nil {
		return err
	}
	s.leaseMu.Lock()
	defer s.leaseMu.Unlock()
	s.leased[roomID] = run
	if !s.beating {
		s.beating = true
		s.runs.Add(1)
		go s.heartbeat()
	}
	return nil
}

// dropLease gives the run's lease up once its end is recorded.
func (s *Service) dropLease(ctx context.Context, roomID string, run int64) {
	s.leaseMu.Lock()
	if s.leased[roomID] == run {
		delete(s.leased, roomID)
	}
	s.leaseMu.Unlock()
	if err := s.store.EndRoomRunLease(ctx, roomID, run); err != nil {
		s.log.Warn("rooms: giving up a run's lease failed", slog.String("room", roomID), slog.Int64("run", run), slog.Any("err", err))
	}
}

// heartbeat renews this instance's run leases every third of a lease while
// it has any, and records the ends of other instances' lost runs.
func (s *Service) heartbeat() {
	defer s.runs.Done()
	tick := time.NewTicker(s.runLease / 3)
	defer tick.Stop()
	for {
		select {
		case <-s.runCtx.Done():
			s.leaseMu.Lock()
			s.beating = false
			s.leaseMu.Unlock()
			return
		case <-tick.C:
		}
		s.beat(s.runCtx)
		s.leaseMu.Lock()
		if len(s.leased) == 0 {
			s.beating = false
			s.leaseMu.Unlock()
			return
		}
		s.leaseMu.Unlock()
	}
}

// beat is one heartbeat.
func (s *Service) beat(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.runLease/2)
	defer cancel()
	if err := s.store.RenewRoomRunLeases(ctx, s.instance, s.now().Add(s.runLease)); err != nil && ctx.Err() == nil {
		s.log.Warn("rooms: renewing the run leases failed", slog.Any("err", err))
	}
	if err := s.ReapLostRuns(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("rooms: recording the ends of lost runs failed", slog.Any("err", err))
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
		if !took {
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
