// Command testsummary reads `go test -json` on standard input and prints
// what a person running the tests needs to see: go test's own ok/FAIL line
// per package, the full output of every failure (build errors, failed and
// unfinished tests, a package that failed outside any test), then every
// skipped test with its reason, the line "N passed, N failed, N skipped"
// and how long it took. Passing tests stay quiet. It exits 1 when anything
// failed, or when the stream held no result at all (go test never ran).
//
// The repository's ./test script runs it; see the README.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	trim := flag.String("trim", "", "a prefix to drop from package paths (the module path and a slash)")
	flag.Parse()
	start := time.Now()
	s := newSummary(os.Stdout, *trim)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	s.finish(time.Since(start))
	if !s.ok() {
		os.Exit(1)
	}
}
