// One step back: Discard and deleting an operation act at once and offer "Undo" beside the save
// bar until the next change (so nothing is lost to a slip of the mouse, and no dialog asks first).

import { $ } from "./dom.js";

let restore = null;

export function offerUndo(text, action) {
  restore = action;
  $("#undo-text").textContent = text;
  $("#undo").hidden = false;
}

export function dropUndo() {
  restore = null;
  $("#undo").hidden = true;
}

export function undo() {
  const action = restore;
  dropUndo();
  action?.();
}
