package storage

import (
	"context"
	"fmt"
	"time"
)

// RefereeDisagreement is one grade the native referee overruled: the
// interpreter's verdict differed from that of the same code compiled
// natively (internal/grading's referee). Each is an interpreter fault to
// find, so the source is kept whole.
type RefereeDisagreement struct {
	ID      int64
	At      time.Time
	Problem string
	Kit     string
	// SourceHash is the SHA-256 of Source, in hex.
	SourceHash  string
	Source      string
	Interpreted string
	Native      string
}

// LogRefereeDisagreement keeps d, stamped now; its ID and At are set by
// the store.
func (s *Store) LogRefereeDisagreement(ctx context.Context, d RefereeDisagreement) (RefereeDisagreement, error) {
	d.Source = storableText(d.Source)
	at := millis(s.now())
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO referee_disagreements (at, problem, kit, source_sha256, source, interpreted, native)
		 VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		at, d.Problem, d.Kit, d.SourceHash, d.Source, d.Interpreted, d.Native).Scan(&d.ID)
	if err != nil {
		return RefereeDisagreement{}, fmt.Errorf("storage: log a referee disagreement: %w", err)
	}
	d.At = fromMillis(at)
	return d, nil
}

// RefereeDisagreements lists the newest limit disagreements, newest
// first, with their sources when withSource is set.
func (s *Store) RefereeDisagreements(ctx context.Context, limit int, withSource bool) ([]RefereeDisagreement, error) {
	source := "''"
	if withSource {
		source = "source"
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, at, problem, kit, source_sha256, `+source+`, interpreted, native
		 FROM referee_disagreements ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("storage: list referee disagreements: %w", err)
	}
	defer rows.Close()
	var out []RefereeDisagreement
	for rows.Next() {
		var d RefereeDisagreement
		var at int64
		if err := rows.Scan(&d.ID, &at, &d.Problem, &d.Kit, &d.SourceHash, &d.Source, &d.Interpreted, &d.Native); err != nil {
			return nil, fmt.Errorf("storage: list referee disagreements: %w", err)
		}
		d.At = fromMillis(at)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list referee disagreements: %w", err)
	}
	return out, nil
}
