// Package embedded embeds interfaces in structs, the file's own and the
// allowed packages', and calls their methods directly, through an
// interface and from host code (fmt, sort): the interpreter panicked
// calling a method promoted from an embedded interface field of a struct
// with other fields (embeddedInterfaces gives the struct forwarding
// methods), and calling a method on a conversion to an interface
// (interfaceConversionCalls).
package embedded

import (
	"fmt"
	"sort"
	"strings"
)

type logger interface{ log(string) string }

type tagged interface {
	logger
	tag() string
}

type printer struct{ t string }

func (p printer) log(s string) string { return p.t + s }

func (p printer) tag() string { return "#" + p.t }

func (p printer) String() string { return "P" + p.t }

type fileFirst struct {
	logger
	n int
}

type fileSecond struct {
	n int
	logger
}

type nested struct {
	name string
	tagged
}

// own declares log itself: the embedded one is not promoted.
type own struct {
	logger
	n int
}

func (o own) log(s string) string { return "own " + s }

type hostFirst struct {
	fmt.Stringer
	n int
}

type hostSecond struct {
	n int
	fmt.Stringer
}

type rev struct {
	sort.Interface
	k int
}

func (r rev) Less(i, j int) bool { return r.Interface.Less(j, i) }

type holder struct {
	n int
	l logger
}

func (h holder) log(s string) string { return h.l.log(s) }

func try(name string, f func() string) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Println(name, "panics", r)
		}
	}()
	fmt.Println(name, f())
}

func Main() {
	p := printer{"t"}
	a := fileFirst{logger: p}
	try("file first direct", func() string { return a.log("1") })
	try("file first via iface", func() string { var l logger = a; return l.log("2") })
	b := &fileSecond{logger: p}
	try("file second via conversion", func() string { return logger(b).log("3") })
	try("file second direct", func() string { return b.log("4") })
	nt := nested{name: "n", tagged: p}
	try("nested", func() string { return nt.log("5") + nt.tag() })
	o := own{logger: p}
	try("own method", func() string { return o.log("6") + " " + o.logger.log("7") })
	c := hostFirst{Stringer: p}
	try("host first", func() string { return c.String() + fmt.Sprint(c) + strings.ToUpper(fmt.Sprintf("%s", c)) })
	d := hostSecond{Stringer: p}
	try("host second", func() string { return d.String() + fmt.Sprint(d) })
	xs := []int{1, 3, 2}
	sort.Sort(rev{Interface: sort.IntSlice(xs)})
	fmt.Println("reverse", xs)
	h := &holder{l: p}
	try("conversion then call", func() string { return logger(h).log("8") + (logger(*h)).log("9") })
	try("stringer conversion", func() string { return fmt.Stringer(p).String() })
}
