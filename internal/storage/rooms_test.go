package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func newTestRoom(t *testing.T, s *Store, id string, created time.Time, ttl time.Duration) Room {
	t.Helper()
	r, first, err := s.CreateRoom(context.Background(), Room{ID: id, SourceKind: RoomFromProblem, SourceSlug: "async-refund",
		InterviewerHash: []byte("ihash-" + id), CandidateHash: []byte("chash-" + id), CreatedAt: created, ExpiresAt: created.Add(ttl)},
		NewRoomEvent{Actor: ActorSystem, Kind: "room.created", Visibility: VisibleToEveryone, Payload: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatalf("CreateRoom: %v", err)
	}
	if first.Seq != 1 || r.LastSeq != 1 {
		t.Fatalf("first event seq %d, room last seq %d; want 1 and 1", first.Seq, r.LastSeq)
	}
	return r
}

func ev(actor, kind, vis, payload string) NewRoomEvent {
	return NewRoomEvent{Actor: actor, Kind: kind, Visibility: vis, Payload: json.RawMessage(payload)}
}

func TestRoomRoundTrip(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.UnixMilli(1_800_000_000_000).UTC()
		newTestRoom(t, s, "r1", t0, time.Hour)
		got, err := s.Room(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if got.SourceKind != RoomFromProblem || got.SourceSlug != "async-refund" || string(got.InterviewerHash) != "ihash-r1" ||
			string(got.CandidateHash) != "chash-r1" || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) ||
			!got.EndedAt.IsZero() || !got.Open(t0) || got.Open(t0.Add(time.Hour)) {
			t.Fatalf("Room = %+v", got)
		}
		if _, err := s.Room(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Room(nope) = %v; want ErrNotFound", err)
		}
	})
}

func TestRoomAppendsAndVisibility(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.UnixMilli(1_800_000_000_000).UTC()
		newTestRoom(t, s, "r1", t0, time.Hour)
		out, err := s.AppendRoomEvents(ctx, "r1", t0.Add(time.Minute),
			ev(ActorInterviewer, "hint.released", VisibleToEveryone, `{"part":1,"index":0}`),
			ev(ActorInterviewer, "note.saved", VisibleToInterviewer, `{"text":"private"}`),
			ev(ActorCandidate, "signal.paste", VisibleToInterviewer, `{"bytes":900}`),
			ev(ActorInterviewer, "item.changed", VisibleToEveryone, `{"index":1}`))
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range out {
			if e.Seq != int64(i+2) {
				t.Fatalf("appended event %d has seq %d; want %d", i, e.Seq, i+2)
			}
		}
		all, err := s.RoomEvents(ctx, "r1", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		public, err := s.PublicRoomEvents(ctx, "r1", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		kinds := func(evs []RoomEvent) string {
			s := ""
			for _, e := range evs {
				s += fmt.Sprintf("%d:%s ", e.Seq, e.Kind)
			}
			return s
		}
		if got, want := kinds(all), "1:room.created 2:hint.released 3:note.saved 4:signal.paste 5:item.changed "; got != want {
			t.Errorf("RoomEvents = %s; want %s", got, want)
		}
		if got, want := kinds(public), "1:room.created 2:hint.released 5:item.changed "; got != want {
			t.Errorf("PublicRoomEvents = %s; want %s", got, want)
		}
		after, err := s.PublicRoomEvents(ctx, "r1", 2, 0)
		if err != nil || kinds(after) != "5:item.changed " {
			t.Errorf("PublicRoomEvents after 2 = %s, %v; want 5:item.changed", kinds(after), err)
		}
		if got, err := s.RoomEvents(ctx, "r1", 0, 0, "note.saved", "signal.paste"); err != nil || kinds(got) != "1:room.created 2:hint.released 5:item.changed " {
			t.Errorf("RoomEvents skipping two kinds = %s, %v", kinds(got), err)
		}
		if got, err := s.PublicRoomEvents(ctx, "r1", 0, 0, "hint.released"); err != nil || kinds(got) != "1:room.created 5:item.changed " {
			t.Errorf("PublicRoomEvents skipping hints = %s, %v", kinds(got), err)
		}
		page, err := s.RoomEvents(ctx, "r1", 1, 2)
		if err != nil || kinds(page) != "2:hint.released 3:note.saved " {
			t.Errorf("RoomEvents after 1, limit 2 = %s, %v; want 2 and 3", kinds(page), err)
		}
		// The public events are numbered apart, with no gaps where the
		// interviewer's own events are.
		for i, e := range public {
			if e.PublicSeq != int64(i+1) {
				t.Errorf("public event %d (seq %d) has public seq %d; want %d", i, e.Seq, e.PublicSeq, i+1)
			}
		}
		if all[2].PublicSeq != 0 || all[3].PublicSeq != 0 {
			t.Errorf("interviewer-only events have public seqs %d and %d; want none", all[2].PublicSeq, all[3].PublicSeq)
		}
		if string(all[2].Payload) != `{"text":"private"}` || all[2].Actor != ActorInterviewer || !all[2].At.Equal(t0.Add(time.Minute)) {
			t.Errorf("note event read back as %+v", all[2])
		}
	})
}

