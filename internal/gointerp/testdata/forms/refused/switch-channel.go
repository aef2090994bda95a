// Package switchchannel switches on a channel with a case of another
// direction.
package switchchannel

import "fmt"

func Main() {
	ch1 := make(chan struct{})
	var ch2 <-chan struct{} = ch1
	switch ch2 { // refused: a switch on a channel
	case ch1:
		fmt.Println("same")
	default:
		fmt.Println("different")
	}
}
