// The comparison view, loaded on first use (build.sh makes it
// ../static/editor-merge.js): @codemirror/merge's unified diff as an
// extension of the editor that is already on the page, built against that
// editor's own CodeMirror (src/shared/).

import { unifiedMergeView } from "@codemirror/merge";

/**
 * comparison returns an extension that marks how the editor's text differs
 * from original: removed lines shown above, struck through, added ones
 * tinted, a marker in the gutter. The code stays editable; the marks follow.
 *
 * @param {string} original the version to compare with
 */
function comparison(original) {
  return unifiedMergeView({
    original: String(original == null ? "" : original),
    mergeControls: false,
    highlightChanges: true,
    gutter: true,
    syntaxHighlightDeletions: true,
  });
}

window.FaultlineEditor.comparison = comparison;
