package problems

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// watchedFixture writes the good fixture to a temporary folder and loads
// it with a Watcher.
func watchedFixture(t *testing.T) (string, *Watcher) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, goodFixture()); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(dir, time.Millisecond)
	if _, err := w.Load(); err != nil {
		t.Fatalf("the good fixture does not load: %v", err)
	}
	return dir, w
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherSeesEveryKindOfChange makes each change an author (or their
// editor, or git) makes to a content folder and checks that the watcher
// reloads for it, or, for files the loader never reads, that it does not.
// The polls are called directly, so nothing here depends on timing.
func TestWatcherSeesEveryKindOfChange(t *testing.T) {
	problemFile := filepath.Join("problems", "refund-demo", "problem.md")
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		reload bool
		check  func(t *testing.T, cat *Catalog, err error) // after the reload
	}{
		{"a problem edited in place", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, problemFile), strings.Replace(goodProblem, "title: Debug a refund", "title: Debug a refund, edited", 1))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			if p, _ := cat.Problem("refund-demo"); p == nil || p.Title != "Debug a refund, edited" {
				t.Errorf("after the edit the problem is %+v; want the new title", p)
			}
		}},
		{"an editor's save: write a new file, rename it over the old", func(t *testing.T, dir string) {
			tmp := filepath.Join(dir, "problems", "refund-demo", ".problem.md.tmp")
			writeFile(t, tmp, strings.Replace(goodProblem, "minutes: 30", "minutes: 35", 1))
			mustRename(t, tmp, filepath.Join(dir, problemFile))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			if p, _ := cat.Problem("refund-demo"); p == nil || p.Minutes != 35 {
				t.Errorf("after the save the problem is %+v; want 35 minutes", p)
			}
		}},
		{"the same size and modification time, other bytes", func(t *testing.T, dir string) {
			path := filepath.Join(dir, problemFile)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, strings.Replace(goodProblem, "minutes: 30", "minutes: 40", 1))
			if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, true, func(t *testing.T, cat *Catalog, err error) {
			if p, _ := cat.Problem("refund-demo"); p == nil || p.Minutes != 40 {
				t.Errorf("after the edit the problem is %+v; want 40 minutes", p)
			}
		}},
		{"a starter file edited", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "problems", "refund-demo", "starter", "refund.go"), "package refund\n\nfunc Refund( {}\n")
		}, true, func(t *testing.T, cat *Catalog, err error) {
			wantDiagnostic(t, err, "problems/refund-demo/starter/refund.go", 3)
		}},
		{"a new question set", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "sets", "more.md"), strings.Replace(goodSet, "slug: quick", "slug: more", 1))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			if _, ok := cat.Set("more"); !ok {
				t.Error("the new set is not in the catalogue")
			}
		}},
		{"a new problem folder", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "problems", "second", "problem.md"),
				"---\nslug: second\ntitle: Second\ndifficulty: easy\n---\nA prompt.\n")
		}, true, func(t *testing.T, cat *Catalog, err error) {
			if _, ok := cat.Problem("second"); !ok {
				t.Error("the new problem is not in the catalogue")
			}
		}},
		{"a set deleted that a screen names", func(t *testing.T, dir string) {
			mustRemove(t, filepath.Join(dir, "sets", "quick.md"))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			wantDiagnostic(t, err, "screens/demo-screen.md", 8)
		}},
		{"a set renamed", func(t *testing.T, dir string) {
			mustRename(t, filepath.Join(dir, "sets", "quick.md"), filepath.Join(dir, "sets", "quicker.md"))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			wantDiagnostic(t, err, "sets/quicker.md", 2)
		}},
		{"the problems folder removed", func(t *testing.T, dir string) {
			mustRemove(t, filepath.Join(dir, "problems"))
		}, true, func(t *testing.T, cat *Catalog, err error) {
			wantDiagnostic(t, err, "screens/demo-screen.md", 5)
		}},
		{"a file rewritten with the same bytes", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, problemFile), goodProblem)
		}, false, nil},
		{"an editor's swap file beside the problem", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "problems", "refund-demo", ".problem.md.swp"), "swap")
		}, false, nil},
		{"notes and a .git folder at the root", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "NOTES.txt"), "to do")
			writeFile(t, filepath.Join(dir, ".git", "index"), "index")
		}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, w := watchedFixture(t)
			var st watchState
			if w.poll(&st) {
				t.Fatal("a poll before any change asks for a reload")
			}
			tt.change(t, dir)
			first, second := w.poll(&st), w.poll(&st)
			if first {
				t.Error("the poll that first sees the change reloads at once; want it to wait one poll for the change to settle")
			}
			if second != tt.reload {
				t.Fatalf("reload on the poll after the change = %v; want %v", second, tt.reload)
			}
			if !tt.reload {
				return
			}
			cat, err := w.Load()
			tt.check(t, cat, err)
			if w.poll(&st) || w.poll(&st) {
				t.Error("polls after the reload ask for another with nothing changed")
			}
		})
	}
}

