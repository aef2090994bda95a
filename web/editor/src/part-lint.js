// The lint part (editor-lint.js): diagnostics underlined, in the gutter and
// in the lint panel. The editor loads it the first time it has diagnostics
// to show, or F8, Shift-F8 or the lint panel's key is pressed.

import {
  lintGutter,
  lintKeymap,
  nextDiagnostic,
  previousDiagnostic,
  openLintPanel,
  setDiagnostics,
  forEachDiagnostic,
} from "@codemirror/lint";

window.FaultlineEditor.parts.lint = {
  lintGutter,
  lintKeymap,
  nextDiagnostic,
  previousDiagnostic,
  openLintPanel,
  setDiagnostics,
  forEachDiagnostic,
};
