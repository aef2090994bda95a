package storage

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestOneClockMigrationKeepsEveryRow: a database from before 0014, with
// rows of each old clock (timed sessions open, submitted, expired, untimed
// in a run and closed without an answer; two runs; three screen runs, one
// finished and one counting up), reads the same after the migration
// through the store, each on a clock of its own, and new clocks start
// after the migrated ones.
func TestOneClockMigrationKeepsEveryRow(t *testing.T) {
	ctx := context.Background()
	at := func(ms int64) time.Time { return fromMillis(timedT0.UnixMilli() + ms) }
	type session struct {
		id                  int64
		scope, mode         string
		limitMS, startMS    int64
		closedMS            int64 // 0: open
		answer              bool  // closed by an answer (else answer_id is NULL)
		usedMS              int64 // the answer's time used
		noOwnLimit          bool
		wantEnded           time.Time
		draft, late         string
		draftSeq, lateSavMS int64
	}
	sessions := []session{
		{id: 7, scope: "question:open", mode: ModeTimed, limitMS: 120_000, startMS: 1_000, draft: "half an answer", draftSeq: 4},
		{id: 9, scope: "question:submitted", mode: ModeTimed, limitMS: 120_000, startMS: 2_000, closedMS: 47_000, answer: true,
			usedMS: 45_000, wantEnded: at(2_000 + 45_000), draft: "done", draftSeq: 2},
		{id: 12, scope: "question:expired", mode: ModeTimed, limitMS: 60_000, startMS: 3_000, closedMS: 900_000, answer: true,
			usedMS: 60_000, wantEnded: at(3_000 + 60_000), draft: "on time", late: "too late", draftSeq: 6, lateSavMS: 899_000},
		{id: 13, scope: "question:untimed-in-run", mode: ModeTimed, limitMS: 30_000, startMS: 4_000, closedMS: 10_000, answer: true,
			usedMS: 6_000, noOwnLimit: true, wantEnded: at(4_000 + 6_000), draft: "quick", draftSeq: 1},
		{id: 20, scope: "question:answer-gone", mode: ModeUntimed, limitMS: 90_000, startMS: 5_000, closedMS: 70_000,
			wantEnded: at(70_000), draft: "kept", draftSeq: 1},
	}
	type screen struct {
		user, screen        string
		limitMS, startMS    int64
		step                int
		sinceMS, finishedMS int64
		stepMS              string
		wantUsed            []time.Duration
	}
	screens := []screen{
		{user: "u2", screen: "payments", limitMS: 1_800_000, startMS: 100, step: 2, sinceMS: 60_100, stepMS: "[60000]",
			wantUsed: []time.Duration{time.Minute}},
		{user: "u1", screen: "payments", limitMS: 1_800_000, startMS: 200, step: 3, sinceMS: 90_200, finishedMS: 90_200,
			stepMS: "[30000,60000,0]", wantUsed: []time.Duration{30 * time.Second, time.Minute, 0}},
		{user: "u1", screen: "webhooks", limitMS: 0, startMS: 300, step: 1, sinceMS: 300, stepMS: "[]"},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		s, _ := openOldStore(t, dialect, 13) // before 0014
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		a, err := s.StartAttempt(ctx, "u1", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.StartAttempt(ctx, "u2", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		for i, ss := range sessions {
			var answerID any
			if ss.answer {
				id := int64(100 + i)
				exec(`INSERT INTO answers (id, attempt_id, scope, body, created_at, mode, limit_ms, started_at, time_used_ms, how_ended, word_count)
				VALUES (?, ?, ?, 'an answer', ?, ?, ?, ?, ?, 'submitted', 2)`,
					id, a.ID, ss.scope, millis(at(ss.closedMS)), ss.mode, ss.limitMS, millis(at(ss.startMS)), ss.usedMS)
				answerID = id
			}
			var closed, late, lateAt any
			if ss.closedMS != 0 {
				closed = millis(at(ss.closedMS))
			}
			if ss.late != "" {
				late, lateAt = ss.late, millis(at(ss.lateSavMS))
			}
			exec(`INSERT INTO timed_sessions (id, attempt_id, scope, mode, limit_ms, started_at, draft, draft_seq, draft_saved_at,
				late_text, late_saved_at, closed_at, answer_id, no_own_limit)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				ss.id, a.ID, ss.scope, ss.mode, ss.limitMS, millis(at(ss.startMS)), ss.draft, ss.draftSeq, millis(at(ss.startMS+1)),
				late, lateAt, closed, answerID, ss.noOwnLimit)
		}
		exec(`INSERT INTO run_clocks (attempt_id, limit_ms, started_at) VALUES (?, 240000, ?), (?, 180000, ?)`,
			a.ID, millis(at(500)), b.ID, millis(at(600)))
		for _, sr := range screens {
			var finished any
			if sr.finishedMS != 0 {
				finished = millis(at(sr.finishedMS))
			}
			exec(`INSERT INTO screen_runs (user_id, screen, limit_ms, started_at, step, step_since, step_ms, finished_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				sr.user, sr.screen, sr.limitMS, millis(at(sr.startMS)), sr.step, millis(at(sr.sinceMS)), sr.stepMS, finished)
		}

		indexesBefore := sessionIndexes(t, s, dialect)
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if after := sessionIndexes(t, s, dialect); !slices.Equal(after, indexesBefore) {
			t.Errorf("timed_sessions' indexes after the migration = %v; want them kept, %v", after, indexesBefore)
		}

		clockIDs := map[int64]bool{}
		own := func(what string, id int64) {
			t.Helper()
			if id == 0 || clockIDs[id] {
				t.Errorf("%s: clock %d is shared or missing", what, id)
			}
			clockIDs[id] = true
		}
		for _, ss := range sessions {
			got, err := s.TimedSession(ctx, ss.id)
			if err != nil {
				t.Fatalf("session %d: %v", ss.id, err)
			}
			if got.AttemptID != a.ID || got.Scope != ss.scope || got.Mode != ss.mode || got.NoOwnLimit != ss.noOwnLimit ||
				got.Limit != time.Duration(ss.limitMS)*time.Millisecond || !got.StartedAt.Equal(at(ss.startMS)) ||
				!got.EndedAt.Equal(ss.wantEnded) || got.Draft != ss.draft || got.DraftSeq != ss.draftSeq ||
				got.LateText != ss.late || got.Open() != (ss.closedMS == 0) || (ss.closedMS != 0 && !got.ClosedAt.Equal(at(ss.closedMS))) ||
				(got.AnswerID != 0) != ss.answer {
				t.Errorf("session %d after the migration = %+v; want %+v", ss.id, got, ss)
			}
			own(ss.scope, got.ClockID)
		}
		open, err := s.OpenTimedSessions(ctx, a.ID)
		if err != nil || len(open) != 1 || open["question:open"].ID != 7 {
			t.Errorf("open sessions after the migration = %v (%v); want session 7 alone", open, err)
		}
		for _, rc := range []struct {
			attempt int64
			limit   time.Duration
			started time.Time
		}{{a.ID, 4 * time.Minute, at(500)}, {b.ID, 3 * time.Minute, at(600)}} {
			got, err := s.RunClock(ctx, rc.attempt)
			if err != nil || got.Limit != rc.limit || !got.StartedAt.Equal(rc.started) || !got.EndedAt.IsZero() {
				t.Errorf("run clock of attempt %d = %+v (%v); want limit %v from %v", rc.attempt, got, err, rc.limit, rc.started)
			}
			own("run", got.ClockID)
		}
		for _, sr := range screens {
			got, err := s.ScreenRun(ctx, sr.user, sr.screen)
			want := at(sr.finishedMS)
			if sr.finishedMS == 0 {
				want = time.Time{}
			}
			if err != nil || got.Limit != time.Duration(sr.limitMS)*time.Millisecond || !got.StartedAt.Equal(at(sr.startMS)) ||
				got.Step != sr.step || !got.StepSince.Equal(at(sr.sinceMS)) || !slices.Equal(got.StepUsed, sr.wantUsed) ||
				!got.EndedAt.Equal(want) {
				t.Errorf("screen run %s/%s = %+v (%v); want %+v", sr.user, sr.screen, got, err, sr)
			}
			own(sr.user+"/"+sr.screen, got.ClockID)
		}

		// New clocks start after the migrated ones, and a run or a screen
		// started again leaves no clock behind.
		fresh, _, err := s.StartTimedSession(ctx, a.ID, "question:new", ModeTimed, time.Minute, false, at(1_000_000))
		if err != nil {
			t.Fatalf("a new session after the migration: %v", err)
		}
		own("new session", fresh.ClockID)
		if _, err := s.StartRunClock(ctx, a.ID, time.Minute, at(1_000_000)); err != nil {
			t.Fatalf("a run started again: %v", err)
		}
		if _, err := s.StartScreenRun(ctx, "u1", "payments", time.Hour, at(1_000_000)); err != nil {
			t.Fatalf("a screen started again: %v", err)
		}
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM practice_clocks`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := len(sessions) + 1 + 2 + len(screens); n != want {
			t.Errorf("%d clocks stored; want %d, one per session, run and screen", n, want)
		}
	})
}

// sessionIndexes names timed_sessions' own indexes (not its keys'), sorted.
func sessionIndexes(t *testing.T, s *Store, dialect string) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'timed_sessions' AND sql IS NOT NULL ORDER BY name`
	if dialect == "postgres" {
		q = `SELECT indexname FROM pg_indexes WHERE tablename = 'timed_sessions' AND indexname LIKE 'timed_sessions%' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`
	}
	rows, err := s.db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

// TestClocksEndAsTheirOwnersDo: a session's clock ends when its answer
// ended (the start plus the time used, not the moment it was stored), a
// screen's when it finishes, and a run's never (its answers say).
func TestClocksEndAsTheirOwnersDo(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u", KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := s.StartTimedSession(ctx, a.ID, "question:q", ModeTimed, time.Minute, false, timedT0)
		if err != nil {
			t.Fatal(err)
		}
		if !ts.EndedAt.IsZero() || ts.ClockID == 0 {
			t.Fatalf("a new session's clock = %+v; want one that counts", ts.Clock)
		}
		timing := AnswerTiming{Mode: ModeTimed, Limit: time.Minute, StartedAt: ts.StartedAt, TimeUsed: time.Minute,
			HowEnded: EndedExpired, WordCount: 1}
		if _, err := s.SubmitTimedAnswer(ctx, a.ID, "question:q", "late", ts.ID, timing, timedT0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, err := s.TimedSession(ctx, ts.ID)
		if err != nil || !got.EndedAt.Equal(timedT0.Add(time.Minute)) {
			t.Errorf("the expired session's clock = %+v (%v); want it ended at the limit, %v", got.Clock, err, timedT0.Add(time.Minute))
		}

		rc, err := s.StartRunClock(ctx, a.ID, time.Hour, timedT0)
		if err != nil || rc.ClockID == 0 || rc.ClockID == ts.ClockID || !rc.EndedAt.IsZero() {
			t.Errorf("a run's clock = %+v (%v); want its own, counting", rc, err)
		}

		if _, err := s.StartScreenRun(ctx, "u", "screen", 0, timedT0); err != nil {
			t.Fatal(err)
		}
		done := timedT0.Add(90 * time.Second)
		if _, err := s.UpdateScreenRun(ctx, "u", "screen", func(r ScreenRun) (ScreenRun, error) {
			r.EndedAt = done
			return r, nil
		}); err != nil {
			t.Fatal(err)
		}
		sr, err := s.ScreenRun(ctx, "u", "screen")
		if err != nil || !sr.EndedAt.Equal(done) || sr.Limit != 0 {
			t.Errorf("the finished screen's clock = %+v (%v); want it ended at %v, counting up", sr.Clock, err, done)
		}
	})
}
