package storage

import (
	"context"
	"testing"
	"time"
)

// TestRefereeLog: disagreements are kept whole and listed newest first,
// with or without their sources, on each database.
func TestRefereeLog(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := withLeaseClock(s)
		first, err := s.LogRefereeDisagreement(ctx, RefereeDisagreement{Problem: "async-refund", Kit: "refund", SourceHash: "aa11",
			Source: "package refund\n", Interpreted: "not graded: undefined: max", Native: "passed"})
		if err != nil {
			t.Fatal(err)
		}
		if first.ID == 0 || !first.At.Equal(clock.now()) {
			t.Errorf("logged %+v: want an id and the store's time %s", first, clock.now())
		}
		clock.add(time.Minute)
		if _, err := s.LogRefereeDisagreement(ctx, RefereeDisagreement{Problem: "idempotent-create-client-code", Kit: "createclient", SourceHash: "bb22",
			Source: "package client\n", Interpreted: "passed", Native: "failed (24 of 25 scenarios passed; failed: lost-reply)"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.RefereeDisagreements(ctx, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].SourceHash != "bb22" || got[1].SourceHash != "aa11" {
			t.Fatalf("listed %+v: want bb22 then aa11", got)
		}
		if got[1] != first {
			t.Errorf("read back %+v, logged %+v", got[1], first)
		}
		if got[0].Native != "failed (24 of 25 scenarios passed; failed: lost-reply)" || got[0].Source != "package client\n" {
			t.Errorf("newest: %+v", got[0])
		}
		short, err := s.RefereeDisagreements(ctx, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(short) != 1 || short[0].Source != "" || short[0].Problem != "idempotent-create-client-code" {
			t.Errorf("limit 1 without sources: %+v", short)
		}
	})
}
