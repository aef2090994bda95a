package main

import (
	"strings"
	"testing"
	"time"
)

// Each stream is what `go test -json` printed for a small module made to
// show the case (trimmed of Time and Elapsed, which the summary ignores).
const (
	passing = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestPass"}
{"Action":"output","Package":"m/a","Test":"TestPass","Output":"=== RUN   TestPass\n"}
{"Action":"output","Package":"m/a","Test":"TestPass","Output":"    a_test.go:3: QUIET-LOG\n"}
{"Action":"output","Package":"m/a","Test":"TestPass","Output":"--- PASS: TestPass (0.00s)\n"}
{"Action":"pass","Package":"m/a","Test":"TestPass"}
{"Action":"output","Package":"m/a","Output":"PASS\n"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t0.007s\n"}
{"Action":"pass","Package":"m/a"}
`
	failing = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestFail"}
{"Action":"output","Package":"m/a","Test":"TestFail","Output":"=== RUN   TestFail\n"}
{"Action":"run","Package":"m/a","Test":"TestFail/sub"}
{"Action":"output","Package":"m/a","Test":"TestFail/sub","Output":"=== RUN   TestFail/sub\n"}
{"Action":"output","Package":"m/a","Test":"TestFail/sub","Output":"    a_test.go:4: BOOM\n"}
{"Action":"output","Package":"m/a","Test":"TestFail/sub","Output":"        SECOND-LINE\n"}
{"Action":"output","Package":"m/a","Test":"TestFail/sub","Output":"--- FAIL: TestFail/sub (0.00s)\n"}
{"Action":"fail","Package":"m/a","Test":"TestFail/sub"}
{"Action":"output","Package":"m/a","Test":"TestFail","Output":"--- FAIL: TestFail (0.00s)\n"}
{"Action":"fail","Package":"m/a","Test":"TestFail"}
{"Action":"run","Package":"m/a","Test":"TestPass"}
{"Action":"output","Package":"m/a","Test":"TestPass","Output":"    QUIET-LOG\n"}
{"Action":"pass","Package":"m/a","Test":"TestPass"}
{"Action":"output","Package":"m/a","Output":"FAIL\n"}
{"Action":"output","Package":"m/a","Output":"FAIL\tm/a\t0.007s\n"}
{"Action":"fail","Package":"m/a"}
`
	skipping = `{"Action":"start","Package":"m/e2e"}
{"Action":"run","Package":"m/e2e","Test":"TestBrowser"}
{"Action":"output","Package":"m/e2e","Test":"TestBrowser","Output":"=== RUN   TestBrowser\n"}
{"Action":"output","Package":"m/e2e","Test":"TestBrowser","Output":"    harness_test.go:168: chromium not found: apt-get install chromium\n"}
{"Action":"output","Package":"m/e2e","Test":"TestBrowser","Output":"--- SKIP: TestBrowser (0.00s)\n"}
{"Action":"skip","Package":"m/e2e","Test":"TestBrowser"}
{"Action":"run","Package":"m/e2e","Test":"TestSilent"}
{"Action":"output","Package":"m/e2e","Test":"TestSilent","Output":"--- SKIP: TestSilent (0.00s)\n"}
{"Action":"skip","Package":"m/e2e","Test":"TestSilent"}
{"Action":"output","Package":"m/e2e","Output":"ok  \tm/e2e\t0.010s\n"}
{"Action":"pass","Package":"m/e2e"}
`
	buildFailure = `{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"# m/b [m/b.test]\n"}
{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"b/b_test.go:3:28: undefined: UNDEFINED-NAME\n"}
{"ImportPath":"m/b [m/b.test]","Action":"build-fail"}
{"Action":"start","Package":"m/b"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}
{"Action":"fail","Package":"m/b","FailedBuild":"m/b [m/b.test]"}
`
	noTests = `{"Action":"start","Package":"m/c"}
{"Action":"output","Package":"m/c","Output":"?   \tm/c\t[no test files]\n"}
{"Action":"skip","Package":"m/c"}
`
	mainFails = `{"Action":"start","Package":"m/d"}
{"Action":"output","Package":"m/d","Output":"e2e: CI is set, so a missing tool is a failure\n"}
{"Action":"output","Package":"m/d","Output":"FAIL\tm/d\t0.002s\n"}
{"Action":"fail","Package":"m/d"}
`
	timedOut = `{"Action":"start","Package":"m/f"}
{"Action":"run","Package":"m/f","Test":"TestHangs"}
{"Action":"output","Package":"m/f","Test":"TestHangs","Output":"=== RUN   TestHangs\n"}
{"Action":"run","Package":"m/f","Test":"TestHangs/a"}
{"Action":"run","Package":"m/f","Test":"TestHangs/a/deep"}
{"Action":"run","Package":"m/f","Test":"TestHangs/b"}
{"Action":"output","Package":"m/f","Test":"TestHangs/b","Output":"    SUBTEST-OUTPUT\n"}
{"Action":"output","Package":"m/f","Test":"TestHangs","Output":"panic: test timed out after 1s\n"}
{"Action":"output","Package":"m/f","Output":"FAIL\tm/f\t1.008s\n"}
{"Action":"fail","Package":"m/f"}
`
)

func TestSummary(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		summary string // the counts line
		ok      bool
		want    []string
		notWant []string
	}{
		{"pass", passing, "1 passed, 0 failed, 0 skipped", true,
			[]string{"ok  \tm/a\t0.007s\n"}, []string{"QUIET-LOG", "Failed", "Skipped"}},
		{"fail shows the failure in full", failing, "1 passed, 2 failed, 0 skipped", false,
			[]string{"BOOM\n", "SECOND-LINE\n", "--- FAIL: TestFail (0.00s)", "FAIL\tm/a\t0.007s", "Failed (2):\n  a TestFail/sub\n  a TestFail\n"},
			[]string{"QUIET-LOG"}},
		{"skip with reason", skipping, "0 passed, 0 failed, 2 skipped", true,
			[]string{"Skipped (2):\n", "  e2e TestBrowser: harness_test.go:168: chromium not found: apt-get install chromium\n",
				"  e2e TestSilent: no reason given\n"},
			[]string{"=== RUN"}},
		{"build failure", buildFailure, "0 passed, 1 failed, 0 skipped", false,
			[]string{"undefined: UNDEFINED-NAME", "FAIL\tm/b [build failed]", "  b (build failed)\n"}, nil},
		{"package with no tests", noTests, "0 passed, 0 failed, 0 skipped", true,
			[]string{"?   \tm/c\t[no test files]\n"}, []string{"Skipped"}},
		{"TestMain fails", mainFails, "0 passed, 1 failed, 0 skipped", false,
			[]string{"CI is set", "  d (failed outside any test)\n"}, nil},
		{"a test cut off by the timeout", timedOut, "0 passed, 1 failed, 0 skipped", false,
			[]string{"panic: test timed out", "SUBTEST-OUTPUT", "Failed (1):\n  f TestHangs (did not finish, nor 3 of its subtests)\n"}, nil},
		{"several packages", passing + noTests + skipping + failing, "2 passed, 2 failed, 2 skipped", false, nil, nil},
		{"go test never ran", "go: cannot find main module\n", "0 passed, 0 failed, 0 skipped", false,
			[]string{"go: cannot find main module\n", "did not run"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			s := newSummary(&out, "m/")
			if err := s.read(strings.NewReader(tt.stream)); err != nil {
				t.Fatal(err)
			}
			s.finish(83 * time.Second)
			got := out.String()
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if n := len(lines); n < 2 || lines[n-2] != tt.summary || lines[n-1] != "took 1m23s" {
				t.Errorf("closing lines = %q; want %q then %q\nwhole output:\n%s", lines[max(0, len(lines)-2):], tt.summary, "took 1m23s", got)
			}
			if s.ok() != tt.ok {
				t.Errorf("ok = %v; want %v", s.ok(), tt.ok)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("output shows %q:\n%s", w, got)
				}
			}
		})
	}
}
