package problems

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// edit returns the good fixture with old replaced by new in one file; the
// test fails if old is not there, so a fixture change cannot make a case
// silently test nothing.
func edit(t *testing.T, file, old, new string) fstest.MapFS {
	t.Helper()
	fsys := goodFixture()
	src := string(fsys[file].Data)
	if !strings.Contains(src, old) {
		t.Fatalf("fixture %s does not contain %q", file, old)
	}
	fsys[file] = &fstest.MapFile{Data: []byte(strings.Replace(src, old, new, 1))}
	return fsys
}

const (
	problemPath = "problems/refund-demo/problem.md"
	setPath     = "sets/quick.md"
	screenPath  = "screens/demo-screen.md"
)

func TestLintReportsEachKindOfBadContent(t *testing.T) {
	tests := []struct {
		name string
		fsys func(t *testing.T) fstest.MapFS
		want []string
	}{
		{
			name: "no front matter",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "---\nslug: refund-demo\n", "slug: refund-demo\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:1: missing front matter: the file must start with a --- line, then YAML (slug, title, ...), then a closing --- line",
			},
		},
		{
			name: "front matter not closed",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "tags:\n  topics: [llm]\n---\n", "tags:\n  topics: [llm]\n")
			},
			want: []string{
				"sets/quick.md:1: front matter is not closed: add a --- line after the YAML",
			},
		},
		{
			name: "YAML syntax error",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "minutes: 30\n", "minutes: [30\n") },
			want: []string{
				"problems/refund-demo/problem.md:6: front matter: did not find expected ',' or ']'",
			},
		},
		{
			name: "YAML type error",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, setPath, "minutes: 10\n", "minutes: ten\n") },
			want: []string{
				"sets/quick.md:4: front matter: cannot unmarshal !!str `ten` into int",
			},
		},
		{
			name: "unknown front matter key",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "difficulty: medium\n", "dificulty: medium\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:1: missing difficulty: add difficulty: easy, medium or hard",
				"problems/refund-demo/problem.md:5: front matter: unknown key \"dificulty\"",
			},
		},
		{
			name: "key of another kind",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "minutes: 10\n", "minutes: 10\ndifficulty: easy\n")
			},
			want: []string{
				"sets/quick.md:5: front matter: unknown key \"difficulty\"",
			},
		},
		{
			name: "missing title",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, setPath, "title: Quick questions\n", "") },
			want: []string{
				"sets/quick.md:1: missing title: add title: to the front matter",
			},
		},
		{
			name: "missing slug",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, screenPath, "slug: demo-screen\n", "") },
			want: []string{
				"screens/demo-screen.md:1: missing slug: add slug: demo-screen to the front matter",
			},
		},
		{
			name: "slug does not match folder",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "slug: refund-demo\n", "slug: refund\n") },
			want: []string{
				"problems/refund-demo/problem.md:2: slug \"refund\" does not match the folder name \"refund-demo\": they must be the same",
			},
		},
		{
			name: "slug with bad characters",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, setPath, "slug: quick\n", "slug: Quick_Set\n") },
			want: []string{
				"sets/quick.md:2: bad slug \"Quick_Set\": use lower-case letters, digits and single hyphens (like async-refund)",
			},
		},
		{
			name: "duplicate slug across kinds",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := goodFixture()
				fsys["sets/refund-demo.md"] = &fstest.MapFile{Data: []byte(strings.Replace(goodSet, "slug: quick", "slug: refund-demo", 1))}
				return fsys
			},
			want: []string{
				"sets/refund-demo.md:2: duplicate slug \"refund-demo\": problems/refund-demo/problem.md:2 already uses it",
			},
		},
		{
			name: "unknown difficulty",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "difficulty: medium\n", "difficulty: brutal\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:5: unknown difficulty \"brutal\": use easy, medium or hard",
			},
		},
		{
			name: "missing difficulty",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "difficulty: medium\n", "") },
			want: []string{
				"problems/refund-demo/problem.md:1: missing difficulty: add difficulty: easy, medium or hard",
			},
		},
		{
			name: "bad timed_answer",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "timed_answer: 2m\n", "timed_answer: 120\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:12: bad duration for timed_answer: \"120\" (write a Go duration such as 90s or 2m)",
			},
		},
		{
			name: "bad time limit",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "### Time limit\n\n90s\n", "### Time limit\n\nninety seconds\n")
			},
			want: []string{
				"sets/quick.md:23: bad duration for ### Time limit: \"ninety seconds\" (write a Go duration such as 90s or 2m)",
			},
		},
		{
			name: "hints outside a part",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "The provider replays the first response for a key.\n", "The provider replays the first response for a key.\n\n### Hints\n\n- Read the docs.\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:60: ### Hints outside a part (in ## Facts about the provider): hints belong under a ## Part N: Title heading",
			},
		},
		{
			name: "hints in a list section",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "- Ranks the defects by harm.\n", "- Ranks the defects by harm.\n\n### Hints\n\n- Think.\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:64: ### Hints outside a part (in ## What a strong answer covers): hints belong under a ## Part N: Title heading",
			},
		},
		{
			name: "hints as a section of their own",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "## Facts about the provider\n", "## Hints\n\n- Think.\n\n## Facts about the provider\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:56: ## Hints is not a section of its own: put it under a ## Part N: Title heading, as ### Hints",
			},
		},
		{
			name: "rubric in the prompt",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "Find what is wrong.\n\n```go", "Find what is wrong.\n\n### What this part should cover\n\n- Everything.\n\n```go")
			},
			want: []string{
				"problems/refund-demo/problem.md:21: ### What this part should cover outside a part (in the prompt): a rubric belongs under a ## Part N: Title heading",
			},
		},
		{
			name: "part with no prompt",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "List every defect you can see.\n\n", "") },
			want: []string{
				"problems/refund-demo/problem.md:30: part 1 has no prompt: say what the candidate should do, under the ## heading and before its ### sections",
			},
		},
		{
			name: "parts out of order",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "## Part 2 — Make it safe", "## Part 3 — Make it safe")
			},
			want: []string{
				"problems/refund-demo/problem.md:44: part 3 is out of order: parts are numbered 1, 2, 3, ... in file order, and this one should be part 2",
			},
		},
		{
			name: "section twice",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "## Model answer\n", "## Model answer\n\nOne.\n\n## model answer\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:85: ## model answer appears twice (first at line 81)",
			},
		},
		{
			name: "prose in a list section",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "## Follow-up questions\n\n", "## Follow-up questions\n\nAsk these after part 2.\n\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:66: ## Follow-up questions holds a list; this paragraph would not be shown (make it a list item or move it)",
			},
		},
		{
			name: "glossary item without a bold term",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "- **Idempotency key**: a value", "- Idempotency key: a value")
			},
			want: []string{
				"problems/refund-demo/problem.md:74: a glossary item must start with the term in bold, then a colon: **Term**: definition",
			},
		},
		{
			name: "title heading in the body",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "Answer each in two minutes.\n", "# Quick questions\n\nAnswer each in two minutes.\n")
			},
			want: []string{
				"sets/quick.md:8: # heading in the body: the title comes from title: in the front matter; use ## for sections",
			},
		},
		{
			name: "code fence with attributes",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "```go\nfunc refund()", "```go {hl_lines=[1]}\nfunc refund()")
			},
			want: []string{
				"problems/refund-demo/problem.md:21: code fence attributes {hl_lines=[1]} are not supported: write the fence as ```go and point at lines in the text",
			},
		},
		{
			name: "missing prompt",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "The function below refunds a payment. Find what is wrong.\n\n```go\nfunc refund() error { return nil }\n```\n", "")
			},
			want: []string{
				"problems/refund-demo/problem.md:19: missing prompt: write the problem statement before the first ## heading",
			},
		},
		{
			name: "question without model answer or guidance",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "### Guidance\n\nPick one with a hard trade-off.\n\n", "")
			},
			want: []string{
				"sets/quick.md:25: question \"Tell me about a project you led.\" has no ### Model answer or ### Guidance",
			},
		},
		{
			name: "question without key points",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "### Key points\n\n- Names the trade-off.\n", "")
			},
			want: []string{
				"sets/quick.md:25: question \"Tell me about a project you led.\" has no ### Key points: list what a good answer mentions",
			},
		},
		{
			name: "unknown heading under a question",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, setPath, "### Guidance\n", "### Advice\n") },
			want: []string{
				"sets/quick.md:25: question \"Tell me about a project you led.\" has no ### Model answer or ### Guidance",
				"sets/quick.md:29: unknown heading ### Advice under a question: use ### Model answer, ### Key points, ### Guidance, ### Follow-ups or ### Time limit (use #### for a heading inside an answer)",
			},
		},
		{
			name: "follow-up without its question in bold, or without an answer",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, setPath, "- Names the trade-off.\n", "- Names the trade-off.\n\n### Follow-ups\n\n- **And then?** It shipped.\n- What did it cost?\n- **Who decided?**\n\nSome prose.\n")
			},
			want: []string{
				"sets/quick.md:40: a follow-up must start with the question in bold, then its answer: - **What if the key expired?** Then ...",
				"sets/quick.md:41: a follow-up must start with the question in bold, then its answer: - **What if the key expired?** Then ...",
				"sets/quick.md:43: ### Follow-ups holds a list; this paragraph would not be shown (make it a list item or move it)",
			},
		},
		{
			name: "set with no questions",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := goodFixture()
				fsys[setPath] = &fstest.MapFile{Data: []byte("---\nslug: quick\ntitle: Quick\n---\nNothing yet.\n")}
				return fsys
			},
			want: []string{
				"sets/quick.md:5: no questions: write each question as a ## heading",
			},
		},
		{
			name: "screen names unknown problem and set",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := edit(t, screenPath, "problem: refund-demo", "problem: refund-dmeo")
				fsys[screenPath].Data = []byte(strings.Replace(string(fsys[screenPath].Data), "questions: quick", "questions: refund-demo", 1))
				return fsys
			},
			want: []string{
				"screens/demo-screen.md:5: screen item 1 names unknown problem \"refund-dmeo\"",
				"screens/demo-screen.md:8: screen item 2 names unknown question set \"refund-demo\" (\"refund-demo\" is a problem: write problem: refund-demo)",
			},
		},
		{
			name: "screen item with neither or both",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, screenPath, "  - questions: quick\n", "  - questions: quick\n    problem: refund-demo\n  - note: nothing\n")
			},
			want: []string{
				"screens/demo-screen.md:8: screen item 2 names both a problem and questions: one step is one of them; split it into two items",
				"screens/demo-screen.md:10: screen item 3 names neither a problem nor questions: set problem: <slug> or questions: <slug>",
			},
		},
		{
			name: "screen with no items",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := goodFixture()
				fsys[screenPath] = &fstest.MapFile{Data: []byte("---\nslug: demo-screen\ntitle: Demo\n---\nRun it.\n")}
				return fsys
			},
			want: []string{
				"screens/demo-screen.md:1: a screen needs items: a list of - problem: <slug> or - questions: <slug>",
			},
		},
		{
			name: "starter file missing",
			fsys: func(t *testing.T) fstest.MapFS {
				return fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/starter/refund.go": nil})
			},
			want: []string{
				"problems/refund-demo/problem.md:15: code.starter: file starter/refund.go not found (looked for problems/refund-demo/starter/refund.go)",
			},
		},
		{
			name: "reference not named",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "  reference: reference/refund.go\n", "") },
			want: []string{
				"problems/refund-demo/problem.md:13: code.reference is missing: name the reference file, relative to the problem folder (for example reference/refund.go)",
			},
		},
		{
			name: "a Python starter with no Python reference",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := edit(t, problemPath, "  reference: reference/refund.go\n", "  reference: reference/refund.go\n  python_starter: starter/refund.py\n")
				fsys["problems/refund-demo/starter/refund.py"] = &fstest.MapFile{Data: []byte("async def refund_money(request_id): ...\n")}
				return fsys
			},
			want: []string{
				"problems/refund-demo/problem.md:13: code.python_reference is missing: code.python_starter and code.python_reference come together",
			},
		},
		{
			name: "a Python starter that is not a .py file",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "  reference: reference/refund.go\n", "  reference: reference/refund.go\n  python_starter: starter/refund.go\n  python_reference: reference/refund.go\n")
			},
			want: []string{
				"problems/refund-demo/problem.md:17: code.python_starter \"starter/refund.go\" must be a Python file (.py)",
				"problems/refund-demo/problem.md:18: code.python_reference \"reference/refund.go\" must be a Python file (.py)",
			},
		},
		{
			name: "code path outside the problem folder",
			fsys: func(t *testing.T) fstest.MapFS {
				return edit(t, problemPath, "starter: starter/refund.go", "starter: ../other/refund.go")
			},
			want: []string{
				"problems/refund-demo/problem.md:15: code.starter \"../other/refund.go\" must be a path inside the problem folder problems/refund-demo/",
			},
		},
		{
			name: "Go syntax error in the reference",
			fsys: func(t *testing.T) fstest.MapFS {
				return fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/reference/refund.go": {Data: []byte("package refund\n\nfunc Refund() {\n\tif {\n}\n")}})
			},
			want: []string{
				"problems/refund-demo/reference/refund.go:4: Go syntax error: missing condition in if statement",
				"problems/refund-demo/reference/refund.go:5: Go syntax error: expected ';', found 'EOF'",
			},
		},
		{
			name: "unknown code language",
			fsys: func(t *testing.T) fstest.MapFS { return edit(t, problemPath, "language: go", "language: python") },
			want: []string{
				"problems/refund-demo/problem.md:14: unknown code.language \"python\": only go is supported",
			},
		},
		{
			name: "problem file outside a folder, folder without problem.md",
			fsys: func(t *testing.T) fstest.MapFS {
				return fixtureWith(map[string]*fstest.MapFile{
					"problems/loose.md":        {Data: []byte(goodProblem)},
					"problems/empty/notes.txt": {Data: []byte("notes")},
				})
			},
			want: []string{
				"problems/empty: no problem.md in this problem folder",
				"problems/loose.md: a problem lives in its own folder: move it to problems/<slug>/problem.md",
			},
		},
		{
			name: "not a content root",
			fsys: func(t *testing.T) fstest.MapFS { return fstest.MapFS{"README.md": {Data: []byte("# hi")}} },
			want: []string{
				".: no content here: expected a problems/, sets/ or screens/ folder",
			},
		},
		{
			name: "every error in every file",
			fsys: func(t *testing.T) fstest.MapFS {
				fsys := edit(t, problemPath, "difficulty: medium\n", "difficulty: brutal\n")
				fsys[problemPath].Data = []byte(strings.Replace(string(fsys[problemPath].Data), "timed_answer: 2m", "timed_answer: soon", 1))
				fsys[setPath].Data = []byte(strings.Replace(string(fsys[setPath].Data), "90s", "1 minute", 1))
				fsys[screenPath].Data = []byte(strings.Replace(string(fsys[screenPath].Data), "questions: quick", "questions: slow", 1))
				return fsys
			},
			want: []string{
				"problems/refund-demo/problem.md:5: unknown difficulty \"brutal\": use easy, medium or hard",
				"problems/refund-demo/problem.md:12: bad duration for timed_answer: \"soon\" (write a Go duration such as 90s or 2m)",
				"screens/demo-screen.md:8: screen item 2 names unknown question set \"slow\"",
				"sets/quick.md:23: bad duration for ### Time limit: \"1 minute\" (write a Go duration such as 90s or 2m)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range Lint(tt.fsys(t)) {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("diagnostics:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tt.want, "\n      "))
			}
		})
	}
}
