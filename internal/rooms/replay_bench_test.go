package rooms

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/storage"
)

// keystrokeRoom is a room from the async-refund problem whose candidate
// typed keys keystrokes into the shared editor, one update each (pushed
// fifty at a time, as an editor behind on its pushes sends them), with a
// note, a hint and a paste among them.
func keystrokeRoom(b *testing.B, keys int) (*Service, Access) {
	b.Helper()
	ctx := context.Background()
	cat, err := testCatalog()
	if err != nil {
		b.Fatal(err)
	}
	st, err := storage.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	clock := &fakeClock{t: time.UnixMilli(1_800_000_000_000).UTC()}
	svc, err := New(Config{Store: st, Catalog: cat, Now: clock.Now, TTL: 24 * time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	l, err := svc.Create(ctx, "bench", storage.RoomFromProblem, "async-refund")
	if err != nil {
		b.Fatal(err)
	}
	ia, err := svc.Authenticate(ctx, l.RoomID, l.InterviewerKey)
	if err != nil {
		b.Fatal(err)
	}
	ca, err := svc.Authenticate(ctx, l.RoomID, l.CandidateKey)
	if err != nil {
		b.Fatal(err)
	}
	id := ClientID(ca)
	n := collab.Length(collab.NormalizeNewlines(ia.Items[0].Problem.Code.Starter))
	const batch = 50
	for v := 0; v < keys; v += batch {
		ups := make([]collab.Update, 0, batch)
		for i := v; i < min(v+batch, keys); i++ {
			// Typing at the end of a growing first line.
			pos := i
			ups = append(ups, collab.Update{ClientID: id, Changes: json.RawMessage(fmt.Sprintf(`[%d,[0,"%c"],%d]`, pos, 'a'+rune(i%26), n))})
			if pos == 0 {
				ups[len(ups)-1].Changes = json.RawMessage(fmt.Sprintf(`[[0,"a"],%d]`, n))
			}
		}
		res, err := svc.Push(ctx, ca, 0, v, ups)
		if err != nil || !res.Accepted() {
			b.Fatalf("push at %d: %+v, %v", v, res, err)
		}
		clock.Add(10 * time.Second) // five keys a second
		if v == keys/2 {
			if _, err := svc.SaveNotes(ctx, ia, "halfway"); err != nil {
				b.Fatal(err)
			}
			if _, err := svc.ReleaseNextHint(ctx, ia); err != nil {
				b.Fatal(err)
			}
			if _, err := svc.Signal(ctx, ca, SignalPasteCode, 400); err != nil {
				b.Fatal(err)
			}
		}
	}
	return svc, ia
}

// BenchmarkReplay measures a replay in a room of N keystrokes: reading
// the log from the store and building the timeline, without the cache
// (build); answering one moment of a built replay (frame-middle,
// frame-end); and what one scrub of the page costs once the replay is
// cached: checking the room's last seq, then the frame (scrub). The
// build should grow linearly with N and a frame stay flat: compare
// N=1000 with N=10000 in one run.
func BenchmarkReplay(b *testing.B) {
	for _, keys := range []int{1000, 10000} {
		svc, ia := keystrokeRoom(b, keys)
		ctx := context.Background()
		b.Run(fmt.Sprintf("keys=%d/build", keys), func(b *testing.B) {
			for b.Loop() {
				evs, err := svc.readAll(ctx, ia.Room.ID)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := buildReplay(ia, evs); err != nil {
					b.Fatal(err)
				}
			}
		})
		r, err := svc.Replay(ctx, ia)
		if err != nil {
			b.Fatal(err)
		}
		for _, at := range []struct {
			name string
			seq  int64
		}{{"frame-middle", r.LastSeq() / 2}, {"frame-end", r.LastSeq()}} {
			b.Run(fmt.Sprintf("keys=%d/%s", keys, at.name), func(b *testing.B) {
				for b.Loop() {
					fr, err := r.Frame(at.seq)
					if err != nil || len(fr.Code) != 1 {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("keys=%d/scrub", keys), func(b *testing.B) {
			for b.Loop() {
				r, err := svc.Replay(ctx, ia)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Frame(r.LastSeq() / 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
