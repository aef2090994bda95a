const m = window.FaultlineEditor.cm.highlight;
export const { highlightTree } = m;
