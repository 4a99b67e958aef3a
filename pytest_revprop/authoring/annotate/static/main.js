// The annotation page: makes its widgets, binds the fields, buttons and keys to the jobs of
// its modules (page.js: the open case; opening.js, show.js, checking.js, saving.js), and
// boots from the session and the case list.

import { api } from "./api.js";
import { Assist } from "./assist.js";
import { places, showMeta } from "./caseview.js";
import { changed, onSaveWanted, scheduleCheck } from "./checking.js";
import { $, option } from "./dom.js";
import { drafts } from "./drafts.js";
import { GoldEditor } from "./gold.js";
import { bringTo, diskChanged, openCase, openFromHash } from "./opening.js";
import { channel, loadGold, provide, state, statusOf, turnDocument, updateButtons, view } from "./page.js";
import { discard, save, saveNow } from "./saving.js";
import { TreeSearch } from "./search.js";
import { pickTurn, say, showError, showTurn } from "./show.js";
import { Sidebar } from "./sidebar.js";
import { GONE, withStranded } from "./stranded.js";
import { turnCount, turnData, turnFlags, turnReport } from "./turns.js";
import { offerUndo, undo } from "./undo.js";
import { watchDisk } from "./watch.js";

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
provide({ gold, search, sidebar, assist });
onSaveWanted(saveNow);

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

window.addEventListener("popstate", openFromHash);

channel?.addEventListener("message", (event) => {
  const cur = state.current;
  if (!cur || event.data?.tab === drafts.tab()) return;
  if (event.data?.saved === cur.file) say("Another tab just saved this case: your next save merges with it.");
  if (event.data?.opened === cur.file) say("This case is also open in another tab: each tab keeps its own unsaved changes, and whichever saves second merges with the first.");
});

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
  const everyMs = 1000 * (state.session.watch_s || 2); // revprop annotate --watch
  watchDisk(api, diskChanged, () => {
    if (state.unreachable && state.current) scheduleCheck(0); // the server answers again: check again
  }, everyMs);
}

boot();
