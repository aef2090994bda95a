package rubricmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text: its stem (what matching compares) and
// where it sits in the original, for highlighting.
type token struct {
	stem       string
	start, end int // byte offsets in the text
	sentence   int // which sentence (or list item) it is in
	clause     int // which clause: commas and dashes end one; a negation reaches no further
	negation   bool
}

// contractions spells out the negative ones, so "doesn't" negates as
// "does not" does. Curly apostrophes are folded first.
var contractions = map[string][]string{
	"don't": {"do", "not"}, "doesn't": {"does", "not"}, "didn't": {"did", "not"},
	"isn't": {"is", "not"}, "aren't": {"are", "not"}, "wasn't": {"was", "not"}, "weren't": {"were", "not"},
	"can't": {"can", "not"}, "cannot": {"can", "not"}, "couldn't": {"could", "not"}, "won't": {"will", "not"},
	"wouldn't": {"would", "not"}, "shouldn't": {"should", "not"}, "mustn't": {"must", "not"},
	"haven't": {"have", "not"}, "hasn't": {"has", "not"}, "hadn't": {"had", "not"}, "needn't": {"need", "not"},
}

// negations are the words that turn a claim around when they come shortly
// before it in the same clause.
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "without": true, "nor": true, "neither": true, "none": true,
}

// stopWords carry no meaning of their own for matching: a phrase's
// stop words need not appear in the answer (authors write "the key is
// stored", candidates "key stored"). Negations are not stop words.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "at": true, "for": true,
	"by": true, "with": true, "and": true, "or": true, "is": true, "are": true, "be": true, "been": true,
	"was": true, "were": true, "it": true, "its": true, "this": true, "that": true, "these": true, "those": true,
	"as": true, "so": true, "do": true, "does": true, "did": true, "can": true, "could": true, "should": true,
	"would": true, "will": true, "must": true, "may": true, "might": true, "you": true, "your": true, "we": true,
	"our": true, "they": true, "their": true, "them": true, "i": true, "my": true, "me": true, "has": true,
	"have": true, "had": true, "which": true, "what": true, "when": true, "then": true, "there": true,
	"from": true, "into": true, "than": true, "just": true, "also": true, "very": true, "one": true, "some": true,
	"any": true, "each": true, "if": true, "but": true, "all": true, "only": true, "own": true, "same": false,
}

// joinedPrefixes are written both joined and hyphenated; hyphenated, they
// join the word they prefix.
var joinedPrefixes = map[string]bool{"re": true, "pre": true, "non": true, "de": true, "un": true, "co": true, "sub": true, "multi": true}

// isWordRune is a letter or digit; an apostrophe inside a word is kept
// (for contractions) and a hyphen splits words ("read-only" is "read only").
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// sentenceEnd is punctuation after which a negation no longer reaches and a
// phrase may not continue.
func sentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', ';', '\n':
		return true
	}
	return false
}

// endsSentence reports whether the punctuation r at i ends a sentence. A
// full stop inside a number or a name ("1.5", "x.y") does not: only one
// followed by a space or the end does. A line break ends one only before
// a blank line or a list item: text wrapped by hand runs on.
func endsSentence(text string, i int, r rune, size int) bool {
	rest := text[i+size:]
	switch r {
	case '.':
		next, _ := utf8.DecodeRuneInString(rest)
		return rest == "" || unicode.IsSpace(next)
	case '\n':
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return true
		}
		next, _ := utf8.DecodeRuneInString(rest)
		return next == '\n' || next == '-' || next == '*' || next == '•' || unicode.IsDigit(next)
	}
	return true
}

// tokenize splits text into stemmed words with their offsets.
func tokenize(text string) []token {
	var out []token
	sentence, clause := 0, 0
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			if sentenceEnd(r) && endsSentence(text, i, r, size) {
				sentence++
				clause++
			} else if r == ',' || r == ':' || r == '(' || r == ')' || r == '—' || r == '–' {
				clause++
			}
			i += size
			continue
		}
		start := i
		prev := rune(0)
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if isWordRune(r) {
				// camelCase is two words: "verifySignature".
				if unicode.IsLower(prev) && unicode.IsUpper(r) {
					break
				}
				prev = r
				i += size
				continue
			}
			// A prefix joined by a hyphen is one word: "re-index" is
			// "reindex", "non-blocking" "nonblocking", as either is written.
			if r == '-' && joinedPrefixes[strings.ToLower(text[start:i])] {
				next, _ := utf8.DecodeRuneInString(text[i+size:])
				if i+size < len(text) && unicode.IsLetter(next) {
					i += size
					continue
				}
			}
			if r == '\'' || r == '’' { // inside a word only
				next, _ := utf8.DecodeRuneInString(text[i+size:])
				if i+size < len(text) && unicode.IsLetter(next) {
					i += size
					continue
				}
			}
			break
		}
		word := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(text[start:i], "’", "'"), "-", ""))
		parts := []string{word}
		if exp, ok := contractions[word]; ok {
			parts = exp
		} else if strings.HasSuffix(word, "n't") {
			parts = []string{strings.TrimSuffix(word, "n't"), "not"}
		} else if j := strings.IndexByte(word, '\''); j >= 0 {
			parts = []string{word[:j]} // "key's" is "key"
		}
		for _, p := range parts {
			out = append(out, token{stem: canonical(stem(p)), start: start, end: i, sentence: sentence, clause: clause, negation: negations[p]})
		}
	}
	return out
}

