// Package everyday2 holds more forms a candidate writes every day:
// struct map keys, sort.Interface, embedding with an atomic counter, a
// generic store over a struct key, context cancellation seen by a
// select, fallthrough, a pointer to a struct whose fields print through
// their String methods.
package everyday2

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

type Key struct {
	Tenant string
	ID     int
}

type Kind int

const (
	KA Kind = iota
	KB
)

func (k Kind) String() string { return [...]string{"A", "B"}[k] }

type Event struct {
	Key  Key
	Kind Kind
	At   time.Duration
}

type byAt []Event

func (b byAt) Len() int           { return len(b) }
func (b byAt) Less(i, j int) bool { return b[i].At < b[j].At }
func (b byAt) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

type Base struct{ name string }

func (b *Base) Name() string { return b.name }

type Worker struct {
	Base
	count atomic.Int64
}

type Namer interface{ Name() string }

type Store[K comparable, V any] struct{ m map[K]V }

func NewStore[K comparable, V any]() *Store[K, V] { return &Store[K, V]{m: map[K]V{}} }
func (s *Store[K, V]) Put(k K, v V)               { s.m[k] = v }
func (s *Store[K, V]) Get(k K) (V, bool)          { v, ok := s.m[k]; return v, ok }

func Max[T ~int | ~int64](xs ...T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

func worker(ctx context.Context, in <-chan int, out chan<- string) {
	for {
		select {
		case <-ctx.Done():
			out <- "stopped: " + ctx.Err().Error()
			return
		case v, ok := <-in:
			if !ok {
				out <- "closed"
				return
			}
			out <- fmt.Sprint("got ", v)
		}
	}
}

func Main() {
	m := map[Key]Kind{{"t", 1}: KB, {"t", 2}: KA}
	fmt.Println(m[Key{"t", 1}], len(m), m)
	evs := []Event{{Key{"a", 1}, KB, 3 * time.Second}, {Key{"b", 2}, KA, time.Second}}
	sort.Sort(byAt(evs))
	fmt.Println(evs[0], evs)
	fmt.Printf("%v %+v\n", &evs[0], evs[1])
	w := &Worker{Base: Base{"w1"}}
	w.count.Add(3)
	var n Namer = w
	fmt.Println(n.Name(), w.count.Load(), w.Name())
	s := NewStore[Key, Event]()
	s.Put(Key{"x", 1}, evs[0])
	e, ok := s.Get(Key{"x", 1})
	_, ok2 := s.Get(Key{"y", 1})
	fmt.Println(e.Kind, ok, ok2, Max(time.Duration(3), 9, 4), Max[Kind](KA, KB))
	var a, b any = Key{"t", 1}, Key{"t", 1}
	var k1, k2 fmt.Stringer = KA, KA
	fmt.Println(a == b, k1 == k2, k1 != fmt.Stringer(KB))
	ctx, cancel := context.WithCancel(context.Background())
	in, out := make(chan int), make(chan string)
	go worker(ctx, in, out)
	in <- 1
	fmt.Println(<-out)
	cancel()
	fmt.Println(<-out, errors.Is(ctx.Err(), context.Canceled))
	var sb strings.Builder
	switch k := KB; k {
	case KA:
		sb.WriteString("a")
		fallthrough
	case KB:
		sb.WriteString("b")
		fallthrough
	default:
		sb.WriteString("!")
	}
	fmt.Println(sb.String(), fmt.Errorf("event %v: %w", evs[0].Kind, context.DeadlineExceeded))
	ptrs := []*Event{&evs[0], &evs[1]}
	for _, p := range ptrs {
		p.At += time.Minute
	}
	fmt.Println(evs[0].At, evs[1].At)
}
