// A function value computed by a call, called with the results of
// another call: the interpreter crashed loading it, naming no line.
package computedcallresults

import "fmt"

func adder() func(int, int) int { return func(a, b int) int { return a + b } }

func pair() (int, int) { return 1, 2 }

func Main() {
	fmt.Println(adder()(pair())) // refused: a call of a function value computed by a call
}
