package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// What one identity keeps. The history pages show every run's summary
// line and the report of a run the user opens; the newest runs are the
// ones people open, so older runs keep only their line.
const (
	// FullRunsKept is how many of an attempt's newest runs keep their
	// source and report. Older finished runs are compacted when a new one
	// starts: the source and report go, the summary stays.
	FullRunsKept = 10
	// RunsKept is how many runs of an attempt My practice lists; a new
	// run deletes the oldest past it. A summary line is about 150 bytes.
	RunsKept = 200
	// MaxReportBytes is the largest compressed report a run keeps. The
	// reference solution's report is 10 KiB compressed; only code that
	// logs hundreds of long lines in every scenario comes near this, and
	// its run keeps only the summary.
	MaxReportBytes = 128 << 10
	// MaxUserBytes bounds everything one identity stores (code drafts,
	// graded sources and reports, answers and their drafts). A busy user
	// with the newest runs kept whole stores well under 1 MiB.
	MaxUserBytes = 8 << 20
)

// ErrQuota matches a QuotaError with errors.Is.
var ErrQuota = errors.New("storage: quota reached")

// QuotaError is a write refused because the identity's stored work would
// pass MaxUserBytes. Nothing was written.
type QuotaError struct {
	Limit  int64 // MaxUserBytes
	Used   int64 // stored before the refused write
	Adding int64 // what the write would have added
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("storage: quota: %d bytes stored, adding %d would pass the limit of %d", e.Used, e.Adding, e.Limit)
}

// Is makes errors.Is(err, ErrQuota) hold.
func (e *QuotaError) Is(target error) bool { return target == ErrQuota }

// usageQuery sums the bytes an identity stores, found from one of its
// attempts. octet_length reads only the record header, not a value's
// overflow pages, so the sum costs a few index lookups per row.
const usageQuery = `WITH mine AS (SELECT id FROM attempts WHERE user_id = (SELECT user_id FROM attempts WHERE id = ?))
SELECT
  (SELECT coalesce(sum(octet_length(code)), 0) FROM code_drafts WHERE attempt_id IN (SELECT id FROM mine))
+ (SELECT coalesce(sum(octet_length(source) + coalesce(octet_length(report_json), 0) + coalesce(octet_length(report_gz), 0)), 0)
     FROM grade_run_files WHERE run_id IN (SELECT id FROM grade_runs WHERE attempt_id IN (SELECT id FROM mine)))
+ (SELECT coalesce(sum(octet_length(body) + coalesce(octet_length(late_body), 0)), 0) FROM answers WHERE attempt_id IN (SELECT id FROM mine))
+ (SELECT coalesce(sum(octet_length(draft) + coalesce(octet_length(late_text), 0)), 0) FROM timed_sessions WHERE attempt_id IN (SELECT id FROM mine))`

// usage is what the owner of attemptID stores, in bytes.
func usage(ctx context.Context, q queryer, attemptID int64) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, usageQuery, attemptID).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: usage: %w", err)
	}
	return n, nil
}

// checkQuota refuses a write that adds adding bytes (after removing
// replacing bytes it overwrites) to the owner of attemptID when the total
// would pass MaxUserBytes. A write that does not grow the total is always
// allowed, so a user at the limit can still shorten a draft.
func (s *Store) checkQuota(ctx context.Context, tx *txn, attemptID int64, adding, replacing int64) error {
	if adding <= replacing {
		return nil
	}
	// The callers took this lock first already (see lockUserOf); asking
	// again, which is free then, keeps the check safe without them.
	if err := lockUserOf(ctx, tx, attemptID); err != nil {
		return err
	}
	used, err := usage(ctx, tx, attemptID)
	if err != nil {
		return err
	}
	if used-replacing+adding > s.maxUserBytes {
		return &QuotaError{Limit: s.maxUserBytes, Used: used, Adding: adding - replacing}
	}
	return nil
}

// lockUserOf locks the row of the user who owns attemptID until the
// transaction ends. The quota is the user's, across attempts, so two
// writes to two of their attempts must not both count the same old total.
// Every write that checks the quota takes this lock as its first
// statement: the locks of one user's writes are then always taken user
// first, then attempt, then the row written, and no two of them can wait
// on each other (on Postgres such a cycle is a deadlock, and one write
// fails). SQLite's one writer needs no lock: there it does nothing.
func lockUserOf(ctx context.Context, tx *txn, attemptID int64) error {
	return lockUser(ctx, tx, `SELECT user_id FROM attempts WHERE id = ?`, attemptID)
}

// lockUserOfSession is lockUserOf for the owner of a timed session.
func lockUserOfSession(ctx context.Context, tx *txn, sessionID int64) error {
	return lockUser(ctx, tx,
		`SELECT a.user_id FROM attempts a JOIN timed_sessions t ON t.attempt_id = a.id WHERE t.id = ?`, sessionID)
}

func lockUser(ctx context.Context, tx *txn, owner string, id int64) error {
	if tx.d.forUpdate == "" || tx.userLocked {
		return nil
	}
	var user string
	err := tx.QueryRowContext(ctx, `SELECT id FROM users WHERE id = (`+owner+`)`+tx.d.forUpdate, id).Scan(&user)
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // no such row: the write itself says so
		return fmt.Errorf("storage: lock the user: %w", err)
	}
	tx.userLocked = true
	return nil
}

// Usage is what the user stores in bytes, as the quota counts it; 0 for
// a user with no attempts.
func (s *Store) Usage(ctx context.Context, userID string) (int64, error) {
	var attemptID int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM attempts WHERE user_id = ? LIMIT 1`, userID).Scan(&attemptID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("storage: usage: %w", err)
	}
	return usage(ctx, s.db, attemptID)
}
