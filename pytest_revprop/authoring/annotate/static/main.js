// The annotation page: opens a case (from the list or the URL's hash, with Back/Forward), keeps
// the working copy (and this tab's copy of unsaved work), has the server check every change,
// shows the preview, and saves, merging with whatever was saved meanwhile.

import { api } from "./api.js";
import { Assist } from "./assist.js";
import { chooseSides } from "./conflict.js";
import { places, showConversation, showHistory, showMessages, showMeta, showPreview, where } from "./caseview.js";
import { $, option } from "./dom.js";
import { drafts } from "./drafts.js";
import { GoldEditor } from "./gold.js";
import { TreeSearch } from "./search.js";
import { STATUS_LABELS, Sidebar, hashText } from "./sidebar.js";
import { GONE, moveDraft, successor, withStranded } from "./stranded.js";
import { renderTree } from "./tree.js";
import { renderTurnBar, turnCount, turnData, turnFlags, turnMessages, turnReport } from "./turns.js";
import { dropUndo, offerUndo, undo } from "./undo.js";
import { watchDisk } from "./watch.js";
import { carry, clone, editedSince, originLists, origins, sentOrigins, setText, turnOps } from "./working.js";

const CHECK_DELAY_MS = 150;
const MAX_MERGE_ROUNDS = 3;
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("revprop-annotate") : null;
const state = { session: null, current: null, check: null, checkSeq: 0, checkTimer: null, checkPending: false, opening: 0, turn: 0, turnExamples: {} };

const content = (data) => JSON.stringify({ ...data, annotation: undefined });
// A name as the server compares it: words split on white space, joined by one space.
const personName = (text) => String(text || "").split(/\s+/).filter(Boolean).join(" ");

// ------------------------------------------------------------------------------ working copy

function isDirty() {
  const cur = state.current;
  return Boolean(cur) && (JSON.stringify(cur.data) !== JSON.stringify(cur.disk) || cur.hash !== cur.diskHash);
}

function statusOf(data) {
  return data?.annotation?.status || "annotated";
}

// The turn shown (its request, reference, gold), and the document before it.
const view = () => turnData(state.current.data, state.turn);
function turnDocument() {
  const cur = state.current;
  if (state.turn === 0) return cur.data.artifact;
  return state.check?.turns?.[state.turn - 1]?.artifact ?? view().artifact ?? null;
}
// The "stands for" values of turn 0's operations, whichever turn is shown.
const ownExamples = () => (state.turn === 0 ? gold.exampleList() : state.turnExamples[0] || []);

function loadGold(listed = []) {
  const cur = state.current;
  if (!view()) state.turn = 0;
  gold.load(view(), examplesFor(cur.file, view(), listed));
}

function persist() {
  const cur = state.current;
  const was = drafts.has(cur.file);
  if (isDirty()) drafts.put(cur.file, { hash: cur.hash, data: cur.data, base: cur.base, examples: ownExamples(), origin: originLists(cur.data, cur.origin) });
  else drafts.drop(cur.file);
  keepExamples();
  if (was !== drafts.has(cur.file)) sidebar.render();
}

// "Stands for" values live in the browser per case file, by (path, pattern): they survive a
// save, a reload and a merge, though the file does not hold them.
const exampleKey = (op) => `${op.path}\n${op.value}`;

function keepExamples() {
  const cur = state.current;
  const map = drafts.examples(cur.file);
  (view()?.gold || []).forEach((op, i) => {
    const example = gold.exampleList()[i];
    if (op.match === "regex_match" && example !== null) map[exampleKey(op)] = example;
  });
  drafts.keepExamples(cur.file, map);
}

function examplesFor(file, data, listed = []) {
  const map = drafts.examples(file);
  return (data.gold || []).map((op, i) => listed[i] ?? (op.match === "regex_match" ? map[exampleKey(op)] ?? null : null));
}

function changed() {
  dropUndo();
  persist();
  assist.refresh();
  setSaveState("", "");
  scheduleCheck();
  updateButtons();
}

// ------------------------------------------------------------------------------ opening

