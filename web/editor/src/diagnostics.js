// Turning the grader's diagnostics (1-based line and column, as Go reports
// them) into the document ranges @codemirror/lint wants.

const identifierChar = /[\p{L}\p{N}_]/u;

function utf8Length(codePoint) {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * byteColumnToOffset converts a 1-based column counted in UTF-8 bytes (what
 * go/scanner and yaegi report) into a UTF-16 offset within text (what
 * CodeMirror counts), clamped to the line.
 */
export function byteColumnToOffset(text, column) {
  let bytes = column - 1;
  let offset = 0;
  for (const ch of text) {
    if (bytes <= 0) break;
    bytes -= utf8Length(ch.codePointAt(0));
    offset += ch.length;
  }
  return Math.min(offset, text.length);
}

function toInt(value) {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) ? n : 0;
}

/**
 * diagnosticsToRanges maps [{line, column, message, severity}] onto doc.
 * A line outside the document is clamped to its first or last line; a
 * missing or zero column marks the whole line; a column marks the word that
 * starts there (or one character), which is where Go points at a problem.
 */
export function diagnosticsToRanges(doc, list) {
  const out = [];
  for (const d of list) {
    if (!d) continue;
    const number = Math.min(Math.max(1, toInt(d.line)), doc.lines);
    const line = doc.line(number);
    const column = toInt(d.column);
    let from = line.from;
    let to = line.to;
    if (column >= 1) {
      const start = byteColumnToOffset(line.text, column);
      let end = start;
      while (end < line.text.length) {
        const cp = line.text.codePointAt(end);
        const ch = String.fromCodePoint(cp);
        if (!identifierChar.test(ch)) break;
        end += ch.length;
      }
      if (end === start) end = Math.min(start + 1, line.text.length);
      from = line.from + start;
      to = line.from + end;
    }
    const severity =
      d.severity === "warning" || d.severity === "info" ? d.severity : "error";
    out.push({ from, to, severity, message: String(d.message ?? "") });
  }
  return out;
}
