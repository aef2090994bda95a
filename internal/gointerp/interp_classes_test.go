package gointerp

import (
	"bytes"
	"context"
	"errors"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// shop is a host package for the tests below, standing for a kit's
// harness: an interface whose methods the file does not show, a struct,
// and functions that return them.
type shopStore interface {
	Get(ctx context.Context, id string) (shopItem, error)
	Put(ctx context.Context, item shopItem) error
}

type shopItem struct {
	ID    string
	Price int64
	Wait  time.Duration
}

type mapShop struct{ items map[string]shopItem }

func (m *mapShop) Get(_ context.Context, id string) (shopItem, error) {
	it, ok := m.items[id]
	if !ok {
		return shopItem{}, errors.New("shop: no " + id)
	}
	return it, nil
}

func (m *mapShop) Put(_ context.Context, it shopItem) error { m.items[it.ID] = it; return nil }

const shopPath = "faultline.test/shop"

var shopSymbols = interp.Exports{shopPath + "/shop": {
	"Store":    reflect.ValueOf((*shopStore)(nil)),
	"Item":     reflect.ValueOf((*shopItem)(nil)),
	"NewStore": reflect.ValueOf(func() shopStore { return &mapShop{items: map[string]shopItem{}} }),
	"Backoff":  reflect.ValueOf(func(n int) time.Duration { return time.Duration(n) * time.Second }),
	"Find":     reflect.ValueOf(func(_ context.Context, id string) (*shopItem, error) { return &shopItem{ID: id}, nil }),
}}

// TestHarnessForms runs, with a harness, forms that the interpreter failed
// on and the rewrites now make run: each program's output is the one the
// same program gives compiled (worked out by hand from Go's rules, as the
// harness here is not a package the go tool can build).
func TestHarnessForms(t *testing.T) {
	RegisterHostSymbols(shopSymbols)
	tests := []struct{ name, src, want string }{
		{"lock beside the harness interface", `package p

import (
	"context"
	"fmt"
	"sync"

	"faultline.test/shop"
)

type guarded struct {
	sync.Mutex
	shop.Store
	puts int
}

func (g *guarded) put(ctx context.Context, id string, price int64) error {
	g.Lock()
	defer g.Unlock()
	g.puts++
	return g.Put(ctx, shop.Item{ID: id, Price: price})
}

func Main() {
	ctx := context.Background()
	g := &guarded{Store: shop.NewStore()}
	fmt.Println(g.put(ctx, "a", 5), g.puts)
	it, err := g.Get(ctx, "a")
	fmt.Println(it.Price, err)
	_, err = g.Get(ctx, "b")
	fmt.Println(err)
}
`, "<nil> 1\n5 <nil>\nshop: no b\n"},
		{"positional literal of harness results", `package p

import (
	"context"
	"fmt"

	"faultline.test/shop"
)

type fetched struct {
	item shop.Item
	err  error
}

func Main() {
	ctx := context.Background()
	s := shop.NewStore()
	_ = s.Put(ctx, shop.Item{"x", 3, 0})
	it, err := s.Get(ctx, "x")
	f := fetched{it, err}
	all := []fetched{{it, err}, f}
	fmt.Println(f.item.Price, f.err, len(all), all[0].item.ID)
}
`, "3 <nil> 2 x\n"},
		{"generic over a harness duration", `package p

import (
	"fmt"
	"time"

	"faultline.test/shop"
)

func capAt[T ~int64](v, hi T) T {
	if v > hi {
		return hi
	}
	return v
}

func Main() {
	var waits []time.Duration
	for n := range 6 {
		w := capAt(shop.Backoff(1<<n), 10*time.Second)
		waits = append(waits, min(w, 8*time.Second))
	}
	fmt.Println(waits)
}
`, "[1s 2s 4s 8s 8s 8s]\n"},
		{"iterator over harness items", `package p

import (
	"context"
	"fmt"

	"faultline.test/shop"
)

func items(ctx context.Context, s shop.Store, ids ...string) func(yield func(shop.Item, error) bool) {
	return func(yield func(shop.Item, error) bool) {
		for _, id := range ids {
			if !yield(s.Get(ctx, id)) {
				return
			}
		}
	}
}

func firstMissing(ctx context.Context, s shop.Store) (string, error) {
	for it, err := range items(ctx, s, "a", "b", "c") {
		if err != nil {
			return "missing after " + it.ID, err
		}
	}
	return "", nil
}

func Main() {
	ctx := context.Background()
	s := shop.NewStore()
	_ = s.Put(ctx, shop.Item{ID: "a"})
	fmt.Println(firstMissing(ctx, s))
}
`, "missing after  shop: no b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, diags := ParseSource("p.go", tt.src, []string{shopPath})
			if diags != nil {
				t.Fatalf("refused: %v", diags)
			}
			var out bytes.Buffer
			i, err := NewInterpreter(InterpreterOptions{Stdout: &out, Packages: shopSymbols})
			if err != nil {
				t.Fatal(err)
			}
			if diags := Eval(i, src); diags != nil {
				t.Fatalf("does not load: %v\n%s", diags, src.Text)
			}
			v, err := i.Eval("p.Main")
			if err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v\n%s", r, src.Text)
					}
				}()
				v.Interface().(func())()
			}()
			if out.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}

