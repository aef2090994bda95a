package grading

import "github.com/faultline-dev/faultline/internal/sandbox"

// A grade's admission as the pages and rooms see it: they admit and grade
// through the Dispatcher, and name what it hands back by these, not by
// the pool of child processes behind it (internal/sandbox).
type (
	// Ticket is one grade's admission to the pool: a place in its queue,
	// then a running child. One never graded must be released.
	Ticket = sandbox.Ticket
	// BusyError is a grade refused at once: every place is busy and the
	// queue is full, or the wait would pass the pool's bound. RetryAfter
	// says when to try again.
	BusyError = sandbox.BusyError
)

// ErrBusy is matched (errors.Is) by every *BusyError.
var ErrBusy = sandbox.ErrBusy
