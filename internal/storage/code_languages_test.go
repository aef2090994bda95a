package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A draft is kept per language: saving one leaves the other as it was.
func TestCodeDraftsPerLanguage(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, err := s.StartAttempt(ctx, "u1", KindProblem, "async-refund")
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			lang, code string
		}{
			{LangGo, "package refund\n"},
			{LangPython, "async def refund_money(request_id):\n    pass\n"},
			{LangGo, "package refund // edited\n"},
			{LangPython, "# edited\n"},
		}
		want := map[string]string{}
		for _, st := range steps {
			d, err := s.SaveCodeDraftIn(ctx, a.ID, st.lang, st.code)
			if err != nil {
				t.Fatalf("save %s: %v", st.lang, err)
			}
			if d.Language != st.lang {
				t.Errorf("saved draft's language = %q; want %q", d.Language, st.lang)
			}
			want[st.lang] = st.code
			for lang, code := range want {
				got, err := s.CodeDraftIn(ctx, a.ID, lang)
				if err != nil || got.Code != code || got.Language != lang {
					t.Errorf("after saving %s: draft in %s = %q (%q), %v; want %q", st.lang, lang, got.Code, got.Language, err, code)
				}
			}
		}
		if d, err := s.CodeDraftOf(ctx, a.ID); err != nil || d.Code != want[LangGo] {
			t.Errorf("CodeDraftOf = %q, %v; want the Go draft %q", d.Code, err, want[LangGo])
		}
		if _, err := s.SaveCodeDraftIn(ctx, a.ID, "rust", "fn main() {}"); err == nil {
			t.Error("a draft in an unknown language was saved")
		}
		if n, err := s.Usage(ctx, "u1"); err != nil || n != int64(len(want[LangGo])+len(want[LangPython])) {
			t.Errorf("Usage = %d, %v; want both drafts counted, %d", n, err, len(want[LangGo])+len(want[LangPython]))
		}
	})
}

// A run records its language; the latest run of a language skips the
// other's.
func TestGradeRunsPerLanguage(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		withLeaseClock(s)
		a, err := s.StartAttempt(ctx, "u1", KindProblem, "async-refund")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.LatestGradeRunIn(ctx, a.ID, LangPython); !errors.Is(err, ErrNotFound) {
			t.Fatalf("latest Python run before any: %v; want ErrNotFound", err)
		}
		claim := claimOf("i1", "u1", "addr")
		var ids = map[string]int64{}
		for _, lang := range []string{LangGo, LangPython, LangGo} {
			run, err := s.StartOwnedGradeRunIn(ctx, a.ID, "async-refund", lang, 1, "src "+lang, claim)
			if err != nil {
				t.Fatalf("start %s run: %v", lang, err)
			}
			if err := s.FinishGradeRun(ctx, run.ID, GradeRunEnd{Status: GradeSystemError, Message: "x"}); err != nil {
				t.Fatal(err)
			}
			ids[lang] = run.ID
			got, err := s.GradeRun(ctx, run.ID)
			if err != nil || got.Language != lang || got.Source != "src "+lang {
				t.Errorf("run %d = language %q, source %q, %v; want %q", run.ID, got.Language, got.Source, err, lang)
			}
		}
		for lang, id := range ids {
			got, err := s.LatestGradeRunIn(ctx, a.ID, lang)
			if err != nil || got.ID != id || got.Language != lang {
				t.Errorf("latest %s run = %d (%q), %v; want %d", lang, got.ID, got.Language, err, id)
			}
		}
		runs, err := s.GradeRuns(ctx, a.ID)
		if err != nil || len(runs) != 3 || runs[1].Language != LangPython || runs[0].Language != LangGo {
			t.Errorf("GradeRuns = %+v, %v; want go, python, go", runs, err)
		}
		if _, err := s.StartOwnedGradeRunIn(ctx, a.ID, "async-refund", "cobol", 1, "x", claim); err == nil {
			t.Error("a run in an unknown language was started")
		}
	})
}

