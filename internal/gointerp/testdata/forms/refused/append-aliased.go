// Package appendaliased appends to a reslice values read from the slice
// itself: the interpreter stores the first before it reads the second.
package appendaliased

import "fmt"

func Main() {
	s := make([]byte, 5, 6)
	copy(s, "12346")
	s = append(s[:len(s)-1], '5', s[len(s)-1]) // refused: stores each value append adds before it reads the next
	fmt.Println(string(s))
}
