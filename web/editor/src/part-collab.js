// The collab part (editor-collab.js): the shared editor of a live screen
// (collab.js). Room pages link it right after editor.js, so that
// FaultlineEditor.mount can make a shared editor at once; other pages never
// load it.

import { collabExtensions, startCollab } from "./collab.js";

window.FaultlineEditor.parts.collab = { collabExtensions, startCollab };
