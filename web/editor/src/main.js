// Faultline's code editor: CodeMirror 6 with Go and Python support, mounted over a
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
  RangeValue,
  ChangeSet,
  Text,
  Annotation,
  Transaction,
  MapMode,
  CharCategory,
  combineConfig,
  codePointAt,
  codePointSize,
  fromCodePoint,
  findClusterBreak,
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
  getPanel,
  showDialog,
  getDialog,
  runScopeHandlers,
  showTooltip,
  getTooltip,
  hoverTooltip,
  activateHover,
  logException,
  Direction,
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
  syntaxTree,
  LanguageSupport,
} from "@codemirror/language";
import { goLanguage } from "@codemirror/lang-go";
import { pythonLanguage } from "@codemirror/lang-python";

// The languages an editor can be mounted in (opts.language): the parser,
// and the indent a Tab inserts (Go's gofmt uses tabs; Python, PEP 8's
// four spaces, since a file mixing them is refused by Python).
const languages = {
  go: { language: goLanguage, indent: "\t" },
  python: { language: pythonLanguage, indent: "    " },
};
import { highlightTree } from "@lezer/highlight";
import { StyleModule } from "style-mod";

import { faultlineTheme, faultlineHighlighting } from "./theme.js";
import { diagnosticsToRanges } from "./diagnostics.js";
import { loadPart, pageNonce, parts } from "./parts.js";

