const m = window.FaultlineEditor.cm.language;
export const { language, highlightingFor, syntaxTree, indentUnit } = m;
