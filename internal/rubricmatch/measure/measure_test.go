package measure

import (
	"os"
	"testing"
)

// TestLabelledSet holds the matcher to its targets on the labelled
// answers and the shipped content, and needs at least 7 questions.
func TestLabelledSet(t *testing.T) {
	qs, err := Load("../testdata/labelled.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(os.DirFS("../../../content"), qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Misses {
		t.Logf("%s: key point %d labelled %s, marked %s: %s", m.Where, m.Point, m.Label, m.Got, m.KeyPoint)
	}
	t.Logf("%d questions, %d answers, %d key points: precision %.2f recall %.2f; contradictions found %d of %d, %d wrongly",
		r.Questions, r.Answers, r.Points, r.Precision(), r.Recall(), r.ContradictedFound, r.ContradictedLabelled, r.ContradictedWrong)
	if r.Questions < 7 {
		t.Errorf("%d labelled questions; want at least 7", r.Questions)
	}
	if r.Precision() < TargetPrecision || r.Recall() < TargetRecall {
		t.Errorf("precision %.2f recall %.2f; want at least %.2f and %.2f", r.Precision(), r.Recall(), TargetPrecision, TargetRecall)
	}
}

// TestHeldOutSet reports the matcher's figures on the held-out answers.
// They are logged, not held to the targets: the point of the set is to
// show what the matcher does on answers no one fitted its phrases to.
func TestHeldOutSet(t *testing.T) {
	qs, err := Load("../testdata/heldout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(os.DirFS("../../../content"), qs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held out: %d answers: precision %.2f recall %.2f", r.Answers, r.Precision(), r.Recall())
	if r.Answers == 0 {
		t.Fatal("no held-out answers")
	}
}
