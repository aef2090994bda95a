package rooms

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// TestSaveAnswerFollowsTheRoomsClock: the interviewer's clock is the
// answer's. A pause holds the box's time, a resume and an extension carry
// it on, and the server judges each save by the clock when it arrives.
func TestSaveAnswerFollowsTheRoomsClock(t *testing.T) {
	type step struct {
		do   string        // "start", "pause", "resume", "extend", "wait", "save", "submit"
		wait time.Duration // for wait and extend
		text string
	}
	type want struct {
		phase     string
		late      bool
		leftMS    int64 // the clock's remaining time at the last save
		answer    string
		lateText  string
		submitted bool
	}
	limit := func(ia Access) time.Duration { return ia.Items[1].Limit }
	cases := []struct {
		name  string
		steps func(limit time.Duration) []step
		want  func(limit time.Duration) want
	}{
		{"before the interviewer starts the clock",
			func(time.Duration) []step { return []step{{do: "save", text: "early"}} },
			func(l time.Duration) want { return want{phase: "idle", leftMS: l.Milliseconds(), answer: "early"} }},
		{"while the clock runs",
			func(time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: 30 * time.Second}, {do: "save", text: "a"}}
			},
			func(l time.Duration) want {
				return want{phase: "running", leftMS: (l - 30*time.Second).Milliseconds(), answer: "a"}
			}},
		{"a pause holds the time left, however long it lasts",
			func(time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: 20 * time.Second}, {do: "pause"}, {do: "wait", wait: 20 * time.Minute},
					{do: "save", text: "while paused"}}
			},
			func(l time.Duration) want {
				return want{phase: "paused", leftMS: (l - 20*time.Second).Milliseconds(), answer: "while paused"}
			}},
		{"a resume carries on from where the pause held it",
			func(time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: 20 * time.Second}, {do: "pause"}, {do: "wait", wait: 10 * time.Minute},
					{do: "resume"}, {do: "wait", wait: 5 * time.Second}, {do: "save", text: "b"}}
			},
			func(l time.Duration) want {
				return want{phase: "running", leftMS: (l - 25*time.Second).Milliseconds(), answer: "b"}
			}},
		{"at zero, within the grace: on time, and the box locks",
			func(l time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: l + timer.Grace - time.Second}, {do: "save", text: "just in"}}
			},
			func(time.Duration) want { return want{phase: "locked", answer: "just in"} }},
		{"past the grace: kept, marked late, and not the answer",
			func(l time.Duration) []step {
				return []step{{do: "start"}, {do: "save", text: "in time"}, {do: "wait", wait: l + timer.Grace + time.Second},
					{do: "save", text: "in time and more"}}
			},
			func(time.Duration) want {
				return want{phase: "locked", late: true, answer: "in time", lateText: "in time and more"}
			}},
		{"up while paused is late: the box locked when it ran out",
			func(l time.Duration) []step {
				return []step{{do: "start"}, {do: "save", text: "in time"}, {do: "wait", wait: l + time.Minute}, {do: "pause"},
					{do: "save", text: "after"}}
			},
			func(time.Duration) want {
				return want{phase: "locked", late: true, answer: "in time", lateText: "after"}
			}},
		{"an extension after time ran out opens the box again",
			func(l time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: l + time.Minute}, {do: "extend", wait: 2 * time.Minute},
					{do: "wait", wait: 30 * time.Second}, {do: "save", text: "more time"}}
			},
			func(time.Duration) want {
				return want{phase: "running", leftMS: (90 * time.Second).Milliseconds(), answer: "more time"}
			}},
		{"a submit closes the answer",
			func(time.Duration) []step {
				return []step{{do: "start"}, {do: "wait", wait: 10 * time.Second}, {do: "submit", text: "final"}}
			},
			func(l time.Duration) want {
				return want{phase: "submitted", leftMS: (l - 10*time.Second).Milliseconds(), answer: "final", submitted: true}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
			if _, err := f.svc.NextItem(ctx, ia); err != nil {
				t.Fatal(err)
			}
			l := limit(ia)
			var last AnswerSaved
			for _, st := range tc.steps(l) {
				var err error
				switch st.do {
				case "wait":
					f.clock.Add(st.wait)
				case "start", "pause", "resume":
					_, err = f.svc.Timer(ctx, ia, st.do, 0)
				case "extend":
					_, err = f.svc.Timer(ctx, ia, TimerExtend, st.wait)
				case "save", "submit":
					last, err = f.svc.SaveAnswer(ctx, ca, 1, st.text, st.do == "submit")
				}
				if err != nil {
					t.Fatalf("%s: %v", st.do, err)
				}
			}
			w := tc.want(l)
			if last.Phase != w.phase || last.Late != w.late {
				t.Errorf("the last save: phase %q, late %v; want %q, %v", last.Phase, last.Late, w.phase, w.late)
			}
			if w.phase != "locked" && last.Clock.RemainingMS != w.leftMS {
				t.Errorf("the clock at the last save: %d ms left; want %d", last.Clock.RemainingMS, w.leftMS)
			}
			cv, err := f.svc.CandidateView(ctx, ca)
			if err != nil {
				t.Fatal(err)
			}
			if cv.Answer != w.answer || cv.AnswerLate != w.lateText || cv.AnswerSubmitted != w.submitted {
				t.Errorf("the candidate's view: answer %q, late %q, submitted %v; want %q, %q, %v",
					cv.Answer, cv.AnswerLate, cv.AnswerSubmitted, w.answer, w.lateText, w.submitted)
			}
			iv, err := f.svc.InterviewerView(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			if iv.Answers[1] != w.answer || iv.Late[1] != w.lateText || iv.Submitted[1] != w.submitted {
				t.Errorf("the interviewer's view: answer %q, late %q, submitted %v", iv.Answers[1], iv.Late[1], iv.Submitted[1])
			}
		})
	}
}

