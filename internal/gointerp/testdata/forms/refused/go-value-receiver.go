// Package govaluereceiver starts a goroutine on a value-receiver method of
// a variable it changes afterwards: Go copies the receiver at the go
// statement.
package govaluereceiver

import (
	"fmt"
	"sync"
)

type S struct{ n int }

func (s S) Show(wg *sync.WaitGroup, out *int) { *out = s.n; wg.Done() }

func Main() {
	var wg sync.WaitGroup
	var got int
	s := S{1}
	wg.Add(1)
	go s.Show(&wg, &got) // refused: reads s when Show runs
	s.n = 2
	wg.Wait()
	fmt.Println(got)
}
