package rubricmatch

import (
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	groups := [][]string{
		{"retry", "retries", "retried", "retrying"},
		{"store", "stored", "storing", "stores"},
		{"key", "keys"},
		{"stop", "stopped", "stopping", "stops"},
		{"idempotent", "idempotent"},
		{"process", "process"},
	}
	for _, g := range groups {
		for _, w := range g[1:] {
			if stem(w) != stem(g[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want the same", w, stem(w), g[0], stem(g[0]))
			}
		}
	}
	if stem("class") == stem("clas") && stem("store") == stem("story") {
		t.Errorf("stems collapse too far")
	}
}

func TestMatch(t *testing.T) {
	key := KeyPoint{Shows: []string{"reuse the same idempotency key on retry", "same key for every retry"},
		Contradicts: []string{"new key on each retry"}}
	tests := []struct {
		name   string
		answer string
		want   Verdict
		marked []string // words highlighted
	}{
		{"says it", "On a retry I would reuse the same idempotency key.", Covered, []string{"retry", "reuse the same idempotency key"}},
		{"other forms and order", "Retries must keep the same key, one for every retry of the payment.", Covered, []string{"same key, one for every retry"}},
		{"not there", "I would add logging and a timeout.", NotFound, nil},
		{"misconception", "Generate a new key on each retry so the provider sees a fresh request.", Contradicted, []string{"new key on each retry"}},
		{"negated misconception", "Never create a new key on each retry.", Covered, []string{"Never", "new key on each retry"}},
		{"negated showing phrase", "You should not reuse the same idempotency key on retry.", Contradicted, []string{"not", "reuse the same idempotency key on retry"}},
		{"contraction negates", "Don't reuse the same idempotency key on a retry.", Contradicted, nil},
		{"words across sentences do not match", "Keep the same thing. Every key is new.", NotFound, nil},
		{"one word of a long phrase missing", "Send one key for every retry.", Covered, []string{"key for every retry"}},
		{"camelCase splits", "callWithSameKey on every retry", Covered, nil},
		{"curly apostrophe", "You don’t reuse the same idempotency key on retry.", Contradicted, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Match(tt.answer, []KeyPoint{key})[0]
			if m.Verdict != tt.want {
				t.Fatalf("verdict %s (%s); want %s; evidence %+v", m.Verdict, m.Why(), tt.want, m.Evidence)
			}
			var spans []Span
			for _, e := range m.Evidence {
				spans = append(spans, e.Spans...)
			}
			var got []string
			for _, r := range Runs(tt.answer, spans) {
				if r.Marked {
					got = append(got, r.Text)
				}
			}
			for _, w := range tt.marked {
				if !strings.Contains(strings.Join(got, "|"), w) {
					t.Errorf("marked %q; want %q among them", got, w)
				}
			}
			if m.Why() == "" {
				t.Error("no explanation")
			}
		})
	}
	if m := Match("anything", []KeyPoint{{}})[0]; m.HasPhrases || m.Verdict != NotFound || !strings.Contains(m.Why(), "no phrases") {
		t.Errorf("a key point without phrases = %+v", m)
	}
}

func TestMatchIsDeterministic(t *testing.T) {
	kp := []KeyPoint{{Shows: []string{"lease expires", "heartbeat"}, Contradicts: []string{"lock forever"}}}
	a := "The lease expires unless a heartbeat renews it; we never lock forever."
	first := Match(a, kp)
	for range 20 {
		again := Match(a, kp)
		if again[0].Verdict != first[0].Verdict || len(again[0].Evidence) != len(first[0].Evidence) {
			t.Fatal("Match differs between runs")
		}
	}
}

func TestCheckPhrase(t *testing.T) {
	for p, bad := range map[string]bool{"": true, "  ": true, "the is of": true, "lease expires": false, "not the": false} {
		if got := CheckPhrase(p) != ""; got != bad {
			t.Errorf("CheckPhrase(%q) = %q; want bad %v", p, CheckPhrase(p), bad)
		}
	}
	if !SamePhrase("the key is stored", "stores keys") || SamePhrase("store key", "store the lease") {
		t.Error("SamePhrase wrong")
	}
}

func TestRuns(t *testing.T) {
	got := Runs("abcdef", []Span{{3, 5}, {0, 1}, {4, 6}})
	want := []Run{{"a", true}, {"bc", false}, {"def", true}}
	if len(got) != len(want) {
		t.Fatalf("Runs = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Runs = %+v; want %+v", got, want)
		}
	}
}

// TestOverlappingReadings: the same words read for and against a point
// count once, the full phrase over a partial one and, between two full
// phrases, the one for the point.
func TestOverlappingReadings(t *testing.T) {
	kp := []KeyPoint{{Shows: []string{"keys don't last forever", "keys only last", "same key for every retry"},
		Contradicts: []string{"fresh key for every retry"}}}
	for answer, want := range map[string]Verdict{
		"Keys don't last forever, so mind the window.":      Covered,      // "keys ... last" under the "not" is the same words
		"Generate a fresh key for every retry of the call.": Contradicted, // the partial "key for every retry" gives way
	} {
		if got := Match(answer, kp)[0]; got.Verdict != want {
			t.Errorf("%q: %s (%+v); want %s", answer, got.Verdict, got.Evidence, want)
		}
	}
}

// TestLongAnswerIsReadToTheLimit: Match reads the first MaxAnswerBytes,
// never cutting a character in two.
func TestLongAnswerIsReadToTheLimit(t *testing.T) {
	kp := []KeyPoint{{Shows: []string{"lease expires"}}}
	pad := strings.Repeat("é", MaxAnswerBytes/2-1) + "x " // one byte short of the limit, then a space
	early := "The lease expires. " + pad
	late := pad + "The lease expires."
	if !Truncated(late) || Truncated("short") {
		t.Fatal("Truncated is wrong")
	}
	if got := Match(early, kp)[0].Verdict; got != Covered {
		t.Errorf("a phrase in the first %d bytes: %s; want covered", MaxAnswerBytes, got)
	}
	if got := Match(late, kp)[0].Verdict; got != NotFound {
		t.Errorf("a phrase after the first %d bytes: %s; want not found", MaxAnswerBytes, got)
	}
}

// TestEverydaySynonymsAndPrefixes: a phrase finds the answer that says it
// with a word of the same group or a hyphenated prefix, and not one that
// says something else.
func TestEverydaySynonymsAndPrefixes(t *testing.T) {
	for _, tc := range []struct {
		phrase, answer string
		want           Verdict
	}{
		{"stores the response", "The server saves the reply next to the key.", Covered},
		{"returns the saved response", "It replays the recorded result.", Covered},
		{"same state after one or many", "Once or five times, it ends in the same state.", Covered},
		{"re-index", "We reindex when a page changes.", Covered},
		{"reindex", "We re-index when a page changes.", Covered},
		{"stores the response", "The server drops the reply.", NotFound},
		{"re-index", "We index once, at the start.", NotFound},
	} {
		got := Match(tc.answer, []KeyPoint{{Shows: []string{tc.phrase}}})[0].Verdict
		if got != tc.want {
			t.Errorf("%q in %q: %s; want %s", tc.phrase, tc.answer, got, tc.want)
		}
	}
}
