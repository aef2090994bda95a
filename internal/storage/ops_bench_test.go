package storage

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkStoreOps measures the store's hot operations on each database,
// side by side in one run (bench/storage.sh ops prints them as a table).
// Writers run in parallel, each on its own user's rows, as many people
// autosaving at once do; "room append" is many writers on one room, where
// appends are serialised by the room's row. ops/s is per operation, over
// all goroutines.
//
//	go test -run '^$' -bench StoreOps -benchtime 2s ./internal/storage
func BenchmarkStoreOps(b *testing.B) {
	ops := []struct {
		name string
		// setup makes worker w's rows and returns its operation; i counts
		// the worker's calls from 1.
		setup func(b *testing.B, s *Store, w int) func(i int64) error
	}{
		{"timed draft save", func(b *testing.B, s *Store, w int) func(int64) error {
			a := benchAttempt(b, s, w)
			ts, _, err := s.StartTimedSession(context.Background(), a.ID, ScopeProblem, ModeUntimed, time.Hour, false, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			text := strings.Repeat("a timed answer ", 60)
			return func(i int64) error {
				_, _, err := s.SaveDraft(context.Background(), ts.ID, i, text, false, time.Now())
				return err
			}
		}},
		{"code draft save", func(b *testing.B, s *Store, w int) func(int64) error {
			a := benchAttempt(b, s, w)
			code := strings.Repeat("x := refund(ctx, id)\n", 200)
			return func(int64) error {
				_, err := s.SaveCodeDraft(context.Background(), a.ID, code)
				return err
			}
		}},
		{"grade run start+finish", func(b *testing.B, s *Store, w int) func(int64) error {
			a := benchAttempt(b, s, w)
			report := []byte(`{"version":1,"status":"pass","scenarios":[` + strings.Repeat(`{"name":"lost-reply","status":"pass"},`, 40) + `{}]}`)
			return func(i int64) error {
				r, err := s.StartGradeRun(context.Background(), a.ID, "async-refund", i, "package refund")
				if err != nil {
					return err
				}
				return s.FinishGradeRun(context.Background(), r.ID, GradeRunEnd{Status: GradeDone, ReportJSON: report,
					Summary: GradeSummary{Verdict: "pass", ScenariosPassed: 9, ScenariosTotal: 9}})
			}
		}},
		{"room append, one room", func(b *testing.B, s *Store, w int) func(int64) error {
			if w == 0 {
				benchRoom(b, s)
			}
			return func(int64) error {
				_, err := s.AppendRoomEvents(context.Background(), "bench", time.Now(),
					ev(ActorCandidate, "answer.text", VisibleToEveryone, `{"item":0,"text":"typing"}`))
				return err
			}
		}},
		{"room read 100 events", func(b *testing.B, s *Store, w int) func(int64) error {
			if w == 0 {
				benchRoom(b, s)
				for range 100 {
					if _, err := s.AppendRoomEvents(context.Background(), "bench", time.Now(),
						ev(ActorCandidate, "answer.text", VisibleToEveryone, `{"item":0,"text":"typing"}`)); err != nil {
						b.Fatal(err)
					}
				}
			}
			return func(int64) error {
				_, err := s.PublicRoomEvents(context.Background(), "bench", 0, 100)
				return err
			}
		}},
		{"catalogue progress read", func(b *testing.B, s *Store, w int) func(int64) error {
			a := benchAttempt(b, s, w)
			if _, err := submitPlain(context.Background(), s, a.ID, ScopeProblem, "an answer"); err != nil {
				b.Fatal(err)
			}
			return func(int64) error {
				_, err := s.CatalogueProgress(context.Background(), a.UserID)
				return err
			}
		}},
	}
	const workers = 8
	for _, op := range ops {
		for _, db := range testStores {
			b.Run(op.name+"/"+db.name, func(b *testing.B) {
				s := db.open(b)
				calls := make([]func(int64) error, workers)
				for w := range workers {
					calls[w] = op.setup(b, s, w)
				}
				var next atomic.Int32
				b.SetParallelism((workers + 1) / 2) // GOMAXPROCS is 2 here
				b.ResetTimer()
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					w := int(next.Add(1)-1) % workers
					var i int64
					for pb.Next() {
						i++
						if err := calls[w](i); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
			})
		}
	}
}

func benchAttempt(b *testing.B, s *Store, w int) Attempt {
	a, err := s.StartAttempt(context.Background(), fmt.Sprintf("user-%d", w), KindProblem, "async-refund")
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func benchRoom(b *testing.B, s *Store) {
	t0 := time.Now()
	if _, _, err := s.CreateRoom(context.Background(), Room{ID: "bench", SourceKind: RoomFromProblem, SourceSlug: "async-refund",
		InterviewerHash: []byte("i"), CandidateHash: []byte("c"), CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)},
		ev(ActorSystem, "room.created", VisibleToEveryone, `{}`)); err != nil {
		b.Fatal(err)
	}
}