// stem strips common English endings, enough that "retries", "retrying"
// and "retried" meet at "retri", and "stored", "storing", "stores" at
// "stor". It is deliberately small (a few of Porter's steps, 1980) and is
// applied to phrases and answers alike, so its mistakes cancel out.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	// British and American spellings meet: "behaviour", "behavior";
	// "optimise", "optimize"; "normalisation", "normalization".
	w = strings.Replace(w, "iour", "ior", 1)
	if strings.HasSuffix(w, "isation") || strings.HasSuffix(w, "ise") || strings.HasSuffix(w, "ised") || strings.HasSuffix(w, "ising") ||
		strings.HasSuffix(w, "ises") {
		if i := strings.LastIndex(w, "is"); i >= 3 {
			w = w[:i] + "iz" + w[i+2:]
		}
	}
	for _, suf := range []struct{ from, to string }{
		{"ational", "ate"}, {"ization", "ize"}, {"fulness", "ful"}, {"iveness", "ive"}, {"ousness", "ous"},
		{"ements", ""}, {"ement", ""}, {"ments", ""}, {"ment", ""},
		{"ically", "ic"}, {"ations", "ate"}, {"ation", "ate"},
		{"ingly", ""}, {"edly", ""}, {"ies", "i"}, {"ied", "i"}, {"ying", "i"}, {"ing", ""}, {"ly", ""},
		{"sses", "ss"}, {"ed", ""}, {"es", ""}, {"s", ""}, {"y", "i"}, {"e", ""},
	} {
		if strings.HasSuffix(w, suf.from) && len(w)-len(suf.from)+len(suf.to) >= 3 {
			if suf.from == "s" && strings.HasSuffix(w, "ss") {
				continue // "class", "process"
			}
			w = w[:len(w)-len(suf.from)] + suf.to
			break
		}
	}
	// A doubled final consonant left by -ed, -ing ("stopped", "stopping").
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	// Forms that reach the same word by one more step: "stor" and "store"
	// both end "stor"; "retri" from "retries" and "retry".
	return strings.TrimSuffix(w, "e")
}

// phraseWords are the stems of a phrase that must appear in an answer:
// its words without stop words. A phrase made only of stop words has none.
func phraseWords(phrase string) []token {
	var out []token
	for _, t := range tokenize(phrase) {
		if !stopWords[t.stem] && !stopWords[strings.ToLower(phrase[t.start:t.end])] {
			out = append(out, t)
		}
	}
	return out
}

// synonyms folds the short forms and spellings engineers use for the same
// word onto one stem ("ack" and "acknowledgement", "tx" and
// "transaction", "dedupe" and "deduplicate"). Keys and values are stems.
var synonyms = map[string]string{
	"acknowledg": "ack", "db": "databas", "tx": "transaction", "txn": "transaction",
	"msg": "messag", "dedup": "dedupl", "deduplicat": "dedupl",
	"dupe": "duplicat", "dup": "duplicat", "asynchronou": "async", "asynchronous": "async", "identifier": "id",
	"llm": "model", "param": "parameter", "config": "configurat", "auth": "authenticat",
}

// wordGroups are everyday synonyms of the words rubric phrases are made
// of: one group's words meet at its first word's stem, so a phrase written
// with "stores the response" finds "saves the reply". They are general
// English and engineering usage, chosen as a thesaurus would group them,
// not fitted to any answer; a word sits in one group only.
var wordGroups = [][]string{
	{"store", "save", "record", "persist", "remember"},
	{"result", "response", "reply", "outcome"},
	{"return", "replay"},
	{"retry", "resend", "reattempt", "redo"},
	{"fetch", "retrieve", "pull"},
	{"weight", "parameter"},
	{"change", "update", "adjust", "modify", "alter"},
	{"cite", "citation", "reference"},
	{"request", "call", "invocation"},
	{"twice", "double"},
	{"limit", "cap", "ceiling", "budget"},
	{"duplicate", "repeat", "copy"},
	{"evaluation", "eval", "test"},
	{"guarantee", "ensure"},
	{"delete", "remove", "purge", "erase"},
	{"stop", "halt", "abort"},
	{"many", "several", "multiple", "numerous", "three", "four", "five", "ten"},
	{"fast", "quick", "immediate"},
	{"publish", "emit"},
	{"consumer", "subscriber", "receiver"},
	{"error", "failure", "fault"},
	{"process", "handle"},
}

func init() {
	for _, g := range wordGroups {
		to := canonical(stem(g[0]))
		for _, w := range g {
			// The stemmer is small: "replays" and "replay" stem apart, so
			// each form maps.
			for _, form := range []string{w, w + "s", w + "ed", w + "ing"} {
				if st := stem(form); st != to {
					synonyms[st] = to
				}
			}
		}
	}
}

// canonical is a stem's synonym group, or the stem.
func canonical(s string) string {
	if c, ok := synonyms[s]; ok {
		return c
	}
	return s
}
