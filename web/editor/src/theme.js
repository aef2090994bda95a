// The editor's look: the site's colours (web/static/site.css custom
// properties, with the same values as fallbacks) and a highlight style whose
// every colour keeps at least 4.5:1 contrast on the editor background, the
// active line, search matches and selections (axe-core checks the text).
// CodeMirror's default highlight style has a few colours under that.

import { EditorView } from "@codemirror/view";
import { HighlightStyle } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

// Each colour is a custom property with the light value as its fallback:
// site.css sets the dark values (and their ratios) under
// prefers-color-scheme: dark. Contrast of the light values on #fdfdfc / on
// the active line #eef1f5 (WCAG ratio):
const v = (name, light) => "var(--code-" + name + ", " + light + ")";
const colours = {
  keyword: v("keyword", "#a3124f"), // 7.5 / 6.7
  string: v("string", "#0f6b3b"), // 6.5 / 5.8
  comment: v("comment", "#57606a"), // 6.3 / 5.6
  literal: v("literal", "#0a55a8"), // 7.2 / 6.4
  type: v("type", "#8a4600"), // 7.0 / 6.3
  func: v("func", "#6b35b8"), // 7.3 / 6.6
  property: v("property", "#0d5a78"), // 7.5 / 6.7
  invalid: v("invalid", "#b3001e"), // 7.0 / 6.3
};

export const faultlineHighlighting = HighlightStyle.define([
  { tag: [t.keyword, t.definitionKeyword, t.moduleKeyword, t.controlKeyword, t.operatorKeyword], color: colours.keyword },
  { tag: [t.string, t.character, t.special(t.string), t.regexp, t.escape], color: colours.string },
  { tag: [t.comment, t.lineComment, t.blockComment], color: colours.comment, fontStyle: "italic" },
  { tag: [t.number, t.bool, t.null, t.atom], color: colours.literal },
  { tag: [t.typeName, t.definition(t.typeName), t.className, t.namespace], color: colours.type },
  { tag: [t.function(t.variableName), t.function(t.definition(t.variableName)), t.function(t.propertyName)], color: colours.func },
  { tag: [t.propertyName, t.labelName], color: colours.property },
  { tag: t.definition(t.variableName), fontWeight: "600" },
  { tag: t.invalid, color: colours.invalid, textDecoration: "underline" },
  { tag: t.strong, fontWeight: "bold" },
  { tag: t.emphasis, fontStyle: "italic" },
]);

const fg = "var(--fg, #1b1f24)";
const bg = "var(--bg, #fdfdfc)";
const panel = "var(--panel, #f3f4f2)";
const line = "var(--line, #d5d9de)";
const muted = "var(--muted, #4a5360)";
const focus = "var(--focus, #c2410c)";
const accent = "var(--accent, #0b5cad)";

const monospace =
  'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace';

