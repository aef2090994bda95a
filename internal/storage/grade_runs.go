package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
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

// Why a finished run no longer holds all it was graded with.
const (
	TrimmedOld      = "old"       // older than the FullRunsKept newest: source and report dropped
	TrimmedTooLarge = "too-large" // its compressed report passed MaxReportBytes: not kept
)

// GradeRun is one press of Grade.
type GradeRun struct {
	ID         int64
	AttemptID  int64
	Problem    string
	Language   string // LangGo or LangPython: what Source is written in
	Seed       int64
	Source     string // "" when trimmed old; not read by GradeRuns
	Status     GradeStatus
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
	Message    string
	RetryAfter time.Duration // busy only
	Summary    GradeSummary  // zero unless done
	ReportJSON []byte        // nil unless done and kept; not read by GradeRuns
	Trimmed    string        // "", TrimmedOld or TrimmedTooLarge
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
// It first trims the attempt's history to make room: finished runs past
// the FullRunsKept newest (this one included) lose their source and
// report, and runs past the RunsKept newest are deleted. A run whose
// source and largest report would take the user past MaxUserBytes is a
// *QuotaError, and nothing is written.
//
// The run has no owner: nothing renews a lease on it, so ExpireGradeLeases
// finishes it whenever it runs. Serving instances use StartOwnedGradeRun.
func (s *Store) StartGradeRun(ctx context.Context, attemptID int64, problem string, seed int64, source string) (GradeRun, error) {
	return s.startGradeRun(ctx, attemptID, problem, LangGo, seed, source, nil)
}

func (s *Store) startGradeRun(ctx context.Context, attemptID int64, problem, lang string, seed int64, source string, claim *GradeClaim) (GradeRun, error) {
	if !ValidLanguage(lang) {
		return GradeRun{}, fmt.Errorf("storage: start grade run: unknown language %q", lang)
	}
	source = storableText(source)
	now := s.now()
	run := GradeRun{AttemptID: attemptID, Problem: problem, Language: lang, Seed: seed, Source: source,
		Status: GradeRunning, StartedAt: fromMillis(millis(now))}
	err := s.inTx(ctx, func(tx *txn) error {
		if err := lockUserOf(ctx, tx, attemptID); err != nil {
			return err
		}
		if err := touch(ctx, tx, attemptID, now); err != nil {
			return err
		}
		if err := trimRuns(ctx, tx, attemptID, s.fullRunsKept, s.runsKept); err != nil {
			return err
		}
		if err := s.checkQuota(ctx, tx, attemptID, int64(len(source))+MaxReportBytes, 0); err != nil {
			return err
		}
		if claim != nil {
			if err := claimGradeRun(ctx, tx, claim, now); err != nil {
				return err
			}
		}
		owner := claimColumns(claim, now)
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO grade_runs (attempt_id, problem, language, seed, status, started_at, owner, lease_until, user_id, client_key)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			attemptID, problem, lang, seed, string(GradeRunning), millis(now), owner[0], owner[1], owner[2], owner[3]).Scan(&run.ID); err != nil {
			return fmt.Errorf("storage: start grade run: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO grade_run_files (run_id, source) VALUES (?, ?)`, run.ID, source); err != nil {
			return fmt.Errorf("storage: start grade run: %w", err)
		}
		return nil
	})
	if err != nil {
		return GradeRun{}, err
	}
	return run, nil
}

// trimRuns makes room for one more run of the attempt. A running run is
// never touched: its grading still reports to it.
func trimRuns(ctx context.Context, tx *txn, attemptID int64, fullRunsKept, runsKept int) error {
	if _, err := tx.ExecContext(ctx,
		`DELETE FROM grade_runs WHERE attempt_id = ? AND status != 'running' AND id NOT IN
		   (SELECT id FROM grade_runs WHERE attempt_id = ? ORDER BY id DESC LIMIT ?)`,
		attemptID, attemptID, runsKept-1); err != nil {
		return fmt.Errorf("storage: trim grade runs: %w", err)
	}
	// The finished runs past the newest fullRunsKept-1, which with the
	// run about to start make fullRunsKept.
	old := `SELECT id FROM grade_runs WHERE attempt_id = ? AND status != 'running' AND id NOT IN
	          (SELECT id FROM grade_runs WHERE attempt_id = ? ORDER BY id DESC LIMIT ?)`
	if _, err := tx.ExecContext(ctx, `DELETE FROM grade_run_files WHERE run_id IN (`+old+`)`,
		attemptID, attemptID, fullRunsKept-1); err != nil {
		return fmt.Errorf("storage: compact grade runs: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE grade_runs SET trimmed = 'old' WHERE trimmed IS DISTINCT FROM 'old' AND id IN (`+old+`)`,
		attemptID, attemptID, fullRunsKept-1); err != nil {
		return fmt.Errorf("storage: compact grade runs: %w", err)
	}
	return nil
}

// compressReport is the report as stored, or nil when it is too large to
// keep.
func compressReport(report []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(report); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > MaxReportBytes {
		return nil, nil
	}
	return buf.Bytes(), nil
}

func decompressReport(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
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
		trimmed    any
		retryAfter any
	)
	if end.Status == GradeDone {
		sm := end.Summary
		summary = [7]any{sm.Verdict, sm.ScenariosPassed, sm.ScenariosTotal, sm.InvariantsHeld,
			sm.InvariantsTotal, sm.DefectsFixed, sm.DefectsTotal}
		gz, err := compressReport(end.ReportJSON)
		if err != nil {
			return fmt.Errorf("storage: finish grade run %d: compress the report: %w", id, err)
		}
		report = gz
		if gz == nil {
			trimmed = TrimmedTooLarge
		}
	}
	if end.Status == GradeBusy {
		retryAfter = end.RetryAfter.Milliseconds()
	}
	return s.inTx(ctx, func(tx *txn) error {
		// The status test is in the UPDATE, not read before it: of two
		// finishes at once (two instances, or a finish racing a sweep),
		// the second waits for the first's row lock and then matches no
		// row, on Postgres as on SQLite.
		var attemptID int64
		err := tx.QueryRowContext(ctx,
			`UPDATE grade_runs SET status = ?, finished_at = ?, message = ?, retry_after_ms = ?,
			 verdict = ?, scenarios_passed = ?, scenarios_total = ?, invariants_held = ?, invariants_total = ?,
			 defects_fixed = ?, defects_total = ?, trimmed = ?
			 WHERE id = ? AND status = 'running' RETURNING attempt_id`,
			string(end.Status), millis(now), end.Message, retryAfter,
			summary[0], summary[1], summary[2], summary[3], summary[4], summary[5], summary[6], trimmed, id).Scan(&attemptID)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM grade_runs WHERE id = ?`, id).Scan(&one); {
			case errors.Is(err, sql.ErrNoRows):
				return ErrNotFound
			case err != nil:
				return fmt.Errorf("storage: finish grade run %d: %w", id, err)
			}
			return ErrRunFinished
		}
		if err != nil {
			return fmt.Errorf("storage: finish grade run %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE grade_run_files SET report_gz = ? WHERE run_id = ?`, report, id); err != nil {
			return fmt.Errorf("storage: finish grade run %d: %w", id, err)
		}
		return touch(ctx, tx, attemptID, now)
	})
}

