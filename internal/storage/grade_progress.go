package storage

import (
	"context"
	"fmt"
)

// A grade run's progress is streamed by the instance grading it from its
// memory; these rows carry it to the other instances on the database, so a
// page on any of them streams the run scenario by scenario.

// GradeProgress is one progress event of a running run.
type GradeProgress struct {
	Seq  int64
	Data []byte // the event's JSON
}

// AppendGradeProgress records run id's progress event seq.
func (s *Store) AppendGradeProgress(ctx context.Context, id, seq int64, data []byte) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO grade_run_progress (run_id, seq, data) VALUES (?, ?, ?)`,
		id, seq, string(data)); err != nil {
		return fmt.Errorf("storage: record progress %d of grade run %d: %w", seq, id, err)
	}
	return nil
}

// GradeProgressAfter is run id's progress events after seq after, at most
// limit, in order.
func (s *Store) GradeProgressAfter(ctx context.Context, id, after int64, limit int) ([]GradeProgress, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT seq, data FROM grade_run_progress WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, id, after, limit)
	if err != nil {
		return nil, fmt.Errorf("storage: read the progress of grade run %d: %w", id, err)
	}
	defer rows.Close()
	var out []GradeProgress
	for rows.Next() {
		var p GradeProgress
		var data string
		if err := rows.Scan(&p.Seq, &data); err != nil {
			return nil, fmt.Errorf("storage: read the progress of grade run %d: %w", id, err)
		}
		p.Data = []byte(data)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read the progress of grade run %d: %w", id, err)
	}
	return out, nil
}

// DeleteGradeProgress forgets run id's progress once its end is recorded:
// a finished run's stream sends its end alone.
func (s *Store) DeleteGradeProgress(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM grade_run_progress WHERE run_id = ?`, id); err != nil {
		return fmt.Errorf("storage: forget the progress of grade run %d: %w", id, err)
	}
	return nil
}