export const faultlineTheme = EditorView.theme(
  {
    "&": {
      color: fg,
      backgroundColor: bg,
      border: "1px solid " + line,
      borderRadius: ".4rem",
      fontSize: ".9rem",
      // About 28 lines of 1.5em each, plus the content padding; the
      // candidate can drag it taller.
      height: "calc(42em + 8px)",
      minHeight: "12em",
      resize: "vertical",
      overflow: "hidden",
      margin: ".25rem 0 1rem",
    },
    "&.cm-focused": {
      outline: "3px solid " + focus,
      outlineOffset: "2px",
    },
    ".cm-scroller": {
      fontFamily: monospace,
      lineHeight: "1.5",
      overflow: "auto",
    },
    ".cm-content": { caretColor: fg, padding: "4px 0" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: fg, borderLeftWidth: "2px" },
    "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection":
      { backgroundColor: v("selection", "#c9daf0") },
    ".cm-activeLine": { backgroundColor: v("active-line", "#eef1f5") },
    ".cm-gutters": {
      backgroundColor: panel,
      color: muted,
      borderRight: "1px solid " + line,
    },
    ".cm-activeLineGutter": { backgroundColor: v("active-gutter", "#e3e7ec"), color: fg },
    ".cm-lineNumbers .cm-gutterElement": { padding: "0 6px 0 10px" },
    "&.cm-focused .cm-matchingBracket": {
      backgroundColor: v("bracket-bg", "#d4ecd9"),
      outline: "1px solid " + v("bracket-line", "#1d6b35"),
    },
    "&.cm-focused .cm-nonmatchingBracket": {
      backgroundColor: v("nobracket-bg", "#fde8ea"),
      outline: "1px solid " + colours.invalid,
    },
    ".cm-searchMatch": {
      backgroundColor: v("match-bg", "#fdf0b0"),
      outline: "1px solid " + v("match-line", "#8a6d00"),
    },
    ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: v("match-selected", "#f8d97a") },
    ".cm-selectionMatch": { backgroundColor: v("selection-match", "#dde7f3") },
    // Diagnostics: a thicker underline than CodeMirror's hairline plus a
    // tint, so a marked line is easy to spot.
    ".cm-lintRange-error": {
      backgroundImage: "none",
      backgroundColor: v("error-bg", "#fde8ea"),
      textDecoration: "underline wavy " + colours.invalid,
      textDecorationThickness: "1.5px",
      textUnderlineOffset: "3px",
    },
    ".cm-lintRange-warning": {
      backgroundImage: "none",
      backgroundColor: v("warning-bg", "#fff3d6"),
      textDecoration: "underline wavy " + v("warning-line", "#8a5a00"),
      textDecorationThickness: "1.5px",
      textUnderlineOffset: "3px",
    },
    ".cm-lintRange-active": { backgroundColor: v("lint-active", "#fbd5a0") },
    ".cm-diagnostic": { color: fg, fontFamily: "inherit" },
    ".cm-diagnostic-error": { borderLeft: "5px solid " + colours.invalid },
    ".cm-diagnostic-warning": { borderLeft: "5px solid " + v("warning-line", "#8a5a00") },
    ".cm-tooltip": {
      backgroundColor: bg,
      color: fg,
      border: "1px solid " + line,
      fontSize: ".9rem",
    },
    ".cm-panels": { backgroundColor: panel, color: fg },
    ".cm-panels.cm-panels-bottom": { borderTop: "1px solid " + line },
    ".cm-panels.cm-panels-top": { borderBottom: "1px solid " + line },
    ".cm-panel.cm-panel-lint ul": { maxHeight: "8em" },
    ".cm-panel.cm-panel-lint ul [aria-selected]": {
      backgroundColor: v("selection-match", "#dde7f3"),
      color: fg,
    },
    ".cm-panel.cm-panel-lint ul:focus [aria-selected]": {
      backgroundColor: accent,
      color: "var(--accent-fg, #ffffff)",
    },
    ".cm-panel.cm-panel-lint [name=close], .cm-panel.cm-search [name=close]": {
      color: fg,
      fontSize: "1.2rem",
      padding: "0 .4rem",
    },
    ".cm-panel.cm-search": { padding: ".3rem .5rem" },
    // site.css makes every label a bold block; the search options are
    // inline checkboxes.
    ".cm-panel.cm-search label": {
      display: "inline-flex",
      alignItems: "center",
      gap: ".25rem",
      margin: "0 .75rem 0 0",
      fontWeight: "normal",
      fontSize: ".85rem",
      color: fg,
    },
    ".cm-textfield": {
      border: "1px solid " + muted,
      backgroundColor: bg,
      color: fg,
      fontSize: ".9rem",
    },
    ".cm-button": {
      backgroundImage: "none",
      backgroundColor: bg,
      border: "1px solid " + muted,
      color: fg,
      fontSize: ".85rem",
    },
    // The comparison (editor-merge.js): tints that keep the code's colours
    // readable in both themes; removed text is also struck through, so a
    // change is told by more than colour.
    ".cm-changedLine, .cm-insertedLine": { backgroundColor: v("inserted-bg", "#e6f4ea") },
    ".cm-deletedChunk": { backgroundColor: v("deleted-bg", "#fdecee") },
    ".cm-deletedChunk .cm-deletedText, .cm-deletedChunk del": { textDecoration: "line-through", backgroundColor: "transparent" },
    ".cm-changedText": { background: "none", textDecoration: "underline " + v("bracket-line", "#1d6b35") },
    ".cm-faultline-tabmode": {
      padding: ".25rem .75rem",
      fontSize: ".85rem",
      fontFamily: "inherit",
    },
    // The ring is on the whole editor (above); inside, only panel controls
    // (search fields, buttons, the diagnostics list) get their own.
    ".cm-content:focus-visible": { outline: "none" },
    ".cm-panels :focus-visible": { outline: "2px solid " + focus, outlineOffset: "1px" },
  },
  { dark: false },
);
