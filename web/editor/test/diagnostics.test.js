// Tests of the conversion from the grader's 1-based line:column diagnostics
// to CodeMirror document ranges. Run by build.sh (node --test test/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Text } from "@codemirror/state";

import { byteColumnToOffset, diagnosticsToRanges } from "../src/diagnostics.js";

const doc = Text.of([
  "package refund", // line 1: from 0, to 14
  "", // line 2: from 15
  "func Refund(x int) error {", // line 3: from 16
  '\ts := "héllo" + y', // line 4: from 43
  "}", // line 5
]);

test("byteColumnToOffset counts UTF-8 bytes, returns UTF-16 offsets", () => {
  const cases = [
    { name: "first column", text: "abc", column: 1, want: 0 },
    { name: "ascii", text: "abc", column: 3, want: 2 },
    { name: "past the end clamps", text: "abc", column: 99, want: 3 },
    { name: "tab is one byte", text: "\tx", column: 2, want: 1 },
    { name: "after a two-byte letter", text: "é+y", column: 4, want: 2 },
    { name: "after an astral character", text: "😀y", column: 5, want: 2 },
  ];
  for (const c of cases) {
    assert.equal(byteColumnToOffset(c.text, c.column), c.want, c.name);
  }
});

test("diagnosticsToRanges", async (t) => {
  const cases = [
    {
      name: "column marks the identifier starting there",
      in: { line: 3, column: 6, message: "undefined: Refund", severity: "error" },
      want: { from: 16 + 5, to: 16 + 11, severity: "error", message: "undefined: Refund" },
    },
    {
      name: "column on punctuation marks one character",
      in: { line: 3, column: 12, message: "m" },
      want: { from: 16 + 11, to: 16 + 12, severity: "error", message: "m" },
    },
    {
      name: "zero column marks the whole line",
      in: { line: 1, column: 0, message: "m", severity: "warning" },
      want: { from: 0, to: 14, severity: "warning", message: "m" },
    },
    {
      name: "missing column marks the whole line",
      in: { line: 5, message: "m" },
      want: { from: doc.line(5).from, to: doc.line(5).to, severity: "error", message: "m" },
    },
    {
      name: "line past the end clamps to the last line",
      in: { line: 40, column: 1, message: "m" },
      want: { from: doc.line(5).from, to: doc.line(5).from + 1, severity: "error", message: "m" },
    },
    {
      name: "line below one clamps to the first line",
      in: { line: -3, message: "m" },
      want: { from: 0, to: 14, severity: "error", message: "m" },
    },
    {
      name: "empty line is a point",
      in: { line: 2, column: 1, message: "m" },
      want: { from: 15, to: 15, severity: "error", message: "m" },
    },
    {
      // go/scanner counts bytes: "\ts := \"héllo\" + y" has y at byte 18,
      // UTF-16 offset 16.
      name: "byte column after a non-ASCII letter",
      in: { line: 4, column: 18, message: "undefined: y" },
      want: { from: 43 + 16, to: 43 + 17, severity: "error", message: "undefined: y" },
    },
    {
      name: "unknown severity is an error",
      in: { line: 1, column: 1, message: "m", severity: "fatal" },
      want: { from: 0, to: 7, severity: "error", message: "m" },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.deepEqual(diagnosticsToRanges(doc, [c.in]), [c.want]);
    });
  }
});
