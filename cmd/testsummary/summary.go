package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (see `go doc test2json`). Build
// output comes with ImportPath instead of Package.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// testKey names one test or subtest of one package.
type testKey struct{ pkg, test string }

// skipped is a skipped test and why.
type skipped struct {
	testKey
	reason string
}

// summary accumulates the stream and prints as it goes.
type summary struct {
	w     io.Writer
	trim  string
	out   map[testKey][]string // output of tests still running; pkg-level output under test ""
	build map[string][]string  // build output per ImportPath
	// running lists the tests started and not ended, per package, in order.
	running map[string][]string
	results int // package results seen

	passed, failed int
	skips          []skipped
	failures       []string // what failed, in order, for the closing list
}

func newSummary(w io.Writer, trim string) *summary {
	return &summary{w: w, trim: trim, out: map[testKey][]string{}, build: map[string][]string{},
		running: map[string][]string{}}
}

// maxLine bounds one line of the stream: a test may print a long line,
// and a line that does not fit is an error rather than a silent cut.
const maxLine = 64 << 20

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (go's own messages if stderr is merged): pass
			// it through rather than lose it.
			fmt.Fprintf(s.w, "%s\n", line)
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading go test -json: %w", err)
	}
	return nil
}

func (s *summary) pkg(p string) string { return strings.TrimPrefix(p, s.trim) }

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		s.print(s.build[e.ImportPath])
		delete(s.build, e.ImportPath)
		return
	}
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "run":
		s.running[e.Package] = append(s.running[e.Package], e.Test)
	case "output":
		s.out[k] = append(s.out[k], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.packageDone(e)
			return
		}
		s.testDone(k, e.Action)
	}
}

func (s *summary) testDone(k testKey, action string) {
	out := s.out[k]
	delete(s.out, k)
	s.forget(k)
	switch action {
	case "pass":
		s.passed++
	case "fail":
		s.failed++
		s.failures = append(s.failures, s.pkg(k.pkg)+" "+k.test)
		s.print(out)
	case "skip":
		s.skips = append(s.skips, skipped{k, skipReason(out)})
	}
}

// forget drops k from its package's running tests.
func (s *summary) forget(k testKey) {
	names := s.running[k.pkg]
	for i, n := range names {
		if n == k.test {
			s.running[k.pkg] = append(names[:i], names[i+1:]...)
			return
		}
	}
}

// packageDone ends a package. A test that started and never ended was cut
// off (a timeout's panic, a crash): it failed, with what it printed. A
// package that failed with no test failing (a build failure, TestMain
// exiting non-zero) counts as one failure, shown with its own output.
func (s *summary) packageDone(e event) {
	s.results++
	pkgOut := s.out[testKey{e.Package, ""}]
	delete(s.out, testKey{e.Package, ""})
	failedBefore := s.failed
	unfinished := s.running[e.Package]
	for _, name := range unfinished {
		k := testKey{e.Package, name}
		s.print(s.out[k])
		delete(s.out, k)
		// A test cut off is counted once, not again for each subtest
		// that was cut off inside it (a timeout stops them all).
		if slices.Contains(unfinished, parent(name)) {
			continue
		}
		s.failed++
		what := " (did not finish)"
		if n := subtestsOf(unfinished, name); n > 0 {
			what = fmt.Sprintf(" (did not finish, nor %d of its subtests)", n)
		}
		s.failures = append(s.failures, s.pkg(e.Package)+" "+name+what)
	}
	delete(s.running, e.Package)
	switch {
	case e.Action == "fail" && e.FailedBuild != "":
		s.failed++
		s.failures = append(s.failures, s.pkg(e.Package)+" (build failed)")
		s.print(pkgOut)
	case e.Action == "fail" && s.failed == failedBefore && !s.failedTestIn(e.Package):
		s.failed++
		s.failures = append(s.failures, s.pkg(e.Package)+" (failed outside any test)")
		s.print(pkgOut)
	case e.Action == "fail":
		s.print(pkgOut)
	default:
		// A passing package shows only go test's closing line.
		for _, line := range pkgOut {
			if strings.HasPrefix(line, "ok  ") || strings.HasPrefix(line, "?   ") {
				s.print([]string{line})
			}
		}
	}
}

// parent is the test a subtest runs in; "" for a top-level test.
func parent(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}

// subtestsOf counts the names in names that run inside name.
func subtestsOf(names []string, name string) int {
	n := 0
	for _, other := range names {
		if strings.HasPrefix(other, name+"/") {
			n++
		}
	}
	return n
}

// failedTestIn reports whether a test of pkg failed earlier in the stream.
func (s *summary) failedTestIn(pkg string) bool {
	prefix := s.pkg(pkg) + " "
	for _, f := range s.failures {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func (s *summary) print(lines []string) {
	for _, l := range lines {
		io.WriteString(s.w, l)
	}
}

// skipReason is what a skipped test printed, less the framework's lines.
func skipReason(out []string) string {
	var parts []string
	for _, l := range out {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "no reason given"
	}
	return strings.Join(parts, " ")
}

// finish prints the closing report.
func (s *summary) finish(took time.Duration) {
	fmt.Fprintln(s.w)
	if len(s.skips) > 0 {
		sort.SliceStable(s.skips, func(i, j int) bool { return s.skips[i].pkg < s.skips[j].pkg })
		fmt.Fprintf(s.w, "Skipped (%d):\n", len(s.skips))
		for _, sk := range s.skips {
			fmt.Fprintf(s.w, "  %s %s: %s\n", s.pkg(sk.pkg), sk.test, sk.reason)
		}
	}
	if len(s.failures) > 0 {
		fmt.Fprintf(s.w, "Failed (%d):\n", len(s.failures))
		for _, f := range s.failures {
			fmt.Fprintf(s.w, "  %s\n", f)
		}
	}
	if s.results == 0 {
		fmt.Fprintln(s.w, "No package reported a result: go test did not run (see its messages above).")
	}
	fmt.Fprintf(s.w, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, len(s.skips))
	fmt.Fprintf(s.w, "took %s\n", took.Round(time.Second))
}

func (s *summary) ok() bool { return s.failed == 0 && s.results > 0 }
