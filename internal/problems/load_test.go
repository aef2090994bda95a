package problems

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func mustLoad(t *testing.T, fsys fstest.MapFS) *Catalog {
	t.Helper()
	c, err := Load(fsys)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func itemSources(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Text.Source)
	}
	return out
}

func itemLines(items []Item) []int {
	var out []int
	for _, it := range items {
		out = append(out, it.Line)
	}
	return out
}

func TestLoadGoodFixture(t *testing.T) {
	c := mustLoad(t, goodFixture())
	p, ok := c.Problem("refund-demo")
	if !ok {
		t.Fatal(`Problem("refund-demo") not found`)
	}

	t.Run("front matter", func(t *testing.T) {
		if p.Title != "Debug a refund" || p.Summary != "Find what is wrong." || p.Difficulty != "medium" || p.Minutes != 30 {
			t.Errorf("got title %q summary %q difficulty %q minutes %d", p.Title, p.Summary, p.Difficulty, p.Minutes)
		}
		want := Tags{Topics: []string{"idempotency", "payments"}, Companies: []string{"Acme"}, Roles: []string{"Backend engineer"}}
		if !slices.Equal(p.Tags.Topics, want.Topics) || !slices.Equal(p.Tags.Companies, want.Companies) || !slices.Equal(p.Tags.Roles, want.Roles) {
			t.Errorf("tags = %+v, want %+v", p.Tags, want)
		}
		if p.TimedAnswer != 2*time.Minute {
			t.Errorf("timed answer = %v, want 2m", p.TimedAnswer)
		}
		if p.File != "problems/refund-demo/problem.md" {
			t.Errorf("file = %q", p.File)
		}
	})

	t.Run("prompt keeps its code block", func(t *testing.T) {
		if !strings.HasPrefix(p.Prompt.Source, "The function below refunds a payment.") || !strings.HasSuffix(p.Prompt.Source, "```") {
			t.Errorf("prompt source = %q", p.Prompt.Source)
		}
		if !strings.Contains(p.Prompt.HTML, `<pre tabindex="0" class="chroma">`) {
			t.Errorf("prompt HTML has no highlighted code: %s", p.Prompt.HTML)
		}
	})

	t.Run("list sections", func(t *testing.T) {
		for _, tc := range []struct {
			name      string
			items     []Item
			wantText  []string
			wantLines []int
		}{
			{"clarifying", p.Clarifying, []string{"Is the provider call idempotent?", "What does *done* mean?"}, []int{27, 28}},
			{"strong answer", p.StrongAnswer, []string{"Ranks the defects by harm."}, []int{62}},
			{"follow-ups", p.FollowUps, []string{"How would you reconcile?"}, []int{66}},
			{"pitfalls", p.Pitfalls, []string{"Retrying every error."}, []int{70}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := itemSources(tc.items); !slices.Equal(got, tc.wantText) {
					t.Errorf("items = %q, want %q", got, tc.wantText)
				}
				if got := itemLines(tc.items); !slices.Equal(got, tc.wantLines) {
					t.Errorf("lines = %v, want %v", got, tc.wantLines)
				}
			})
		}
		if got := p.Clarifying[1].Text.HTML; got != "What does <em>done</em> mean?" {
			t.Errorf("single-paragraph item HTML = %q, want it without a <p> wrapper", got)
		}
	})

	t.Run("parts", func(t *testing.T) {
		if len(p.Parts) != 2 {
			t.Fatalf("got %d parts, want 2", len(p.Parts))
		}
		one, two := p.Parts[0], p.Parts[1]
		if one.Number != 1 || one.Title != "Find the defects" || one.Prompt.Source != "List every defect you can see." {
			t.Errorf("part 1 = %d %q %q", one.Number, one.Title, one.Prompt.Source)
		}
		if got := itemSources(one.Hints); !slices.Equal(got, []string{"Look at the loop.", "Look at what happens after it."}) {
			t.Errorf("part 1 hints = %q", got)
		}
		if got := itemLines(one.Hints); !slices.Equal(got, []int{36, 37}) {
			t.Errorf("part 1 hint lines = %v", got)
		}
		if got := itemSources(one.Rubric); !slices.Equal(got, []string{"The swallowed errors.", "Marking done after failure."}) {
			t.Errorf("part 1 rubric = %q", got)
		}
		if two.Number != 2 || two.Title != "Make it safe" {
			t.Errorf("part 2 = %d %q", two.Number, two.Title)
		}
		// An unrecognised ### heading stays in the part's prompt, in order.
		if want := "Rewrite it so a retry cannot refund twice.\n\n### Constraints\n\nKeep the signature."; two.Prompt.Source != want {
			t.Errorf("part 2 prompt = %q, want %q", two.Prompt.Source, want)
		}
		if len(two.Rubric) != 0 || len(two.Hints) != 1 {
			t.Errorf("part 2 has %d hints, %d rubric items; want 1, 0", len(two.Hints), len(two.Rubric))
		}
	})

	t.Run("glossary, guidance, model answer, free sections", func(t *testing.T) {
		var terms, defs []string
		for _, g := range p.Glossary {
			terms = append(terms, g.Term)
			defs = append(defs, g.Definition.Source)
		}
		if !slices.Equal(terms, []string{"Idempotency key", "Lease"}) || !slices.Equal(defs, []string{"a value that makes a repeat safe.", "how long a claim holds."}) {
			t.Errorf("glossary = %q / %q", terms, defs)
		}
		if p.Guidance.Source != "Start with the money." || p.ModelAnswer.Source != "The loop swallows errors." {
			t.Errorf("guidance %q, model answer %q", p.Guidance.Source, p.ModelAnswer.Source)
		}
		if len(p.Sections) != 1 || p.Sections[0].Title != "Facts about the provider" || p.Sections[0].Body.Source != "The provider replays the first response for a key." {
			t.Errorf("sections = %+v", p.Sections)
		}
	})

	t.Run("code", func(t *testing.T) {
		if p.Code == nil {
			t.Fatal("no code")
		}
		if p.Code.StarterPath != "problems/refund-demo/starter/refund.go" || p.Code.Starter != "package refund\n\nfunc Refund() {}\n" {
			t.Errorf("starter %q: %q", p.Code.StarterPath, p.Code.Starter)
		}
		if p.Code.ReferencePath != "problems/refund-demo/reference/refund.go" || !strings.Contains(p.Code.Reference, "_ = 1") {
			t.Errorf("reference %q: %q", p.Code.ReferencePath, p.Code.Reference)
		}
		if p.Code.Language != "go" || p.Code.Kit != "refund" {
			t.Errorf("language %q kit %q", p.Code.Language, p.Code.Kit)
		}
	})

	t.Run("question set", func(t *testing.T) {
		s, ok := c.Set("quick")
		if !ok {
			t.Fatal(`Set("quick") not found`)
		}
		if s.Intro.Source != "Answer each in two minutes." || len(s.Questions) != 2 {
			t.Fatalf("intro %q, %d questions", s.Intro.Source, len(s.Questions))
		}
		q1, q2 := s.Questions[0], s.Questions[1]
		if q1.ID != "what-is-an-idempotency-key" || q1.Text != "What is an idempotency key?" || q1.Line != 10 {
			t.Errorf("question 1 = %q %q line %d", q1.ID, q1.Text, q1.Line)
		}
		if q1.ModelAnswer.Source != "A value that makes a repeat of a request safe." || q1.TimeLimit != 90*time.Second {
			t.Errorf("question 1 answer %q, time %v", q1.ModelAnswer.Source, q1.TimeLimit)
		}
		if got := itemSources(q1.KeyPoints); !slices.Equal(got, []string{"Same key on every retry.", "Provider replays the first result."}) {
			t.Errorf("question 1 key points = %q", got)
		}
		if q2.ID != "tell-me-about-a-project-you-led" || q2.Details.Source != "Think of one you owned end to end." ||
			q2.Guidance.Source != "Pick one with a hard trade-off." || q2.ModelAnswer.Source != "" {
			t.Errorf("question 2 = %+v", q2)
		}
		if q2.TimeLimit != DefaultTimeLimit {
			t.Errorf("question 2 time limit = %v, want the default %v", q2.TimeLimit, DefaultTimeLimit)
		}
	})

	t.Run("screen", func(t *testing.T) {
		sc, ok := c.Screen("demo-screen")
		if !ok {
			t.Fatal(`Screen("demo-screen") not found`)
		}
		want := []ScreenItem{
			{Problem: "refund-demo", Minutes: 30, Note: "Watch for the idempotency key."},
			{Questions: "quick"},
		}
		if !slices.Equal(sc.Items, want) || sc.Intro.Source != "Run the problem first, then the questions." {
			t.Errorf("screen items %+v intro %q", sc.Items, sc.Intro.Source)
		}
	})

	t.Run("lookups of unknown slugs", func(t *testing.T) {
		if _, ok := c.Problem("quick"); ok {
			t.Error(`Problem("quick") found a question set`)
		}
		if _, ok := c.Set("nope"); ok {
			t.Error(`Set("nope") found something`)
		}
		if _, ok := c.Screen(""); ok {
			t.Error(`Screen("") found something`)
		}
	})
}

