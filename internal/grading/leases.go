package grading

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Several instances grade on one database: each run is owned by the
// instance grading it, under a lease in the store that the instance's
// heartbeat renews while it grades (storage.StartOwnedGradeRun,
// RenewGradeLeases for a solo run; storage.LeaseRoomRun,
// RenewRoomRunLeases for a room's). A run missing from a renewal was taken
// over by another instance (this one was out of touch past its lease): its
// grading is stopped, as nobody waits for it, and its end is not recorded
// again. Each beat also finishes dead instances' runs, so their users see
// why at once. Leases is that heartbeat, for every caller that records
// runs; InstanceID is the one owner name of the process.

// DefaultLease is how long a run stays its instance's without a
// heartbeat. The heartbeat renews it every third of that, so two
// heartbeats may fail (a slow database, a long pause) before another
// instance takes a live run for dead; a dead instance's runs are finished
// as system errors at most this long after it stopped. A room's run is
// leased as long (rooms.DefaultRunLease).
const DefaultLease = 15 * time.Second

// InstanceID names this process among the instances on one database, the
// owner of every run it grades, solo or a room's: the host and pid for
// the operator reading the owner columns, and random bits so a restarted
// process with a reused pid is a new owner. It is the same for the whole
// life of the process.
var InstanceID = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
})

// LeaseStore is where solo runs' leases live; *storage.Store satisfies
// it. GradeLeases adapts it to a LeasesConfig.
type LeaseStore interface {
	RenewGradeLeases(ctx context.Context, owner string, lease time.Duration) ([]int64, error)
	ExpireGradeLeases(ctx context.Context, message string) ([]int64, error)
}

// LeasesConfig is what NewLeases needs. K names a run (a grade run's id,
// a room's run).
type LeasesConfig[K comparable] struct {
	// Renew renews every lease of owner's for lease from now and returns
	// the runs it renewed: a run held here and missing was taken over.
	Renew func(ctx context.Context, owner string, lease time.Duration) ([]K, error)
	// Expire finishes dead instances' runs and returns those it finished;
	// nil: nothing to do.
	Expire func(ctx context.Context) ([]K, error)
	Owner  string        // this instance's id: InstanceID()
	Lease  time.Duration // how long a run stays Owner's without a renewal
	// OnExpired is told the runs of dead instances a beat finished (to
	// wake the streams following them); nil: nobody.
	OnExpired func(ctx context.Context, ids []K)
	Log       *slog.Logger
	// Ctx ends when grading stops: the heartbeat stops with it. WG counts
	// the heartbeat, so a shutdown can wait for it.
	Ctx context.Context
	WG  *sync.WaitGroup
}

// GradeLeases is the config of solo grade runs' leases in store, whose
// dead instances' runs are finished with the message expired.
func GradeLeases(store LeaseStore, expired string) LeasesConfig[int64] {
	return LeasesConfig[int64]{Renew: store.RenewGradeLeases,
		Expire: func(ctx context.Context) ([]int64, error) { return store.ExpireGradeLeases(ctx, expired) }}
}

// Leases keeps the leases of the runs one instance grades. It is safe for
// concurrent use.
type Leases[K comparable] struct {
	cfg LeasesConfig[K]

	mu      sync.Mutex
	runs    map[K]*Lease[K]
	beating bool // the heartbeat runs while runs has any: an idle instance writes nothing
}

// NewLeases makes an instance's lease keeper.
func NewLeases[K comparable](cfg LeasesConfig[K]) *Leases[K] {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Leases[K]{cfg: cfg, runs: map[K]*Lease[K]{}}
}

// Lease is one run's lease, held from Hold until Drop.
type Lease[K comparable] struct {
	id     K
	cancel context.CancelFunc
	// finishing: the grading has returned and its end is being recorded;
	// guarded by Leases.mu, which the heartbeat holds to cancel.
	finishing bool
	// taken: another instance took the run over (its grading was
	// cancelled for that); guarded by Leases.mu too.
	taken bool
}

// Hold keeps run id's lease renewed from now on; cancel stops its grading
// if another instance takes it over. The run must be recorded in the
// store, under this owner, before Hold.
func (ls *Leases[K]) Hold(id K, cancel context.CancelFunc) *Lease[K] {
	l := &Lease[K]{id: id, cancel: cancel}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.runs[id] = l
	if !ls.beating {
		ls.beating = true
		ls.cfg.WG.Add(1)
		go ls.heartbeat()
	}
	return l
}

// Finishing says the run's grading has returned: from now on the
// heartbeat leaves it alone, since once its end is recorded the store no
// longer renews it, which is not a takeover. It reports whether the run
// was taken over before.
func (ls *Leases[K]) Finishing(l *Lease[K]) (taken bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l.finishing = true
	return l.taken
}