// TestAllRefusalsAtOnce: a file with several forms the interpreter cannot
// run faithfully is refused for all of them in one answer, in line order,
// each at its line.
func TestAllRefusalsAtOnce(t *testing.T) {
	src := `package p

import "fmt"

type T struct{ n int }

func (t T) Get() int { return t.n }

func seq(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func Main() {
	f := T.Get
	for i := 0; i < 3; i++ {
		defer fmt.Println(i)
	}
	for v := range seq {
		if v == 1 {
			goto end
		}
	}
end:
	fmt.Println(f(T{1}))
}
`
	_, diags := ParseSource("p.go", src, nil)
	want := []struct {
		line  int
		words string
	}{
		{18, "method expressions"},
		{20, "defer inside a loop"},
		{24, "goto end inside a range over a function"},
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d refusals, want %d: %v", len(diags), len(want), diags)
	}
	for k, w := range want {
		if diags[k].Line != w.line || !strings.Contains(diags[k].Message, w.words) {
			t.Errorf("refusal %d is %s; want line %d saying %q", k+1, diags[k], w.line, w.words)
		}
	}
}

// TestNoTypeCheckWithoutTheForms: the rewrites of interp_classes.go, and
// the type check they start, run only for a file that has one of their
// forms. (The typed rewrites of interp_typed.go start the same check for a
// file that compares two non-nil values or switches on one.)
func TestNoTypeCheckWithoutTheForms(t *testing.T) {
	for _, tt := range []struct {
		src  string
		need bool
	}{
		{"package p\nfunc F(xs []int) { for range xs {} }\n", false},
		{"package p\nfunc F(m map[string]int) { for k := range m { _ = k } ; for range \"ab\" {} }\n", false},
		{"package p\nfunc F() { xs := make([]int, 3); for range xs {} }\n", false},
		{"package p\nfunc F(n int) { for range n {} }\n", true},
		{"package p\nconst n = 3\nfunc F() { m := n; for range m {} }\n", true},
		{"package p\nfunc F(a, b int) int { return min(a, b) }\n", true},
		{"package p\nfunc F[T any](x T) T { return x }\n", true},
		{"package p\nimport \"sync\"\ntype s struct{ sync.Mutex }\n", true},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		rw := &rewriter{fset: fset, file: f, text: tt.src}
		if got := rw.mayNeedTypes(); got != tt.need {
			t.Errorf("mayNeedTypes = %v for %q", got, tt.src)
		}
	}
}

// TestCompilerPanicNamesItsFunction: a panic of the interpreter's own
// compiler with no position (here a range over a function, as it was
// before the rewrite) is said to be the interpreter's, at the line of the
// function whose body makes the compiler fail.
func TestCompilerPanicNamesItsFunction(t *testing.T) {
	text := `package p

func seq(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func Sum() int {
	s := 0
	for v := range seq {
		s += v
	}
	return s
}
`
	src, diags := ParseSource("p.go", "package p\n", nil)
	if diags != nil {
		t.Fatal(diags)
	}
	src.Text, src.original, src.edits = text, text, nil // as if no rewrite had run
	d := lineOfCompilerPanic(src, "nil type")
	if d.Line != 11 || !strings.Contains(d.Message, "failed to compile Sum") || !strings.Contains(d.Message, "not an error in your code") {
		t.Errorf("got %s", d)
	}
	if d := lineOfCompilerPanic(src, "boom"); d.Line != 0 || !strings.Contains(d.Message, "package initialisation): boom") {
		t.Errorf("a panic that is not the compiler's: got %s", d)
	}
}