const isMac =
  typeof navigator !== "undefined" &&
  /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");

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
function announceDiagnosticAtCursor(view, lint) {
  const head = view.state.selection.main.head;
  let found = null;
  lint.forEachDiagnostic(view.state, (d, from, to) => {
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

// lintExtensions is what the lint part adds to an editor: the gutter, F8
// and Shift-F8 with their announcement, and the lint panel's key.
function lintExtensions(lint) {
  const announcing = (command) => (view) => {
    if (!command(view)) return false;
    announceDiagnosticAtCursor(view, lint);
    return true;
  };
  return [
    lint.lintGutter(),
    keymap.of([
      { key: "F8", run: announcing(lint.nextDiagnostic) },
      { key: "Shift-F8", run: announcing(lint.previousDiagnostic) },
      ...lint.lintKeymap,
    ]),
  ];
}

// searchExtensions is what the search part adds: its keys (Ctrl-F and the
// rest) and the other occurrences of the selected text marked.
function searchExtensions(search) {
  return [keymap.of(search.searchKeymap), search.highlightSelectionMatches()];
}

// completeExtensions is what the complete part adds: brackets and quotes
// closed as they are typed, and Backspace deleting an empty pair.
function completeExtensions(complete) {
  return [complete.closeBrackets(), keymap.of(complete.closeBracketsKeymap)];
}

// searchKeys are the keys of @codemirror/search's keymap that start
// something, with the command of the search part each runs: pressed
// before the part is loaded, they load it and then run.
const searchKeys = [
  { key: "Mod-f", command: "openSearchPanel" },
  { key: "F3", command: "findNext" },
  { key: "Mod-g", command: "findNext" },
  { key: "Shift-F3", command: "findPrevious" },
  { key: "Shift-Mod-g", command: "findPrevious" },
  { key: "Mod-Alt-g", command: "gotoLine" },
  { key: "Mod-d", command: "selectNextOccurrence" },
  { key: "Mod-Shift-l", command: "selectSelectionMatches" },
];

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
 *   language is "go" (the default) or "python".
 */
function mount(textarea, opts = {}) {
  if (!textarea || textarea.tagName !== "TEXTAREA") {
    throw new Error("FaultlineEditor.mount: expected a <textarea> element");
  }
  const onChange = typeof opts.onChange === "function" ? opts.onChange : null;
  const langName = opts.language || "go";
  const lang = languages[langName];
  if (!lang) {
    throw new Error("FaultlineEditor.mount: unknown language " + JSON.stringify(langName));
  }
  const shared = opts.collab || null;
  if (shared) {
    const t = shared.transport;
    if (!t || typeof t.push !== "function" || typeof t.pull !== "function" || typeof t.onUpdates !== "function") {
      throw new Error("FaultlineEditor.mount: collab needs a transport with push, pull and onUpdates");
    }
    if (!shared.clientID) throw new Error("FaultlineEditor.mount: collab needs a clientID");
    if (!parts.collab) {
      throw new Error("FaultlineEditor.mount: collab needs editor-collab.js, linked after editor.js");
    }
  }
  let sync = null; // the shared editor's controller, once the view exists
  let destroyed = false;

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
  // The parts loaded on first use (parts.js): each starts empty, or with
  // keys that load it, and is filled when its part arrives.
  const lintSlot = new Compartment();
  const searchSlot = new Compartment();
  const completeSlot = new Compartment();
  let lintPart = null; // this editor has the lint part's extensions
  let searchPart = null;
  let completePart = null;
  // pendingDiagnostics holds diagnostics set before the lint part arrived,
  // as ranges in the current text: edits made meanwhile move them.
  let pendingDiagnostics = null;

  function withPart(name, use) {
    loadPart(name).then(
      (part) => {
        if (!destroyed) use(part);
      },
      (err) => console.error(err),
    );
  }
  function lintReady(part) {
    if (!lintPart) {
      lintPart = part;
      view.dispatch({ effects: lintSlot.reconfigure(lintExtensions(part)) });
    }
    return part;
  }
  function searchReady(part) {
    if (!searchPart) {
      searchPart = part;
      view.dispatch({ effects: searchSlot.reconfigure(searchExtensions(part)) });
    }
    return part;
  }
  function completeReady(part) {
    if (!completePart) {
      completePart = part;
      view.dispatch({ effects: completeSlot.reconfigure(completeExtensions(part)) });
    }
  }
  // Keys pressed before their part is here load it, then do their work.
  const lintKeys = keymap.of([
    ...["F8", "Shift-F8"].map((key) => ({
      key,
      run(v) {
        withPart("lint", (part) => {
          lintReady(part);
          const command = key === "F8" ? part.nextDiagnostic : part.previousDiagnostic;
          if (command(v)) announceDiagnosticAtCursor(v, part);
        });
        return true;
      },
    })),
    {
      key: "Mod-Shift-m",
      preventDefault: true,
      run(v) {
        withPart("lint", (part) => lintReady(part).openLintPanel(v));
        return true;
      },
    },
  ]);
  const searchStubs = keymap.of(
    searchKeys.map(({ key, command }) => ({
      key,
      preventDefault: true,
      run(v) {
        withPart("search", (part) => searchReady(part)[command](v));
        return true;
      },
    })),
  );
  const initialSearch = parts.search ? searchExtensions(parts.search) : searchStubs;
  const initialComplete = parts.complete ? completeExtensions(parts.complete) : [];
  if (parts.search) searchPart = parts.search;
  if (parts.complete) completePart = parts.complete;

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
    indentUnit.of(lang.indent),
    EditorState.tabSize.of(4),
    syntaxHighlighting(faultlineHighlighting),
    bracketMatching(),
    completeSlot.of(initialComplete),
    highlightActiveLine(),
    lintSlot.of(lintKeys),
    searchSlot.of(initialSearch),
    tabMovesFocus,
    new LanguageSupport(lang.language),
    keymap.of([
      { key: "Ctrl-m", mac: "Shift-Alt-m", run: toggleTabFocus },
      ...defaultKeymap,
      ...historyKeymap,
      indentWithTab,
    ]),
    EditorView.contentAttributes.of(contentAttrs),
    EditorView.editorAttributes.of({ "data-editor": langName }),
    faultlineTheme,
    shared
      ? parts.collab.collabExtensions({ startVersion: Number(shared.startVersion) || 0, clientID: String(shared.clientID) })
      : [],
    EditorView.updateListener.of((update) => {
      if (sync) sync.update(update);
      // Bracket closing is wanted from the first keystroke: its part loads
      // when the editor first has focus. Search's marks of the selected
      // text load with the first selection.
      if (!completePart && update.focusChanged && update.view.hasFocus) {
        withPart("complete", completeReady);
      }
      if (!searchPart && update.selectionSet && !update.state.selection.main.empty) {
        withPart("search", searchReady);
      }
      if (!update.docChanged) return;
      if (pendingDiagnostics) {
        const changes = update.changes;
        pendingDiagnostics = pendingDiagnostics.map((d) => {
          const from = changes.mapPos(d.from, 1);
          return { ...d, from, to: Math.max(from, changes.mapPos(d.to, -1)) };
        });
      }
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
  if (shared) sync = parts.collab.startCollab(view, { ...shared, clientID: String(shared.clientID) });

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
      pendingDiagnostics = null;
      view.dispatch(
        {
          changes: { from: 0, to: view.state.doc.length, insert: text },
          selection: { anchor: head },
          userEvent: "input.replace",
        },
        lintPart ? lintPart.setDiagnostics(view.state, []) : {},
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
    // setDiagnostics marks the problems in list. The first time there are
    // any, the lint part loads, and they appear when it has (edits made
    // meanwhile move them); a later call or setValue replaces them.
    setDiagnostics(list) {
      const ranges = diagnosticsToRanges(view.state.doc, list || []);
      if (lintPart) {
        pendingDiagnostics = null;
        view.dispatch(lintPart.setDiagnostics(view.state, ranges));
        return;
      }
      if (ranges.length === 0) {
        pendingDiagnostics = null;
        return;
      }
      pendingDiagnostics = ranges;
      withPart("lint", (part) => {
        lintReady(part);
        if (pendingDiagnostics !== null) {
          view.dispatch(part.setDiagnostics(view.state, pendingDiagnostics));
          pendingDiagnostics = null;
        }
      });
    },
    clearDiagnostics() {
      pendingDiagnostics = null;
      if (lintPart) view.dispatch(lintPart.setDiagnostics(view.state, []));
    },
    focus: () => view.focus(),
    // destroy removes the editor and shows the textarea again, holding the
    // editor's last text.
    destroy() {
      destroyed = true;
      pendingDiagnostics = null;
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

// cm is the CodeMirror the editor runs on, for the bundles loaded apart
// (the parts of parts.js and the comparison view, editor-merge.js), which
// are built against these very modules so that what they make works
// inside this editor; see src/shared/. Each group names what those
// bundles import.
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
    RangeValue,
    ChangeSet,
    Text,
    Annotation,
    Transaction,
    MapMode,
    CharCategory,
    combineConfig,
    codePointAt,
    codePointSize,
    fromCodePoint,
    findClusterBreak,
  },
  view: {
    EditorView,
    ViewPlugin,
    gutter,
    Decoration,
    GutterMarker,
    WidgetType,
    keymap,
    showPanel,
    getPanel,
    showDialog,
    getDialog,
    runScopeHandlers,
    showTooltip,
    getTooltip,
    hoverTooltip,
    activateHover,
    logException,
    Direction,
  },
  language: { language, highlightingFor, syntaxTree, indentUnit },
  highlight: { highlightTree },
  styleMod: { StyleModule },
};

window.FaultlineEditor = { mount, keys, cm, parts };
