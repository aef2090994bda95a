// Package loopvarchanged captures a loop variable that the body also
// changes: a per-iteration copy would not carry the change on.
package loopvarchanged

import "fmt"

func Main() {
	var fs []func() int
	for i := 0; i < 6; i++ {
		fs = append(fs, func() int { return i })
		i++ // refused: copy it first
	}
	fmt.Println(len(fs))
}
