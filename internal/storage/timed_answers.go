package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrSessionClosed is returned when text or a submit reaches a timed session
// that an earlier submit (or the server, at expiry) has already closed.
var ErrSessionClosed = errors.New("storage: the timed answer session is closed")

// Timer modes as stored; internal/timer defines what they mean.
const (
	ModeTimed   = "timed"
	ModeUntimed = "untimed"
)

// How a timed answer ended, as stored.
const (
	EndedSubmitted = "submitted"
	EndedExpired   = "expired"
)

// TimedSession is one timed answer in progress (or done, once ClosedAt is
// set). The web layer applies internal/timer's rules to it; this package only
// keeps it. All times are the server's.
type TimedSession struct {
	ID        int64
	AttemptID int64
	Scope     string
	Mode      string // ModeTimed or ModeUntimed
	// Clock is the session's: its Limit is the question's (only a timed
	// session locks at it), its StartedAt the first keystroke, and its
	// EndedAt when the answer that closed it ended.
	Clock
	// NoOwnLimit: the candidate chose no limit inside a whole-set run. The
	// session is timed, to the run's end, but its answer is untimed.
	NoOwnLimit   bool
	Draft        string // newest on-time text
	DraftSeq     int64  // the browser's sequence number of the newest save
	DraftSavedAt time.Time
	LateText     string // newest text that arrived late; never the timed answer
	LateSavedAt  time.Time
	ClosedAt     time.Time // zero while open
	AnswerID     int64     // the answer that closed it; 0 if none
}

// MaxDraftSeq is the largest sequence number a draft may carry: the
// largest whole number a browser's script counts exactly (2^53-1). The box
// numbers its saves by its clock in milliseconds (about 1.8e12 in 2026), so
// it is nowhere near; a larger number is not from the box, and once stored
// it would make every later save of the session stale.
const MaxDraftSeq = 1<<53 - 1

// Open reports whether the session still takes text.
func (t TimedSession) Open() bool { return t.ClosedAt.IsZero() }

// AnswerTiming is what the timed answer box stores with an answer. The zero
// value (Mode "") is an answer sent without the box's script: no clock ran.
type AnswerTiming struct {
	Mode      string // ModeTimed, ModeUntimed, or "" for no clock
	Limit     time.Duration
	StartedAt time.Time
	TimeUsed  time.Duration
	HowEnded  string // EndedSubmitted or EndedExpired; "" for no clock
	Late      bool   // text arrived after the limit plus grace
	LateBody  string // that text, kept beside the on-time body
	WordCount int    // words of the body
}

// TimedAnswer is an answer with its timing.
type TimedAnswer struct {
	Answer
	AttemptID int64
	Timing    AnswerTiming
}

// SelfAssessment is which key points the candidate says an answer covered.
type SelfAssessment struct {
	AnswerID   int64
	Covered    []int // 0-based indexes into the key points, ascending
	Of         int   // how many key points there were
	AssessedAt time.Time
}

const sessionColumns = `t.id, t.attempt_id, t.scope, t.mode, t.draft, t.draft_seq,
	t.draft_saved_at, t.late_text, t.late_saved_at, t.closed_at, t.answer_id, t.no_own_limit, ` + clockColumns

// sessions is what sessionColumns are read from.
const sessions = `timed_sessions t JOIN practice_clocks c ON c.id = t.clock_id`

type timedRow interface{ Scan(dest ...any) error }

func scanSession(r timedRow) (TimedSession, error) {
	var (
		t                                 TimedSession
		cl                                clockFields
		draftAt, lateAt, closedAt, answer sql.NullInt64
		late                              sql.NullString
	)
	err := r.Scan(append([]any{&t.ID, &t.AttemptID, &t.Scope, &t.Mode, &t.Draft, &t.DraftSeq,
		&draftAt, &late, &lateAt, &closedAt, &answer, &t.NoOwnLimit}, cl.dest()...)...)
	if err != nil {
		return TimedSession{}, err
	}
	if t.DraftSeq > MaxDraftSeq {
		// Stored before the bound existed: counting it would make every
		// save stale, so the next save wins.
		t.DraftSeq = 0
	}
	t.Clock = cl.clock()
	t.DraftSavedAt = fromNullMillis(draftAt)
	t.LateText = late.String
	t.LateSavedAt = fromNullMillis(lateAt)
	t.ClosedAt = fromNullMillis(closedAt)
	t.AnswerID = answer.Int64
	return t, nil
}

