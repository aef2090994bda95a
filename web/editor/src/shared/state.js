const m = window.FaultlineEditor.cm.state;
export const {
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
} = m;