// A database from before migration 0017 keeps its draft and runs, as Go's.
func TestMigrationMakesEarlierCodeGo(t *testing.T) {
	ctx := context.Background()
	forEachDialect(t, func(t *testing.T, dialect string) {
		db, path := openOldStore(t, dialect, 16)
		if _, err := db.db.ExecContext(ctx, `INSERT INTO users (id, created_at) VALUES ('u1', 1);
		INSERT INTO attempts (id, user_id, kind, slug, created_at, updated_at) VALUES (1, 'u1', 'problem', 'p', 1, 1);
		INSERT INTO code_drafts (attempt_id, code, saved_at) VALUES (1, 'OLD DRAFT', 5);
		INSERT INTO grade_runs (id, attempt_id, problem, seed, status, started_at) VALUES (7, 1, 'p', 9, 'busy', 1);
		INSERT INTO grade_run_files (run_id, source) VALUES (7, 'OLD SOURCE')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("migrating an old database: %v", err)
		}
		defer s.Close()
		if d, err := s.CodeDraftIn(ctx, 1, LangGo); err != nil || d.Code != "OLD DRAFT" {
			t.Errorf("Go draft after migration = %q, %v", d.Code, err)
		}
		if _, err := s.CodeDraftIn(ctx, 1, LangPython); !errors.Is(err, ErrNotFound) {
			t.Errorf("Python draft after migration: %v; want ErrNotFound", err)
		}
		if r, err := s.GradeRun(ctx, 7); err != nil || r.Language != LangGo || r.Source != "OLD SOURCE" {
			t.Errorf("run after migration = %q, %q, %v; want Go's", r.Language, r.Source, err)
		}
		if _, err := s.SaveCodeDraftIn(ctx, 1, LangPython, "py"); err != nil {
			t.Errorf("a Python draft beside the migrated Go one: %v", err)
		}
	})
}

// A room keeps the language it was made in; one made without a language,
// and every room from before migration 0018, is Go's.
func TestRoomLanguage(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		t0 := time.UnixMilli(1_800_000_000_000).UTC()
		for _, tc := range []struct{ id, lang, want string }{
			{"r-default", "", LangGo},
			{"r-go", LangGo, LangGo},
			{"r-py", LangPython, LangPython},
		} {
			if _, _, err := s.CreateRoom(ctx, Room{ID: tc.id, SourceKind: RoomFromProblem, SourceSlug: "async-refund", Language: tc.lang,
				InterviewerHash: []byte("i" + tc.id), CandidateHash: []byte("c" + tc.id), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
				ev(ActorSystem, "room.created", VisibleToEveryone, `{}`)); err != nil {
				t.Fatalf("CreateRoom %s: %v", tc.id, err)
			}
			if got, err := s.Room(ctx, tc.id); err != nil || got.Language != tc.want {
				t.Errorf("room %s's language = %q, %v; want %q", tc.id, got.Language, err, tc.want)
			}
		}
		if _, _, err := s.CreateRoom(ctx, Room{ID: "r-bad", SourceKind: RoomFromProblem, SourceSlug: "async-refund", Language: "rust",
			InterviewerHash: []byte("i"), CandidateHash: []byte("c"), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
			ev(ActorSystem, "room.created", VisibleToEveryone, `{}`)); err == nil {
			t.Error("a room in an unknown language was made")
		}
	})
	forEachDialect(t, func(t *testing.T, dialect string) {
		db, path := openOldStore(t, dialect, 17)
		if _, err := db.db.ExecContext(ctx, `INSERT INTO rooms (id, source_kind, source_slug, interviewer_hash, candidate_hash, created_at, expires_at, last_seq)
			VALUES ('old', 'problem', 'async-refund', ?, ?, 1, 2, 0)`, []byte{1}, []byte{2}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("migrating an old database: %v", err)
		}
		defer s.Close()
		if r, err := s.Room(ctx, "old"); err != nil || r.Language != LangGo {
			t.Errorf("old room's language after migration = %q, %v; want Go", r.Language, err)
		}
	})
}