func TestRoomAppendRefusals(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.UnixMilli(1_800_000_000_000).UTC()
		newTestRoom(t, s, "open", t0, time.Hour)
		newTestRoom(t, s, "ended", t0, time.Hour)
		if _, err := s.EndRoom(ctx, "ended", t0.Add(time.Minute), ev(ActorInterviewer, "room.ended", VisibleToEveryone, `{}`)); err != nil {
			t.Fatal(err)
		}
		good := ev(ActorInterviewer, "hint.released", VisibleToEveryone, `{}`)
		cases := []struct {
			name string
			room string
			at   time.Time
			ev   NewRoomEvent
			want error
		}{
			{"no such room", "nope", t0, good, ErrNotFound},
			{"ended room", "ended", t0.Add(2 * time.Minute), good, ErrRoomClosed},
			{"expired room", "open", t0.Add(time.Hour), good, ErrRoomClosed},
			{"bad actor", "open", t0, ev("admin", "x", VisibleToEveryone, `{}`), nil},
			{"bad visibility", "open", t0, ev(ActorSystem, "x", "nobody", `{}`), nil},
			{"no kind", "open", t0, ev(ActorSystem, " ", VisibleToEveryone, `{}`), nil},
			{"payload not JSON", "open", t0, ev(ActorSystem, "x", VisibleToEveryone, `{`), nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.AppendRoomEvents(ctx, tc.room, tc.at, tc.ev)
				if err == nil {
					t.Fatal("append succeeded")
				}
				if tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("append = %v; want %v", err, tc.want)
				}
			})
		}
		if _, err := s.EndRoom(ctx, "ended", t0.Add(3*time.Minute), ev(ActorInterviewer, "room.ended", VisibleToEveryone, `{}`)); !errors.Is(err, ErrRoomClosed) {
			t.Fatalf("ending twice = %v; want ErrRoomClosed", err)
		}
		r, err := s.Room(ctx, "ended")
		if err != nil || !r.EndedAt.Equal(t0.Add(time.Minute)) || r.LastSeq != 2 {
			t.Fatalf("ended room = %+v, %v; want ended at the first End, last seq 2", r, err)
		}
		if evs, _ := s.RoomEvents(ctx, "open", 0, 0); len(evs) != 1 {
			t.Fatalf("refused appends left %d events in the open room; want only its first", len(evs))
		}
	})
}

// TestRoomConcurrentAppends: many writers, one room; every event gets its
// own seq and the seqs have no gap, so a reader resuming after any seq
// misses nothing.
func TestRoomConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Now()
		newTestRoom(t, s, "r1", t0, time.Hour)
		const writers, each = 8, 15
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					vis := VisibleToEveryone
					if i%3 == 0 {
						vis = VisibleToInterviewer
					}
					if _, err := s.AppendRoomEvents(ctx, "r1", t0, ev(ActorCandidate, "answer.text", vis,
						fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		evs, err := s.RoomEvents(ctx, "r1", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != writers*each+1 {
			t.Fatalf("%d events; want %d", len(evs), writers*each+1)
		}
		for i, e := range evs {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has seq %d: the seqs have a gap or a repeat", i, e.Seq)
			}
		}
		public, err := s.PublicRoomEvents(ctx, "r1", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range public {
			if e.PublicSeq != int64(i+1) {
				t.Fatalf("public event %d has public seq %d: a gap or a repeat", i, e.PublicSeq)
			}
		}
		if want := 1 + writers*(each-(each+2)/3); len(public) != want {
			t.Fatalf("%d public events; want %d", len(public), want)
		}
	})
}

