package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDisplayNameRunes bounds a display name: it names a person on a page.
const MaxDisplayNameRunes = 60

// CheckDisplayName validates a display name after trimming spaces. An empty
// name is valid: it clears the name. The message says what is wrong.
func CheckDisplayName(raw string) (name, problem string) {
	name = strings.TrimSpace(raw)
	switch {
	case !utf8.ValidString(name):
		return "", "The name is not valid UTF-8 text."
	case utf8.RuneCountInString(name) > MaxDisplayNameRunes:
		return "", fmt.Sprintf("The name is %d characters long; at most %d fit.", utf8.RuneCountInString(name), MaxDisplayNameRunes)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", "The name contains a control character (a tab or a line break); use plain text on one line."
	case strings.IndexFunc(name, isBidiControl) >= 0:
		return "", "The name contains a character that reorders the text around it (a bidirectional control, U+202A to U+202E or U+2066 to U+2069); remove it."
	case name != "" && strings.IndexFunc(name, isVisible) < 0:
		return "", "The name has no visible character (only spaces or invisible formatting characters); type a name or leave the field empty."
	}
	return name, ""
}

// isBidiControl reports the embedding, override and isolate controls: shown
// to an interviewer, they could make a name display as other text.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// isVisible reports a rune that draws something by itself: a letter, a
// digit, punctuation or a symbol (not a space, a combining mark alone or a
// zero-width formatting character).
func isVisible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}

// SetDisplayName names the user, creating the user if needed; an empty name
// clears it. name must have passed CheckDisplayName.
func (s *Store) SetDisplayName(ctx context.Context, userID, name string) (User, error) {
	if _, problem := CheckDisplayName(name); problem != "" {
		return User{}, fmt.Errorf("storage: set display name: %s", problem)
	}
	if _, err := s.EnsureUser(ctx, userID); err != nil {
		return User{}, err
	}
	value := sql.NullString{String: name, Valid: name != ""}
	if _, err := s.db.ExecContext(ctx, `UPDATE users SET display_name = ? WHERE id = ?`, value, userID); err != nil {
		return User{}, fmt.Errorf("storage: set display name: %w", err)
	}
	return s.User(ctx, userID)
}

// UserAttempts lists everything the user has started, most recently
// changed first.
func (s *Store) UserAttempts(ctx context.Context, userID string) ([]Attempt, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, user_id, kind, slug, created_at, updated_at FROM attempts
		 WHERE user_id = ? ORDER BY updated_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("storage: user attempts: %w", err)
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var (
			a                Attempt
			kind             string
			created, updated int64
		)
		if err := rows.Scan(&a.ID, &a.UserID, &kind, &a.Slug, &created, &updated); err != nil {
			return nil, fmt.Errorf("storage: user attempts: %w", err)
		}
		a.Kind = Kind(kind)
		a.CreatedAt, a.UpdatedAt = fromMillis(created), fromMillis(updated)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: user attempts: %w", err)
	}
	return out, nil
}
