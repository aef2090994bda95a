// The search part (editor-search.js): search and replace, go to line, and
// the other occurrences of the selected text marked. The editor loads it
// the first time one of its keys is pressed or text is selected.

import {
  searchKeymap,
  highlightSelectionMatches,
  openSearchPanel,
  findNext,
  findPrevious,
  gotoLine,
  selectNextOccurrence,
  selectSelectionMatches,
} from "@codemirror/search";

window.FaultlineEditor.parts.search = {
  searchKeymap,
  highlightSelectionMatches,
  openSearchPanel,
  findNext,
  findPrevious,
  gotoLine,
  selectNextOccurrence,
  selectSelectionMatches,
};