func TestCatalogOrderAndTags(t *testing.T) {
	fsys := goodFixture()
	for _, slug := range []string{"b-second", "a-first"} {
		src := strings.NewReplacer("slug: quick", "slug: "+slug, "topics: [llm]", "topics: [zeta, llm]\n  companies: [Acme]").Replace(goodSet)
		fsys["sets/"+slug+".md"] = &fstest.MapFile{Data: []byte(src)}
	}
	c := mustLoad(t, fsys)
	var slugs []string
	for _, s := range c.Sets {
		slugs = append(slugs, s.Slug)
	}
	if want := []string{"a-first", "b-second", "quick"}; !slices.Equal(slugs, want) {
		t.Errorf("set order = %q, want %q", slugs, want)
	}
	tags := c.Tags()
	if want := []string{"idempotency", "llm", "payments", "zeta"}; !slices.Equal(tags.Topics, want) {
		t.Errorf("topics = %q, want %q", tags.Topics, want)
	}
	if want := []string{"Acme"}; !slices.Equal(tags.Companies, want) {
		t.Errorf("companies = %q, want %q", tags.Companies, want)
	}
	if want := []string{"Backend engineer"}; !slices.Equal(tags.Roles, want) {
		t.Errorf("roles = %q, want %q", tags.Roles, want)
	}
}

