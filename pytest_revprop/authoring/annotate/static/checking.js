// Every change is kept and checked: a change goes to this tab's draft at once and, a moment
// later, to the server's check; only the answer to the last change is shown, and a save that
// waited for it (Ctrl+S while checking) goes on.

import { api } from "./api.js";
import { assist, gold, persist, setSaveState, state, updateButtons } from "./page.js";
import { showChecked } from "./show.js";
import { dropUndo } from "./undo.js";

const CHECK_DELAY_MS = 150;

export function changed() {
  dropUndo();
  persist();
  assist.refresh();
  setSaveState("", "");
  scheduleCheck();
  updateButtons();
}

export function scheduleCheck(delay = CHECK_DELAY_MS) {
  clearTimeout(state.checkTimer);
  state.checkSeq++; // a check still on its way answers for an older version: it is not shown
  state.checkPending = true;
  document.body.dataset.checking = "true"; // until the answer to the last change is shown
  updateButtons();
  state.checkTimer = setTimeout(runCheck, delay);
}

async function runCheck() {
  const cur = state.current;
  const seq = state.checkSeq;
  if (!cur) {
    delete document.body.dataset.checking;
    return;
  }
  state.turnExamples[state.turn] = gold.exampleList();
  const byIndex = (list) => Object.fromEntries((list || []).flatMap((v, i) => (v === null || v === undefined ? [] : [[i, v]])));
  const others = Object.fromEntries(Object.entries(state.turnExamples).filter(([t]) => t !== "0").map(([t, list]) => [t, byIndex(list)]));
  const reply = await api.check(cur.data, state.turn === 0 ? gold.examplesByIndex() : byIndex(state.turnExamples[0]), others);
  if (seq !== state.checkSeq) return; // a later check answers for the later change
  if (cur !== state.current) {
    if (!state.current) delete document.body.dataset.checking;
    return;
  }
  state.checkPending = false;
  delete document.body.dataset.checking;
  const wanted = state.saveAfterCheck;
  state.saveAfterCheck = false;
  if (!reply.ok) {
    state.unreachable = reply.status === 0;
    if (state.unreachable) state.check = null; // unknown until the server answers again
    const later = state.unreachable ? ": your changes are kept in this browser, and the page checks them again when the server answers" : "";
    setSaveState(`${wanted ? "Not saved: " : ""}${reply.body.error || "the check failed"}${later}`, "error");
    updateButtons();
    return;
  }
  if (state.unreachable) setSaveState("The server answers again: your changes are checked.", "");
  state.unreachable = false;
  state.check = reply.body;
  showChecked(reply.body);
  updateButtons();
  if (wanted) saveWanted();
}

// What a check that a save waited for does once it is back: saving.js's saveNow, which
// main.js hands here (saving imports this module, so this one cannot import it).
let saveWanted = () => {};
export function onSaveWanted(action) {
  saveWanted = action;
}
