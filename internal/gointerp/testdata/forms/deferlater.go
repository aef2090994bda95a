// Package deferlater defers, in function literals (a goroutine's body, a
// closure run in place), calls of functions and methods declared further
// down the file, which the interpreter never ran; the receiver and the
// arguments are those of the defer statement.
package deferlater

import (
	"fmt"
	"sync"
)

type closer struct {
	name string
	out  *[]string
}

type counter struct{ n int }

func Main() {
	var out []string
	for _, name := range []string{"a", "b"} {
		func() {
			c := closer{name, &out}
			defer c.Close()
			out = append(out, "use "+name)
		}()
	}
	fmt.Println(out)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var done []int
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer finish(&mu, &done, i*10)
		}()
	}
	wg.Wait()
	fmt.Println(len(done), done[0]+done[1]+done[2])
	c := counter{1}
	func() {
		defer c.show("value at the defer")
		defer c.bump(5)
		c.n = 7
	}()
	fmt.Println("after", c.n)
}

func (c closer) Close() error { *c.out = append(*c.out, "close "+c.name); return nil }

func finish(mu *sync.Mutex, done *[]int, v int) {
	mu.Lock()
	defer mu.Unlock()
	*done = append(*done, v)
}

func (c counter) show(s string) { fmt.Println(s, c.n) }

func (c *counter) bump(by int) { c.n += by }