// TestSaveAnswerRefuses: what the box may not send.
func TestSaveAnswerRefuses(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "not yet", false); err == nil {
		t.Error("an answer to a step the room has not reached was kept")
	}
	if _, err := f.svc.NextItem(ctx, ia); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAnswer(ctx, ia, 1, "the interviewer's", false); err == nil {
		t.Error("the interviewer wrote the candidate's answer")
	}
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "final", true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "final, then more", false); !errors.Is(err, ErrAnswerClosed) {
		t.Errorf("text after the submit: %v; want ErrAnswerClosed", err)
	}
	if _, err := f.svc.NextItem(ctx, ia); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "after the move", false); !errors.Is(err, ErrAnswerClosed) {
		t.Errorf("text after the submit, once the room has moved on: %v; want ErrAnswerClosed", err)
	}
	cv, err := f.svc.CandidateView(ctx, ca)
	if err != nil {
		t.Fatal(err)
	}
	if cv.Current.Index != 2 || cv.Answer != "" {
		t.Errorf("the next step: %d, answer %q", cv.Current.Index, cv.Answer)
	}
}

// TestScorecardKeepsLateTextApart: the scorecard's answer is the text that
// came in time; what came after is beside it, marked late.
func TestScorecardKeepsLateTextApart(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	steps := []func() error{
		func() error { _, err := f.svc.NextItem(ctx, ia); return err },
		func() error { _, err := f.svc.Timer(ctx, ia, TimerStart, 0); return err },
		func() error { _, err := f.svc.SaveAnswer(ctx, ca, 1, "in time", false); return err },
		func() error { f.clock.Add(ia.Items[1].Limit + timer.Grace + time.Second); return nil },
		func() error { _, err := f.svc.SaveAnswer(ctx, ca, 1, "in time | and late", true); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	sc, err := f.svc.Scorecard(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	it := sc.Items[1]
	if it.Answer != "in time" || it.AnswerLate != "in time | and late" || !it.AnswerSubmitted {
		t.Errorf("the question's record: answer %q, late %q, submitted %v", it.Answer, it.AnswerLate, it.AnswerSubmitted)
	}
	md := sc.Markdown()
	// The "|" is escaped: the quote shows it as typed, and makes no table.
	for _, want := range []string{"> in time\n", "late, not the answer):\n\n> in time \\| and late\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Not submitted") {
		t.Error("the Markdown calls a submitted answer not submitted")
	}
}

// TestSaveAnswerAfterTheMove: the words typed just before the interviewer
// moves on are on their way (the box saves a moment after the last
// keystroke, the page sends what it holds as it reloads): they count for
// timer.Grace after the move, then the step takes no more.
func TestSaveAnswerAfterTheMove(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	if _, err := f.svc.NextItem(ctx, ia); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Timer(ctx, ia, TimerStart, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "first words", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.NextItem(ctx, ia); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(timer.Grace - time.Second)
	saved, err := f.svc.SaveAnswer(ctx, ca, 1, "first words, and the last ones", false)
	if err != nil {
		t.Fatalf("text typed before the move, arriving %s after it: %v", timer.Grace-time.Second, err)
	}
	if saved.Late {
		t.Error("text typed while the step's clock ran is marked late")
	}
	f.clock.Add(2 * time.Second)
	if _, err := f.svc.SaveAnswer(ctx, ca, 1, "long after the move", false); !errors.Is(err, ErrAnswerClosed) {
		t.Errorf("text %s after the move: %v; want ErrAnswerClosed", timer.Grace+time.Second, err)
	}
	card, err := f.svc.Scorecard(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if got := card.Items[1].Answer; got != "first words, and the last ones" {
		t.Errorf("the scorecard's answer for step 2 = %q, want the text that came within the grace", got)
	}
}
