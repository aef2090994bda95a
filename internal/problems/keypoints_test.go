package problems

import (
	"slices"
	"strings"
	"testing"
)

// TestKeyPointPhrases reads a key point's shows: and contradicts: lines
// into the item, out of its text, each phrase with its line.
func TestKeyPointPhrases(t *testing.T) {
	fsys := edit(t, setPath, "- Same key on every retry.\n", "- Same key on every retry.\n"+
		"  - shows: reuse the key | same key for each retry\n"+
		"  - contradicts: a new key per attempt\n")
	cat, err := Load(fsys)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	qs, _ := cat.Set("quick")
	var kp Item
	for _, q := range qs.Questions {
		if len(q.KeyPoints) > 0 && strings.Contains(q.KeyPoints[0].Text.HTML, "Same key on every retry") {
			kp = q.KeyPoints[0]
		}
	}
	if strings.Contains(kp.Text.HTML, "shows") || strings.Contains(kp.Text.HTML, "<li>") {
		t.Errorf("key point text = %q; want the phrases out of it", kp.Text.HTML)
	}
	want := []Phrase{{"reuse the key", kp.Line + 1}, {"same key for each retry", kp.Line + 1}}
	if !slices.Equal(kp.Shows, want) || !slices.Equal(kp.Contradicts, []Phrase{{"a new key per attempt", kp.Line + 2}}) {
		t.Fatalf("shows %+v contradicts %+v; want %+v and one contradiction on line %d", kp.Shows, kp.Contradicts, want, kp.Line+2)
	}
	m := MatcherPoints(qs.Questions[0].KeyPoints)
	if len(m[0].Shows) != 2 || len(m[0].Contradicts) != 1 || len(m[1].Shows) != 0 {
		t.Fatalf("MatcherPoints = %+v", m)
	}
}

func TestKeyPointPhraseLint(t *testing.T) {
	tests := []struct {
		name, file, old, new string
		want                 []string
	}{
		{"empty list", setPath, "- Same key on every retry.\n", "- Same key on every retry.\n  - shows:\n",
			[]string{"sets/quick.md:19: shows: lists no phrases (write phrases separated by |)"}},
		{"empty phrase and stop words only", setPath, "- Same key on every retry.\n", "- Same key on every retry.\n  - shows: reuse the key || it is the\n",
			[]string{"sets/quick.md:19: shows: an empty phrase",
				`sets/quick.md:19: shows: the phrase "it is the" has only common words (like "the", "is"), so it would match almost anything`}},
		{"the same words twice", setPath, "- Same key on every retry.\n", "- Same key on every retry.\n  - shows: reuse the key\n  - contradicts: reused keys\n",
			[]string{`sets/quick.md:20: contradicts: the phrase "reused keys" matches the same words as "reuse the key" (under shows:, line 19)`}},
		{"a misspelt lead", setPath, "- Same key on every retry.\n", "- Same key on every retry.\n  - show: reuse the key\n",
			[]string{"sets/quick.md:19: show: is not a matcher line: write shows: (phrases that show the key point) or contradicts: (misconceptions)"}},
		{"text after the phrases", setPath, "- Same key on every retry.\n", "- Same key on every retry.\n  - shows: reuse the key\n  - a stray note\n",
			[]string{"sets/quick.md:20: after a key point's shows: and contradicts: lines only more of them may follow; this line would not be shown (move it above them)"}},
		{"phrases in a pitfall", problemPath, "## Follow-up questions\n", "## Follow-up questions\n\n- Why?\n  - shows: because\n",
			[]string{"problems/refund-demo/problem.md:67: shows: and contradicts: lines belong under a key point (### Key points, ## What a strong answer covers); here they would be shown as text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range Lint(edit(t, tt.file, tt.old, tt.new)) {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("diagnostics:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tt.want, "\n      "))
			}
		})
	}
}
