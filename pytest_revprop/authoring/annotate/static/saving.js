// Saving: Ctrl+S (now, or once the check is back, or why not), the save and its merge rounds,
// the merge dialog's outcome, what was typed while a save was in flight, and Discard (Undo
// brings the changes back).

import { api } from "./api.js";
import { changed, scheduleCheck } from "./checking.js";
import { chooseSides } from "./conflict.js";
import { $ } from "./dom.js";
import { drafts } from "./drafts.js";
import { openCase } from "./opening.js";
import { assist, channel, gold, isDirty, keepExamples, loadGold, persist, personName, setSaveState, sidebar, state, statusOf } from "./page.js";
import { showCase } from "./show.js";
import { turnCount } from "./turns.js";
import { offerUndo } from "./undo.js";
import { carry, clone, editedSince, originLists, origins, sentOrigins, turnOps } from "./working.js";

const MAX_MERGE_ROUNDS = 3;

// Ctrl+S: save now, or once the pending check is back; or say why not.
export function saveNow() {
  const errors = [...(state.check?.messages || []), ...gold.refusals()].filter((m) => m.level === "error").length;
  if (!state.current) return;
  if (state.checkPending) {
    state.saveAfterCheck = true;
    setSaveState("Saving once the check is back…", "");
  } else if (!$("#save").disabled) {
    save("edited");
  } else if (errors) {
    setSaveState(`Not saved: fix the ${errors} error(s) marked first.`, "error");
  } else if (isDirty() && !state.check) {
    state.saveAfterCheck = !state.unreachable;
    setSaveState(state.unreachable ? "Not saved: the server cannot be reached. Your changes are kept in this browser; the page checks them again when it answers." : "Saving once the check is back…", state.unreachable ? "error" : "");
    if (!state.unreachable) scheduleCheck(0);
  } else if (isDirty()) {
    setSaveState("Not saved yet: Save is not available (see above).", "warn");
  } else {
    setSaveState("Nothing to save: no change since the last save.", "");
  }
}

export async function save(action) {
  const cur = state.current;
  if (!cur) return;
  const annotator = personName($("#annotator").value);
  if (!annotator) {
    setSaveState("Enter your name first (top right): the history records who saved.", "error");
    $("#annotator").focus();
    return;
  }
  state.saving = true;
  try {
    await saveRounds(cur, annotator, action);
  } finally {
    state.saving = false;
  }
}

async function saveRounds(cur, annotator, action) {
  for (let round = 0; round < MAX_MERGE_ROUNDS; round++) {
    setSaveState("saving…", "");
    const sent = { data: clone(cur.data), ops: turnOps(cur.data).map((ops) => [...ops]), note: $("#history-note").value };
    const canMerge = action === "edited" && !cur.stale; // edits on a version that is gone are shown first
    const reply = await api.save({ file: cur.file, hash: cur.hash, data: sent.data, annotator, action, note: sent.note, merge: canMerge, base: cur.base, mine_origin: originLists(cur.data, cur.origin), create: cur.gone === true });
    if (cur !== state.current) return;
    if (reply.status === 0) state.unreachable = true;
    if (reply.ok) {
      const who = [...new Set((reply.body.saves || []).map((h) => h.annotator))].join(", ") || "the version on disk";
      saved(reply.body, reply.body.merged ? `Merged with ${who}'s save.` : cur.mergedNote || "", sent);
      return;
    }
    if (reply.status !== 409) {
      setSaveState(`Not saved: ${reply.body.error}`, "error");
      return;
    }
    if (action === "reviewed") {
      // A review vouches for the version the reviewer read: a newer one is read first.
      await openCase(cur.file, { push: false });
      setSaveState("Not marked reviewed: a newer version was saved meanwhile. It is shown now: check it, then mark it reviewed.", "warn");
      return;
    }
    if (!(await merge(annotator))) return;
  }
  setSaveState("Not saved: the file keeps changing on disk. Your changes stay in this browser; try again.", "warn");
}

// The file changed on disk: merge against the base; true when the page now holds the merge
// (made on the version on disk) and should save it. A merge with conflicts, with problems, or
// of changes made on a version that is gone (a restored draft) is shown before it is saved.
async function merge(annotator) {
  const cur = state.current;
  const mine = clone(cur.data);
  const ask = { file: cur.file, base: cur.base, mine, mine_origin: originLists(cur.data, cur.origin) };
  const reply = await api.merge(ask);
  if (cur !== state.current) return false;
  if (editedSince(mine, cur.data).length) {
    setSaveState("Not saved: you edited while the merge was made. Save again to merge your latest changes.", "warn");
    return false;
  }
  if (!reply.ok) {
    setSaveState(`Not saved: ${reply.body.error}`, "error");
    return false;
  }
  let result = reply.body;
  if (!result.error && !result.conflicts.length && !cur.stale && result.problems.length) {
    takeMerge(cur, result, false);
    setSaveState(`Merged, not saved: the merge breaks a rule (${result.problems.join("; ")}). Fix it here, then save.`, "warn");
    return false;
  }
  if (result.conflicts?.length || result.error || cur.stale) {
    const resolve = async (choices) => {
      const again = await api.merge({ ...ask, choices, hash: result.disk.hash });
      if (!again.ok) return { error: again.body.error };
      return again.body.merged ? again.body : { again: true };
    };
    const answer = await chooseSides($("#conflict"), { merge: result, base: cur.base, annotator, stale: cur.stale, resolve });
    if (cur !== state.current) return false;
    if (answer.choice === "theirs") {
      drafts.drop(cur.file);
      sidebar.render();
      await openCase(cur.file, { push: false });
      setSaveState("Took the version on disk; your changes are dropped.", "ok");
      return false;
    }
    if (answer.choice === "later") {
      setSaveState(`Not saved: ${result.error ? "the file on disk cannot be merged now" : "the file changed on disk"}. Your changes stay in this browser.`, "warn");
      return false;
    }
    if (answer.choice === "again") return true; // changed again meanwhile: the next round asks again
    result = answer.result;
    if (answer.choice === "edit") {
      takeMerge(cur, result, false);
      setSaveState(`The merge is here, not saved: it breaks a rule (${result.problems.join("; ")}). Fix it, then save.`, "warn");
      return false;
    }
  }
  takeMerge(cur, result, true);
  return true;
}

