// The complete part (editor-complete.js): brackets and quotes closed as
// they are typed, from @codemirror/autocomplete. The editor loads it when
// it first has focus. There is no completion pop-up.

import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";

window.FaultlineEditor.parts.complete = { closeBrackets, closeBracketsKeymap };
