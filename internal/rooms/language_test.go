package rooms

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/storage"
)

// createIn makes a room in lang and opens both links.
func (f *fixture) createIn(t *testing.T, kind, slug, lang string) (Access, Access) {
	t.Helper()
	ctx := context.Background()
	l, err := f.svc.CreateIn(ctx, "addr-"+t.Name(), kind, slug, lang)
	if err != nil {
		t.Fatalf("CreateIn %s: %v", lang, err)
	}
	ia, err := f.svc.Authenticate(ctx, l.RoomID, l.InterviewerKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := f.svc.Authenticate(ctx, l.RoomID, l.CandidateKey)
	if err != nil {
		t.Fatal(err)
	}
	return ia, ca
}

// A Python room's code starts from the problem's Python starter, on both
// sides, and the candidate's page is told it is Python; a Go room's from
// the Go starter.
func TestPythonRoomStartsFromThePythonStarter(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p, _ := f.cat.Problem("async-refund")
	if p.Code.PythonStarter == "" || p.Code.PythonStarter == p.Code.Starter {
		t.Fatal("async-refund has no Python starter of its own; the test needs one")
	}
	for _, tc := range []struct {
		lang, wantLang, starter string
	}{
		{storage.LangPython, storage.LangPython, p.Code.PythonStarter},
		{storage.LangGo, storage.LangGo, p.Code.Starter},
		{"", storage.LangGo, p.Code.Starter},
	} {
		ia, ca := f.createIn(t, storage.RoomFromProblem, "async-refund", tc.lang)
		if ia.Room.Language != tc.wantLang || ia.Items[0].Language != tc.wantLang {
			t.Errorf("room in %q: language %q, step's %q; want %q", tc.lang, ia.Room.Language, ia.Items[0].Language, tc.wantLang)
		}
		for _, a := range []Access{ia, ca} {
			text, v, err := f.svc.CodeText(ctx, a, a.Items[0])
			if err != nil || v != 0 || text != collab.NormalizeNewlines(tc.starter) {
				t.Errorf("room in %q, %s: code at version %d = %.40q..., %v; want the %s starter", tc.lang, a.Role, v, text, err, tc.wantLang)
			}
		}
		cv, err := f.svc.CandidateView(ctx, ca)
		if err != nil || cv.Current.Starter != tc.starter || cv.Current.Language != tc.wantLang {
			t.Errorf("room in %q: candidate's step = language %q, starter %.40q..., %v", tc.lang, cv.Current.Language, cv.Current.Starter, err)
		}
	}
}

// A room's language is checked when it is made: an unknown one, or
// Python for a source no step of which has a Python starter, is the
// user's error, naming what was wrong.
func TestRoomLanguageRefused(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var in *InputError
	if _, err := f.svc.CreateIn(ctx, "a", storage.RoomFromProblem, "async-refund", "rust"); !errors.As(err, &in) || !strings.Contains(in.Message, `"rust"`) {
		t.Errorf("a room in rust: %v; want an input error naming \"rust\"", err)
	}
	if _, err := f.svc.CreateIn(ctx, "a", storage.RoomFromProblem, "idempotent-create-client-code", storage.LangPython); !errors.As(err, &in) {
		t.Errorf("a Python room of a Go-only problem: %v; want an input error", err)
	}
	// A step without a Python starter stays Go in a Python room.
	p, _ := f.cat.Problem("idempotent-create-client-code")
	if got := itemLanguage(p, storage.LangPython); got != storage.LangGo {
		t.Errorf("a Go-only problem in a Python room is in %q; want Go", got)
	}
	it := Item{Problem: p, Language: itemLanguage(p, storage.LangPython)}
	if it.Starter() != p.Code.Starter || it.File() != "" {
		t.Errorf("a Go-only step in a Python room: starter %.30q, file %q; want the Go starter, the Go file", it.Starter(), it.File())
	}
}

// Run sends a Python room's code to the grader as refund.py, the file
// name that routes it to Python; a Go room's as Go ("").
func TestPythonRoomRunSendsPython(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ lang, file string }{{storage.LangPython, "refund.py"}, {storage.LangGo, ""}} {
		f := newFixture(t)
		f.g.jobs = make(chan grading.Request, 1)
		ia, _ := f.createIn(t, storage.RoomFromProblem, "async-refund", tc.lang)
		e := newEditor(f, ia, 0)
		e.replace(t, 0, 0, "# typed\n")
		if _, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"}); err != nil {
			t.Fatal(err)
		}
		job := <-f.g.jobs
		if job.File != tc.file || job.Source != e.text {
			t.Errorf("%s room: graded file %q, source %.40q...; want file %q and the shared code", tc.lang, job.File, job.Source, tc.file)
		}
		if err := f.svc.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// The replay of a Python room starts from the Python starter and
// reproduces the code as it was typed.
func TestPythonRoomReplay(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ia, ca := f.createIn(t, storage.RoomFromProblem, "async-refund", storage.LangPython)
	starter := collab.NormalizeNewlines(ia.Items[0].Problem.Code.PythonStarter)
	cand := newEditor(f, ca, 0)
	if cand.text != starter {
		t.Fatal("the candidate's editor did not start from the Python starter")
	}
	want := map[int64]string{}
	want[cand.replace(t, 0, 0, "import asyncio\n")] = cand.text
	want[cand.replace(t, 3, 4, "")] = cand.text
	want[cand.replace(t, collab.Length(cand.text), 0, "\n# done\n")] = cand.text
	r, err := f.svc.Replay(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if fr, err := r.Frame(1); err != nil || fr.Code[0].Text != starter || fr.Code[0].Language != storage.LangPython {
		t.Fatalf("first frame's code: %v, in %q; want the Python starter, in Python", err, fr.Code[0].Language)
	}
	for seq, text := range want {
		fr, err := r.Frame(seq)
		if err != nil || fr.Code[0].Text != text {
			t.Errorf("Frame(%d)'s code = %.60q..., %v; want %.60q...", seq, fr.Code[0].Text, err, text)
		}
	}
}

// A Python room's scorecard says its code is Python, and its Markdown
// export fences the code as Python; a Go room's, as Go.
func TestScorecardNamesTheCodesLanguage(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for _, tc := range []struct{ lang, label string }{{storage.LangPython, "Python"}, {storage.LangGo, "Go"}} {
		ia, _ := f.createIn(t, storage.RoomFromProblem, "async-refund", tc.lang)
		sc, err := f.svc.Scorecard(ctx, ia)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Items[0].Language; got != tc.lang {
			t.Errorf("room in %s: the scorecard's step is in %q", tc.lang, got)
		}
		md := sc.Markdown()
		if want := "Final code (" + tc.label + "):\n\n```" + tc.lang + "\n"; !strings.Contains(md, want) {
			t.Errorf("room in %s: the Markdown export has no %q", tc.lang, want)
		}
	}
}
