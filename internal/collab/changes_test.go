package collab

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
)

// codeMirrorCases is testdata/changes.json, written by
// web/editor/scripts/collab-cases.mjs from @codemirror/state itself.
type codeMirrorCases struct {
	Cases []struct {
		Doc     string          `json:"doc"`
		Changes json.RawMessage `json:"changes"`
		Want    *string         `json:"want"`
		Error   string          `json:"error"`
	} `json:"cases"`
	Chain struct {
		Initial string   `json:"initial"`
		Updates []Update `json:"updates"`
		Texts   []string `json:"texts"`
	} `json:"chain"`
}

func loadCodeMirrorCases(t *testing.T) codeMirrorCases {
	t.Helper()
	raw, err := os.ReadFile("testdata/changes.json")
	if err != nil {
		t.Fatalf("read the CodeMirror cases (node web/editor/scripts/collab-cases.mjs writes them): %v", err)
	}
	var c codeMirrorCases
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) < 1000 || len(c.Chain.Updates) == 0 {
		t.Fatalf("only %d cases and a chain of %d: the file is truncated", len(c.Cases), len(c.Chain.Updates))
	}
	return c
}

// TestApplyChangesMatchesCodeMirror replays change sets CodeMirror applied
// (or refused) and expects the same text (or a refusal).
func TestApplyChangesMatchesCodeMirror(t *testing.T) {
	c := loadCodeMirrorCases(t)
	var applied, refused, astral int
	for i, tc := range c.Cases {
		got, err := ApplyChanges(tc.Doc, tc.Changes)
		switch {
		case tc.Want != nil && err != nil:
			t.Errorf("case %d: ApplyChanges(%q, %s): %v; CodeMirror made %q", i, tc.Doc, tc.Changes, err, *tc.Want)
		case tc.Want != nil && got != *tc.Want:
			t.Errorf("case %d: ApplyChanges(%q, %s) = %q; CodeMirror made %q", i, tc.Doc, tc.Changes, got, *tc.Want)
		case tc.Want == nil && err == nil:
			t.Errorf("case %d: ApplyChanges(%q, %s) = %q; want an error about %q", i, tc.Doc, tc.Changes, got, tc.Error)
		case tc.Want == nil && !strings.Contains(err.Error(), tc.Error):
			t.Errorf("case %d: error %q; want it to mention %q", i, err, tc.Error)
		case tc.Want != nil:
			applied++
			if len(utf16.Encode([]rune(tc.Doc))) != len([]rune(tc.Doc)) {
				astral++
			}
		default:
			refused++
		}
	}
	// The generator's mix, so that a regenerated file cannot quietly lose
	// the cases that matter.
	if applied < 900 || refused < 300 || astral < 200 {
		t.Errorf("%d applied (%d on documents with astral characters), %d refused: the mix is too thin", applied, astral, refused)
	}
}

// TestTextAtMatchesCodeMirror replays a history CodeMirror built, version
// by version.
func TestTextAtMatchesCodeMirror(t *testing.T) {
	chain := loadCodeMirrorCases(t).Chain
	if got, err := TextAt(chain.Initial, chain.Updates, 0); err != nil || got != chain.Initial {
		t.Fatalf("TextAt(0) = %q, %v; want the initial text", got, err)
	}
	for v := 1; v <= len(chain.Updates); v++ {
		got, err := TextAt(chain.Initial, chain.Updates, v)
		if err != nil || got != chain.Texts[v-1] {
			t.Fatalf("TextAt(%d) = %q, %v; CodeMirror has %q", v, got, err, chain.Texts[v-1])
		}
	}
	if _, err := TextAt(chain.Initial, chain.Updates, len(chain.Updates)+1); err == nil {
		t.Error("TextAt past the history: no error")
	}

	var seen []int
	err := Replay(chain.Initial, chain.Updates, func(v int, text string) bool {
		want := chain.Initial
		if v > 0 {
			want = chain.Texts[v-1]
		}
		if text != want {
			t.Fatalf("Replay at %d: %q; CodeMirror has %q", v, text, want)
		}
		seen = append(seen, v)
		return v < 10
	})
	if err != nil || len(seen) != 11 || seen[10] != 10 {
		t.Fatalf("Replay visited %v (%v); want 0 to 10, then stop", seen, err)
	}
	bad := append(append([]Update(nil), chain.Updates[:3]...), Update{ClientID: "x", Changes: json.RawMessage(`[1]`)})
	if err := Replay(chain.Initial, bad, func(int, string) bool { return true }); err == nil || !strings.Contains(err.Error(), "version 4") {
		t.Errorf("Replay of a history whose 4th update does not apply: %v", err)
	}
}

