package faultsim

import (
	"math/rand"
	"reflect"
	"sync"
)

// newSource is math/rand's NewSource: the same generator in the same
// state, seeded faster. Submissions seed sources of their own per process
// (rand.New(rand.NewSource(time.Now().UnixNano())) at package level), so a
// grade of one seeds a source on every worker's load, and math/rand seeds
// by stepping a Lehmer generator 1,841 times in a row, each step waiting
// for the one before (about 10 µs): 8.7% of the CPU time of a grade of a
// kit's reference given such a source. Step k of that generator is the
// seed times 48271^k modulo 2^31-1, so with a table of the powers the steps
// do not wait for each other; the register is then filled as math/rand
// fills it. Where math/rand's source is not laid out as rngMirror (a later
// Go release), newSource is rand.NewSource.
func newSource(seed int64) rand.Source {
	seeding.once.Do(seeding.init)
	if seeding.typ == nil {
		return rand.NewSource(seed)
	}
	v := reflect.New(seeding.typ)
	seeding.fill((*rngMirror)(v.UnsafePointer()), seed)
	return v.Interface().(rand.Source)
}

// Constants of math/rand's source (math/rand/rng.go).
const (
	rngLen     = 607
	rngTap     = 273
	lehmerMod  = 1<<31 - 1 // int32max
	lehmerMult = 48271     // seedrand's A
	// rngSteps is how many steps of the Lehmer generator a seeding takes:
	// 20 discarded, then 3 for each word of the register.
	rngSteps = 20 + 3*rngLen
)

// rngMirror is math/rand's rngSource, field for field.
type rngMirror struct {
	tap  int           // index into vec
	feed int           // index into vec
	vec  [rngLen]int64 // the feedback register
}

type fastSeeding struct {
	once sync.Once
	typ  reflect.Type // math/rand's rngSource; nil if not as mirrored
	pow  [rngSteps + 1]uint64
	// cooked is math/rand's rngCooked (unexported): the register its
	// seeding gives for one seed, less what the generator's steps give.
	cooked [rngLen]int64
}

var seeding fastSeeding

func (f *fastSeeding) init() {
	src := rand.NewSource(1)
	t := reflect.TypeOf(src)
	if t.Kind() != reflect.Pointer || !mirrors(t.Elem()) {
		return
	}
	p := uint64(1)
	for k := range f.pow {
		f.pow[k] = p
		p = p * lehmerMult % lehmerMod
	}
	var mine rngMirror
	f.fill(&mine, 1) // with cooked all zero: the steps alone
	real := (*rngMirror)(reflect.ValueOf(src).UnsafePointer())
	for i := range f.cooked {
		f.cooked[i] = real.vec[i] ^ mine.vec[i]
	}
	f.typ = t.Elem()
}

// mirrors reports whether t, math/rand's source type, is laid out as
// rngMirror.
func mirrors(t reflect.Type) bool {
	m := reflect.TypeFor[rngMirror]()
	if t.Kind() != reflect.Struct || t.NumField() != m.NumField() || t.Size() != m.Size() {
		return false
	}
	for i := range t.NumField() {
		a, b := t.Field(i), m.Field(i)
		if a.Name != b.Name || a.Type != b.Type || a.Offset != b.Offset {
			return false
		}
	}
	return true
}

// fill seeds src as math/rand's (*rngSource).Seed does.
func (f *fastSeeding) fill(src *rngMirror, seed int64) {
	src.tap = 0
	src.feed = rngLen - rngTap
	seed %= lehmerMod
	if seed < 0 {
		seed += lehmerMod
	}
	if seed == 0 {
		seed = 89482311
	}
	// Step k of the generator from x (k from 1), as seedrand computes it,
	// is x*pow[k]; the register's word i takes steps 21+3i to 23+3i.
	x := uint64(seed)
	pow := f.pow[21:]
	for i := range src.vec {
		p := pow[3*i : 3*i+3 : 3*i+3]
		src.vec[i] = int64(mulMod(x, p[0])<<40^mulMod(x, p[1])<<20^mulMod(x, p[2])) ^ f.cooked[i]
	}
}

// mulMod is a*b modulo 2^31-1, for a and b below it.
func mulMod(a, b uint64) uint64 {
	p := a * b // below 2^62
	r := p&lehmerMod + p>>31
	r = r&lehmerMod + r>>31
	if r >= lehmerMod {
		r -= lehmerMod
	}
	return r
}
