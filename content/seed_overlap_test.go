package content

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// seedRunWords is the length of a run of words that counts as copied: a
// content file may share shorter runs with a seed (terms, error codes, a
// phrase such as "at least once"), never this many words in a row.
const seedRunWords = 10

// TestNoRunCopiedFromSeeds keeps the content in our own words: no content
// file shares a run of seedRunWords words with a seed document (the facts
// the content was built from, in ../shared/seeds beside the repository),
// outside the two places where the same words are allowed: the heading of
// a rapid-fire question, which quotes the question as it was asked, and
// code (fenced blocks, inline code spans, Go source other than comments).
func TestNoRunCopiedFromSeeds(t *testing.T) {
	dir, err := seedsDir()
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no seeds folder: shared/seeds must sit beside the repository (../shared/seeds from the module root) under CI, or FAULTLINE_SEEDS must name it")
		}
		t.Skip("no seeds folder beside the repository (../shared/seeds from the module root, or FAULTLINE_SEEDS): cannot compare content with the seeds")
	}
	seeds, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) == 0 {
		t.Fatalf("%s holds no seed (*.txt)", dir)
	}
	runs := map[string]string{} // a run of words -> the seed it comes from
	for _, path := range seeds {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, seg := range segments(words(string(b), 1)) {
			for i := 0; i+seedRunWords <= len(seg); i++ {
				runs[runKey(seg[i:i+seedRunWords])] = filepath.Base(path)
			}
		}
	}

	checked := 0
	err = fs.WalkDir(os.DirFS("."), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(path, "_test.go") || path == "embed.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var text []word
		switch filepath.Ext(path) {
		case ".md":
			text = proseOfMarkdown(string(b), strings.HasPrefix(path, "sets/"))
		case ".go":
			text = commentsOfGo(string(b))
		case ".yaml", ".yml", ".txt":
			text = words(string(b), 1)
		default:
			return nil
		}
		checked++
		reported := -1 // last word index reported, so one long run is one error
		for _, seg := range segments(text) {
			for i := 0; i+seedRunWords <= len(seg); i++ {
				seed, ok := runs[runKey(seg[i:i+seedRunWords])]
				if !ok || i <= reported {
					continue
				}
				end := i + seedRunWords
				for end < len(seg) && i+seedRunWords <= len(seg) {
					if _, more := runs[runKey(seg[end-seedRunWords+1:end+1])]; !more {
						break
					}
					end++
				}
				t.Errorf("%s:%d: %d words in a row as in seed %s: %q", path, seg[i].line, end-i, seed, joinWords(seg[i:end]))
				reported = end - 1
			}
			reported = -1
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("found no content files to check")
	}
}

// seedsDir finds the seeds: FAULTLINE_SEEDS, or shared/seeds beside the
// module root (the folder holding go.mod, above this one). It returns ""
// when there are none.
func seedsDir() (string, error) {
	if d := os.Getenv("FAULTLINE_SEEDS"); d != "" {
		if _, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("FAULTLINE_SEEDS: %w", err)
		}
		return d, nil
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the content folder")
		}
		dir = parent
	}
	seeds := filepath.Join(filepath.Dir(dir), "shared", "seeds")
	if st, err := os.Stat(seeds); err != nil || !st.IsDir() {
		return "", nil
	}
	return seeds, nil
}

// word is one normalised word and the line it is on. A break (an empty
// word) stands where text was left out, so no run spans it.
type word struct {
	text string
	line int
}

// words splits text into lower-case words of letters and digits (an
// apostrophe inside a word is kept, curly or straight), counting lines
// from firstLine.
func words(text string, firstLine int) []word {
	var out []word
	var cur strings.Builder
	line := firstLine
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, word{text: strings.Trim(cur.String(), "'"), line: line})
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’') && cur.Len() > 0:
			cur.WriteRune('\'')
		default:
			flush()
			if r == '\n' {
				line++
			}
		}
	}
	flush()
	return out
}

