package world_test

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	rk "github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestStoreLogsWhatCallsSaw: the store's log of sightings holds each
// GetRecord that found the record and each Claim refused, with the claim
// the record carried; a claim taken is a write, and a record not found
// was never seen.
func TestStoreLogsWhatCallsSaw(t *testing.T) {
	var env *world.Env
	faultsimtest.Bubble(t)(func() {
		sched := faultsim.NewScheduler(1)
		env = world.NewEnv(sched, world.DefaultNetwork)
		env.Store().Put(rk.Record{RequestID: "r1", Status: rk.StatusPending})
		w1 := env.NewWorker("worker-1", world.CrashPoint{})
		w2 := env.NewWorker("worker-2", world.CrashPoint{})
		sched.Go(w1.ID, func() {
			ctx := context.Background()
			w1.GetRecord(ctx, "r1")
			w1.Claim(ctx, "r1", time.Minute)
			w1.GetRecord(ctx, "r2")
			sched.Go(w2.ID, func() {
				w2.Claim(ctx, "r1", time.Minute)
				w2.GetRecord(ctx, "r1")
			})
		})
		if stopped := sched.Run(time.Hour); stopped != "" {
			t.Errorf("the run was stopped: it ran out of %s", stopped)
		}
	})
	lease := env.Start().Add(time.Minute)
	want := []world.Read{
		{Worker: "worker-1", RequestID: "r1", Status: rk.StatusPending},
		{Worker: "worker-2", RequestID: "r1", Status: rk.StatusProcessing, Owner: "worker-1", LeaseUntil: lease},
		{Worker: "worker-2", RequestID: "r1", Status: rk.StatusProcessing, Owner: "worker-1", LeaseUntil: lease},
	}
	got := env.Store().Reads()
	if len(got) != len(want) {
		t.Fatalf("%d sightings logged, want %d: %+v", len(got), len(want), got)
	}
	for i, g := range got {
		w := want[i]
		if g.Worker != w.Worker || g.RequestID != w.RequestID || g.Status != w.Status || g.Owner != w.Owner || !g.LeaseUntil.Equal(w.LeaseUntil) {
			t.Errorf("sighting %d = %+v, want %+v", i, g, w)
		}
		if i > 0 && g.Seq <= got[i-1].Seq {
			t.Errorf("sighting %d has seq %d, not after %d", i, g.Seq, got[i-1].Seq)
		}
	}
}
