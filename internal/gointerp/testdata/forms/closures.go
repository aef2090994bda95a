// Package closures holds closures and goroutines capturing loop variables:
// Go 1.22 gives each iteration its own variable.
package closures

import (
	"fmt"
	"sort"
	"sync"
)

func Main() {
	{
		var fs []func() int
		for i := 0; i < 3; i++ {
			fs = append(fs, func() int { return i })
		}
		for _, f := range fs {
			fmt.Print(f(), " ")
		}
		fmt.Println("<- three-clause")
	}
	{
		var fs []func() string
		for k, v := range []string{"a", "b", "c"} {
			fs = append(fs, func() string { return fmt.Sprint(k, v) })
		}
		for _, f := range fs {
			fmt.Print(f(), " ")
		}
		fmt.Println("<- range")
	}
	{
		var mu sync.Mutex
		var wg sync.WaitGroup
		var got []int
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				got = append(got, i)
				mu.Unlock()
			}()
		}
		wg.Wait()
		sort.Ints(got)
		fmt.Println("goroutines:", got)
	}
	{
		var fs []func() int
		for i := 0; i < 6; i += 2 {
			fs = append(fs, func() int { return i * 10 })
		}
		fmt.Println("step 2:", fs[0](), fs[1](), fs[2]())
	}
	{
		counter := 0
		inc := func() int { counter++; return counter }
		inc()
		inc()
		fmt.Println("captured outer:", counter)
	}
	{
		var fs []func() int
		for i := 0; i < 3; i++ {
			j := i * 2
			fs = append(fs, func() int { return j })
		}
		fmt.Println("inner variable:", fs[0](), fs[1](), fs[2]())
	}
	{
		var fs []func() int
		for i, n := 0, 10; i < 3; i++ {
			fs = append(fs, func() int { return i + n })
		}
		fmt.Println("two loop vars:", fs[0](), fs[1](), fs[2]())
	}
	{
		adders := map[string]func(int) int{}
		for _, name := range []string{"one", "two"} {
			n := len(name)
			adders[name] = func(x int) int { return x + n }
		}
		fmt.Println("func values:", adders["one"](1), adders["two"](2))
	}
	{
		fib := func() func() int {
			a, b := 0, 1
			return func() int { a, b = b, a+b; return a }
		}()
		fib()
		fib()
		fmt.Println("generator:", fib(), fib())
	}
}
