package problems

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// yamlSample has one of each thing yamlTokens knows.
const yamlSample = `# a comment
---
slug: async-refund            # required
title: "Quoted: value"
minutes: 45
ratio: -1.5e3
ok: true
none: ~
tags:
  topics: [idempotency, payments]
scenarios:
  - name: lost-reply
    vendor: {name: keyed, keys: true}
    base: &base
      amount: 2500
    copy: *base
    tagged: !!str 12
    description: >-
      Folded text: not a key.
      # nor a comment
    after: 'it''s'
`

func TestYAMLTokens(t *testing.T) {
	type tok = chroma.Token
	ws := func(s string) tok { return tok{Type: chroma.TextWhitespace, Value: s} }
	tests := []struct {
		name, code string
		want       []tok
	}{
		{"key and plain value", "title: Debug it\n", []tok{
			{Type: chroma.NameTag, Value: "title"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "),
			{Type: chroma.Literal, Value: "Debug it"}, ws("\n")}},
		{"comment after a value", "a: b # c", []tok{
			{Type: chroma.NameTag, Value: "a"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "),
			{Type: chroma.Literal, Value: "b"}, ws(" "), {Type: chroma.Comment, Value: "# c"}}},
		{"hash inside a value", "a: b#c", []tok{
			{Type: chroma.NameTag, Value: "a"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "),
			{Type: chroma.Literal, Value: "b#c"}}},
		{"numbers and booleans", "n: 42\nf: 1.5\nb: false\nz: null\nd: 2s", []tok{
			{Type: chroma.NameTag, Value: "n"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralNumber, Value: "42"}, ws("\n"),
			{Type: chroma.NameTag, Value: "f"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralNumber, Value: "1.5"}, ws("\n"),
			{Type: chroma.NameTag, Value: "b"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.KeywordConstant, Value: "false"}, ws("\n"),
			{Type: chroma.NameTag, Value: "z"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.KeywordConstant, Value: "null"}, ws("\n"),
			{Type: chroma.NameTag, Value: "d"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.Literal, Value: "2s"}}},
		{"strings", `a: "x: y"` + "\nb: 'it''s'", []tok{
			{Type: chroma.NameTag, Value: "a"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralStringDouble, Value: `"x: y"`}, ws("\n"),
			{Type: chroma.NameTag, Value: "b"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralStringSingle, Value: `'it''s'`}}},
		{"sequence of mappings", "  - name: x", []tok{
			ws("  "), {Type: chroma.Punctuation, Value: "-"}, ws(" "), {Type: chroma.NameTag, Value: "name"},
			{Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.Literal, Value: "x"}}},
		{"flow collections", "v: {k: 1, s: [a, b]}", []tok{
			{Type: chroma.NameTag, Value: "v"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.Punctuation, Value: "{"},
			{Type: chroma.NameTag, Value: "k"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralNumber, Value: "1"},
			{Type: chroma.Punctuation, Value: ","}, ws(" "), {Type: chroma.NameTag, Value: "s"}, {Type: chroma.Punctuation, Value: ":"},
			ws(" "), {Type: chroma.Punctuation, Value: "["}, {Type: chroma.Literal, Value: "a"}, {Type: chroma.Punctuation, Value: ","},
			ws(" "), {Type: chroma.Literal, Value: "b"}, {Type: chroma.Punctuation, Value: "]}"}}},
		{"block scalar", "d: >-\n  a: b\n  # c\ne: 1", []tok{
			{Type: chroma.NameTag, Value: "d"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.Punctuation, Value: ">-"}, ws("\n  "),
			{Type: chroma.LiteralStringDoc, Value: "a: b"}, ws("\n  "), {Type: chroma.LiteralStringDoc, Value: "# c"}, ws("\n"),
			{Type: chroma.NameTag, Value: "e"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.LiteralNumber, Value: "1"}}},
		{"document marker, anchor, alias, tag", "---\na: &x 1\nb: *x\nc: !!str 2", []tok{
			{Type: chroma.NameNamespace, Value: "---"}, ws("\n"),
			{Type: chroma.NameTag, Value: "a"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.CommentPreproc, Value: "&x"}, ws(" "), {Type: chroma.LiteralNumber, Value: "1"}, ws("\n"),
			{Type: chroma.NameTag, Value: "b"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.CommentPreproc, Value: "*x"}, ws("\n"),
			{Type: chroma.NameTag, Value: "c"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.CommentPreproc, Value: "!!str"}, ws(" "), {Type: chroma.LiteralNumber, Value: "2"}}},
		{"whole-line comment", "# top\n", []tok{{Type: chroma.Comment, Value: "# top"}, ws("\n")}},
		{"url value keeps its colon", "u: http://x", []tok{
			{Type: chroma.NameTag, Value: "u"}, {Type: chroma.Punctuation, Value: ":"}, ws(" "), {Type: chroma.Literal, Value: "http://x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := yamlTokens(tt.code)
			if !tokensEqual(got, tt.want) {
				t.Errorf("yamlTokens(%q) =\n%v\nwant\n%v", tt.code, got, tt.want)
			}
		})
	}
}
