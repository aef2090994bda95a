package storage

import "time"

// Answer is one submission of text by a user for a scope. Answers are
// stored with their timing by SubmitTimedAnswer (timed_answers.go), also
// when no clock ran.
type Answer struct {
	ID        int64
	Scope     string
	Body      string
	CreatedAt time.Time
}