// wantDiagnostic fails unless err is a content error with a diagnostic on
// file:line.
func wantDiagnostic(t *testing.T, err error, file string, line int) {
	t.Helper()
	var ce *ContentError
	if !errors.As(err, &ce) {
		t.Fatalf("load error = %v; want a content error on %s:%d", err, file, line)
	}
	for _, d := range ce.Diagnostics {
		if d.File == file && d.Line == line {
			return
		}
	}
	t.Errorf("no diagnostic on %s:%d; got:\n%v", file, line, err)
}

// TestWatcherSettlesBursts: a change that is still changing at the next
// poll waits for one that is not, so a burst of saves is one reload, and
// one that never settles is loaded after watchMaxDelay polls anyway.
func TestWatcherSettlesBursts(t *testing.T) {
	tests := []struct {
		name       string
		writes     int // polls with a new write before it
		wantReload int // the poll (from 1) that asks for the reload
	}{
		{"one save", 1, 2},
		{"three saves on three polls", 3, 4},
		{"a file rewritten on every poll", 20, watchMaxDelay + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, w := watchedFixture(t)
			path := filepath.Join(dir, "sets", "quick.md")
			var st watchState
			for n := 1; n <= tt.writes+1; n++ {
				if n <= tt.writes {
					writeFile(t, path, strings.Replace(goodSet, "minutes: 10", "minutes: "+strconv.Itoa(10+n), 1))
				}
				reload := w.poll(&st)
				if reload != (n == tt.wantReload) {
					t.Fatalf("poll %d: reload = %v; want a reload on poll %d only", n, reload, tt.wantReload)
				}
				if reload {
					return
				}
			}
			t.Fatalf("no reload in %d polls", tt.writes+1)
		})
	}
}

// TestWatcherRun: Run reloads on its own ticker and stops with its
// context.
func TestWatcherRun(t *testing.T) {
	dir, w := watchedFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		cat *Catalog
		err error
	}
	reloads := make(chan result, 16)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.Run(ctx, func(cat *Catalog, err error) { reloads <- result{cat, err} })
	}()
	writeFile(t, filepath.Join(dir, "sets", "quick.md"), strings.Replace(goodSet, "title: Quick questions", "title: Quicker", 1))
	select {
	case r := <-reloads:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if qs, _ := r.cat.Set("quick"); qs == nil || qs.Title != "Quicker" {
			t.Errorf("the reloaded set is %+v; want the new title", qs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload 10 s after the edit")
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// BenchmarkWatcherPoll is the cost of one poll of the shipped content
// with nothing changed: what -watch spends every interval.
func BenchmarkWatcherPoll(b *testing.B) {
	w := NewWatcher(filepath.Join("..", "..", "content"), 0)
	if _, err := w.Load(); err != nil {
		b.Fatal(err)
	}
	var st watchState
	for b.Loop() {
		if w.poll(&st) {
			b.Fatal("a poll of unchanged content asks for a reload")
		}
	}
}