func TestHeadingSpellings(t *testing.T) {
	tests := []struct {
		heading    string
		wantNumber int
		wantTitle  string
	}{
		{"Part 1: Find the defects", 1, "Find the defects"},
		{"Part 2 — Make it safe", 2, "Make it safe"},
		{"Part 3 - Dash", 3, "Dash"},
		{"part 4 – En dash", 4, "En dash"},
		{"PART 5. Dot", 5, "Dot"},
		{"Part 6", 6, ""},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			n, title, ok := parsePartHeading(tt.heading)
			if !ok || n != tt.wantNumber || title != tt.wantTitle {
				t.Errorf("parsePartHeading(%q) = %d, %q, %v; want %d, %q, true", tt.heading, n, title, ok, tt.wantNumber, tt.wantTitle)
			}
		})
	}
	for _, notPart := range []string{"Partial answers", "Part one: words", "Parts 1: plural"} {
		t.Run(notPart, func(t *testing.T) {
			if _, _, ok := parsePartHeading(notPart); ok {
				t.Errorf("parsePartHeading(%q) matched", notPart)
			}
		})
	}

	// Recognised section headings in other cases and spellings load the same.
	src := strings.NewReplacer(
		"## Clarifying questions", "## CLARIFYING QUESTIONS",
		"## Follow-up questions", "## Follow up questions:",
		"### Hints", "### hints",
		"### What this part should cover", "### What This Part Should Cover",
	).Replace(goodProblem)
	c := mustLoad(t, fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/problem.md": {Data: []byte(src)}}))
	p, _ := c.Problem("refund-demo")
	if len(p.Clarifying) != 2 || len(p.FollowUps) != 1 || len(p.Parts[0].Hints) != 2 || len(p.Parts[0].Rubric) != 2 || len(p.Sections) != 1 {
		t.Errorf("clarifying %d, follow-ups %d, hints %d, rubric %d, sections %d; want 2, 1, 2, 2, 1",
			len(p.Clarifying), len(p.FollowUps), len(p.Parts[0].Hints), len(p.Parts[0].Rubric), len(p.Sections))
	}
}