// TestDocUpdatesFromOneBase: writers racing from the same version; exactly
// one lands each round and the others are told to rebase, so the document's
// versions stay unique and gapless.
func TestDocUpdatesFromOneBase(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Now()
		newTestRoom(t, s, "r1", t0, time.Hour)
		newTestRoom(t, s, "r2", t0, time.Hour)
		const writers, rounds = 6, 5
		for round := range rounds {
			base := int64(round * 2)
			var wg sync.WaitGroup
			results := make(chan error, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := s.AppendDocUpdates(ctx, "r1", "code", base, t0, ActorCandidate, "code.update",
						[]json.RawMessage{json.RawMessage(fmt.Sprintf(`{"w":%d}`, w)), json.RawMessage(fmt.Sprintf(`{"w":%d,"second":true}`, w))})
					results <- err
				}()
			}
			wg.Wait()
			close(results)
			won := 0
			for err := range results {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, ErrVersionConflict):
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if won != 1 {
				t.Fatalf("round %d: %d writers landed from base %d; want exactly 1", round, won, base)
			}
		}
		if v, err := s.DocVersion(ctx, "r1", "code"); err != nil || v != 2*rounds {
			t.Fatalf("DocVersion = %d, %v; want %d", v, err, 2*rounds)
		}
		ups, err := s.DocUpdatesSince(ctx, "r1", "code", 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range ups {
			if u.DocVersion != int64(i+4) || u.Visibility != VisibleToEveryone || u.Doc != "code" {
				t.Fatalf("update %d = version %d, %s, %q; want version %d, everyone, code", i, u.DocVersion, u.Visibility, u.Doc, i+4)
			}
		}
		if len(ups) != 2*rounds-3 {
			t.Fatalf("%d updates after version 3; want %d", len(ups), 2*rounds-3)
		}
		// Another room's document, and another document, count on their own.
		if _, err := s.AppendDocUpdates(ctx, "r2", "code", 0, t0, ActorInterviewer, "code.update", []json.RawMessage{json.RawMessage(`{}`)}); err != nil {
			t.Fatalf("first update of r2's code: %v", err)
		}
		if _, err := s.AppendDocUpdates(ctx, "r1", "answer", 0, t0, ActorCandidate, "code.update", []json.RawMessage{json.RawMessage(`{}`)}); err != nil {
			t.Fatalf("first update of r1's answer: %v", err)
		}
		if _, err := s.AppendDocUpdates(ctx, "r1", "code", 1, t0, ActorCandidate, "code.update", []json.RawMessage{json.RawMessage(`{}`)}); !errors.Is(err, ErrVersionConflict) {
			t.Fatalf("update from a stale base = %v; want ErrVersionConflict", err)
		}
	})
}

// TestPublicSeqMigrationNumbersOldEvents: a database with rooms from
// before migration 0009 gets public seqs for its events, in order and
// without gaps, and appends go on from there.
func TestPublicSeqMigrationNumbersOldEvents(t *testing.T) {
	ctx := context.Background()
	forEachDialect(t, func(t *testing.T, dialect string) {
		s, _ := openOldStore(t, dialect, 8) // before 0009
		if _, err := s.db.ExecContext(ctx, `INSERT INTO rooms (id, source_kind, source_slug, interviewer_hash, candidate_hash, created_at, expires_at, last_seq)
		VALUES ('old', 'problem', 'async-refund', ?, ?, 0, 9999999999999, 4)`, []byte{1}, []byte{2}); err != nil {
			t.Fatal(err)
		}
		for i, vis := range []string{"everyone", "interviewer", "everyone", "everyone"} {
			if _, err := s.db.ExecContext(ctx, `INSERT INTO room_events (room_id, seq, at, actor, kind, visibility, payload)
			VALUES ('old', ?, 0, 'system', 'x', ?, '{}')`, i+1, vis); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		out, err := s.AppendRoomEvents(ctx, "old", time.UnixMilli(1), ev(ActorSystem, "y", VisibleToEveryone, `{}`))
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Seq != 5 || out[0].PublicSeq != 4 {
			t.Fatalf("the append after the migration = seq %d, public seq %d; want 5 and 4", out[0].Seq, out[0].PublicSeq)
		}
		all, err := s.RoomEvents(ctx, "old", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, e := range all {
			got += fmt.Sprintf("%d:%d ", e.Seq, e.PublicSeq)
		}
		if want := "1:1 2:0 3:2 4:3 5:4 "; got != want {
			t.Fatalf("seq:public seq after the migration = %s; want %s", got, want)
		}
	})
}
