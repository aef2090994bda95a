package refund_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// The full mutation run grades each mutant in a child process, as the
// server grades a submission: a mutant whose goroutine panics (a dropped
// WaitGroup.Add) ends its process, not the run. A child is this test
// binary running TestMutationChild over a share of the mutants; when one
// dies or stalls, the mutant it was grading is killed (caught, as the
// grading child's limits catch it), and a new child goes on from the next.

const (
	mutationChildDir   = "FAULTLINE_MUTATION_CHILD_DIR"   // the mutants, one file each, 000123.go (or .py: graded in Python)
	mutationChildShare = "FAULTLINE_MUTATION_CHILD_SHARE" // "from step": the mutants this child grades
	// mutationWallLimit is how long a child may grade one mutant, as the
	// grading child's wall limit bounds a submission.
	mutationWallLimit = 60 * time.Second
	mutationChildren  = 2
)

// TestMutationChild is the child's side; it runs only in a child.
func TestMutationChild(t *testing.T) {
	dir := os.Getenv(mutationChildDir)
	if dir == "" {
		t.Skip("the full mutation run's child (TestMutationFull)")
	}
	var from, step int
	if _, err := fmt.Sscanf(os.Getenv(mutationChildShare), "%d %d", &from, &step); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	scenarios := scenariosNamed(t)
	for i := from; i < len(files); i += step {
		fmt.Printf("START %d\n", i)
		var rep *gradewire.Report
		var err error
		if filepath.Ext(files[i]) == ".py" {
			rep, err = gradePythonMutant(t, readSource(t, files[i]), scenarios)
		} else {
			rep, err = refund.GradeSource(context.Background(), "refund.go", readSource(t, files[i]), scenarios, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
		}
		v, msg := mutationVerdict(rep, err), ""
		if err != nil {
			msg = err.Error()
		} else if v != "survived" {
			msg = firstLine(rep.Message)
		}
		fmt.Printf("VERDICT %d %s %s\n", i, v, strconv.Quote(msg))
	}
}

// gradeInChildren grades every result's mutant in children and sets its
// verdict and message.
func gradeInChildren(t *testing.T, results []*mutationResult) {
	dir := t.TempDir()
	for i, r := range results {
		ext := filepath.Ext(r.file)
		if ext != ".py" {
			ext = ".go"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d%s", i, ext)), []byte(r.m.Source), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for c := range mutationChildren {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := c; from < len(results); {
				from = runMutationChild(t, dir, from, results)
			}
		}()
	}
	wg.Wait()
}

// runMutationChild runs one child from mutant from on, and returns where
// the next child of its share starts: past the end when this one
// finished, else past the mutant it died or stalled on.
func runMutationChild(t *testing.T, dir string, from int, results []*mutationResult) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMutationChild$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), mutationChildDir+"="+dir, fmt.Sprintf("%s=%d %d", mutationChildShare, from, mutationChildren))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	current := -1
	next := len(results) // a child that ends cleanly has graded its share
	stalled := false
	for done := false; !done; {
		select {
		case line, ok := <-lines:
			if !ok {
				done = true
				break
			}
			f := strings.SplitN(line, " ", 4)
			switch {
			case len(f) >= 2 && f[0] == "START":
				current, _ = strconv.Atoi(f[1])
			case len(f) == 4 && f[0] == "VERDICT":
				i, _ := strconv.Atoi(f[1])
				msg, _ := strconv.Unquote(f[3])
				results[i].verdict, results[i].message = f[2], msg
				current = -1
			}
		case <-time.After(mutationWallLimit):
			stalled = true
			cancel()
		}
	}
	werr := cmd.Wait()
	if current >= 0 {
		// The child died, or stalled, on this mutant: caught, as the
		// grading child's limits catch a submission that crashes its
		// process or never ends.
		results[current].verdict = "killed"
		results[current].message = "the grading process died: " + firstLine(lastLines(stderr.String()))
		if stalled {
			results[current].message = fmt.Sprintf("stopped at the wall limit (%s)", mutationWallLimit)
		}
		return current + mutationChildren
	}
	if werr != nil && !stalled {
		t.Fatalf("a mutation child failed outside any mutant: %v\n%s", werr, stderr.String())
	}
	return next
}

// lastLines is the end of a child's standard error, where a panic's
// message is.
func lastLines(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "panic: "); i >= 0 {
		return s[i:]
	}
	if len(s) > 200 {
		s = s[len(s)-200:]
	}
	return s
}
