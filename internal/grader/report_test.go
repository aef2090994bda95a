package grader

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestReportView(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"a failing submission", readSource(t, starterFile), []string{
			`<details class="grade-scenario grade-fail" id="scenario-lost-reply" open`,
			"violated", "Points to the defect: No idempotency key: each retry is a new refund",
			`<details class="grade-trace">`, "not fixed", "First failing run: seed 1",
		}},
		{"code that does not compile", header + "func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n\treturn 1, nil\n}\n", []string{
			"could not be graded", "What stops the code from running", "line 10, column",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := grade(t, tc.src, 1, "lost-reply")
			var buf bytes.Buffer
			if err := ReportView(rep).Render(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("the fragment lacks %q", w)
				}
			}
		})
	}
}

func TestReportViewEscapesSubmissionText(t *testing.T) {
	rep := &Report{Status: StatusFail, Message: "m", Scenarios: []ScenarioReport{{
		Name: "x", Status: StatusFail, Output: "<script>alert(1)</script>",
		Invocations: []InvocationResult{{Worker: "worker-1", Ended: "returned", Error: "<b>bad</b>"}},
	}}}
	var buf bytes.Buffer
	if err := ReportView(rep).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script>") || strings.Contains(buf.String(), "<b>bad") {
		t.Fatal("submission output reached the HTML unescaped")
	}
}
