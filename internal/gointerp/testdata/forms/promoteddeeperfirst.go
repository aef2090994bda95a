// Package promoteddeeperfirst selects fields and methods promoted at two
// depths, the deeper through the field declared first, where Go picks
// the shallowest and the interpreter took the deeper one: the selector is
// written out with the embedded fields Go goes through. (Go's
// fixedbugs/bug253.go was refused for this.)
package promoteddeeperfirst

import "fmt"

type embedded string

func (s embedded) val() string { return string(s) }

type A struct{ embedded }

type B struct {
	A
	embedded
}

type S1 struct{ i int }
type S2 struct{ i int }
type S3 struct {
	S1
	S2
}
type S4 struct {
	S3
	S1
}

type P struct {
	*S3
	*S1
}

func (s *S1) bump() { s.i++ }

func Main() {
	b := B{A: A{embedded: "a"}, embedded: "b"}
	fmt.Println(b.val())
	pb := &b
	fmt.Println(pb.val(), pb.embedded)
	var s4 S4
	s4.S1.i = 7
	s4.S3.S1.i = 3
	fmt.Println(s4.i)
	s4.i = 9
	s4.i++
	s4.bump()
	fmt.Println(s4.i, s4.S3.S1.i, s4.S1.i)
	p := P{&S3{}, &S1{i: 4}}
	p.bump()
	fmt.Println(p.i, p.S3.S1.i)
}
