package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// GradeStatus is where a grade run is.
type GradeStatus string

// Grade run statuses. A run starts as GradeRunning and finishes once, as
// one of the others.
const (
	GradeRunning     GradeStatus = "running"
	GradeDone        GradeStatus = "done"         // the grader produced a report
	GradeBusy        GradeStatus = "busy"         // the grading pool was full
	GradeSystemError GradeStatus = "system-error" // the grading system broke
)

// ErrRunFinished is returned when a run that already finished is finished
// again; the first ending stands.
var ErrRunFinished = errors.New("storage: the grade run has already finished")

// GradeSummary is a report's figures, kept as columns for the history.
type GradeSummary struct {
	Verdict         string // the report's status: pass, fail or error
	ScenariosPassed int
	ScenariosTotal  int
	InvariantsHeld  int
	InvariantsTotal int
	DefectsFixed    int
	DefectsTotal    int
}

// GradeRun is one press of Grade.
type GradeRun struct {
	ID         int64
	AttemptID  int64
	Problem    string
	Seed       int64
	Source     string
	Status     GradeStatus
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
	Message    string
	RetryAfter time.Duration // busy only
	Summary    GradeSummary  // zero unless done
	ReportJSON []byte        // nil unless done; not read by GradeRuns
}

// GradeRunEnd is how a run finished.
type GradeRunEnd struct {
	Status     GradeStatus // GradeDone, GradeBusy or GradeSystemError
	Message    string
	RetryAfter time.Duration
	Summary    GradeSummary
	ReportJSON []byte
}

// StartGradeRun records a run as running and marks the attempt as changed.
func (s *Store) StartGradeRun(ctx context.Context, attemptID int64, problem string, seed int64, source string) (GradeRun, error) {
	now := s.now()
	run := GradeRun{AttemptID: attemptID, Problem: problem, Seed: seed, Source: source,
		Status: GradeRunning, StartedAt: fromMillis(millis(now))}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := touch(ctx, tx, attemptID, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx,
			`INSERT INTO grade_runs (attempt_id, problem, seed, source, status, started_at) VALUES (?, ?, ?, ?, ?, ?)`,
			attemptID, problem, seed, source, string(GradeRunning), millis(now))
		if err != nil {
			return fmt.Errorf("storage: start grade run: %w", err)
		}
		run.ID, err = res.LastInsertId()
		if err != nil {
			return fmt.Errorf("storage: start grade run: %w", err)
		}
		return nil
	})
	if err != nil {
		return GradeRun{}, err
	}
	return run, nil
}