// Drop forgets the run once its end is recorded.
func (ls *Leases[K]) Drop(l *Lease[K]) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.runs[l.id] == l {
		delete(ls.runs, l.id)
	}
}

// heartbeat beats every third of a lease while there are runs.
func (ls *Leases[K]) heartbeat() {
	defer ls.cfg.WG.Done()
	tick := time.NewTicker(ls.cfg.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ls.cfg.Ctx.Done():
			ls.mu.Lock()
			ls.beating = false
			ls.mu.Unlock()
			return
		case <-tick.C:
		}
		ls.Beat()
		ls.mu.Lock()
		if len(ls.runs) == 0 {
			ls.beating = false
			ls.mu.Unlock()
			return
		}
		ls.mu.Unlock()
	}
}

// Beat is one heartbeat: it renews the leases of this instance's runs,
// stops those another instance took over, and finishes dead instances'
// runs.
//
// Only runs held before the renewal and still grading can be found lost:
// a run held during the renewal was recorded too late for it, and a run
// whose end is being recorded is no longer running in the store. Neither
// is missing because another instance took it, and cancelling either
// would turn a good grading into a system error.
func (ls *Leases[K]) Beat() {
	// Half a lease: a renewal that takes longer than a beat still
	// counts, as long as it lands inside the lease.
	ctx, cancel := context.WithTimeout(ls.cfg.Ctx, ls.cfg.Lease/2)
	defer cancel()
	ls.mu.Lock()
	held := make([]K, 0, len(ls.runs))
	for id, l := range ls.runs {
		if !l.finishing {
			held = append(held, id)
		}
	}
	ls.mu.Unlock()
	renewed, err := ls.cfg.Renew(ctx, ls.cfg.Owner, ls.cfg.Lease)
	switch {
	case ls.cfg.Ctx.Err() != nil: // stopping: the beat was cut short, not failed
	case err != nil:
		ls.cfg.Log.Warn("grading: renewing the runs' leases failed", "err", err)
	default:
		ls.stopLost(held, renewed)
	}
	if ls.cfg.Expire == nil {
		return
	}
	if ids, err := ls.cfg.Expire(ctx); err != nil && ls.cfg.Ctx.Err() == nil {
		ls.cfg.Log.Warn("grading: finishing the runs of stopped instances failed", "err", err)
	} else if len(ids) > 0 {
		ls.cfg.Log.Info("grading: finished the runs of stopped instances", "runs", ids)
		if ls.cfg.OnExpired != nil {
			ls.cfg.OnExpired(ctx, ids)
		}
	}
}

// stopLost cancels the gradings of held runs that the renewal did not
// renew, unless their grading has ended meanwhile (the store keeps
// whichever end came first).
func (ls *Leases[K]) stopLost(held, renewed []K) {
	kept := make(map[K]bool, len(renewed))
	for _, id := range renewed {
		kept[id] = true
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, id := range held {
		l := ls.runs[id]
		if l == nil || l.finishing || kept[id] {
			continue
		}
		ls.cfg.Log.Warn("grading: a run was taken over by another instance; stopping its grading", "run", id)
		l.taken = true
		l.cancel()
	}
}

// Leased is one grading run under its lease, from Start until Done: the
// life a caller that records runs gives each (a web Grade).
type Leased[K comparable] struct {
	// Ctx is the grading's context: it ends after Start's timeout, when
	// grading stops (LeasesConfig.Ctx), or when another instance takes the
	// run over.
	Ctx    context.Context
	cancel context.CancelFunc
	ls     *Leases[K]
	lease  *Lease[K]
}

// Start holds run id's lease, recorded in the store under this owner, for
// a grading that may take timeout, and counts it in LeasesConfig.WG until
// Done, so a shutdown waits for its end to be recorded.
func (ls *Leases[K]) Start(id K, timeout time.Duration) *Leased[K] {
	ctx, cancel := context.WithTimeout(ls.cfg.Ctx, timeout)
	ls.cfg.WG.Add(1)
	return &Leased[K]{Ctx: ctx, cancel: cancel, ls: ls, lease: ls.Hold(id, cancel)}
}

// Finished says the grading has returned (see Finishing). It gives the
// context to record the run's end in, which Ctx's end does not end and
// within d, and whether another instance took the run over before: then
// the end that instance recorded stands.
func (r *Leased[K]) Finished(d time.Duration) (ctx context.Context, cancel context.CancelFunc, taken bool) {
	taken = r.ls.Finishing(r.lease)
	ctx, cancel = context.WithTimeout(context.WithoutCancel(r.Ctx), d)
	return ctx, cancel, taken
}

// Done forgets the run's lease and ends its context and its count, once
// its end is recorded (or left to the instance that took it over).
func (r *Leased[K]) Done() {
	r.ls.Drop(r.lease)
	r.cancel()
	r.ls.cfg.WG.Done()
}