func TestApplyChanges(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		changes string
		want    string
		err     string // part of the error; empty when it applies
	}{
		{name: "keep all", doc: "abc", changes: `[3]`, want: "abc"},
		{name: "empty doc, empty set", doc: "", changes: `[]`, want: ""},
		{name: "insert at start", doc: "abc", changes: `[[0,"x"],3]`, want: "xabc"},
		{name: "replace middle", doc: "abc", changes: `[1,[1,"Z"],1]`, want: "aZc"},
		{name: "delete all", doc: "abc", changes: `[[3]]`, want: ""},
		{name: "insert lines", doc: "ab", changes: `[1,[0,"x","y"],1]`, want: "ax\nyb"},
		{name: "astral counts two", doc: "😀b", changes: `[2,[1,"c"]]`, want: "😀c"},
		{name: "escaped pair", doc: "", changes: `[[0,"\ud83d\ude00"]]`, want: "😀"},
		{name: "newline counts one", doc: "a\nb", changes: `[2,[1]]`, want: "a\n"},
		{name: "too short", doc: "abcd", changes: `[3]`, err: "for a document of 3 UTF-16 code units, but this one has 4"},
		{name: "too long", doc: "ab", changes: `[3]`, err: "for a document of 3 UTF-16 code units, but this one has 2"},
		{name: "astral too long", doc: "😀", changes: `[3]`, err: "but this one has 2"},
		{name: "splits a pair", doc: "😀", changes: `[1,[0,"x"],1]`, err: "part 0 ends inside a character of two UTF-16 code units, at 1"},
		{name: "not an array", doc: "", changes: `{"a":1}`, err: "must be a JSON array"},
		{name: "null", doc: "", changes: `null`, err: "must be a JSON array"},
		{name: "bad JSON", doc: "", changes: `[1,`, err: "must be a JSON array"},
		{name: "negative", doc: "", changes: `[-1]`, err: "part 0: want a length from 0"},
		{name: "fraction", doc: "a", changes: `[0.5]`, err: "part 0: want a length from 0"},
		{name: "huge", doc: "a", changes: `[1e300]`, err: "part 0: want a length from 0"},
		{name: "string part", doc: "a", changes: `["a"]`, err: "part 0: want a length"},
		{name: "empty part", doc: "a", changes: `[1,[]]`, err: "part 1: want a length or [length, lines...]"},
		{name: "line not a string", doc: "a", changes: `[[1,2]]`, err: "part 0: inserted line 0: want a string"},
		{name: "line with newline", doc: "", changes: `[[0,"a\nb"]]`, err: "part 0: inserted line 0: holds a line break"},
		{name: "line with CR", doc: "", changes: `[[0,"a","b\r"]]`, err: "inserted line 1: holds a line break at byte 1"},
		{name: "lone high surrogate", doc: "", changes: `[[0,"a\ud83d"]]`, err: "lone UTF-16 surrogate \\ud83d"},
		{name: "lone low surrogate", doc: "", changes: `[[0,"\\\ude00"]]`, err: "lone UTF-16 surrogate \\ude00"},
		{name: "escaped backslash before u", doc: "", changes: `[[0,"\\ud83d"]]`, want: `\ud83d`},
		{name: "invalid UTF-8", doc: "", changes: "[[0,\"\xff\"]]", err: "not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyChanges(tc.doc, json.RawMessage(tc.changes))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ApplyChanges(%q, %s) = %q, %v; want an error containing %q", tc.doc, tc.changes, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ApplyChanges(%q, %s) = %q, %v; want %q", tc.doc, tc.changes, got, err, tc.want)
			}
		})
	}
}