func fromNullMillis(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMillis(v.Int64)
}

func nullMillis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: millis(t), Valid: true}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// StartTimedSession returns the open session of (attempt, scope), or starts
// one at the server time at (the first keystroke). Starting twice returns the
// session already open, whatever mode or limit the second start asks for:
// created says which happened. noOwnLimit marks a timed session that is
// timed only by an outside clock the candidate did not choose (see
// TimedSession.NoOwnLimit).
func (s *Store) StartTimedSession(ctx context.Context, attemptID int64, scope, mode string, limit time.Duration, noOwnLimit bool, at time.Time) (TimedSession, bool, error) {
	if mode != ModeTimed && mode != ModeUntimed {
		return TimedSession{}, false, fmt.Errorf("storage: start timed session: unknown mode %q", mode)
	}
	if limit < time.Millisecond {
		return TimedSession{}, false, fmt.Errorf("storage: start timed session: limit %v is not positive", limit)
	}
	if noOwnLimit && mode != ModeTimed {
		return TimedSession{}, false, fmt.Errorf("storage: start timed session: only a timed session is timed by an outside clock, not %q", mode)
	}
	var (
		t       TimedSession
		created bool
	)
	err := s.inTx(ctx, func(tx *txn) error {
		// On SQLite the transaction holds the write lock from BEGIN
		// (_txlock=immediate); on Postgres the attempt's row is locked
		// first: either way two starts cannot both see no session and
		// both insert.
		if err := lockAttempt(ctx, tx, attemptID); err != nil {
			return err
		}
		var err error
		t, err = scanSession(tx.QueryRowContext(ctx,
			`SELECT `+sessionColumns+` FROM `+sessions+` WHERE t.attempt_id = ? AND t.scope = ? AND t.closed_at IS NULL`,
			attemptID, scope))
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("storage: start timed session %s: %w", scope, err)
		}
		if err := touch(ctx, tx, attemptID, at); err != nil {
			return err
		}
		cl, err := newClock(ctx, tx, ClockAnswer, limit, at)
		if err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO timed_sessions (attempt_id, scope, mode, clock_id, no_own_limit) VALUES (?, ?, ?, ?, ?) RETURNING id`,
			attemptID, scope, mode, cl.ClockID, noOwnLimit).Scan(&id); err != nil {
			return fmt.Errorf("storage: start timed session %s: %w", scope, err)
		}
		created = true
		t = TimedSession{ID: id, AttemptID: attemptID, Scope: scope, Mode: mode, NoOwnLimit: noOwnLimit, Clock: cl}
		return nil
	})
	if err != nil {
		return TimedSession{}, false, err
	}
	return t, created, nil
}

// TimedSession returns the session with id, open or closed, or ErrNotFound.
// The caller checks that it belongs to the user's attempt.
func (s *Store) TimedSession(ctx context.Context, id int64) (TimedSession, error) {
	t, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM `+sessions+` WHERE t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return TimedSession{}, ErrNotFound
	}
	if err != nil {
		return TimedSession{}, fmt.Errorf("storage: timed session %d: %w", id, err)
	}
	return t, nil
}

// OpenTimedSessions returns the open sessions of an attempt by scope.
func (s *Store) OpenTimedSessions(ctx context.Context, attemptID int64) (map[string]TimedSession, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+sessionColumns+` FROM `+sessions+` WHERE t.attempt_id = ? AND t.closed_at IS NULL`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: open timed sessions: %w", err)
	}
	defer rows.Close()
	out := map[string]TimedSession{}
	for rows.Next() {
		t, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: open timed sessions: %w", err)
		}
		out[t.Scope] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: open timed sessions: %w", err)
	}
	return out, nil
}

// SaveDraft keeps text sent by the box at server time at, with the browser's
// sequence number seq (which grows with every save). A save whose seq is not
// newer than the last one is ignored (saved is false): a slow request must
// not overwrite newer text. late says the text arrived after the limit plus
// grace: it is kept apart from the on-time draft. Late text for a session
// the server already closed at expiry is kept with its answer too, marking
// the answer late; any other save to a closed session is ErrSessionClosed.
// The session returned is as stored after the save. Text that would take
// the user past MaxUserBytes is a *QuotaError and the stored text stays.
func (s *Store) SaveDraft(ctx context.Context, sessionID, seq int64, text string, late bool, at time.Time) (t TimedSession, saved bool, err error) {
	if seq < 1 || seq > MaxDraftSeq {
		return TimedSession{}, false, fmt.Errorf("storage: save draft: sequence number %d: they count from 1 to %d", seq, int64(MaxDraftSeq))
	}
	text = storableText(text)
	err = s.inTx(ctx, func(tx *txn) error {
		if err := lockUserOfSession(ctx, tx, sessionID); err != nil {
			return err
		}
		// Locked as read: "newer wins" compares with draft_seq as read,
		// and two saves at once must not both pass against the same one.
		t, err = scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM `+sessions+` WHERE t.id = ?`+s.d.forUpdate, sessionID))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("storage: save draft: %w", err)
		}
		if !t.Open() {
			if !late || t.AnswerID == 0 {
				return ErrSessionClosed
			}
			var howEnded sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT how_ended FROM answers WHERE id = ?`, t.AnswerID).Scan(&howEnded); err != nil {
				return fmt.Errorf("storage: save draft: %w", err)
			}
			if howEnded.String != EndedExpired {
				return ErrSessionClosed
			}
		}
		if seq <= t.DraftSeq {
			return nil
		}
		replacing := len(t.Draft)
		if late {
			replacing = len(t.LateText)
		}
		if err := s.checkQuota(ctx, tx, t.AttemptID, int64(len(text)), int64(replacing)); err != nil {
			return err
		}
		saved = true
		t.DraftSeq = seq
		if !late {
			t.Draft, t.DraftSavedAt = text, fromMillis(millis(at))
			_, err = tx.ExecContext(ctx,
				`UPDATE timed_sessions SET draft = ?, draft_seq = ?, draft_saved_at = ? WHERE id = ?`,
				text, seq, millis(at), t.ID)
		} else {
			t.LateText, t.LateSavedAt = text, fromMillis(millis(at))
			_, err = tx.ExecContext(ctx,
				`UPDATE timed_sessions SET late_text = ?, draft_seq = ?, late_saved_at = ? WHERE id = ?`,
				text, seq, millis(at), t.ID)
			if err == nil && !t.Open() {
				_, err = tx.ExecContext(ctx, `UPDATE answers SET late = ?, late_body = ? WHERE id = ?`, true, text, t.AnswerID)
			}
		}
		if err != nil {
			return fmt.Errorf("storage: save draft: %w", err)
		}
		return nil
	})
	if err != nil {
		return TimedSession{}, false, err
	}
	return t, saved, nil
}

// SubmitTimedAnswer stores body as an answer with its timing and, in the same
// transaction, reveals the scope's answer material (reason "submitted") and
// closes the timed session sessionID. sessionID 0 is an answer sent without
// the box's script: no session, timing has only the word count. A session
// that is closed already, or belongs to another attempt or scope, is
// ErrSessionClosed or ErrNotFound, and nothing is stored; so is an answer
// that would take the user past MaxUserBytes (a *QuotaError).
func (s *Store) SubmitTimedAnswer(ctx context.Context, attemptID int64, scope, body string, sessionID int64, timing AnswerTiming, at time.Time) (TimedAnswer, error) {
	if sessionID != 0 && timing.Mode != ModeTimed && timing.Mode != ModeUntimed {
		return TimedAnswer{}, fmt.Errorf("storage: submit timed answer: unknown mode %q", timing.Mode)
	}
	if sessionID != 0 && timing.HowEnded != EndedSubmitted && timing.HowEnded != EndedExpired {
		return TimedAnswer{}, fmt.Errorf("storage: submit timed answer: unknown ending %q", timing.HowEnded)
	}
	if sessionID == 0 {
		timing = AnswerTiming{WordCount: timing.WordCount}
	}
	body, timing.LateBody = storableText(body), storableText(timing.LateBody)
	a := TimedAnswer{Answer: Answer{Scope: scope, Body: body, CreatedAt: fromMillis(millis(at))}, AttemptID: attemptID, Timing: timing}
	err := s.inTx(ctx, func(tx *txn) error {
		if err := lockUserOf(ctx, tx, attemptID); err != nil {
			return err
		}
		var clockID int64
		if sessionID != 0 {
			var (
				owner    int64
				ownScope string
				closed   sql.NullInt64
			)
			err := tx.QueryRowContext(ctx, `SELECT attempt_id, scope, closed_at, clock_id FROM timed_sessions WHERE id = ?`, sessionID).
				Scan(&owner, &ownScope, &closed, &clockID)
			switch {
			case errors.Is(err, sql.ErrNoRows) || err == nil && (owner != attemptID || ownScope != scope):
				return ErrNotFound
			case err != nil:
				return fmt.Errorf("storage: submit timed answer %s: %w", scope, err)
			case closed.Valid:
				return ErrSessionClosed
			}
		}
		if err := s.checkQuota(ctx, tx, attemptID, int64(len(body)+len(timing.LateBody)), 0); err != nil {
			return err
		}
		if err := revealAnswer(ctx, tx, attemptID, scope, ReasonSubmitted, at); err != nil {
			return err
		}
		var mode, howEnded, lateBody sql.NullString
		var limit, started, used sql.NullInt64
		if timing.Mode != "" {
			mode, howEnded, lateBody = nullString(timing.Mode), nullString(timing.HowEnded), nullString(timing.LateBody)
			limit = sql.NullInt64{Int64: timing.Limit.Milliseconds(), Valid: true}
			started = nullMillis(timing.StartedAt)
			used = sql.NullInt64{Int64: timing.TimeUsed.Milliseconds(), Valid: true}
		}
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO answers (attempt_id, scope, body, created_at, mode, limit_ms, started_at, time_used_ms,
			   how_ended, late, late_body, word_count)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			attemptID, scope, body, millis(at), mode, limit, started, used,
			howEnded, timing.Late, lateBody, timing.WordCount).Scan(&a.ID); err != nil {
			return fmt.Errorf("storage: submit timed answer %s: %w", scope, err)
		}
		if sessionID != 0 {
			// Closed only if still open: of two submits at once the
			// second matches no row here and its answer is rolled back,
			// though both read the session open above.
			res, err := tx.ExecContext(ctx, `UPDATE timed_sessions SET closed_at = ?, answer_id = ? WHERE id = ? AND closed_at IS NULL`,
				millis(at), a.ID, sessionID)
			if err != nil {
				return fmt.Errorf("storage: close timed session %d: %w", sessionID, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return fmt.Errorf("storage: close timed session %d: %w", sessionID, err)
			} else if n == 0 {
				return ErrSessionClosed
			}
			// The answer's end stops the session's clock.
			end := timing.StartedAt.Add(timing.TimeUsed)
			if timing.StartedAt.IsZero() {
				end = at
			}
			if err := endClock(ctx, tx, clockID, end); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return TimedAnswer{}, err
	}
	return a, nil
}

const answerColumns = `id, attempt_id, scope, body, created_at, mode, limit_ms, started_at, time_used_ms,
	how_ended, late, late_body, word_count`

func scanTimedAnswer(r timedRow) (TimedAnswer, error) {
	var (
		a                               TimedAnswer
		created                         int64
		mode, howEnded, lateBody        sql.NullString
		limit, started, used, wordCount sql.NullInt64
	)
	if err := r.Scan(&a.ID, &a.AttemptID, &a.Scope, &a.Body, &created, &mode, &limit, &started, &used,
		&howEnded, &a.Timing.Late, &lateBody, &wordCount); err != nil {
		return TimedAnswer{}, err
	}
	a.CreatedAt = fromMillis(created)
	a.Timing.Mode, a.Timing.HowEnded, a.Timing.LateBody = mode.String, howEnded.String, lateBody.String
	a.Timing.Limit = time.Duration(limit.Int64) * time.Millisecond
	a.Timing.StartedAt = fromNullMillis(started)
	a.Timing.TimeUsed = time.Duration(used.Int64) * time.Millisecond
	a.Timing.WordCount = int(wordCount.Int64)
	return a, nil
}

// TimedAnswer returns the answer with id and its timing, or ErrNotFound.
func (s *Store) TimedAnswer(ctx context.Context, id int64) (TimedAnswer, error) {
	a, err := scanTimedAnswer(s.db.QueryRowContext(ctx, `SELECT `+answerColumns+` FROM answers WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return TimedAnswer{}, ErrNotFound
	}
	if err != nil {
		return TimedAnswer{}, fmt.Errorf("storage: answer %d: %w", id, err)
	}
	return a, nil
}

