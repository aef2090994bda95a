package rooms

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/faultline-dev/faultline/internal/storage"
)

// BenchmarkViewOfALongRoom folds the interviewer's view of a room whose
// log holds an hour of typing (editor steps and cursor reports) around a
// few dozen other events: reading every event against reading only the
// kinds the views fold.
func BenchmarkViewOfALongRoom(b *testing.B) {
	ctx := context.Background()
	f := newFixture(b)
	_, ia, _ := f.create(b, storage.RoomFromProblem, "async-refund")
	const keystrokes = 20_000
	batch := make([]storage.NewRoomEvent, 0, 500)
	for i := range keystrokes {
		kind := KindCursor
		if i%2 == 0 {
			kind = KindAnswerText // stands in for a code step: same size, no version bookkeeping
		}
		ev, err := newEvent(storage.ActorCandidate, kind, map[string]any{"item": 0, "clientID": "candidate-x", "anchor": i, "head": i, "text": fmt.Sprint(i)})
		if err != nil {
			b.Fatal(err)
		}
		if kind == KindAnswerText {
			ev.Kind = KindCodeUpdate
			ev.Payload = json.RawMessage(fmt.Sprintf(`{"clientID":"candidate-x","changes":[%d,[0,"x"]]}`, i))
		}
		batch = append(batch, ev)
		if len(batch) == cap(batch) {
			if _, err := f.store.AppendRoomEvents(ctx, ia.Room.ID, f.clock.Now(), batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for range 40 {
		if _, err := f.svc.SaveNotes(ctx, ia, "a note"); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		read func(context.Context, string) ([]storage.RoomEvent, error)
	}{{"every event", f.svc.readAll}, {"state events", f.svc.readState}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				evs, err := bc.read(ctx, ia.Room.ID)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := fold(ia.Items, evs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