func TestRawHTMLIsEscaped(t *testing.T) {
	tests := []struct {
		name     string
		markdown string
		want     string
	}{
		{"inline tag", "Press <b>Grade</b> now.", "<p>Press &lt;b&gt;Grade&lt;/b&gt; now.</p>\n"},
		{"script block", "<script>alert(1)</script>", "<pre class=\"raw-html\" tabindex=\"0\"><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n"},
		{"div block", "<div class=\"x\">\nhi\n</div>", "<pre class=\"raw-html\" tabindex=\"0\"><code>&lt;div class=&quot;x&quot;&gt;\nhi\n&lt;/div&gt;\n</code></pre>\n"},
		{"comment", "<!-- note -->", "<pre class=\"raw-html\" tabindex=\"0\"><code>&lt;!-- note --&gt;\n</code></pre>\n"},
		{"javascript link", "[x](javascript:alert(1))", "<p><a href=\"\">x</a></p>\n"},
		{"javascript autolink", "<javascript:alert(1)>", "<p><a href=\"\">javascript:alert(1)</a></p>\n"},
		{"event attribute", "<a href=\"x\" onclick=\"y\">t</a>", "<p>&lt;a href=&quot;x&quot; onclick=&quot;y&quot;&gt;t&lt;/a&gt;</p>\n"},
		{"closing tags in a code block", "~~~\n</code></pre><script>\n~~~", "<pre><code>&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;\n</code></pre>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderMarkdown(tt.markdown)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("RenderMarkdown(%q) =\n%q\nwant\n%q", tt.markdown, got, tt.want)
			}
		})
	}
}

