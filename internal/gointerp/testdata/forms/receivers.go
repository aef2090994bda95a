// Package receivers calls methods on variables whose type the syntax
// tells (receivers, parameters, var x T, x := &T{}), the calls the grader
// turns into plain function calls for speed (directMethodCalls): pointer
// and value receivers crossed both ways, variadic and named results,
// recursion, shadowed names, defers, goroutines, closures, embedding,
// interfaces and method values, which must all still mean what Go says.
package receivers

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

type tally struct {
	n    int
	log  []string
	seen map[string]bool
}

func (t *tally) add(k int) *tally { t.n += k; return t }

func (t *tally) note(format string, args ...any) {
	t.log = append(t.log, fmt.Sprintf(format, args...))
}

// snapshot has a value receiver: calling it copies the tally.
func (t tally) snapshot() tally { t.n *= 100; return t }

func (t tally) total() int { return t.n }

func (t *tally) both() (before, after int) {
	before = t.total()
	s := t.snapshot()
	after = s.total()
	t.note("both %d %d", before, after)
	return
}

func (t *tally) countdown(k int) int {
	if k == 0 {
		return 0
	}
	t.add(1)
	return 1 + t.countdown(k-1)
}

func (t *tally) shadowed() string {
	t.add(1)
	{
		t := &tally{n: 1000}
		t.add(1)
		t.note("inner")
		return fmt.Sprint(t.n, len(t.log))
	}
}

func (t *tally) deferred() (out string) {
	defer t.note("deferred at %d", t.n)
	defer func() { out += fmt.Sprint(" after ", t.total()) }()
	t.add(5)
	return fmt.Sprint("before ", t.total())
}

func (t *tally) parallel() int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			t.add(i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return t.total()
}

func (t *tally) pair() (int, int) { return t.n, len(t.log) }

func (t *tally) sum(a, b int) int { return a + b + t.n }

func (t *tally) multi() int {
	// A call whose only argument is a call giving two values.
	return t.sum(t.pair())
}

type level int

func (l level) String() string { return strings.Repeat("*", int(l)) }

func (l level) up() level { return l + 1 }

func (l *level) bump() { *l = l.up() }

type named struct {
	tally
	name string
}

func (n *named) describe() string {
	n.add(2)
	return n.name + "=" + fmt.Sprint(n.total())
}

type adder interface{ add(k int) *tally }

var errEmpty = errors.New("empty")

type box struct{ items []string }

func (b *box) push(s ...string) { b.items = append(b.items, s...) }

func (b *box) pop() (string, error) {
	if len(b.items) == 0 {
		return "", errEmpty
	}
	s := b.items[len(b.items)-1]
	b.items = b.items[:len(b.items)-1]
	return s, nil
}

func (b *box) drain() []string {
	var out []string
	for {
		s, err := b.pop()
		if err != nil {
			out = append(out, err.Error())
			return out
		}
		out = append(out, s)
	}
}

func (*box) label() string { return "box" }

func (b box) size() int { return len(b.items) }

func use(t *tally, v tally) (int, int) {
	t.add(1)
	return t.total(), v.total()
}

func Main() {
	t := &tally{seen: map[string]bool{}}
	fmt.Println("add", t.add(2).add(3).n)
	fmt.Println("both")
	fmt.Println(t.both())
	fmt.Println("countdown", t.countdown(4), t.n)
	fmt.Println("shadowed", t.shadowed(), t.n, len(t.log))
	fmt.Println("deferred", t.deferred(), t.log[len(t.log)-1])
	fmt.Println("parallel", t.parallel())
	fmt.Println("multi", t.multi())

	var v tally
	v.add(7)
	s := v.snapshot()
	fmt.Println("value", v.total(), s.total(), v.n)
	fmt.Println("use", fmt.Sprint(use(t, v)))

	var l level = 2
	l.bump()
	p := &l
	p.bump()
	fmt.Println("level", l, p.up(), l.String())

	n := &named{name: "n"}
	fmt.Println("embedded", n.describe(), n.total())

	var a adder = t
	fmt.Println("interface", a.add(1).n)
	f := t.add
	f(10)
	g := t.pair
	first, _ := g()
	fmt.Println("method values", t.n, first)

	b := &box{}
	b.push("a", "b")
	b.push([]string{"c", "d"}...)
	fmt.Println("box", b.size(), b.label(), b.drain(), b.size())
	var bb box
	bb.push("x")
	fmt.Println("box value", bb.size(), strings.Join(bb.drain(), ","))

	c := tally{}
	func() {
		c.add(4)
		c.note("closure")
	}()
	fmt.Println("closure", c.total(), c.log)
}
