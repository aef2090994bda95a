const m = window.FaultlineEditor.cm.language;
export const { language, highlightingFor } = m;