// gradeRunColumns are what GradeRuns reads: what a history line shows.
// GradeRun adds the source and the report from grade_run_files.
const gradeRunColumns = `id, attempt_id, problem, language, seed, status, started_at, finished_at, message,
	retry_after_ms, verdict, scenarios_passed, scenarios_total, invariants_held, invariants_total,
	defects_fixed, defects_total, trimmed`

// gradeRunColumnsOf is gradeRunColumns qualified by a table alias.
func gradeRunColumnsOf(alias string) string {
	cols := strings.Split(gradeRunColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

type rowScanner interface{ Scan(dest ...any) error }

func scanGradeRun(row rowScanner, extra ...any) (GradeRun, error) {
	var (
		r                                      GradeRun
		status                                 string
		started                                int64
		finished, retryAfter                   sql.NullInt64
		message, verdict, trimmed              sql.NullString
		passed, total, held, checked, fixed, n sql.NullInt64
	)
	dest := append([]any{&r.ID, &r.AttemptID, &r.Problem, &r.Language, &r.Seed, &status, &started, &finished,
		&message, &retryAfter, &verdict, &passed, &total, &held, &checked, &fixed, &n, &trimmed}, extra...)
	if err := row.Scan(dest...); err != nil {
		return GradeRun{}, err
	}
	r.Status = GradeStatus(status)
	r.Trimmed = trimmed.String
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
	var (
		source, report sql.NullString
		gz             []byte
	)
	r, err := scanGradeRun(s.db.QueryRowContext(ctx,
		`SELECT `+gradeRunColumnsOf("r")+`, f.source, f.report_json, f.report_gz
		 FROM grade_runs r LEFT JOIN grade_run_files f ON f.run_id = r.id WHERE r.id = ?`, id), &source, &report, &gz)
	if errors.Is(err, sql.ErrNoRows) {
		return GradeRun{}, ErrNotFound
	}
	if err != nil {
		return GradeRun{}, fmt.Errorf("storage: grade run %d: %w", id, err)
	}
	r.Source = source.String
	switch {
	case gz != nil:
		if r.ReportJSON, err = decompressReport(gz); err != nil {
			return GradeRun{}, fmt.Errorf("storage: grade run %d: decompress the report: %w", id, err)
		}
	case report.Valid: // stored before reports were compressed
		r.ReportJSON = []byte(report.String)
	}
	return r, nil
}

// LatestGradeRun returns the attempt's newest run with its report, or
// ErrNotFound when it has none.
func (s *Store) LatestGradeRun(ctx context.Context, attemptID int64) (GradeRun, error) {
	return s.latestGradeRun(ctx, `SELECT id FROM grade_runs WHERE attempt_id = ? ORDER BY id DESC LIMIT 1`, attemptID)
}

// LatestGradeRunIn returns the attempt's newest run in lang with its
// report, or ErrNotFound when it has none.
func (s *Store) LatestGradeRunIn(ctx context.Context, attemptID int64, lang string) (GradeRun, error) {
	return s.latestGradeRun(ctx, `SELECT id FROM grade_runs WHERE attempt_id = ? AND language = ? ORDER BY id DESC LIMIT 1`, attemptID, lang)
}

func (s *Store) latestGradeRun(ctx context.Context, query string, args ...any) (GradeRun, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, query, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return GradeRun{}, ErrNotFound
	}
	if err != nil {
		return GradeRun{}, fmt.Errorf("storage: latest grade run: %w", err)
	}
	return s.GradeRun(ctx, id)
}

// GradeRuns lists the attempt's runs, oldest first, without their sources
// and reports: the summary columns are all a history shows, and reading
// a 100-run history with its sources took 25 MiB per view.
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