async function openCase(file, { push = true } = {}) {
  const token = ++state.opening;
  state.saveAfterCheck = false;
  document.body.dataset.checking = "true"; // until the case is shown and checked (or shown broken)
  const reply = await api.read(file);
  if (token !== state.opening) return;
  const hash = `#${sidebar.hashFor(file)}`;
  if (location.hash !== hash) {
    if (push && location.hash) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
  }
  $("#placeholder").hidden = true;
  $("#case-view").hidden = false;
  const left = reply.status === 404 ? drafts.get(file) : null;
  if (!reply.ok && !left?.data) {
    state.current = null;
    showBroken(file, reply.body.error || "cannot be read");
    return;
  }
  // A file gone from disk whose unsaved changes this tab keeps opens from them.
  const entry = reply.ok ? reply.body : { path: file.replace(/^\d+\//, ""), hash: left.hash, data: left.base || left.data, error: null, rule: null, leaves: null };
  if (entry.openable) {
    state.current = null;
    showBroken(entry.path, entry.openable);
    return;
  }
  const cur = { file, path: entry.path, hash: entry.hash, diskHash: entry.hash, disk: entry.data, base: entry.data, data: clone(entry.data), error: entry.error, rule: entry.rule, leaves: entry.leaves };
  let draft = drafts.get(file);
  let notice = "";
  if (draft?.data) {
    notice = "Your unsaved changes are restored.";
  } else {
    draft = await drafts.adopt(file);
    if (draft) notice = "Unsaved changes a closed tab left are restored.";
  }
  const others = await drafts.show(file);
  if (token !== state.opening) return;
  channel?.postMessage({ opened: file, tab: drafts.tab() });
  cur.origin = origins(cur.data);
  if (draft?.data) {
    cur.data = draft.data;
    cur.hash = draft.hash;
    cur.base = draft.hash === entry.hash ? entry.data : draft.base || entry.data;
    cur.origin = origins(cur.data, draft.origin || false);
    cur.stale = draft.hash !== entry.hash; // its base version is gone: merged, never saved silently
    if (cur.stale) notice += " The file changed on disk since: saving shows the merge of your changes with the version on disk.";
  }
  if (others) notice += ` This case is also open in ${others === 1 ? "another tab" : `${others} other tabs`}: each tab keeps its own unsaved changes, and whichever saves second merges with the first.`;
  cur.gone = !reply.ok;
  if (sidebar.pinned !== file) sidebar.pinned = null;
  cur.program = entry.program || null;
  if (state.current?.file !== file) state.turn = 0;
  if (state.turn >= turnCount(cur.data)) state.turn = 0;
  state.turnExamples = {};
  state.current = cur;
  state.check = null;
  dropUndo();
  showCase(notice.trim());
  if (state.turn) state.turnExamples[0] = examplesFor(file, cur.data, draft?.examples || []);
  loadGold(state.turn ? [] : draft?.examples || []);
  assist.reset();
  scheduleCheck(0);
  if (draft) sidebar.render();
}

function showBroken(path, error) {
  delete document.body.dataset.checking;
  $("#editor-columns").hidden = true;
  $("#case-id").textContent = path;
  $("#case-status").textContent = "broken";
  $("#case-status").className = "badge error";
  $("#case-path").textContent = "";
  $("#notice").hidden = true;
  $("#gone").hidden = true;
  $("#case-error").hidden = false;
  $("#fix-size").hidden = true;
  $("#case-error-text").textContent = `This file cannot be edited here: ${error}. Fix it in a text editor; \`revprop validate\` names the rule.`;
  drafts.show(null);
}

function showError() {
  const cur = state.current;
  const fixable = cur.rule === "size" && Number.isInteger(cur.leaves);
  const fixed = fixable && cur.data.size === cur.leaves;
  $("#case-error").hidden = !cur.error;
  let text = cur.error ? `The file on disk breaks a rule of the case format: ${cur.error}.` : "";
  if (fixed) text += ` The size is set to ${cur.leaves} here: save to write it.`;
  else if (fixable) text += " The size is the artifact's leaf count:";
  else if (cur.error) text += " Fix the field marked below and save, or edit the file in a text editor.";
  $("#case-error-text").textContent = text;
  const button = $("#fix-size");
  button.hidden = !fixable || fixed;
  button.textContent = `Set size to ${cur.leaves}`;
}

function showCase(notice) {
  const cur = state.current;
  const data = cur.data;
  $("#editor-columns").hidden = false;
  $("#case-id").textContent = data.id;
  showBadge(statusOf(cur.disk));
  $("#case-path").textContent = cur.path;
  $("#notice").hidden = !notice;
  $("#notice").textContent = notice;
  showError();
  showMeta(data);
  showConversation(data.conversation);
  showSource();
  showTurn();
  setText($("#case-notes"), data.notes || "");
  setText($("#annotation-notes"), data.annotation?.notes || "");
  setText($("#history-note"), drafts.note(cur.file));
  showHistory(cur.disk);
  showGone();
  setSaveState("", "");
  updateButtons();
}

// A shipped case is written by its scenario program: a hand edit lasts until the next build.
function showSource() {
  const program = state.current?.program;
  $("#case-source").hidden = !program;
  if (program) $("#case-source").textContent = `Generated by ${program.path} (scenario ${program.scenario}): \`revprop cases build\` rewrites this file, so a hand edit here lasts until the next build. Save works as for any file; to keep a correction, make it in the program.`;
}

// The turn shown: its tab, request, theme and reference, the document before it, its gold.
function showTurn() {
  const cur = state.current;
  const data = cur.data;
  if (!view()) state.turn = 0; // (a merge or a discard took the turn shown away)
  const chained = turnCount(data) > 1 || Boolean(cur.program) || Array.isArray(data.followups);
  renderTurnBar($("#turn-bar"), data, state.turn, state.check?.messages, pickTurn);
  $("#chain-tools").hidden = !chained;
  $("#remove-turn").hidden = turnCount(data) < 2;
  const turn = view();
  $("#turn-panel").hidden = state.turn === 0;
  $("#request-title").textContent = state.turn === 0 ? "Request" : `Request of turn ${state.turn}`;
  $("#artifact-title").textContent = state.turn === 0 ? "Artifact" : `Document before turn ${state.turn}`;
  if (state.turn) {
    setText($("#turn-theme"), turn.theme || "");
    const text = turn.reference === null || turn.reference === undefined ? "" : JSON.stringify(turn.reference, null, 1);
    if ($("#turn-reference").dataset.turn !== String(state.turn) || !$("#turn-reference").classList.contains("invalid")) setText($("#turn-reference"), text);
    $("#turn-reference").dataset.turn = String(state.turn);
  }
  renderTree($("#artifact"), turnDocument(), { onPick: pickLeaf });
  search.run();
  setText($("#request"), turn.request);
}

// Show turn `turn` (from the turn bar: a click, or ←/→ there; Alt+←/→ anywhere).
function pickTurn(turn, focus = false) {
  const cur = state.current;
  if (!cur || turn < 0 || turn >= turnCount(cur.data) || turn === state.turn) return;
  state.turnExamples[state.turn] = gold.exampleList();
  state.turn = turn;
  assist.reset(); // a proposal is for the turn it was asked for
  $("#turn-reference").classList.remove("invalid");
  $("#turn-reference-state").textContent = "";
  showTurn();
  loadGold(state.turnExamples[turn] || []);
  if (state.check) showChecked(state.check);
  if (focus) $(`#turn-tab-${turn}`)?.focus();
}

function showBadge(status) {
  $("#case-status").textContent = STATUS_LABELS[status] || status;
  $("#case-status").className = `badge ${status}`;
}

// The open file is gone from disk (renamed or deleted): say so, keep the changes, and offer them
// for the file it became, or to save them as a new file at the old place.
function showGone() {
  const cur = state.current;
  const banner = $("#gone");
  banner.hidden = !cur?.gone;
  if (!cur?.gone) return;
  const next = successor(sidebar.entries, cur);
  const kept = isDirty() ? " Your unsaved changes are kept in this browser:" : "";
  $("#gone-text").textContent = `${cur.path} is ${GONE} (renamed or deleted).${kept} ${next ? `bring them to ${next.path}, the file it became, or save` : "save"} them as a new file at ${cur.path}.`;
  const bring = $("#bring-to");
  bring.hidden = !next;
  bring.textContent = next ? `Bring my changes to ${next.path}` : "";
  bring.dataset.file = next?.file || "";
}

async function bringTo(file) {
  const cur = state.current;
  if (!cur || !file) return;
  persist();
  moveDraft(cur.file, file);
  sidebar.setCases(withStranded(sidebar.entries.filter((e) => !e.gone)));
  sidebar.select(file);
  await openCase(file);
}

// ------------------------------------------------------------------------------ editing

function pickLeaf(aPath, value) {
  const [text, level] = gold.pick(aPath, value, turnReport(state.check, state.turn));
  if (text) setSaveState(text, level);
}

function bindField(selector, apply) {
  $(selector).addEventListener("input", (event) => {
    if (!state.current) return;
    apply(state.current.data, event.target.value);
    changed();
  });
}

bindField("#request", (data, value) => {
  turnData(data, state.turn).request = value;
});
bindField("#turn-theme", (data, value) => {
  turnData(data, state.turn).theme = value;
});
$("#turn-reference").addEventListener("input", (event) => {
  const turn = state.current && state.turn ? view() : null;
  if (!turn) return;
  const text = event.target.value.trim();
  let value;
  try {
    value = text ? JSON.parse(text) : null;
  } catch {
    event.target.classList.add("invalid");
    $("#turn-reference-state").textContent = "not JSON yet: the reference keeps its last value";
    return;
  }
  event.target.classList.remove("invalid");
  $("#turn-reference-state").textContent = "";
  turn.reference = value;
  changed();
});
bindField("#case-notes", (data, value) => {
  data.notes = value;
});
bindField("#annotation-notes", (data, value) => {
  if (!data.annotation) data.annotation = { status: statusOf(data), history: [] };
  if (value) data.annotation.notes = value;
  else delete data.annotation.notes;
});

// ------------------------------------------------------------------------------ checking

function scheduleCheck(delay = CHECK_DELAY_MS) {
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
  if (wanted) saveNow();
}

// The check's messages and preview for the turn shown, and every turn's error mark.
function showChecked(report) {
  const cur = state.current;
  showMessages(turnMessages(report.messages, state.turn), gold);
  showPreview(turnReport(report, state.turn) || { valid: report.valid }, { artifact: turnDocument() });
  renderTurnBar($("#turn-bar"), cur.data, state.turn, report.messages, pickTurn);
  if (state.turn) renderTree($("#artifact"), turnDocument(), { onPick: pickLeaf });
}

// Ctrl+S: save now, or once the pending check is back; or say why not.
function saveNow() {
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

// ------------------------------------------------------------------------------ saving

function setSaveState(text, level) {
  const node = $("#save-state");
  node.textContent = text;
  node.className = level ? `state-${level}` : "";
}

function updateButtons() {
  const cur = state.current;
  const dirty = isDirty();
  const contentDirty = cur && (content(cur.data) !== content(cur.disk) || cur.hash !== cur.diskHash);
  const errorList = [...(state.check?.messages || []), ...gold.refusals()].filter((m) => m.level === "error");
  const errors = errorList.length;
  const ready = cur && state.check && !state.checkPending && errors === 0;
  $("#save").disabled = !(ready && (dirty || statusOf(cur.disk) === "draft"));
  const editors = (cur?.disk?.annotation?.history || []).filter((h) => h.action === "edited");
  const lastEditor = editors.length ? editors[editors.length - 1].annotator : null;
  const self = lastEditor !== null && personName(lastEditor) === personName($("#annotator").value);
  $("#review").disabled = !(ready && !contentDirty && statusOf(cur.disk) !== "draft" && !self);
  $("#review").title = self ? "a review is a second person's check: you edited this case last" : "";
  $("#discard").disabled = !dirty;
  $("#save").title = errors ? `fix the ${errors} error(s) first` : "";
  const listed = errorList.slice(0, 3);
  const blocked = $("#save-blocked");
  blocked.hidden = !(cur && state.check && !state.checkPending && errors);
  blocked.textContent = listed.length
    ? `Save is disabled until ${errors === 1 ? "this error is" : `these ${errors} errors are`} fixed: ${listed.map((m) => `${where(m.pointer)}: ${m.message}`).join("; ")}${errors > listed.length ? "; and more, marked above" : ""}.`
    : "";
}

async function save(action) {
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

function discard() {
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

// ------------------------------------------------------------------------------ wiring

const gold = new GoldEditor($("#gold"), {
  onChange: changed,
  onRemoved: (op, index, restore) => offerUndo(`Operation ${index + 1} deleted.`, restore),
  places: () => (state.current ? places(turnReport(state.check, state.turn)?.expected ?? turnDocument()) : []),
  flagHolder: () => (state.current ? turnFlags(state.current.data, state.turn) : null),
});
const search = new TreeSearch($("#path-search"), $("#search-count"), () => $("#artifact"));
const sidebar = new Sidebar({
  list: $("#case-list"),
  count: $("#case-count"),
  counts: $("#status-counts"),
  filterText: $("#filter-text"),
  filterStatus: $("#filter-status"),
  onOpen: openCase,
  isUnsaved: (file) => drafts.has(file),
  goneLabel: GONE,
});
const assist = new Assist($("#assist"), {
  getFile: () => state.current?.file,
  getData: () => state.current?.data,
  getTurn: () => state.turn,
  getGold: () => (state.current ? view()?.gold || [] : []),
  accept: (op, at) => gold.add(op, "kind", at),
  modelInput: $("#model"),
  seedInput: $("#seed"),
});

$("#add-op").addEventListener("click", () => {
  if (!state.current) return;
  const kind = (view().gold || []).some((op) => op.kind === "direct") ? "cascade" : "direct";
  gold.add({ op: "replace", path: "", kind }, "path"); // invalid until its path (and value) are set
});
// A follow-up at the end: its document is the last turn's result (derived by the check); the
// request, theme, reference and gold are the person's to write.
$("#add-turn").addEventListener("click", () => {
  const cur = state.current;
  if (!cur) return;
  const last = turnCount(cur.data) - 1;
  const after = turnReport(state.check, last)?.expected ?? null;
  if (!Array.isArray(cur.data.followups)) cur.data.followups = [];
  cur.data.followups.push({ request: "", reference: null, gold: [], artifact: after, theme: "" });
  changed();
  pickTurn(turnCount(cur.data) - 1);
  $("#request").focus();
});
$("#remove-turn").addEventListener("click", () => {
  const cur = state.current;
  if (!cur || turnCount(cur.data) < 2) return;
  const removed = cur.data.followups.pop();
  const hadNone = !cur.data.followups.length && !(cur.disk.followups || []).length;
  if (hadNone) delete cur.data.followups;
  if (state.turn >= turnCount(cur.data)) {
    state.turn = turnCount(cur.data) - 1;
    loadGold(state.turnExamples[state.turn] || []);
  }
  showTurn();
  changed();
  const count = turnCount(cur.data);
  offerUndo(`Turn ${count} removed.`, () => {
    if (state.current !== cur) return;
    if (!Array.isArray(cur.data.followups)) cur.data.followups = [];
    cur.data.followups.push(removed);
    showTurn();
    changed();
  });
});
$("#fix-size").addEventListener("click", () => {
  const cur = state.current;
  if (!cur || !Number.isInteger(cur.leaves)) return;
  cur.data.size = cur.leaves;
  showError();
  showMeta(cur.data);
  changed();
});
// The case the URL's hash names (on loading, a link, Back or Forward).
function openFromHash() {
  const file = sidebar.fromHash(hashText());
  if (file) {
    if (file !== state.current?.file) {
      sidebar.select(file);
      openCase(file, { push: false });
    }
  } else if (location.hash.length > 1) {
    state.opening++;
    state.current = null;
    delete document.body.dataset.checking;
    $("#case-view").hidden = true;
    $("#placeholder").hidden = false;
    $("#placeholder").textContent = `No case ${hashText()} here. Pick a case on the left.`;
  }
}
window.addEventListener("popstate", openFromHash);
function say(notice) {
  $("#notice").hidden = false;
  $("#notice").textContent = notice;
}
channel?.addEventListener("message", (event) => {
  const cur = state.current;
  if (!cur || event.data?.tab === drafts.tab()) return;
  if (event.data?.saved === cur.file) say("Another tab just saved this case: your next save merges with it.");
  if (event.data?.opened === cur.file) say("This case is also open in another tab: each tab keeps its own unsaved changes, and whichever saves second merges with the first.");
});

// The case files changed on disk (a save elsewhere, a git checkout, a new draft, a fix).
async function diskChanged() {
  const listing = await api.cases();
  if (!listing.ok) return;
  sidebar.setCases(withStranded(listing.body.cases));
  const cur = state.current;
  if (!cur) {
    if (sidebar.fromHash(hashText())) openFromHash();
    return;
  }
  const entry = sidebar.entries.find((e) => e.file === cur.file && !e.gone);
  if (Boolean(cur.gone) === !entry) {
    if (cur.gone) showGone(); // the file it became may have appeared
  } else if (!state.saving) {
    cur.gone = !entry;
    persist();
    showGone();
    updateButtons();
    if (!entry) sidebar.setCases(withStranded(listing.body.cases));
  }
  if (!entry || entry.hash === cur.diskHash || state.saving) return;
  const status = entry.status || "annotated";
  if (status !== statusOf(cur.disk)) sidebar.pinned = cur.file; // it stays in a status filter while open
  sidebar.render();
  if (isDirty()) {
    showBadge(status);
    say("The file changed on disk since you opened it: your next save merges your changes with it.");
  } else {
    const node = $("#save-state");
    const kept = /^Saved/.test(node.textContent) ? [node.textContent, node.className] : null;
    await openCase(cur.file, { push: false });
    say("The file changed on disk: this is its new version.");
    if (kept && state.current?.file === cur.file) [node.textContent, node.className] = kept; // your save still stands
  }
}
$("#save").addEventListener("click", () => save("edited"));
$("#review").addEventListener("click", () => save("reviewed"));
$("#discard").addEventListener("click", discard);
$("#undo-button").addEventListener("click", undo);
$("#bring-to").addEventListener("click", (event) => bringTo(event.target.dataset.file));
$("#save-new").addEventListener("click", () => save("edited"));
$("#history-note").addEventListener("input", (event) => state.current && drafts.keepNote(state.current.file, event.target.value));
$("#annotator").addEventListener("input", (event) => {
  drafts.remember("annotator", event.target.value);
  updateButtons();
});
$("#model").addEventListener("input", (event) => drafts.remember("model", event.target.value));

document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    saveNow();
  } else if (event.altKey && (event.key === "ArrowLeft" || event.key === "ArrowRight") && state.current) {
    event.preventDefault();
    pickTurn(state.turn + (event.key === "ArrowRight" ? 1 : -1), true);
  } else if (event.altKey && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
    event.preventDefault();
    sidebar.move(event.key === "ArrowDown" ? 1 : -1);
  } else if (event.key === "/" && !typing) {
    event.preventDefault();
    $("#filter-text").focus();
  }
});

async function boot() {
  const session = await api.session();
  if (!session.ok) {
    $("#case-count").textContent = session.body.error;
    return;
  }
  await drafts.start(session.body.folders);
  state.session = session.body;
  $("#roots").textContent = state.session.roots.join(", ");
  $("#annotator").value = state.session.annotator || drafts.setting("annotator");
  $("#model").value = drafts.setting("model") || state.session.model;
  $("#model-list").append(...state.session.models.map((name) => option(name)));
  const listing = await api.cases();
  if (!listing.ok) {
    $("#case-count").textContent = listing.body.error;
    return;
  }
  sidebar.setCases(withStranded(listing.body.cases));
  openFromHash();
  watchDisk(api, diskChanged, () => {
    if (state.unreachable && state.current) scheduleCheck(0); // the server answers again: check again
  });
}

boot();
