// The open case as the page holds it, shared by the page's modules: the state (the case, its
// working copy and base, the turn shown, the last check), the working copy's bookkeeping
// (unsaved or not, this tab's draft of it, the "stands for" values), the save bar's message and
// buttons, and the page's widgets (made by main.js, which hands them here with `provide`).

import { where } from "./caseview.js";
import { $ } from "./dom.js";
import { drafts } from "./drafts.js";
import { turnData } from "./turns.js";
import { originLists } from "./working.js";

export const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("revprop-annotate") : null;

// The page's widgets: the gold editor, the artifact's search, the case list, the model panel.
export let gold = null;
export let search = null;
export let sidebar = null;
export let assist = null;
export function provide(widgets) {
  ({ gold, search, sidebar, assist } = widgets);
}

export const state = { session: null, current: null, check: null, checkSeq: 0, checkTimer: null, checkPending: false, opening: 0, turn: 0, turnExamples: {} };

const content = (data) => JSON.stringify({ ...data, annotation: undefined });

// A name as the server compares it: words split on white space, joined by one space.
export const personName = (text) => String(text || "").split(/\s+/).filter(Boolean).join(" ");

export function isDirty() {
  const cur = state.current;
  return Boolean(cur) && (JSON.stringify(cur.data) !== JSON.stringify(cur.disk) || cur.hash !== cur.diskHash);
}

export function statusOf(data) {
  return data?.annotation?.status || "annotated";
}

// The turn shown (its request, reference, gold), and the document before it.
export const view = () => turnData(state.current.data, state.turn);

export function turnDocument() {
  const cur = state.current;
  if (state.turn === 0) return cur.data.artifact;
  return state.check?.turns?.[state.turn - 1]?.artifact ?? view().artifact ?? null;
}

// The "stands for" values of turn 0's operations, whichever turn is shown.
const ownExamples = () => (state.turn === 0 ? gold.exampleList() : state.turnExamples[0] || []);

export function loadGold(listed = []) {
  const cur = state.current;
  if (!view()) state.turn = 0;
  gold.load(view(), examplesFor(cur.file, view(), listed));
}

export function persist() {
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

export function keepExamples() {
  const cur = state.current;
  const map = drafts.examples(cur.file);
  (view()?.gold || []).forEach((op, i) => {
    const example = gold.exampleList()[i];
    if (op.match === "regex_match" && example !== null) map[exampleKey(op)] = example;
  });
  drafts.keepExamples(cur.file, map);
}

export function examplesFor(file, data, listed = []) {
  const map = drafts.examples(file);
  return (data.gold || []).map((op, i) => listed[i] ?? (op.match === "regex_match" ? map[exampleKey(op)] ?? null : null));
}

export function setSaveState(text, level) {
  const node = $("#save-state");
  node.textContent = text;
  node.className = level ? `state-${level}` : "";
}

export function updateButtons() {
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
