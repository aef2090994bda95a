package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/storage"
)

// editor is a participant's view of the shared code for a test: it makes
// change sets against the text it last saw and pushes them through the
// use cases, as the page's editor would.
type editor struct {
	f    *fixture
	a    Access
	id   string
	item int
	text string
	v    int
}

func newEditor(f *fixture, a Access, item int) *editor {
	return &editor{f: f, a: a, id: ClientID(a), item: item, text: collab.NormalizeNewlines(a.Items[item].Starter())}
}

// replace pushes one update replacing del code units at pos with ins, and
// returns the seq of its event.
func (e *editor) replace(t *testing.T, pos, del int, ins string) int64 {
	t.Helper()
	n := collab.Length(e.text)
	var parts []any
	if pos > 0 {
		parts = append(parts, pos)
	}
	lines := []any{del}
	for _, l := range strings.Split(ins, "\n") {
		lines = append(lines, l)
	}
	if ins == "" {
		lines = lines[:1]
	}
	parts = append(parts, lines)
	if rest := n - pos - del; rest > 0 {
		parts = append(parts, rest)
	}
	changes, err := json.Marshal(parts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := e.f.svc.Push(ctx, e.a, e.item, e.v, []collab.Update{{ClientID: e.id, Changes: changes}})
	if err != nil || !res.Accepted() {
		t.Fatalf("push %s at version %d: %+v, %v", changes, e.v, res, err)
	}
	e.text, err = collab.ApplyChanges(e.text, changes)
	if err != nil {
		t.Fatal(err)
	}
	e.v = res.Version
	evs, err := e.f.store.DocUpdatesSince(ctx, e.a.Room.ID, codeDoc(e.item), int64(e.v-1), 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the update's event: %v, %v", evs, err)
	}
	return evs[0].Seq
}

// sync catches e up with the document (the other side typed).
func (e *editor) sync(t *testing.T) {
	t.Helper()
	text, v, err := e.f.svc.CodeText(context.Background(), e.a, e.a.Items[e.item])
	if err != nil {
		t.Fatal(err)
	}
	e.text, e.v = text, int(v)
}

// session is a room played through the use cases, with the code and the
// answer the service reported after each event that changed them.
type session struct {
	ia, ca Access
	code   map[int64]string // seq -> the shared code just after it
	answer map[int64]string // seq -> step 1's answer just after it
	runSeq int64
}

// playSession plays a whole screen: both sides type, hints, the clock,
// a run shared and cited, notes, scores, signals, a question answered,
// and the end.
func playSession(t *testing.T, f *fixture) session {
	t.Helper()
	ctx := context.Background()
	_, ia, ca := f.create(t, storage.RoomFromScreen, "applied-ai-tech-screen")
	s := session{ia: ia, ca: ca, code: map[int64]string{}, answer: map[int64]string{}}
	must := func(ev storage.RoomEvent, err error) storage.RoomEvent {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Add(7 * time.Second)
		return ev
	}
	must(f.svc.Timer(ctx, ia, TimerStart, 0))
	cand, intv := newEditor(f, ca, 0), newEditor(f, ia, 0)
	record := func(e *editor, seq int64) {
		s.code[seq] = e.text
		f.clock.Add(300 * time.Millisecond)
	}
	for i, r := range "// ok" {
		record(cand, cand.replace(t, i, 0, string(r)))
	}
	record(cand, cand.replace(t, 5, 0, " — naïve 🙂\n"))
	must(f.svc.Signal(ctx, ca, SignalPasteCode, 120))
	record(cand, cand.replace(t, 0, 0, "package main\n\n// pasted\n"))
	intv.sync(t)
	record(intv, intv.replace(t, 3, 4, "")) // the interviewer deletes
	must(f.svc.ReleaseNextHint(ctx, ia))
	must(f.svc.Signal(ctx, ca, SignalHidden, 0))
	f.clock.Add(42 * time.Second)
	must(f.svc.Signal(ctx, ca, SignalVisible, 0))
	cand.sync(t)
	record(cand, cand.replace(t, collab.Length(cand.text), 0, "\n// 🙂🙂 end"))
	must(f.svc.Timer(ctx, ia, TimerPause, 0))
	must(f.svc.Timer(ctx, ia, TimerExtend, 5*time.Minute))
	must(f.svc.Timer(ctx, ia, TimerResume, 0))
	// The run's end is appended by the grading goroutine at the clock's
	// time then: the clock stays put until it is in.
	run, err := f.svc.Run(ctx, ia, RunLimits{ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	s.runSeq = run.Seq
	waitForKind(t, f, ia.Room.ID, KindRunFinished)
	f.clock.Add(time.Second)
	must(f.svc.Share(ctx, ia, run.Seq))
	must(f.svc.Score(ctx, ia, 1, 0, 2, nil, "found the retry | the lost reply"))
	must(f.svc.Score(ctx, ia, 2, 0, 1, &Cite{Run: run.Seq, Scenario: "lost-reply", Invariant: "no-double-refund"}, ""))
	must(f.svc.SaveNotes(ctx, ia, "# Notes\n\nReads the code *carefully*.\n\n<script>x</script>\n"))
	must(f.svc.NextItem(ctx, ia))
	must(f.svc.Timer(ctx, ia, TimerStart, 0))
	ev := must(saved(f.svc.SaveAnswer(ctx, ca, 1, "An idempotency key", false)))
	s.answer[ev.Seq] = "An idempotency key"
	must(f.svc.Signal(ctx, ca, SignalPasteAnswer, 30))
	ev = must(saved(f.svc.SaveAnswer(ctx, ca, 1, "An idempotency key,\nstored with the result.", true)))
	s.answer[ev.Seq] = "An idempotency key,\nstored with the result."
	must(f.svc.Score(ctx, ia, 0, 0, 3, nil, ""))
	must(f.svc.Recommend(ctx, ia, "yes"))
	must(f.svc.End(ctx, ia))
	return s
}

// saved is a save's event, for must.
func saved(s AnswerSaved, err error) (storage.RoomEvent, error) { return s.Event, err }

// waitForKind waits for the background run's event.
func waitForKind(t *testing.T, f *fixture, roomID, kind string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		evs, err := f.svc.readAll(context.Background(), roomID)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.Kind == kind {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s event in the room's log", kind)
}

// TestReplayFramesAreTheDocument checks every moment's code and answer
// against what the service held just after that event, and that the
// moments between keep the text of the one before.
func TestReplayFramesAreTheDocument(t *testing.T) {
	f := newFixture(t)
	s := playSession(t, f)
	r, err := f.svc.Replay(context.Background(), s.ia)
	if err != nil {
		t.Fatal(err)
	}
	starter := collab.NormalizeNewlines(s.ia.Items[0].Problem.Code.Starter)
	code, answer := starter, ""
	checked := 0
	for seq := int64(1); seq <= r.LastSeq(); seq++ {
		if want, ok := s.code[seq]; ok {
			code = want
			checked++
		}
		if want, ok := s.answer[seq]; ok {
			answer = want
		}
		fr, err := r.Frame(seq)
		if err != nil {
			t.Fatalf("Frame(%d): %v", seq, err)
		}
		if fr.Seq != seq || len(fr.Code) != 1 || fr.Code[0].Item != 0 {
			t.Fatalf("Frame(%d) = seq %d, code %+v", seq, fr.Seq, fr.Code)
		}
		if fr.Code[0].Text != code {
			t.Fatalf("Frame(%d)'s code =\n%q\nwant\n%q", seq, fr.Code[0].Text, code)
		}
		if got := answerOf(fr, 1); got != answer {
			t.Fatalf("Frame(%d)'s answer = %q; want %q", seq, got, answer)
		}
	}
	if checked != len(s.code) || checked < 8 {
		t.Fatalf("checked %d code moments of %d", checked, len(s.code))
	}
	// Past the end is the end; before the start is the start.
	if fr, err := r.Frame(1 << 40); err != nil || fr.Seq != r.LastSeq() || fr.Code[0].Text != code {
		t.Fatalf("Frame(past the end) = %d, %v", fr.Seq, err)
	}
	if fr, err := r.Frame(-3); err != nil || fr.Seq != 1 || fr.Code[0].Text != starter {
		t.Fatalf("Frame(-3) = %d, %v", fr.Seq, err)
	}
}

func answerOf(fr Frame, item int) string {
	for _, a := range fr.Answers {
		if a.Item == item {
			return a.Text
		}
	}
	return "<no step " + fmt.Sprint(item) + ">"
}

func TestReplayTimeline(t *testing.T) {
	f := newFixture(t)
	s := playSession(t, f)
	r, err := f.svc.Replay(context.Background(), s.ia)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	tracks := map[string]map[string]bool{}
	for i, m := range r.Moments {
		if i > 0 && (m.Seq <= r.Moments[i-1].Seq || m.AtMS < r.Moments[i-1].AtMS) {
			t.Fatalf("moment %d (%+v) is not after the one before", i, m)
		}
		if m.Label == "" {
			t.Fatalf("moment %+v has no label", m)
		}
		count[m.Class]++
		if tracks[m.Track] == nil {
			tracks[m.Track] = map[string]bool{}
		}
		tracks[m.Track][m.Class] = true
	}
	want := map[string]int{ClassEdit: len(s.code) + len(s.answer), ClassPaste: 2, ClassHint: 1, ClassTimer: 5,
		ClassRun: 3, ClassNote: 1, ClassScore: 4, ClassSignal: 2, ClassStep: 1, ClassRoom: 2}
	for _, c := range MomentClasses {
		if count[c] != want[c] {
			t.Errorf("%d %s moments; want %d", count[c], c, want[c])
		}
	}
	for _, tc := range []struct{ track, class string }{
		{storage.ActorCandidate, ClassEdit}, {storage.ActorInterviewer, ClassEdit}, {storage.ActorCandidate, ClassPaste},
		{storage.ActorInterviewer, ClassHint}, {storage.ActorInterviewer, ClassTimer}, {storage.ActorSystem, ClassRun},
		{storage.ActorInterviewer, ClassNote}, {storage.ActorCandidate, ClassSignal},
	} {
		if !tracks[tc.track][tc.class] {
			t.Errorf("no %s moment on the %s's track", tc.class, tc.track)
		}
	}
	if r.EndedAt == nil || r.DurationMS <= 0 || r.Moments[len(r.Moments)-1].Kind != KindEnded {
		t.Errorf("the replay's end: %v, %d ms, last %+v", r.EndedAt, r.DurationMS, r.Moments[len(r.Moments)-1])
	}
}

func TestReplayNav(t *testing.T) {
	f := newFixture(t)
	s := playSession(t, f)
	r, err := f.svc.Replay(context.Background(), s.ia)
	if err != nil {
		t.Fatal(err)
	}
	firstOf := func(class string, after int64) int64 {
		for _, m := range r.Moments {
			if m.Class == class && m.Seq > after {
				return m.Seq
			}
		}
		return 0
	}
	lastOf := func(class string, before int64) int64 {
		var got int64
		for _, m := range r.Moments {
			if m.Class == class && m.Seq < before {
				got = m.Seq
			}
		}
		return got
	}
	mid := r.Moments[len(r.Moments)/2].Seq
	cases := []struct {
		name       string
		at         int64
		prev, next int64
	}{
		{"start", 1, 0, r.Moments[1].Seq},
		{"middle", mid, r.Moments[len(r.Moments)/2-1].Seq, r.Moments[len(r.Moments)/2+1].Seq},
		{"end", r.LastSeq(), r.Moments[len(r.Moments)-2].Seq, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fr, err := r.Frame(tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if fr.Nav.Prev != tc.prev || fr.Nav.Next != tc.next || fr.Moment == nil || fr.Moment.Seq != tc.at {
				t.Fatalf("nav at %d = prev %d, next %d, moment %+v; want %d, %d", tc.at, fr.Nav.Prev, fr.Nav.Next, fr.Moment, tc.prev, tc.next)
			}
			for _, c := range MomentClasses {
				if got, want := fr.Nav.NextOf[c], firstOf(c, tc.at); got != want {
					t.Errorf("next %s after %d = %d; want %d", c, tc.at, got, want)
				}
				if got, want := fr.Nav.PrevOf[c], lastOf(c, tc.at); got != want {
					t.Errorf("previous %s before %d = %d; want %d", c, tc.at, got, want)
				}
			}
		})
	}
}

func TestReplayAndScorecardAreTheInterviewers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	if _, err := f.svc.Replay(ctx, ca); !errors.Is(err, ErrForbidden) {
		t.Fatalf("the candidate's Replay: %v; want ErrForbidden", err)
	}
	if _, err := f.svc.Scorecard(ctx, ca); !errors.Is(err, ErrForbidden) {
		t.Fatalf("the candidate's Scorecard: %v; want ErrForbidden", err)
	}
	if _, err := f.svc.End(ctx, ia); err != nil {
		t.Fatal(err)
	}
	// The record outlives the room: an ended room still replays.
	if r, err := f.svc.Replay(ctx, ia); err != nil || len(r.Moments) != 2 {
		t.Fatalf("replay of an ended room: %v, %v", r, err)
	}
	if _, err := f.svc.Scorecard(ctx, ia); err != nil {
		t.Fatalf("scorecard of an ended room: %v", err)
	}
}

func TestReplayCache(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	first, err := f.svc.Replay(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Replay(ctx, ia)
	if err != nil || again != first {
		t.Fatalf("a second replay of an unchanged log was built again (%v)", err)
	}
	if _, err := f.svc.SaveNotes(ctx, ia, "later"); err != nil {
		t.Fatal(err)
	}
	// ia is from before the note: the replay must still hold it.
	after, err := f.svc.Replay(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if after == first || after.Moments[len(after.Moments)-1].Kind != KindNoteSaved {
		t.Fatalf("the replay after a note ends with %+v", after.Moments[len(after.Moments)-1])
	}
	fr, err := after.Frame(after.LastSeq())
	if err != nil || fr.Notes != "later" {
		t.Fatalf("the last frame's notes = %q, %v", fr.Notes, err)
	}
	// The cache holds a bounded number of rooms.
	c := newReplayCache(2)
	for _, id := range []string{"a", "b", "c"} {
		c.put(&Replay{RoomID: id})
	}
	if c.get("a", 0) != nil || c.get("b", 0) == nil || c.get("c", 0) == nil || len(c.byID) != 2 {
		t.Fatalf("the cache of 2 after 3 rooms holds %v", c.order)
	}
}

// TestReplayFramesPastCheckpoints types past several kept texts and
// checks frames on either side of each against the document.
func TestReplayFramesPastCheckpoints(t *testing.T) {
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	e := newEditor(f, ca, 0)
	want := map[int64]string{}
	for i := range 3*checkpointEvery + 5 {
		// Every 10th key deletes the one before: the text does not only grow.
		if i%10 == 9 {
			want[e.replace(t, i%7, 1, "")] = e.text
			continue
		}
		want[e.replace(t, i%7, 0, string(rune('a'+i%26)))] = e.text
	}
	r, err := f.svc.Replay(context.Background(), ia)
	if err != nil {
		t.Fatal(err)
	}
	if d := r.docs[codeDoc(0)]; len(d.kept) != 4 {
		t.Fatalf("%d texts kept for %d updates; want 4", len(d.kept), len(d.ups))
	}
	for seq, text := range want {
		fr, err := r.Frame(seq)
		if err != nil || fr.Code[0].Text != text {
			t.Fatalf("Frame(%d): %v; the code differs from the document then", seq, err)
		}
	}
}

// TestReplayOfLaterKinds: a log holding kinds the replay does not know
// (a cursor move, one added later) and a document that is no step's code
// still replays; they are simply no moments, or moments of no step.
func TestReplayOfLaterKinds(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
	if _, err := f.store.AppendRoomEvents(ctx, ia.Room.ID, f.clock.Now(),
		storage.NewRoomEvent{Actor: storage.ActorSystem, Kind: "some.later.kind", Visibility: storage.VisibleToInterviewer, Payload: json.RawMessage(`{"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	up, _ := json.Marshal(collab.Update{ClientID: "candidate-x", Changes: json.RawMessage(`[[0,"a"]]`)})
	if _, err := f.store.AppendDocUpdates(ctx, ia.Room.ID, "sketch/0", 0, f.clock.Now(), storage.ActorCandidate, KindCodeUpdate, []json.RawMessage{up}); err != nil {
		t.Fatal(err)
	}
	r, err := f.svc.Replay(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Moments) != 2 || r.Moments[1].Item != -1 || r.Moments[1].Class != ClassEdit {
		t.Fatalf("moments = %+v; want the room's opening and an edit of no step", r.Moments)
	}
	fr, err := r.Frame(r.LastSeq())
	if err != nil || fr.Code[0].Version != 0 {
		t.Fatalf("the last frame: %+v, %v; want the step's code untouched", fr.Code, err)
	}
}

// TestReplayCursors: a frame shows each participant's cursor as the
// editors drew it then: from the push that carried it or a cursor report,
// moved along by the edits made since.
func TestReplayCursors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	_, ia, ca := f.create(t, storage.RoomFromProblem, "async-refund")
	n := collab.Length(collab.NormalizeNewlines(ia.Items[0].Problem.Code.Starter))
	push := func(a Access, base int, changes string, sel *collab.Selection) int64 {
		t.Helper()
		res, err := f.svc.Push(ctx, a, 0, base, []collab.Update{{ClientID: ClientID(a), Changes: json.RawMessage(changes), Selection: sel}})
		if err != nil || !res.Accepted() {
			t.Fatalf("push %s: %+v, %v", changes, res, err)
		}
		evs, _ := f.store.RoomEvents(ctx, ia.Room.ID, 0, 0)
		return evs[len(evs)-1].Seq
	}
	typed := push(ca, 0, fmt.Sprintf(`[[0,"AB"],%d]`, n), &collab.Selection{Anchor: 2, Head: 2, Colour: 1})
	shifted := push(ia, 1, fmt.Sprintf(`[[0,"xy",""],%d]`, n+2), nil)
	moved, err := f.svc.MoveCursor(ctx, ia, Cursor{Item: 0, ClientID: ClientID(ia), Version: 2, Anchor: 0, Head: 3, Colour: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.svc.Replay(ctx, ia)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		seq  int64
		want []FrameCursor
	}{
		{"before anyone typed", typed - 1, []FrameCursor{}},
		{"the candidate's push", typed, []FrameCursor{{Actor: "candidate", Anchor: 2, Head: 2, Line: 1, Column: 3}}},
		{"moved down by the interviewer's line", shifted, []FrameCursor{{Actor: "candidate", Anchor: 5, Head: 5, Line: 2, Column: 3}}},
		{"and the interviewer's report", moved.Seq, []FrameCursor{
			{Actor: "candidate", Anchor: 5, Head: 5, Line: 2, Column: 3},
			{Actor: "interviewer", Anchor: 0, Head: 3, Line: 2, Column: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr, err := r.Frame(tt.seq)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(fr.Code[0].Cursors)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Fatalf("cursors at %d = %s; want %s", tt.seq, got, want)
			}
		})
	}
}
