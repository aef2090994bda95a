package web

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/grader"
)

const (
	refundStarterFile = "../../content/problems/async-refund/starter/refund.go"
	refundKitHeader   = "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"
)

// gradeForReport grades src with the real grader in a synctest bubble, so
// the report's HTML is tested against the data the grader really produces.
func gradeForReport(t *testing.T, src string, seed int64, scenarios ...string) *grader.Report {
	t.Helper()
	rep, err := grader.Grade(context.Background(), grader.Job{Problem: "async-refund", Source: src, Seed: seed, Scenarios: scenarios}, grader.BubbleFromT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func readRefundStarter(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(refundStarterFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func renderReport(t *testing.T, rep *grader.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := gradeReport(rep).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestGradeReport(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"a failing submission", readRefundStarter(t), []string{
			`<details class="grade-scenario grade-fail" id="scenario-lost-reply" open`,
			"violated", "Points to the defect: No idempotency key: each retry is a new refund",
			`<details class="grade-trace">`, "not fixed", "First failing run: seed 1",
		}},
		{"code that does not compile", refundKitHeader + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\treturn 1, nil\n}\n", []string{
			"could not be graded", "What stops the code from running", "line 10, column",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			html := renderReport(t, gradeForReport(t, tc.src, 1, "lost-reply"))
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("the fragment lacks %q", w)
				}
			}
		})
	}
}

func TestGradeReportEscapesSubmissionText(t *testing.T) {
	rep := &grader.Report{Status: grader.StatusFail, Message: "m", Scenarios: []grader.ScenarioReport{{
		Name: "x", Status: grader.StatusFail, Output: "<script>alert(1)</script>",
		Invocations: []grader.InvocationResult{{Worker: "worker-1", Ended: "returned", Error: "<b>bad</b>"}},
	}}}
	html := renderReport(t, rep)
	if strings.Contains(html, "<script>") || strings.Contains(html, "<b>bad") {
		t.Fatal("submission output reached the HTML unescaped")
	}
}
