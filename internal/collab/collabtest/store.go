// Package collabtest holds the conformance tests every collab.Store must
// pass: the memory store runs them, and so should each store that
// implements collab.Store over a database (the rooms' event log), from its
// own tests:
//
//	func TestCollabStore(t *testing.T) {
//		collabtest.TestStore(t, func(t *testing.T) collab.Store { return newRoomStore(t) })
//	}
package collabtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/internal/collab"
)

// TestStore runs the conformance tests on stores made by open; each
// subtest opens a fresh one.
func TestStore(t *testing.T, open func(t *testing.T) collab.Store) {
	ctx := context.Background()
	up := func(client string, n int) collab.Update {
		return collab.Update{ClientID: client, Changes: json.RawMessage(fmt.Sprintf(`[%d,[0,"x"]]`, n))}
	}

	t.Run("empty document", func(t *testing.T) {
		s := open(t)
		ups, err := s.Since(ctx, "doc", 0)
		if err != nil || len(ups) != 0 {
			t.Fatalf("Since(0) of a new document = %v, %v; want none, nil", ups, err)
		}
		if _, err := s.Since(ctx, "doc", 1); !errors.Is(err, collab.ErrVersion) {
			t.Fatalf("Since(1) of a new document: %v; want ErrVersion", err)
		}
		if _, err := s.Since(ctx, "doc", -1); !errors.Is(err, collab.ErrVersion) {
			t.Fatalf("Since(-1): %v; want ErrVersion", err)
		}
	})

	t.Run("append and read in order", func(t *testing.T) {
		s := open(t)
		if err := s.Append(ctx, "doc", 0, []collab.Update{up("a", 0), up("b", 1)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "doc", 2, []collab.Update{up("a", 2)}); err != nil {
			t.Fatal(err)
		}
		want := []collab.Update{up("a", 0), up("b", 1), up("a", 2)}
		// A selection is kept with its update: the cursor rides with it.
		withSel := up("b", 3)
		withSel.Selection = &collab.Selection{Anchor: 4, Head: 2, Name: "B", Colour: 3}
		if err := s.Append(ctx, "doc", 3, []collab.Update{withSel}); err != nil {
			t.Fatal(err)
		}
		want = append(want, withSel)
		for v := 0; v <= len(want); v++ {
			got, err := s.Since(ctx, "doc", v)
			if err != nil {
				t.Fatalf("Since(%d): %v", v, err)
			}
			if !sameUpdates(got, want[v:]) {
				t.Fatalf("Since(%d) = %s; want %s", v, show(got), show(want[v:]))
			}
		}
		if _, err := s.Since(ctx, "doc", len(want)+1); !errors.Is(err, collab.ErrVersion) {
			t.Fatalf("Since past the latest: %v; want ErrVersion", err)
		}
	})

	t.Run("conflict stores nothing", func(t *testing.T) {
		s := open(t)
		if err := s.Append(ctx, "doc", 0, []collab.Update{up("a", 0)}); err != nil {
			t.Fatal(err)
		}
		for _, base := range []int{0, 2, 5} {
			err := s.Append(ctx, "doc", base, []collab.Update{up("b", 1), up("b", 2)})
			if !errors.Is(err, collab.ErrConflict) {
				t.Fatalf("Append on base %d with the latest at 1: %v; want ErrConflict", base, err)
			}
		}
		got, err := s.Since(ctx, "doc", 0)
		if err != nil || !sameUpdates(got, []collab.Update{up("a", 0)}) {
			t.Fatalf("after conflicts Since(0) = %s, %v; want only the first update", show(got), err)
		}
	})

	t.Run("documents are separate", func(t *testing.T) {
		s := open(t)
		if err := s.Append(ctx, "one", 0, []collab.Update{up("a", 0)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "two", 0, []collab.Update{up("b", 0), up("b", 1)}); err != nil {
			t.Fatal(err)
		}
		one, _ := s.Since(ctx, "one", 0)
		two, _ := s.Since(ctx, "two", 0)
		if len(one) != 1 || len(two) != 2 {
			t.Fatalf("one has %d updates, two %d; want 1 and 2", len(one), len(two))
		}
	})

	t.Run("returned updates are copies", func(t *testing.T) {
		s := open(t)
		in := []collab.Update{up("a", 0)}
		if err := s.Append(ctx, "doc", 0, in); err != nil {
			t.Fatal(err)
		}
		in[0].Changes[1] = '9'
		got, _ := s.Since(ctx, "doc", 0)
		got[0].Changes[1] = '8'
		again, _ := s.Since(ctx, "doc", 0)
		if !sameUpdates(again, []collab.Update{up("a", 0)}) {
			t.Fatalf("the store's copy changed with the caller's: %s", show(again))
		}
	})

	// Writers racing on the same base: each round exactly one wins, and
	// the log has no gaps and no duplicates.
	t.Run("concurrent writers", func(t *testing.T) {
		s := open(t)
		const writers, rounds = 8, 25
		var wins, conflicts [writers]int
		for r := range rounds {
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := s.Append(ctx, "doc", r, []collab.Update{up(fmt.Sprint(w), r)})
					switch {
					case err == nil:
						wins[w]++
					case errors.Is(err, collab.ErrConflict):
						conflicts[w]++
					default:
						t.Errorf("writer %d round %d: %v", w, r, err)
					}
				}()
			}
			wg.Wait()
		}
		total := 0
		for w := range writers {
			total += wins[w]
		}
		if total != rounds {
			t.Fatalf("%d appends won over %d rounds; want exactly one a round", total, rounds)
		}
		got, err := s.Since(ctx, "doc", 0)
		if err != nil || len(got) != rounds {
			t.Fatalf("the log has %d updates (%v); want %d", len(got), err, rounds)
		}
		for v, u := range got {
			if want := fmt.Sprintf(`[%d,[0,"x"]]`, v); string(u.Changes) != want {
				t.Fatalf("version %d holds %s; want %s", v+1, u.Changes, want)
			}
		}
	})
}

func sameUpdates(a, b []collab.Update) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ClientID != b[i].ClientID || string(a[i].Changes) != string(b[i].Changes) {
			return false
		}
		if (a[i].Selection == nil) != (b[i].Selection == nil) || a[i].Selection != nil && *a[i].Selection != *b[i].Selection {
			return false
		}
	}
	return true
}

func show(ups []collab.Update) string {
	b, _ := json.Marshal(ups)
	return string(b)
}