func TestMarkdownFeatures(t *testing.T) {
	tests := []struct {
		name     string
		markdown string
		contains []string
	}{
		{"go code block is highlighted with classes", "```go\nfunc f() {}\n```", []string{`<pre tabindex="0" class="chroma">`, `<span class="kd">func</span>`}},
		{"code without a language is escaped, not highlighted", "```\n<b>\n```", []string{"<pre><code>&lt;b&gt;\n</code></pre>"}},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", []string{"<table>", "<td>1</td>"}},
		{"strikethrough", "~~old~~", []string{"<del>old</del>"}},
		{"task list", "- [x] done", []string{`<input checked="" disabled="" type="checkbox"`}},
		{"autolink", "see https://example.com", []string{`<a href="https://example.com">https://example.com</a>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderMarkdown(tt.markdown)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.contains {
				if !strings.Contains(got, want) {
					t.Errorf("RenderMarkdown(%q) = %q; want it to contain %q", tt.markdown, got, want)
				}
			}
			if strings.Contains(got, "style=") {
				t.Errorf("RenderMarkdown(%q) has inline styles: %q", tt.markdown, got)
			}
		})
	}
}

func TestQuestionIDs(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"What is an idempotency key?", "what-is-an-idempotency-key"},
		{"What's RAG — and when is it wrong?", "whats-rag-and-when-is-it-wrong"},
		{"  `Retry-After`: what does it mean?  ", "retry-after-what-does-it-mean"},
		{"Why?!", "why"},
		{"¿¡", "question"},
		{strings.Repeat("word ", 30), strings.TrimSuffix(strings.Repeat("word-", 12), "-")},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := questionID(tt.text); got != tt.want {
				t.Errorf("questionID(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}

	// Different questions with the same slug get distinct ids.
	src := strings.Replace(goodSet, "## Tell me about a project you led.", "## What is an idempotency key!", 1)
	c := mustLoad(t, fixtureWith(map[string]*fstest.MapFile{"sets/quick.md": {Data: []byte(src)}}))
	s, _ := c.Set("quick")
	if got := []string{s.Questions[0].ID, s.Questions[1].ID}; !slices.Equal(got, []string{"what-is-an-idempotency-key", "what-is-an-idempotency-key-2"}) {
		t.Errorf("ids = %q", got)
	}
}

func TestContentErrorListsEveryDiagnostic(t *testing.T) {
	fsys := fixtureWith(map[string]*fstest.MapFile{
		"sets/quick.md":          {Data: []byte("---\nslug: quick\n---\n")},
		"screens/demo-screen.md": {Data: []byte("---\ntitle: Demo\nitems:\n  - problem: nope\n---\n")},
	})
	_, err := Load(fsys)
	var ce *ContentError
	if !errors.As(err, &ce) {
		t.Fatalf("Load error = %v, want a *ContentError", err)
	}
	want := []string{
		"screens/demo-screen.md:1: missing slug: add slug: demo-screen to the front matter",
		`screens/demo-screen.md:4: screen item 1 names unknown problem "nope"`,
		"sets/quick.md:1: missing title: add title: to the front matter",
		"sets/quick.md:4: no questions: write each question as a ## heading",
	}
	var got []string
	for _, d := range ce.Diagnostics {
		got = append(got, d.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "problems: 4 content errors:\n") || !strings.Contains(msg, want[3]) {
		t.Errorf("Error() = %q", msg)
	}
	if Lint(goodFixture()) != nil {
		t.Errorf("Lint(good fixture) = %v, want nil", Lint(goodFixture()))
	}
}

func TestListItemForms(t *testing.T) {
	tests := []struct {
		name     string
		list     string
		want     []string
		wantHTML string // of the first item, when set
	}{
		{"tab after the marker", "1.\tTabbed item.\n", []string{"Tabbed item."}, ""},
		{"wide marker", "10.  Tenth.\n", []string{"Tenth."}, ""},
		{"continuation lines", "- First line\n  second line.\n- Next.\n", []string{"First line\nsecond line.", "Next."}, ""},
		{"two paragraphs", "- One.\n\n  Two.\n", []string{"One.\n\nTwo."}, "<p>One.</p>\n<p>Two.</p>\n"},
		{"nested list", "- Parent\n  - child a\n  - child b\n", []string{"Parent\n- child a\n- child b"}, "<p>Parent</p>\n<ul>\n<li>child a</li>\n<li>child b</li>\n</ul>\n"},
		{"text on the next line", "-\n  Late text.\n", []string{"Late text."}, ""},
		{"code in an item", "- Run:\n\n  ```go\n  x := 1\n  ```\n", []string{"Run:\n\n```go\nx := 1\n```"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(goodProblem, "- How would you reconcile?\n", tt.list, 1)
			c := mustLoad(t, fixtureWith(map[string]*fstest.MapFile{problemPath: {Data: []byte(src)}}))
			p, _ := c.Problem("refund-demo")
			if got := itemSources(p.FollowUps); !slices.Equal(got, tt.want) {
				t.Errorf("items = %q, want %q", got, tt.want)
			}
			if tt.wantHTML != "" && p.FollowUps[0].Text.HTML != tt.wantHTML {
				t.Errorf("first item HTML = %q, want %q", p.FollowUps[0].Text.HTML, tt.wantHTML)
			}
			if p.FollowUps[0].Line != 66 {
				t.Errorf("first item line = %d, want 66", p.FollowUps[0].Line)
			}
		})
	}

	t.Run("empty item", func(t *testing.T) {
		src := strings.Replace(goodProblem, "- How would you reconcile?\n", "- How would you reconcile?\n-\n", 1)
		got := Lint(fixtureWith(map[string]*fstest.MapFile{problemPath: {Data: []byte(src)}}))
		want := []Diagnostic{{File: problemPath, Line: 67, Message: "empty list item"}}
		if !slices.Equal(got, want) {
			t.Errorf("Lint = %v, want %v", got, want)
		}
	})
}

func TestReferenceLinksResolveAcrossSections(t *testing.T) {
	src := strings.NewReplacer(
		"- How would you reconcile?\n", "- How would you [reconcile][recon]?\n",
		"The loop swallows errors.\n", "The loop swallows errors; see [the docs][recon].\n\n[recon]: https://example.com/reconcile\n",
	).Replace(goodProblem)
	c := mustLoad(t, fixtureWith(map[string]*fstest.MapFile{problemPath: {Data: []byte(src)}}))
	p, _ := c.Problem("refund-demo")
	link := `<a href="https://example.com/reconcile">`
	if !strings.Contains(p.FollowUps[0].Text.HTML, link) {
		t.Errorf("follow-up HTML = %q, want the link defined in another section", p.FollowUps[0].Text.HTML)
	}
	if !strings.Contains(p.ModelAnswer.HTML, link) {
		t.Errorf("model answer HTML = %q, want the link", p.ModelAnswer.HTML)
	}
}

// TestLoadConcurrently lets the race detector check the shared goldmark and
// chroma state: the web tests load catalogues in parallel.
func TestLoadConcurrently(t *testing.T) {
	done := make(chan error)
	for range 4 {
		go func() {
			_, err := Load(goodFixture())
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// Editors leave lock links, autosaves, swap files and backups beside the
// file being edited; under -watch the loader sees them mid-edit. None is
// the author's content, so none may be loaded or reported.
func TestEditorLitterIsIgnored(t *testing.T) {
	garbage := []byte("not content at all")
	for _, name := range []string{
		"sets/.#quick.md", "sets/#quick.md#", "sets/quick.md~", "sets/.quick.md.swp",
		"screens/.#demo-screen.md", "problems/.#notes.md", "problems/.git/HEAD",
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fixtureWith(map[string]*fstest.MapFile{name: {Data: garbage}})
			if err := Lint(fsys); err != nil {
				t.Errorf("Lint with %s beside the content = %v, want nil", name, err)
			}
		})
	}
}

// TestQuestionFollowUps reads a question's ### Follow-ups: each item's bold
// lead is the question, the rest its answer, in either heading spelling.
func TestQuestionFollowUps(t *testing.T) {
	for _, heading := range []string{"### Follow-ups", "### Follow-up questions"} {
		t.Run(heading, func(t *testing.T) {
			fsys := edit(t, setPath, "- Names the trade-off.\n", "- Names the trade-off.\n\n"+heading+"\n\n"+
				"- **What did it cost?** Two months, and one `retry` budget.\n"+
				"- **Who decided?**\n  The lead, after a review.\n")
			s, ok := mustLoad(t, fsys).Set("quick")
			if !ok {
				t.Fatal(`Set("quick") not found`)
			}
			got := s.Questions[1].FollowUps
			if len(got) != 2 {
				t.Fatalf("%d follow-ups, want 2: %+v", len(got), got)
			}
			want := []FollowUp{
				{Question: Markdown{Source: "What did it cost?"}, Answer: Markdown{Source: "Two months, and one `retry` budget."}, Line: 39},
				{Question: Markdown{Source: "Who decided?"}, Answer: Markdown{Source: "The lead, after a review."}, Line: 40},
			}
			for i := range want {
				if got[i].Question.Source != want[i].Question.Source || got[i].Answer.Source != want[i].Answer.Source || got[i].Line != want[i].Line {
					t.Errorf("follow-up %d = %q / %q at line %d, want %q / %q at line %d", i,
						got[i].Question.Source, got[i].Answer.Source, got[i].Line,
						want[i].Question.Source, want[i].Answer.Source, want[i].Line)
				}
			}
			if !strings.Contains(got[0].Answer.HTML, "<code>retry</code>") {
				t.Errorf("answer HTML %q does not render its code span", got[0].Answer.HTML)
			}
			if len(s.Questions[0].FollowUps) != 0 {
				t.Errorf("question 1 has follow-ups it never declared: %+v", s.Questions[0].FollowUps)
			}
		})
	}
}
