package rooms

import (
	"errors"
	"testing"

	"github.com/faultline-dev/faultline/internal/storage"
)

// TestLinksAgain: the interviewer, holding their key, gets both links
// again; the candidate cannot, nor can a key of another room; a room whose
// candidate key was not derived (made before) gives no candidate link.
func TestLinksAgain(t *testing.T) {
	f := newFixture(t)
	l, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	other, _, _ := f.create(t, storage.RoomFromProblem, "async-refund")

	got, err := f.svc.Links(ia, l.InterviewerKey)
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	if got.InterviewerKey != l.InterviewerKey || got.CandidateKey != l.CandidateKey || got.RoomID != l.RoomID {
		t.Fatalf("Links gave %+v; want the room's own %+v", got, l)
	}
	if l.CandidateKey == l.InterviewerKey || len(l.CandidateKey) < 43 {
		t.Fatalf("the candidate's key %q is not a key of its own", l.CandidateKey)
	}
	if _, err := f.svc.Links(ca, l.CandidateKey); !errors.Is(err, ErrForbidden) {
		t.Fatalf("the candidate asked for the links: %v; want ErrForbidden", err)
	}
	if _, err := f.svc.Links(ia, other.InterviewerKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another room's key gave the links: %v; want ErrNotFound", err)
	}

	// A room made with an unrelated candidate key, as rooms were before.
	old := ia
	old.Room.CandidateHash = hashKey("a random key of an older room")
	got, err = f.svc.Links(old, l.InterviewerKey)
	if err != nil || got.CandidateKey != "" || got.InterviewerKey != l.InterviewerKey {
		t.Fatalf("an older room's links: %+v, %v; want the interviewer's link only", got, err)
	}
}
