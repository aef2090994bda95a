// min and max of a type parameter's values inside a generic function (a
// strangers' file of 6 December was refused "undefined: min").
package genericminmax

import (
	"fmt"
	"time"
)

type Span interface{ ~int64 }

type ordered interface {
	~int | ~string | ~float64
}

func grow[T Span](base, ceiling T) T { return min(base*2, ceiling) }

func widest[T ordered](xs ...T) T {
	best := xs[0]
	for _, x := range xs[1:] {
		best = max(best, x)
	}
	return best
}

func clamp[N interface{ ~int | ~float64 }](v, lo, hi N) N { return max(lo, min(v, hi)) }

func Main() {
	fmt.Println(grow(3*time.Second, 5*time.Second), grow(time.Second, 5*time.Second))
	fmt.Println(widest(3, 9, 4), widest("b", "a", "c"))
	fmt.Println(clamp(12, 0, 10), clamp(-1.5, 0.0, 1.0), clamp(0.25, 0.0, 1.0))
}
