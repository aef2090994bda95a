// Package ranges holds range loops with outer variables and every kind of
// range expression.
package ranges

import (
	"fmt"
	"sort"
)

func Main() {
	{
		var k, v int
		for k, v = range []int{5, 6, 7} {
		}
		fmt.Println("slice assign:", k, v)
	}
	{
		var k string
		var v int
		for k, v = range map[string]int{"a": 1} {
		}
		fmt.Println("map assign:", k, v)
	}
	{
		var k int
		for k = range []int{5, 6, 7} {
		}
		fmt.Println("key assign:", k)
	}
	{
		var v int
		for _, v = range []int{5, 6, 8} {
			if v == 6 {
				break
			}
		}
		fmt.Println("value assign with break:", v)
	}
	{
		ch := make(chan int, 3)
		ch <- 1
		ch <- 2
		close(ch)
		var v int
		for v = range ch {
		}
		fmt.Println("channel assign:", v)
	}
	{
		var i int
		var r rune
		for i, r = range "héllo" {
		}
		fmt.Println("string assign:", i, string(r))
	}
	{
		var st struct{ k, v int }
		for st.k, st.v = range []int{3, 4} {
		}
		fmt.Println("field assign:", st.k, st.v)
	}
	{
		m := map[string]int{"x": 1, "y": 2, "z": 3}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Println("map keys:", keys)
	}
	{
		arr := [3]int{1, 2, 3}
		for i, v := range arr {
			arr[2] = 10
			if i == 2 {
				fmt.Println("array copy:", v)
			}
		}
		s := []int{1, 2, 3}
		for i, v := range s {
			s[2] = 10
			if i == 2 {
				fmt.Println("slice shared:", v)
			}
		}
	}
	{
		total := 0
		for i := range []struct{}{{}, {}, {}} {
			total += i
		}
		fmt.Println("index only:", total)
	}
	{
		var ptrs []*int
		for _, v := range []int{1, 2, 3} {
			ptrs = append(ptrs, &v)
		}
		fmt.Println("address per iteration:", *ptrs[0], *ptrs[1], *ptrs[2])
	}
}
