package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// Progress is what the catalogue marks on one of the user's attempts: that
// it was started, how many of its scopes have an answer, and its grading.
// Graded and the figures after it are of the newest run the grader
// finished (busy and broken runs say nothing about the code); Solved is
// whether any finished run passed.
type Progress struct {
	Kind     Kind
	Slug     string
	Answered int // scopes with at least one answer
	Graded   bool
	Solved   bool
	Latest   GradeSummary // of the newest finished run, when Graded
}

// CatalogueProgress lists the marks of every attempt the user has, in one
// query that reads only the counts and the newest finished run's summary
// columns (no answer bodies, sources or reports).
func (s *Store) CatalogueProgress(ctx context.Context, userID string) ([]Progress, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT a.kind, a.slug,
		       (SELECT COUNT(DISTINCT scope) FROM answers WHERE attempt_id = a.id),
		       EXISTS (SELECT 1 FROM grade_runs WHERE attempt_id = a.id AND status = 'done' AND verdict = 'pass'),
		       g.id, g.verdict, g.scenarios_passed, g.scenarios_total, g.invariants_held, g.invariants_total,
		       g.defects_fixed, g.defects_total
		FROM attempts a
		LEFT JOIN grade_runs g ON g.id = (
		    SELECT id FROM grade_runs WHERE attempt_id = a.id AND status = 'done' ORDER BY id DESC LIMIT 1)
		WHERE a.user_id = ?
		ORDER BY a.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("storage: catalogue progress: %w", err)
	}
	defer rows.Close()
	var out []Progress
	for rows.Next() {
		var (
			p                                       Progress
			kind                                    string
			runID                                   sql.NullInt64
			verdict                                 sql.NullString
			passed, total, held, checked, fixed, of sql.NullInt64
		)
		if err := rows.Scan(&kind, &p.Slug, &p.Answered, &p.Solved, &runID, &verdict,
			&passed, &total, &held, &checked, &fixed, &of); err != nil {
			return nil, fmt.Errorf("storage: catalogue progress: %w", err)
		}
		p.Kind = Kind(kind)
		if runID.Valid {
			p.Graded = true
			p.Latest = GradeSummary{Verdict: verdict.String, ScenariosPassed: int(passed.Int64), ScenariosTotal: int(total.Int64),
				InvariantsHeld: int(held.Int64), InvariantsTotal: int(checked.Int64), DefectsFixed: int(fixed.Int64), DefectsTotal: int(of.Int64)}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: catalogue progress: %w", err)
	}
	return out, nil
}
