package faultsim

// The engine's stand-ins for standard functions and types, which both
// routes give submitted code: the interpreter lays them over the standard
// symbols, and a native copy of the submission calls them instead of the
// standard ones. Each finds the calling worker through its slot (slots.go).

import (
	"fmt"
	"math/rand"
	"reflect"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// StandIns are the standard symbols the engine replaces for
// submitted code, by import path: locks the scheduler sees, math/rand
// drawn from the calling worker's seeded source, and the functions that
// start goroutines of their own carrying the caller's worker across. The
// interpreted route lays them over the standard symbols
// (internal/faultsim/interpreted); a native copy calls them through its
// stand-ins (internal/faultsim/native).
func StandIns(res Resolver) map[string]map[string]reflect.Value {
	syncSyms := map[string]reflect.Value{
		"Mutex":    reflect.ValueOf((*Mutex)(nil)),
		"RWMutex":  reflect.ValueOf((*RWMutex)(nil)),
		"Once":     reflect.ValueOf((*Once)(nil)),
		"OnceFunc": reflect.ValueOf(OnceFunc),
	}
	r := map[string]reflect.Value{}
	r["NewSource"] = reflect.ValueOf(newSource)
	r["Int"] = reflect.ValueOf(func() int { return draw(res, (*rand.Rand).Int) })
	r["Intn"] = reflect.ValueOf(func(n int) int { return draw(res, func(r *rand.Rand) int { return r.Intn(n) }) })
	r["Int31"] = reflect.ValueOf(func() int32 { return draw(res, (*rand.Rand).Int31) })
	r["Int31n"] = reflect.ValueOf(func(n int32) int32 { return draw(res, func(r *rand.Rand) int32 { return r.Int31n(n) }) })
	r["Int63"] = reflect.ValueOf(func() int64 { return draw(res, (*rand.Rand).Int63) })
	r["Int63n"] = reflect.ValueOf(func(n int64) int64 { return draw(res, func(r *rand.Rand) int64 { return r.Int63n(n) }) })
	r["Uint32"] = reflect.ValueOf(func() uint32 { return draw(res, (*rand.Rand).Uint32) })
	r["Uint64"] = reflect.ValueOf(func() uint64 { return draw(res, (*rand.Rand).Uint64) })
	r["Float64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).Float64) })
	r["Float32"] = reflect.ValueOf(func() float32 { return draw(res, (*rand.Rand).Float32) })
	r["ExpFloat64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).ExpFloat64) })
	r["NormFloat64"] = reflect.ValueOf(func() float64 { return draw(res, (*rand.Rand).NormFloat64) })
	r["Perm"] = reflect.ValueOf(func(n int) []int { return draw(res, func(r *rand.Rand) []int { return r.Perm(n) }) })
	r["Read"] = reflect.ValueOf(func(b []byte) (int, error) {
		return draw(res, func(r *rand.Rand) int { n, _ := r.Read(b); return n }), nil
	})
	r["Seed"] = reflect.ValueOf(func(seed int64) {
		s := res.must()
		draw(res, func(r *rand.Rand) int { r.Seed(seed ^ s.seed); return 0 })
	})
	// Shuffle's swap is interpreted code, which may draw numbers itself:
	// it runs outside the slot's lock.
	r["Shuffle"] = reflect.ValueOf(func(n int, swap func(i, j int)) {
		if n < 0 {
			panic("invalid argument to Shuffle")
		}
		for i := n - 1; i > 0; i-- {
			swap(i, draw(res, func(r *rand.Rand) int { return r.Intn(i + 1) }))
		}
	})
	return map[string]map[string]reflect.Value{
		"sync":      syncSyms,
		"math/rand": r,
		"time":      {"AfterFunc": reflect.ValueOf(res.afterFunc)},
		"context":   {"AfterFunc": reflect.ValueOf(res.contextAfterFunc)},
	}
}

// ResetState runs the package's initialisation for the worker whose load
// called it. A panic in it is the submission's, a load failure, as a panic
// of a package initialiser is on a fresh load.
func ResetState(reset func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &LoadError{[]gradewire.Diagnostic{{Message: "loading the code panicked in package initialisation: " + fmt.Sprint(v)}}}
		}
	}()
	reset()
	return nil
}
