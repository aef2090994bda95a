// Faultline's code editor: CodeMirror 6 with Go support, mounted over a
// plain <textarea> so the page works (and submits) without JavaScript.
//
// The bundle defines window.FaultlineEditor with one function, mount(); see
// README.md and /work/briefs/i4-contract.md ("Editor bundle API").

import {
  EditorState,
  StateEffect,
  StateField,
  Compartment,
  Facet,
  EditorSelection,
  Prec,
  RangeSet,
  RangeSetBuilder,
  ChangeSet,
  Text,
} from "@codemirror/state";
import {
  EditorView,
  ViewPlugin,
  gutter,
  Decoration,
  GutterMarker,
  WidgetType,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  drawSelection,
  dropCursor,
  showPanel,
} from "@codemirror/view";
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab,
} from "@codemirror/commands";
import {
  language,
  highlightingFor,
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import {
  lintGutter,
  lintKeymap,
  nextDiagnostic,
  previousDiagnostic,
  setDiagnostics as lintSetDiagnostics,
  forEachDiagnostic,
} from "@codemirror/lint";
import { go } from "@codemirror/lang-go";
import { highlightTree } from "@lezer/highlight";
import { StyleModule } from "style-mod";

import { faultlineTheme, faultlineHighlighting } from "./theme.js";
import { diagnosticsToRanges } from "./diagnostics.js";
import { collabExtensions, startCollab } from "./collab.js";

const isMac =
  typeof navigator !== "undefined" &&
  /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");

// pageNonce is the Content-Security-Policy nonce the page gave this
// script's own tag. CodeMirror styles itself with <style> elements it adds
// at run time, which a policy without 'unsafe-inline' blocks unless they
// carry the nonce. It must be read now: currentScript is null once the
// bundle has finished running.
const pageNonce =
  (typeof document !== "undefined" &&
    document.currentScript &&
    document.currentScript.nonce) ||
  "";

// tabToggleKey is how the candidate switches Tab between indenting and
// moving focus; CodeMirror's default keymap binds the same keys.
const tabToggleKey = isMac ? "Shift-Alt-M" : "Ctrl-M";

// keys names the editor's keyboard commands as this platform spells them,
// for a page's help text.
const keys = {
  toggleTabFocus: tabToggleKey,
  leave: "Escape then Tab",
  lintPanel: isMac ? "Cmd-Shift-M" : "Ctrl-Shift-M",
  nextDiagnostic: "F8",
  previousDiagnostic: "Shift-F8",
  search: isMac ? "Cmd-F" : "Ctrl-F",
};

// CodeMirror keeps its tab-focus mode inside the view with no way to read
// it back, so the editor tracks the mode it set in state: that is what
// shows the visible notice below the editor.
const setTabMovesFocus = StateEffect.define();
const tabMovesFocus = StateField.define({
  create: () => false,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setTabMovesFocus)) value = e.value;
    return value;
  },
  provide: (field) =>
    showPanel.from(field, (on) => (on ? tabModePanel : null)),
});

function tabModePanel() {
  const dom = document.createElement("div");
  dom.className = "cm-faultline-tabmode";
  dom.textContent =
    "Tab moves focus out of the editor. Press " +
    tabToggleKey +
    " to make Tab indent again.";
  return { dom };
}

function toggleTabFocus(view) {
  const on = !view.state.field(tabMovesFocus);
  view.setTabFocusMode(on);
  view.dispatch({
    effects: [
      setTabMovesFocus.of(on),
      EditorView.announce.of(
        on ? "Tab moves focus out of the editor." : "Tab indents.",
      ),
    ],
  });
  return true;
}

// announceDiagnosticAtCursor tells screen-reader users which problem F8
// moved them to; sighted users see it underlined and in the gutter.
function announceDiagnosticAtCursor(view) {
  const head = view.state.selection.main.head;
  let found = null;
  forEachDiagnostic(view.state, (d, from, to) => {
    if (!found && from <= head && head <= to) found = d;
  });
  if (!found) return;
  const line = view.state.doc.lineAt(head).number;
  view.dispatch({
    effects: EditorView.announce.of(
      "Line " + line + ", " + found.severity + ": " + found.message,
    ),
  });
}