// segments cuts a word list at its breaks.
func segments(ws []word) [][]word {
	var out [][]word
	start := 0
	for i, w := range ws {
		if w.text == "" {
			out = append(out, ws[start:i])
			start = i + 1
		}
	}
	return append(out, ws[start:])
}

func runKey(ws []word) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.text)
		b.WriteByte(' ')
	}
	return b.String()
}

func joinWords(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}

var inlineCode = regexp.MustCompile("`[^`]*`")

// proseOfMarkdown returns the words of a Markdown file outside fenced code
// blocks and inline code, and, in a question set, outside its ## question
// headings.
func proseOfMarkdown(src string, questionSet bool) []word {
	var out []word
	brk := word{}
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			out = append(out, brk)
			continue
		}
		if questionSet && strings.HasPrefix(line, "## ") {
			out = append(out, brk)
			continue
		}
		if strings.HasPrefix(line, "#") {
			// A heading is a block of its own: no run goes on into
			// the text under it.
			out = append(out, brk)
			out = append(out, words(line, n)...)
			out = append(out, brk)
			continue
		}
		for i, piece := range inlineCode.Split(line, -1) {
			if i > 0 {
				out = append(out, brk)
			}
			out = append(out, words(piece, n)...)
		}
	}
	return out
}

// commentsOfGo returns the words of a Go file's // comments, a break
// between comment blocks.
func commentsOfGo(src string) []word {
	var out []word
	inComment := false
	for n, line := range strings.Split(src, "\n") {
		i := strings.Index(line, "//")
		if i < 0 || strings.Count(line[:i], "\"")%2 == 1 {
			if inComment {
				out = append(out, word{})
			}
			inComment = false
			continue
		}
		out = append(out, words(line[i+2:], n+1)...)
		inComment = true
	}
	return out
}

// TestSeedRunDetection pins what the copy check reads and what it leaves
// out, on made-up text, so the check above cannot pass by reading nothing.
func TestSeedRunDetection(t *testing.T) {
	seed := "One two three four five six seven eight nine ten eleven."
	seedRuns := map[string]bool{}
	for _, seg := range segments(words(seed, 1)) {
		for i := 0; i+seedRunWords <= len(seg); i++ {
			seedRuns[runKey(seg[i:i+seedRunWords])] = true
		}
	}
	copied := func(ws []word) int {
		for _, seg := range segments(ws) {
			for i := 0; i+seedRunWords <= len(seg); i++ {
				if seedRuns[runKey(seg[i:i+seedRunWords])] {
					return seg[i].line
				}
			}
		}
		return 0
	}
	tests := []struct {
		name     string
		words    []word
		wantLine int
	}{
		{"prose over two lines", proseOfMarkdown("Intro.\n\nSo one two three four five\nsix seven eight nine ten.\n", false), 3},
		{"case and curly quotes do not hide it", proseOfMarkdown("ONE two three four five six seven eight nine TEN\n", false), 1},
		{"nine words are not a run", proseOfMarkdown("one two three four five six seven eight nine\n", false), 0},
		{"a question heading in a set", proseOfMarkdown("## one two three four five six seven eight nine ten?\n", true), 0},
		{"a heading elsewhere is prose", proseOfMarkdown("## one two three four five six seven eight nine ten\n", false), 1},
		{"a heading does not join the text under it", proseOfMarkdown("## one two three four five\nsix seven eight nine ten\n", false), 0},
		{"a fenced block", proseOfMarkdown("```\none two three four five six seven eight nine ten\n```\n", false), 0},
		{"inline code splits a run", proseOfMarkdown("one two three four `five` six seven eight nine ten\n", false), 0},
		{"a Go comment", commentsOfGo("package x\n\n// one two three four five six seven eight nine ten\nfunc f() {}\n"), 3},
		{"Go code", commentsOfGo("package x\n\nvar one, two, three, four, five, six, seven, eight, nine, ten int\n"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copied(tt.words); got != tt.wantLine {
				t.Errorf("copied run found at line %d, want %d (0: none)", got, tt.wantLine)
			}
		})
	}
}
