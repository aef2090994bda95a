package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/content"
)

// TestLintRefusesAnswersTheRulesExclude: lint names, at its file and
// line, a refund scenario that scripts an answer the page's provider rules
// exclude (issue 24): a refusal in front of the idempotency layer for a
// resend whose first request landed, a 409 scripted rather than made by a
// key in use.
func TestLintRefusesAnswersTheRulesExclude(t *testing.T) {
	tests := []struct {
		name, fault, want string
	}{
		{"a 400 in front of the keys", "{request: 2, kind: http-error, status: 400, before_keys: true}", "before_keys scripts an answer the rules exclude"},
		{"a scripted 409", "{request: 2, kind: http-error, status: 409}", "a 409 is the provider's answer to a key still in use (rule P7)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, content.FS); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "problems", "async-refund", "scenarios.yaml")
			data, err := fs.ReadFile(content.FS, "problems/async-refund/scenarios.yaml")
			if err != nil {
				t.Fatal(err)
			}
			const anchor = "      - {request: 1, kind: lost-reply}\n"
			text := string(data)
			at := strings.Index(text, anchor)
			if at < 0 {
				t.Fatal("the scenarios file has no lost-reply fault to script after")
			}
			line := strings.Count(text[:at+len(anchor)], "\n") + 1
			text = text[:at+len(anchor)] + "      - " + tt.fault + "\n" + text[at+len(anchor):]
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), []string{"lint", dir}, &stdout, &stderr)
			want := file + ":" + strconv.Itoa(line) + `: scenario "lost-reply": `
			if code != 1 || !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), tt.want) {
				t.Fatalf("exit %d, stdout:\n%s\nwant a line starting %q and saying %q", code, stdout.String(), want, tt.want)
			}
		})
	}
}