// FinishGradeRun records how a running run ended. A run finishes once:
// finishing it again is ErrRunFinished, and an unknown id ErrNotFound.
func (s *Store) FinishGradeRun(ctx context.Context, id int64, end GradeRunEnd) error {
	if end.Status != GradeDone && end.Status != GradeBusy && end.Status != GradeSystemError {
		return fmt.Errorf("storage: finish grade run %d: %q is not a final status", id, end.Status)
	}
	now := s.now()
	var (
		summary    [7]any // NULL unless done
		report     any
		retryAfter any
	)
	if end.Status == GradeDone {
		sm := end.Summary
		summary = [7]any{sm.Verdict, sm.ScenariosPassed, sm.ScenariosTotal, sm.InvariantsHeld,
			sm.InvariantsTotal, sm.DefectsFixed, sm.DefectsTotal}
		report = string(end.ReportJSON)
	}
	if end.Status == GradeBusy {
		retryAfter = end.RetryAfter.Milliseconds()
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var attemptID int64
		var status string
		err := tx.QueryRowContext(ctx, `SELECT attempt_id, status FROM grade_runs WHERE id = ?`, id).Scan(&attemptID, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("storage: finish grade run %d: %w", id, err)
		}
		if GradeStatus(status) != GradeRunning {
			return ErrRunFinished
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE grade_runs SET status = ?, finished_at = ?, message = ?, retry_after_ms = ?,
			 verdict = ?, scenarios_passed = ?, scenarios_total = ?, invariants_held = ?, invariants_total = ?,
			 defects_fixed = ?, defects_total = ?, report_json = ?
			 WHERE id = ?`,
			string(end.Status), millis(now), end.Message, retryAfter,
			summary[0], summary[1], summary[2], summary[3], summary[4], summary[5], summary[6], report, id); err != nil {
			return fmt.Errorf("storage: finish grade run %d: %w", id, err)
		}
		return touch(ctx, tx, attemptID, now)
	})
}

// gradeRunColumns are what GradeRuns reads; readOne adds the report.
const gradeRunColumns = `id, attempt_id, problem, seed, source, status, started_at, finished_at, message,
	retry_after_ms, verdict, scenarios_passed, scenarios_total, invariants_held, invariants_total,
	defects_fixed, defects_total`

type rowScanner interface{ Scan(dest ...any) error }

func scanGradeRun(row rowScanner, extra ...any) (GradeRun, error) {
	var (
		r                                      GradeRun
		status                                 string
		started                                int64
		finished, retryAfter                   sql.NullInt64
		message, verdict                       sql.NullString
		passed, total, held, checked, fixed, n sql.NullInt64
	)
	dest := append([]any{&r.ID, &r.AttemptID, &r.Problem, &r.Seed, &r.Source, &status, &started, &finished,
		&message, &retryAfter, &verdict, &passed, &total, &held, &checked, &fixed, &n}, extra...)
	if err := row.Scan(dest...); err != nil {
		return GradeRun{}, err
	}
	r.Status = GradeStatus(status)
	r.StartedAt = fromMillis(started)
	if finished.Valid {
		r.FinishedAt = fromMillis(finished.Int64)
	}
	r.Message = message.String
	r.RetryAfter = time.Duration(retryAfter.Int64) * time.Millisecond
	r.Summary = GradeSummary{Verdict: verdict.String,
		ScenariosPassed: int(passed.Int64), ScenariosTotal: int(total.Int64),
		InvariantsHeld: int(held.Int64), InvariantsTotal: int(checked.Int64),
		DefectsFixed: int(fixed.Int64), DefectsTotal: int(n.Int64)}
	return r, nil
}

// GradeRun returns one run with its report, or ErrNotFound. It does not
// check whose run it is: callers compare AttemptID with the user's attempt.
func (s *Store) GradeRun(ctx context.Context, id int64) (GradeRun, error) {
	var report sql.NullString
	r, err := scanGradeRun(s.db.QueryRowContext(ctx,
		`SELECT `+gradeRunColumns+`, report_json FROM grade_runs WHERE id = ?`, id), &report)
	if errors.Is(err, sql.ErrNoRows) {
		return GradeRun{}, ErrNotFound
	}
	if err != nil {
		return GradeRun{}, fmt.Errorf("storage: grade run %d: %w", id, err)
	}
	if report.Valid {
		r.ReportJSON = []byte(report.String)
	}
	return r, nil
}

// LatestGradeRun returns the attempt's newest run with its report, or
// ErrNotFound when it has none.
func (s *Store) LatestGradeRun(ctx context.Context, attemptID int64) (GradeRun, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM grade_runs WHERE attempt_id = ? ORDER BY id DESC LIMIT 1`, attemptID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return GradeRun{}, ErrNotFound
	}
	if err != nil {
		return GradeRun{}, fmt.Errorf("storage: latest grade run: %w", err)
	}
	return s.GradeRun(ctx, id)
}

// GradeRuns lists the attempt's runs, oldest first, without their reports
// (the summary columns are enough for a history).
func (s *Store) GradeRuns(ctx context.Context, attemptID int64) ([]GradeRun, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+gradeRunColumns+` FROM grade_runs WHERE attempt_id = ? ORDER BY id`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: grade runs: %w", err)
	}
	defer rows.Close()
	var out []GradeRun
	for rows.Next() {
		r, err := scanGradeRun(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: grade runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: grade runs: %w", err)
	}
	return out, nil
}
