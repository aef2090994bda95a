const m = window.FaultlineEditor.cm.view;
export const { EditorView, ViewPlugin, gutter, Decoration, GutterMarker, WidgetType } = m;
