package web

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestPartOneRubricWaitsForTheAnswer: on the shipped refund problem, Part
// 1's "What this part should cover" (which names all three duplicate-refund
// paths) is not on the page before the answer, not even with every hint of
// both parts shown, and is shown once the candidate has answered. The
// hints themselves go from a nudge to a near-answer, so the first one must
// not name the paths either.
func TestPartOneRubricWaitsForTheAnswer(t *testing.T) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cat.Problem("async-refund")
	if !ok || len(p.Parts) < 2 || len(p.Parts[0].Rubric) == 0 {
		t.Fatal("the shipped async-refund problem has no Part 1 rubric")
	}
	var rubric []string
	for _, it := range p.Parts[0].Rubric {
		rubric = append(rubric, it.Text.HTML)
	}
	paths := []string{"lost reply", "overlapping runs", "rerun after a crash"}
	b := newTestServer(t, cat).newBrowser(t)
	const page = "/problems/async-refund"
	b.get(page).mustNotContain(t, rubric...)
	for _, part := range p.Parts[:2] {
		for i := range part.Hints {
			got := b.post(page+"/hints", url.Values{"part": {strconv.Itoa(part.Number)}, "hint": {strconv.Itoa(i + 1)}})
			got.mustNotContain(t, rubric...)
		}
	}
	for _, w := range paths {
		if strings.Contains(strings.ToLower(p.Parts[0].Hints[0].Text.HTML), w) {
			t.Errorf("Part 1's first hint names %q: a nudge should not", w)
		}
	}
	// Part 2's prompt is on the page from the start, so it must set the
	// task without listing what goes wrong: that is Part 1's answer.
	prompt := strings.ToLower(p.Parts[1].Prompt.HTML)
	for _, w := range []string{"retr", "two workers", "at once", "concurren", "overlap", "crash", "dying", "dies", "run again", "rerun", "lost"} {
		if strings.Contains(prompt, w) {
			t.Errorf("Part 2's prompt says %q, naming a duplicate-refund path before Part 1 is answered", w)
		}
	}
	b.post(page+"/answer", url.Values{"answer": {"A lost reply, two workers, a crash before the write."}}).mustContain(t, rubric...)
}
