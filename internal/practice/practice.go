// Package practice holds the use cases of practising alone: the timed
// answer (its clock starts at the first keystroke the server sees,
// autosaves, the submit, the split of on-time and late text, and the expiry
// that stores the last on-time draft for a user who left), a set run as one
// timed sequence, a screen practised as a whole, and what the user chose
// to reveal. (A live room's clock, which an interviewer pauses and
// extends, is internal/rooms'.)
//
// Service is the one way in: every write of practising goes through it.
// Its clocks are one model (clock.go: ClockAt), kept as one table
// (practice_clocks). The timing rules are internal/timer's, which is pure;
// this package applies them to what is stored, through the store
// interfaces it declares (Store; *storage.Store has them), with the
// server's clock passed in so tests run on a fake one. HTTP handlers parse
// the request, call one use case and draw the answer; they hold no rule
// of their own.
//
// Nothing here writes on behalf of a read. A session whose limit and grace
// have passed is shown as locked by whoever reads it (timer.Session.State
// says so from the stored start), and is stored as an answer by the next
// write that touches its attempt: CloseOverdue, which Start runs itself and
// Service.Begin runs before every write. With the box's script the next
// write comes at once, since a box that loads locked submits. The reasons:
// a GET stays safe to repeat, prefetch and cache; the draft is already
// stored, so nothing is lost while the session waits; and a background
// sweep would add a goroutine to own and a scan of every user's sessions
// to close answers nobody is looking at. The cost: until then, pages that
// count answers (My practice, the catalogue's marks) do not count it.
package practice