func TestChangesLengths(t *testing.T) {
	c, err := ParseChanges(json.RawMessage(`[2,[1,"xy","😀"],[3],1]`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 7 || c.NewLen() != 2+5+1 || c.Empty() {
		t.Errorf("Len %d NewLen %d Empty %v; want 7, 8, false", c.Len(), c.NewLen(), c.Empty())
	}
	if e, _ := ParseChanges(json.RawMessage(`[4,[0],[0,""]]`)); !e.Empty() {
		t.Error("a set of keeps and empty replacements is not Empty")
	}
}

func TestNormalizeNewlines(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb\rc\n": "a\nb\nc\n", "plain": "plain", "\r\r\n": "\n\n"} {
		if got := NormalizeNewlines(in); got != want {
			t.Errorf("NormalizeNewlines(%q) = %q; want %q", in, got, want)
		}
	}
}

// FuzzApplyChanges: whatever a client sends, ApplyChanges answers with a
// text or an error and never panics; an accepted change set's result has
// the length it announces.
func FuzzApplyChanges(f *testing.F) {
	f.Add("abc", `[1,[1,"Z"],1]`)
	f.Add("😀\n", `[2,[1,"a","b"]]`)
	f.Add("", `[[0,"\ud83d\ude00"]]`)
	f.Add("x", `[[1,"\ud83d"]]`)
	f.Add("ab", `[1,[0],1,[0,""]]`)
	f.Add("\xff", `[1]`)
	f.Fuzz(func(t *testing.T, doc, changes string) {
		got, err := ApplyChanges(doc, json.RawMessage(changes))
		if err != nil {
			return
		}
		c, _ := ParseChanges(json.RawMessage(changes))
		if Length(got) != c.NewLen() {
			t.Fatalf("ApplyChanges(%q, %s) = %q of %d units; the changes announce %d", doc, changes, got, Length(got), c.NewLen())
		}
	})
}

// TestMapPos: every position of each document mapped as CodeMirror 6
// (@codemirror/state 6.7.6, ChangeSet.fromJSON(changes).mapPos(p)) maps
// it, from p = 0 to the document's length.
func TestMapPos(t *testing.T) {
	tests := []struct {
		changes string
		maps    []int
	}{
		{`[3,[0,"ab"],2]`, []int{0, 1, 2, 3, 6, 7}},
		{`[1,[2],2]`, []int{0, 1, 1, 1, 2, 3}},
		{`[1,[2,"xyz"],2]`, []int{0, 1, 1, 4, 5, 6}},
		{`[[0,"q"],5]`, []int{0, 2, 3, 4, 5, 6}},
		{`[5,[0,"end"]]`, []int{0, 1, 2, 3, 4, 5}},
		{`[[5,"a","b"]]`, []int{0, 0, 0, 0, 0, 3}},
		{`[2,[0,"😀"],1,[1],1]`, []int{0, 1, 2, 5, 5, 6}},
	}
	for _, tt := range tests {
		c, err := ParseChanges(json.RawMessage(tt.changes))
		if err != nil {
			t.Fatal(err)
		}
		for pos, want := range tt.maps {
			if got := c.MapPos(pos); got != want {
				t.Errorf("%s: MapPos(%d) = %d; CodeMirror says %d", tt.changes, pos, got, want)
			}
		}
		if got, end := c.MapPos(len(tt.maps)+3), tt.maps[len(tt.maps)-1]; got != end {
			t.Errorf("%s: a position past the end maps to %d; want the end, %d", tt.changes, got, end)
		}
	}
}