function withAnnouncement(command) {
  return (view) => {
    if (!command(view)) return false;
    announceDiagnosticAtCursor(view);
    return true;
  };
}

// labelIdFor returns the id of the textarea's <label>, giving the label an
// id when it has none, so the editor can be aria-labelledby it.
function labelIdFor(textarea) {
  const label = textarea.labels && textarea.labels[0];
  if (!label) return textarea.getAttribute("aria-labelledby") || "";
  if (!label.id) {
    label.id = (textarea.id || "faultline-editor") + "-label";
  }
  return label.id;
}

/**
 * mount replaces textarea with a CodeMirror editor holding its value.
 *
 * @param {HTMLTextAreaElement} textarea the form field the code lives in;
 *   it is hidden and kept equal to the editor's text on every change.
 * @param {{onChange?: (text: string) => void, describedBy?: string, nonce?: string, collab?: object}} [opts]
 *   describedBy defaults to the textarea's own aria-describedby; nonce
 *   (for CodeMirror's <style> elements) to the nonce of the bundle's own
 *   <script> tag. collab makes it a shared editor (see collab.js and
 *   README.md): {startVersion, clientID, name, colour, transport,
 *   onSelection}; the textarea must then hold the text at startVersion.
 */
function mount(textarea, opts = {}) {
  if (!textarea || textarea.tagName !== "TEXTAREA") {
    throw new Error("FaultlineEditor.mount: expected a <textarea> element");
  }
  const onChange = typeof opts.onChange === "function" ? opts.onChange : null;
  const shared = opts.collab || null;
  if (shared) {
    const t = shared.transport;
    if (!t || typeof t.push !== "function" || typeof t.pull !== "function" || typeof t.onUpdates !== "function") {
      throw new Error("FaultlineEditor.mount: collab needs a transport with push, pull and onUpdates");
    }
    if (!shared.clientID) throw new Error("FaultlineEditor.mount: collab needs a clientID");
  }
  let sync = null; // the shared editor's controller, once the view exists

  // tabindex=0 changes nothing for the browser (contenteditable is already
  // in the tab order) but lets axe-core see that the scrolling region holds
  // focusable content; without it, scrollable-region-focusable fails once
  // the code is longer than the editor.
  const contentAttrs = { tabindex: "0" };
  const labelledBy = labelIdFor(textarea);
  if (labelledBy) contentAttrs["aria-labelledby"] = labelledBy;
  else if (textarea.getAttribute("aria-label"))
    contentAttrs["aria-label"] = textarea.getAttribute("aria-label");
  const describedBy =
    opts.describedBy || textarea.getAttribute("aria-describedby");
  if (describedBy) contentAttrs["aria-describedby"] = describedBy;

  const nonce = opts.nonce || pageNonce;
  // Settings the candidate changes while working: line wrapping, and the
  // comparison with another version (an extension the lazily loaded merge
  // bundle makes).
  const wrapping = new Compartment();
  const comparison = new Compartment();

  const extensions = [
    wrapping.of([]),
    comparison.of([]),
    EditorView.cspNonce.of(nonce),
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    indentOnInput(),
    indentUnit.of("\t"),
    EditorState.tabSize.of(4),
    syntaxHighlighting(faultlineHighlighting),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    lintGutter(),
    tabMovesFocus,
    go(),
    keymap.of([
      { key: "Ctrl-m", mac: "Shift-Alt-m", run: toggleTabFocus },
      { key: "F8", run: withAnnouncement(nextDiagnostic) },
      { key: "Shift-F8", run: withAnnouncement(previousDiagnostic) },
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...searchKeymap,
      ...historyKeymap,
      ...lintKeymap,
      indentWithTab,
    ]),
    EditorView.contentAttributes.of(contentAttrs),
    EditorView.editorAttributes.of({ "data-editor": "go" }),
    faultlineTheme,
    shared
      ? collabExtensions({ startVersion: Number(shared.startVersion) || 0, clientID: String(shared.clientID) })
      : [],
    EditorView.updateListener.of((update) => {
      if (sync) sync.update(update);
      if (!update.docChanged) return;
      const text = update.state.doc.toString();
      textarea.value = text;
      if (onChange) onChange(text);
    }),
  ];

  const view = new EditorView({
    state: EditorState.create({ doc: textarea.value, extensions }),
  });
  textarea.insertAdjacentElement("afterend", view.dom);
  textarea.hidden = true;
  if (shared) sync = startCollab(view, { ...shared, clientID: String(shared.clientID) });

  // A click on the label would focus the hidden textarea; send it to the
  // editor instead.
  const label = textarea.labels && textarea.labels[0];
  const focusFromLabel = (event) => {
    event.preventDefault();
    view.focus();
  };
  if (label) label.addEventListener("click", focusFromLabel);

  return {
    view,
    textarea,
    // collab, for a shared editor: setPeer(report), removePeer(clientID),
    // peers(), version(), pending(), pull(); null otherwise.
    collab: sync,
    getValue: () => view.state.doc.toString(),
    setValue(value) {
      const text = value == null ? "" : String(value);
      const head = Math.min(view.state.selection.main.head, text.length);
      // Diagnostics belong to the old text; mapped through a whole-document
      // replacement they would collapse to points, so they go in the same
      // transaction.
      view.dispatch(
        {
          changes: { from: 0, to: view.state.doc.length, insert: text },
          selection: { anchor: head },
          userEvent: "input.replace",
        },
        lintSetDiagnostics(view.state, []),
      );
    },
    // setWrap turns soft wrapping of long lines on or off.
    setWrap(on) {
      view.dispatch({ effects: wrapping.reconfigure(on ? EditorView.lineWrapping : []) });
    },
    // setFontSize sets the code's size in CSS pixels (0: the default).
    setFontSize(px) {
      view.dom.style.fontSize = px > 0 ? px + "px" : "";
      view.requestMeasure();
    },
    // setComparison shows an extension that marks the code's differences
    // from another version (see merge.js), or none.
    setComparison(ext) {
      view.dispatch({ effects: comparison.reconfigure(ext || []) });
    },
    setDiagnostics(list) {
      const ranges = diagnosticsToRanges(view.state.doc, list || []);
      view.dispatch(lintSetDiagnostics(view.state, ranges));
    },
    clearDiagnostics() {
      view.dispatch(lintSetDiagnostics(view.state, []));
    },
    focus: () => view.focus(),
    // destroy removes the editor and shows the textarea again, holding the
    // editor's last text.
    destroy() {
      if (sync) sync.destroy();
      textarea.value = view.state.doc.toString();
      view.destroy();
      if (label) label.removeEventListener("click", focusFromLabel);
      textarea.hidden = false;
    },
    goToLine(n) {
      const doc = view.state.doc;
      const number = Math.min(Math.max(1, Math.floor(Number(n)) || 1), doc.lines);
      const pos = doc.line(number).from;
      view.dispatch({
        selection: { anchor: pos },
        effects: EditorView.scrollIntoView(pos, { y: "center" }),
      });
      view.focus();
    },
  };
}

// cm is the CodeMirror the editor runs on, for the merge bundle
// (editor-merge.js), which is built against these very modules so that
// what it makes works inside this editor; see src/shared/.
const cm = {
  state: {
    EditorState,
    StateEffect,
    StateField,
    Compartment,
    Facet,
    EditorSelection,
    Prec,
    RangeSet,
    RangeSetBuilder,
    ChangeSet,
    Text,
  },
  view: { EditorView, ViewPlugin, gutter, Decoration, GutterMarker, WidgetType },
  language: { language, highlightingFor },
  highlight: { highlightTree },
  styleMod: { StyleModule },
};

window.FaultlineEditor = { mount, keys, cm };