// LatestTimedAnswers returns the newest answer per scope in an attempt, with
// timing.
func (s *Store) LatestTimedAnswers(ctx context.Context, attemptID int64) (map[string]TimedAnswer, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+answerColumns+` FROM answers
		 WHERE id IN (SELECT max(id) FROM answers WHERE attempt_id = ? GROUP BY scope)`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: latest timed answers: %w", err)
	}
	defer rows.Close()
	out := map[string]TimedAnswer{}
	for rows.Next() {
		a, err := scanTimedAnswer(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: latest timed answers: %w", err)
		}
		out[a.Scope] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: latest timed answers: %w", err)
	}
	return out, nil
}

// SaveSelfAssessment records which of the of key points answer answerID
// covered (0-based indexes, in any order, repeats ignored). Saving again
// replaces the earlier assessment.
func (s *Store) SaveSelfAssessment(ctx context.Context, answerID int64, covered []int, of int, at time.Time) (SelfAssessment, error) {
	if of < 1 {
		return SelfAssessment{}, fmt.Errorf("storage: self-assessment of answer %d: %d key points; need at least 1", answerID, of)
	}
	set := slices.Clone(covered)
	slices.Sort(set)
	set = slices.Compact(set)
	for _, i := range set {
		if i < 0 || i >= of {
			return SelfAssessment{}, fmt.Errorf("storage: self-assessment of answer %d: key point %d out of 0..%d", answerID, i, of-1)
		}
	}
	if set == nil {
		set = []int{}
	}
	js, err := json.Marshal(set)
	if err != nil {
		return SelfAssessment{}, fmt.Errorf("storage: self-assessment of answer %d: %w", answerID, err)
	}
	err = s.inTx(ctx, func(tx *txn) error {
		var attemptID int64
		err := tx.QueryRowContext(ctx, `SELECT attempt_id FROM answers WHERE id = ?`, answerID).Scan(&attemptID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("storage: self-assessment of answer %d: %w", answerID, err)
		}
		if err := touch(ctx, tx, attemptID, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO self_assessments (answer_id, covered, covered_count, of_total, assessed_at) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT (answer_id) DO UPDATE SET covered = excluded.covered, covered_count = excluded.covered_count,
			   of_total = excluded.of_total, assessed_at = excluded.assessed_at`,
			answerID, string(js), len(set), of, millis(at)); err != nil {
			return fmt.Errorf("storage: self-assessment of answer %d: %w", answerID, err)
		}
		return nil
	})
	if err != nil {
		return SelfAssessment{}, err
	}
	return SelfAssessment{AnswerID: answerID, Covered: set, Of: of, AssessedAt: fromMillis(millis(at))}, nil
}

// SelfAssessments returns the assessments of an attempt's answers by answer id.
func (s *Store) SelfAssessments(ctx context.Context, attemptID int64) (map[int64]SelfAssessment, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT sa.answer_id, sa.covered, sa.of_total, sa.assessed_at
		 FROM self_assessments sa JOIN answers a ON a.id = sa.answer_id WHERE a.attempt_id = ?`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: self-assessments: %w", err)
	}
	defer rows.Close()
	out := map[int64]SelfAssessment{}
	for rows.Next() {
		var (
			sa      SelfAssessment
			covered string
			at      int64
		)
		if err := rows.Scan(&sa.AnswerID, &covered, &sa.Of, &at); err != nil {
			return nil, fmt.Errorf("storage: self-assessments: %w", err)
		}
		if err := json.Unmarshal([]byte(covered), &sa.Covered); err != nil {
			return nil, fmt.Errorf("storage: self-assessment of answer %d: covered %q: %w", sa.AnswerID, covered, err)
		}
		sa.AssessedAt = fromMillis(at)
		out[sa.AnswerID] = sa
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: self-assessments: %w", err)
	}
	return out, nil
}

// TimedAnswerHistory returns every answer of an attempt with its timing,
// oldest first, for the history page.
func (s *Store) TimedAnswerHistory(ctx context.Context, attemptID int64) ([]TimedAnswer, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+answerColumns+` FROM answers WHERE attempt_id = ? ORDER BY id`, attemptID)
	if err != nil {
		return nil, fmt.Errorf("storage: timed answer history: %w", err)
	}
	defer rows.Close()
	var out []TimedAnswer
	for rows.Next() {
		a, err := scanTimedAnswer(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: timed answer history: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: timed answer history: %w", err)
	}
	return out, nil
}
