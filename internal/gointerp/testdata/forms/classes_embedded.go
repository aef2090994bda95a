// Package classes_embedded embeds a lock beside an interface in one
// struct: the interpreter panicked ("invalid interface value") calling the
// interface's promoted methods, for want of forwarders it did not dare
// write while the lock's methods were unknown.
package classes_embedded

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

type store interface {
	Get(id string) (string, error)
	Put(id, v string) error
}

type mapStore struct{ m map[string]string }

func (s *mapStore) Get(id string) (string, error) {
	v, ok := s.m[id]
	if !ok {
		return "", errors.New("no " + id)
	}
	return v, nil
}

func (s *mapStore) Put(id, v string) error { s.m[id] = v; return nil }

type guarded struct {
	sync.Mutex
	store
	writes int
}

func (g *guarded) save(id, v string) error {
	g.Lock()
	defer g.Unlock()
	g.writes++
	return g.Put(id, v)
}

type named struct {
	sync.RWMutex
	fmt.Stringer
}

type label string

func (l label) String() string { return "label " + string(l) }

type sorted struct {
	mu sync.Mutex
	sync.Once
	sort.Interface
}

func Main() {
	g := &guarded{store: &mapStore{m: map[string]string{}}}
	fmt.Println(g.save("a", "1"), g.save("b", "2"), g.writes)
	v, err := g.Get("a")
	fmt.Println(v, err)
	_, err = g.Get("z")
	fmt.Println(err)
	var s store = g
	fmt.Println(s.Get("b"))
	n := named{Stringer: label("x")}
	n.RLock()
	fmt.Println(n.String())
	n.RUnlock()
	fmt.Println(n)
	xs := sort.StringSlice{"c", "a", "b"}
	so := &sorted{Interface: xs}
	so.Do(func() { sort.Sort(so) })
	fmt.Println(strings.Join(xs, ","), so.Len())
}
