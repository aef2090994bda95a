// Package methods holds method values and expressions, embedding,
// interfaces and type switches.
package methods

import (
	"errors"
	"fmt"
	"strings"
)

type counter struct{ n int }

func (c *counter) Inc() int      { c.n++; return c.n }
func (c counter) Value() int     { return c.n }
func (c counter) String() string { return fmt.Sprintf("counter(%d)", c.n) }

type named struct {
	counter
	name string
}

type Stepper interface{ Inc() int }

type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprintf("code %d", e.code) }

var errBase = errors.New("base")

func classify(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int, int64:
		return fmt.Sprintf("integer %v", x)
	case string:
		return "string " + x
	default:
		return fmt.Sprintf("other %T", x)
	}
}

func Main() {
	c := &counter{}
	inc := c.Inc
	inc()
	inc()
	fmt.Println("method value:", c.n)
	c.Inc()
	c.Inc()

	n := &named{name: "x"}
	n.Inc()
	n.counter.Inc()
	var s Stepper = n
	s.Inc()
	fmt.Println("embedding:", n.n, n.Value(), n.name)

	fmt.Println(classify(nil), "|", classify(3), "|", classify(int64(4)), "|", classify("s"), "|",
		classify(2.5))

	err2 := fmt.Errorf("ctx: %w", errBase)
	fmt.Println("errors.Is:", errors.Is(err2, errBase), errors.Unwrap(err2) == errBase)
	joined := errors.Join(errBase, errors.New("other"))
	fmt.Println("errors.Join:", errors.Is(joined, errBase), strings.Count(joined.Error(), "\n"))

	var st Stepper
	if _, ok := st.(*counter); !ok {
		fmt.Println("nil interface assertion fails")
	}
	st = c
	if cc, ok := st.(*counter); ok {
		fmt.Println("assertion:", cc.n)
	}

	funcs := []func() int{c.Inc, n.Inc}
	fmt.Println("method values in slice:", funcs[0](), funcs[1]())
}
