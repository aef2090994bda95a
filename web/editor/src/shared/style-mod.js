const m = window.FaultlineEditor.cm.styleMod;
export const { StyleModule } = m;
