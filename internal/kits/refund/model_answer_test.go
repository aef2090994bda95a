package refund_test

import (
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// problemPage is the async-refund problem page, whose model answer carries
// a full solution in a Go block.
const problemPage = "../../../content/problems/async-refund/problem.md"

// modelAnswerCode returns the Go block of the page's model answer that
// defines RefundMoney: the code a candidate sees when the answer is
// revealed.
func modelAnswerCode(page string) (string, bool) {
	_, answer, ok := strings.Cut(page, "\n## Model answer\n")
	if !ok {
		return "", false
	}
	for {
		_, rest, ok := strings.Cut(answer, "\n```go\n")
		if !ok {
			return "", false
		}
		code, after, ok := strings.Cut(rest, "\n```\n")
		if !ok {
			return "", false
		}
		if strings.Contains(code, "package refund") && strings.Contains(code, "func RefundMoney(") {
			return code + "\n", true
		}
		answer = after
	}
}

// TestModelAnswerPassesEveryScenario grades the code the page reveals as
// its model answer: the content and the grader must not drift apart, or
// the page teaches code its own grader fails.
func TestModelAnswerPassesEveryScenario(t *testing.T) {
	page, err := os.ReadFile(problemPage)
	if err != nil {
		t.Fatal(err)
	}
	code, ok := modelAnswerCode(string(page))
	if !ok {
		t.Fatalf("%s: no Go block defining RefundMoney under \"## Model answer\"", problemPage)
	}
	rep := gradeSeed(t, code, 1)
	if rep.Status != gradewire.StatusPass {
		t.Fatalf("the page's model answer fails: %s; violated: %v", rep.Message, keys(violated(rep)))
	}
}

func TestModelAnswerCode(t *testing.T) {
	page := "intro\n```go\npackage refund\nfunc RefundMoney() {}\n```\n## Model answer\ntext\n```go\nx := 1\n```\nmore\n```go\npackage refund\n\nfunc RefundMoney(ctx) {}\n```\nend\n"
	got, ok := modelAnswerCode(page)
	if want := "package refund\n\nfunc RefundMoney(ctx) {}\n"; !ok || got != want {
		t.Errorf("got %q, %v; want %q", got, ok, want)
	}
	if _, ok := modelAnswerCode("## Model answer\nno code\n"); ok {
		t.Error("found code where there is none")
	}
}