// The merge becomes the working copy, made on the version on disk.
function takeMerge(cur, result, saving) {
  const who = [...new Set((result.saves || []).map((h) => h.annotator))].join(", ") || "the version on disk";
  const disk = result.disk;
  keepExamples();
  Object.assign(cur, { disk: disk.data, diskHash: disk.hash, hash: disk.hash, base: disk.data, data: result.merged, error: disk.error, rule: disk.rule, leaves: disk.leaves, stale: false });
  cur.origin = origins(cur.data, result.merged_origin || false);
  cur.mergedNote = `Merged with ${who}'s save.`;
  const note = $("#history-note").value;
  showCase(saving ? `${cur.mergedNote} Saving the merge…` : cur.mergedNote);
  $("#history-note").value = note;
  loadGold(); // by (path, pattern): the merge reorders
  persist();
  if (!saving) scheduleCheck(0);
}

// The save went through. Whatever was typed while it was in flight stays, as unsaved changes
// over the saved version (the fields, the rows and the caret are left as they are).
function saved(entry, note, sent) {
  const cur = state.current;
  keepExamples();
  const typed = editedSince(sent.data, cur.data);
  const keptRows = typed.includes("gold") || typed.includes("followups") || (entry.merged && typed.length > 0);
  Object.assign(cur, { disk: entry.data, diskHash: entry.hash, error: entry.error, rule: entry.rule, leaves: entry.leaves, mergedNote: "", stale: false, gone: false });
  if (!entry.merged || !typed.length) {
    // (merged on the server while more was typed: the copy stays on its base, and the next save merges again)
    Object.assign(cur, { hash: entry.hash, base: entry.data, data: carry(entry.data, cur.data, typed) });
    cur.origin = keptRows ? sentOrigins(cur.data, sent.ops) : origins(cur.data);
  }
  if (typed.length) persist();
  else drafts.drop(cur.file);
  const historyNote = $("#history-note").value;
  if (historyNote === sent.note) drafts.keepNote(cur.file, "");
  if (!sidebar.entries.some((e) => e.file === cur.file && !e.gone)) sidebar.setCases([...sidebar.entries.filter((e) => e.file !== cur.file), { file: cur.file, path: entry.path, id: entry.data.id }]);
  sidebar.update(cur.file, { status: statusOf(entry.data), ops: entry.data.gold.length, error: entry.error, size: entry.data.size, openable: null });
  showCase("");
  if (historyNote !== sent.note) $("#history-note").value = historyNote;
  if (!keptRows) loadGold();
  const more = typed.length ? " What you typed meanwhile is kept, not saved yet." : "";
  setSaveState(`Saved at ${new Date().toLocaleTimeString()}.${note ? ` ${note}` : ""}${more}`, "ok");
  channel?.postMessage({ saved: cur.file, tab: drafts.tab() });
  scheduleCheck(0);
}

export function discard() {
  const cur = state.current;
  if (!cur) return;
  const before = { data: cur.data, hash: cur.hash, base: cur.base, origin: originLists(cur.data, cur.origin), stale: cur.stale, examples: gold.exampleList(), note: $("#history-note").value, turn: state.turn };
  drafts.drop(cur.file);
  drafts.keepNote(cur.file, "");
  cur.data = clone(cur.disk);
  cur.hash = cur.diskHash;
  cur.base = cur.disk;
  cur.origin = origins(cur.data);
  cur.stale = false;
  sidebar.render();
  if (state.turn >= turnCount(cur.data)) state.turn = 0;
  showCase("Your changes are discarded.");
  loadGold();
  assist.reset();
  scheduleCheck(0);
  offerUndo("Changes discarded.", () => {
    if (state.current !== cur) return;
    Object.assign(cur, { data: before.data, hash: before.hash, base: before.base, stale: before.stale });
    cur.origin = origins(cur.data, before.origin || false);
    drafts.keepNote(cur.file, before.note);
    state.turn = before.turn;
    showCase("Your changes are back.");
    loadGold(before.examples);
    changed();
  });
}
