// Writes internal/collab/testdata/changes.json: random documents and random
// CodeMirror change sets with what CodeMirror itself makes of them, for
// internal/collab's TestApplyChangesMatchesCodeMirror. The server must
// count positions as the editors do (UTF-16 code units), so the expected
// text comes from @codemirror/state, never from Go.
//
//   node web/editor/scripts/collab-cases.mjs   (from the repository root or anywhere)
//
// A fixed seed makes the file the same on every run.
import { ChangeSet, Text } from "@codemirror/state";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const out = join(dirname(fileURLToPath(import.meta.url)), "../../../internal/collab/testdata/changes.json");

// mulberry32: small, seeded, the same everywhere.
let seed = 0x5eed1234;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(random() * n);
const pick = (xs) => xs[int(xs.length)];

// Characters of one, two and three UTF-8 bytes in one UTF-16 unit, and
// astral ones in two (a surrogate pair).
const alphabet = ["a", "b", "x", " ", "\t", "{", "}", "é", "ß", "中", "文", "😀", "𝔘", "🦫", "\u200d"];

function randomText(maxChars) {
  let lines = [""];
  for (let n = int(maxChars + 1); n > 0; n--) {
    if (random() < 0.12) lines.push("");
    else lines[lines.length - 1] += pick(alphabet);
  }
  return lines.join("\n");
}

// boundaries are the positions of doc (in code units) that do not fall
// inside a surrogate pair.
function boundaries(doc) {
  const out = [0];
  let pos = 0;
  for (const ch of doc) {
    pos += ch.length;
    out.push(pos);
  }
  return out;
}

// randomChanges makes 0 to 4 non-overlapping changes on doc. With
// splitPair one change starts inside an astral character, as no honest
// editor does; the server must refuse it.
function randomChanges(doc, splitPair) {
  const cuts = boundaries(doc);
  const count = int(5);
  const points = [];
  for (let i = 0; i < count * 2; i++) points.push(pick(cuts));
  points.sort((a, b) => a - b);
  const specs = [];
  for (let i = 0; i + 1 < points.length; i += 2) {
    const insert = random() < 0.3 ? "" : randomText(6);
    specs.push({ from: points[i], to: random() < 0.5 ? points[i] : points[i + 1], insert });
  }
  if (splitPair) {
    const inside = [];
    for (let i = 0; i < doc.length; i++) {
      const c = doc.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff) inside.push(i);
    }
    if (inside.length === 0) return null;
    return ChangeSet.of([{ from: pick(inside), insert: "q" }], doc.length);
  }
  return ChangeSet.of(specs, doc.length);
}

const cases = [];
const docs = ["", "\n", "😀", "a\n\nb"];
for (let i = 0; i < 300; i++) docs.push(randomText(i < 100 ? 12 : 60));

for (const doc of docs) {
  const state = Text.of(doc.split("\n"));
  for (let k = 0; k < 3; k++) {
    const cs = randomChanges(doc, false);
    cases.push({ doc, changes: cs.toJSON(), want: cs.apply(state).toString() });
  }
  const split = randomChanges(doc, true);
  if (split) {
    // CodeMirror applies it and leaves lone surrogates; the server refuses.
    cases.push({ doc, changes: split.toJSON(), error: "inside a character" });
  }
  // A change set for another length: CodeMirror throws, so must the server.
  const other = ChangeSet.of([], doc.length + 1 + int(3));
  let threw = false;
  try {
    other.apply(state);
  } catch {
    threw = true;
  }
  if (!threw) throw new Error("CodeMirror applied a change set of the wrong length");
  cases.push({ doc, changes: other.toJSON(), error: "UTF-16 code units" });
}

// A chain: each change set applies to the previous result, as a document's
// history does (for TextAt).
const chain = { initial: randomText(40), updates: [], texts: [] };
let text = Text.of(chain.initial.split("\n"));
for (let i = 0; i < 80; i++) {
  const cs = randomChanges(text.toString(), false);
  text = cs.apply(text);
  chain.updates.push({ clientID: "c" + (i % 3), changes: cs.toJSON() });
  chain.texts.push(text.toString());
}

writeFileSync(out, JSON.stringify({ generator: "web/editor/scripts/collab-cases.mjs", cases, chain }, null, 0) + "\n");
console.log(`${out}: ${cases.length} cases, a chain of ${chain.updates.length}`);
