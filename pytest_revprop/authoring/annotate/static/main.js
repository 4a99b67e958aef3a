// The annotation page: opens a case, keeps the working copy (and the browser's copy of unsaved
// work), has the server check every change, shows the preview, and saves.

import { api } from "./api.js";
import { Assist } from "./assist.js";
import { chooseVersion } from "./conflict.js";
import { $, clear, el, option, shortText } from "./dom.js";
import { drafts } from "./drafts.js";
import { GoldEditor } from "./gold.js";
import { Sidebar } from "./sidebar.js";
import { renderTree } from "./tree.js";

const CHECK_DELAY_MS = 150;
const state = { session: null, current: null, check: null, checkSeq: 0, checkTimer: null, checkPending: false, opening: 0 };

const clone = (value) => JSON.parse(JSON.stringify(value));
const content = (data) => JSON.stringify({ ...data, annotation: undefined });

function resolvePointer(doc, pointer) {
  if (pointer === "") return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(token in node)) return undefined;
    node = node[token];
  }
  return node;
}

// ------------------------------------------------------------------------------ working copy

function isDirty() {
  const cur = state.current;
  return Boolean(cur) && (JSON.stringify(cur.data) !== JSON.stringify(cur.disk) || cur.hash !== cur.diskHash);
}

function statusOf(data) {
  return data?.annotation?.status || "annotated";
}

function persist() {
  const cur = state.current;
  const was = drafts.has(cur.file);
  if (isDirty()) drafts.put(cur.file, cur.hash, cur.data, gold.exampleList());
  else drafts.drop(cur.file);
  if (was !== drafts.has(cur.file)) sidebar.render();
}

function changed() {
  persist();
  assist.refresh();
  setSaveState("", "");
  scheduleCheck();
  updateButtons();
}

// ------------------------------------------------------------------------------ opening

async function openCase(file) {
  const token = ++state.opening;
  const reply = await api.read(file);
  if (token !== state.opening) return;
  history.replaceState(null, "", `#${encodeURIComponent(file)}`);
  $("#placeholder").hidden = true;
  $("#case-view").hidden = false;
  if (!reply.ok) {
    state.current = null;
    showBroken(file, reply.body.error || "cannot be read");
    return;
  }
  const entry = reply.body;
  if (entry.openable) {
    state.current = null;
    showBroken(entry.path, entry.openable);
    return;
  }
  const cur = { file, path: entry.path, hash: entry.hash, diskHash: entry.hash, disk: entry.data, data: clone(entry.data), error: entry.error };
  const draft = drafts.get(file);
  let notice = "";
  let examples = [];
  if (draft?.data) {
    cur.data = draft.data;
    cur.hash = draft.hash;
    examples = draft.examples || [];
    notice = draft.hash === entry.hash
      ? "Your unsaved changes are restored."
      : "Your unsaved changes are restored. The file changed on disk since you made them: saving shows both versions.";
  }
  state.current = cur;
  state.check = null;
  showCase(notice);
  gold.load(cur.data, examples);
  assist.reset();
  scheduleCheck(0);
}

function showBroken(path, error) {
  $("#editor-columns").hidden = true;
  $("#case-id").textContent = path;
  $("#case-status").textContent = "broken";
  $("#case-status").className = "badge error";
  $("#case-path").textContent = "";
  $("#notice").hidden = true;
  const banner = $("#case-error");
  banner.hidden = false;
  banner.textContent = `This file cannot be edited here: ${error}. Fix it in a text editor; \`revprop validate\` names the rule.`;
}

function showCase(notice) {
  const cur = state.current;
  const data = cur.data;
  $("#editor-columns").hidden = false;
  $("#case-id").textContent = data.id;
  const status = statusOf(cur.disk);
  $("#case-status").textContent = status;
  $("#case-status").className = `badge ${status}`;
  $("#case-path").textContent = cur.path;
  $("#notice").hidden = !notice;
  $("#notice").textContent = notice;
  $("#case-error").hidden = !cur.error;
  $("#case-error").textContent = cur.error ? `The file on disk breaks a rule of the case format: ${cur.error}` : "";
  showMeta(data);
  showConversation(data.conversation);
  renderTree($("#artifact"), data.artifact, { onPick: pickLeaf });
  $("#request").value = data.request;
  $("#case-notes").value = data.notes || "";
  $("#annotation-notes").value = data.annotation?.notes || "";
  $("#history-note").value = "";
  showHistory(cur.disk);
  setSaveState("", "");
  updateButtons();
}

function showMeta(data) {
  const rows = [
    ["scenario", data.scenario],
    ["domain", data.domain],
    ["pattern", data.pattern],
    ["size", `${data.size} leaves`],
    ["split", data.split],
    ["theme", data.theme],
  ];
  const table = clear($("#meta"));
  for (const [name, value] of rows) table.append(el("tr", {}, el("td", {}, name), el("td", {}, String(value ?? ""))));
  if (data.reference !== null && data.reference !== undefined) {
    table.append(el("tr", {}, el("td", {}, "reference"), el("td", {}, el("pre", { class: "reference" }, JSON.stringify(data.reference, null, 1)))));
  }
}

function showConversation(turns) {
  const list = clear($("#conversation"));
  turns.forEach((turn, i) => {
    list.append(
      el("li", { class: "turn" },
        el("p", { class: "user" }, el("span", { class: "who" }, `User ${i + 1}: `), turn.user),
        el("ul", { class: "patch" }, turn.assistant.map((op) => el("li", {}, el("code", {}, `${op.op} ${op.path} = ${shortText(op.value, 160)}`))))),
    );
  });
}

function showHistory(data) {
  const list = clear($("#history"));
  const history = data?.annotation?.history || [];
  for (const h of history) list.append(el("li", {}, `${h.time} ${h.action} by ${h.annotator}${h.note ? `: ${h.note}` : ""}`));
  if (!history.length) list.append(el("li", { class: "muted" }, "no saves recorded"));
  $("#history-box").querySelector("summary").textContent = `History (${history.length})`;
}

// ------------------------------------------------------------------------------ editing

function pickLeaf(aPath, value) {
  const cur = state.current;
  const moved = state.check?.moved || {};
  let path = aPath;
  const isLeaf = value === null || typeof value !== "object";
  if (isLeaf && aPath in moved) {
    path = moved[aPath];
  } else if (!isLeaf) {
    const under = Object.keys(moved).find((k) => k.startsWith(`${aPath}/`));
    if (under) {
      const suffix = under.slice(aPath.length);
      path = moved[under] === null ? null : moved[under].slice(0, moved[under].length - suffix.length);
    }
  }
  if (path === null) {
    setSaveState(`${aPath} is removed by an earlier operation`, "warn");
    return;
  }
  const kind = (cur.data.gold || []).some((op) => op.kind === "direct") ? "cascade" : "direct";
  if (isLeaf) {
    const now = state.check?.expected !== undefined && state.check?.expected !== null ? resolvePointer(state.check.expected, path) : undefined;
    gold.add({ op: "replace", path, value: now === undefined ? value : now, kind }, "value");
  } else {
    gold.add({ op: "remove", path, kind }, "path");
  }
}

function bindField(selector, apply) {
  $(selector).addEventListener("input", (event) => {
    if (!state.current) return;
    apply(state.current.data, event.target.value);
    changed();
  });
}

bindField("#request", (data, value) => {
  data.request = value;
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
  state.checkPending = true;
  updateButtons();
  state.checkTimer = setTimeout(runCheck, delay);
}

async function runCheck() {
  const cur = state.current;
  if (!cur) return;
  const seq = ++state.checkSeq;
  const reply = await api.check(cur.data, gold.examplesByIndex());
  if (seq !== state.checkSeq || cur !== state.current) return;
  state.checkPending = false;
  if (!reply.ok) {
    setSaveState(reply.body.error || "the check failed", "error");
    return;
  }
  state.check = reply.body;
  showMessages(reply.body.messages);
  showPreview(reply.body);
  updateButtons();
}

function showMessages(messages) {
  gold.showMessages(messages);
  const isOp = (m) => /^\/gold\/\d+(\/|$)/.test(m.pointer);
  const request = messages.filter((m) => m.pointer === "/request");
  const general = messages.filter((m) => !isOp(m) && m.pointer !== "/request");
  const item = (m, label) => el("li", { class: m.level, dataset: { pointer: m.pointer } }, label ? `${m.pointer || "(case)"}: ${m.message}` : m.message);
  clear($("#request-messages")).append(...request.map((m) => item(m, false)));
  clear($("#general-messages")).append(...general.map((m) => item(m, true)));
  $("#request").classList.toggle("invalid", request.some((m) => m.level === "error"));
}

function showPreview(report) {
  const cur = state.current;
  renderTree($("#preview"), report.expected ?? cur.data.artifact, { marks: report.marks || {}, labels: report.labels || {} });
  const removed = clear($("#removed"));
  for (const r of report.removed || []) {
    removed.append(el("li", { class: "mark-removed", dataset: { path: r.path } }, el("span", { class: "key" }, r.path), ": ", el("del", {}, shortText(r.value, 160))));
  }
  const verdicts = clear($("#verdicts"));
  const say = (text, level) => verdicts.append(el("li", { class: level }, text));
  if (!report.valid) say("Fix the errors above to see what the scorer makes of this gold.", "error");
  if (report.gold_completes === true) say("The gold completes its own case.", "ok");
  if (report.gold_completes === false) say("The gold does not complete its own case.", "warning");
  if (report.direct_alone_completes === false) say("The direct edit alone would not complete the case: it tests propagation.", "ok");
  if (report.direct_alone_completes === true) say("The direct edit alone would complete the case: it tests no propagation.", "warning");
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
  const errors = (state.check?.messages || []).filter((m) => m.level === "error").length;
  const ready = cur && state.check && !state.checkPending && errors === 0;
  $("#save").disabled = !(ready && (dirty || statusOf(cur.disk) === "draft"));
  const editors = (cur?.disk?.annotation?.history || []).filter((h) => h.action === "edited");
  const lastEditor = editors.length ? editors[editors.length - 1].annotator : null;
  const self = lastEditor !== null && lastEditor === $("#annotator").value.trim();
  $("#review").disabled = !(ready && !contentDirty && statusOf(cur.disk) !== "draft" && !self);
  $("#review").title = self ? "a review is a second person's check: you edited this case last" : "";
  $("#discard").disabled = !dirty;
  $("#save").title = errors ? `fix the ${errors} error(s) first` : "";
}

async function save(action) {
  const cur = state.current;
  if (!cur) return;
  const annotator = $("#annotator").value.trim();
  if (!annotator) {
    setSaveState("Enter your name first (top right): the history records who saved.", "error");
    $("#annotator").focus();
    return;
  }
  setSaveState("saving…", "");
  const reply = await api.save({ file: cur.file, hash: cur.hash, data: cur.data, annotator, action, note: $("#history-note").value });
  if (cur !== state.current) return;
  if (reply.ok) {
    saved(reply.body);
  } else if (reply.status === 409) {
    await resolveConflict(action, reply.body.disk);
  } else {
    setSaveState(`Not saved: ${reply.body.error}`, "error");
  }
}

function saved(entry) {
  const cur = state.current;
  const examples = gold.exampleList();
  Object.assign(cur, { disk: entry.data, diskHash: entry.hash, hash: entry.hash, data: clone(entry.data), error: entry.error });
  drafts.drop(cur.file);
  sidebar.update(cur.file, { status: statusOf(entry.data), ops: entry.data.gold.length, error: entry.error, openable: null });
  showCase("");
  gold.load(cur.data, examples);
  setSaveState(`Saved at ${new Date().toLocaleTimeString()}.`, "ok");
  scheduleCheck(0);
}

async function resolveConflict(action, disk) {
  const cur = state.current;
  const choice = await chooseVersion($("#conflict"), cur.data, disk);
  if (choice === "mine") {
    cur.hash = disk.hash;
    persist();
    await save(action);
  } else if (choice === "theirs") {
    drafts.drop(cur.file);
    sidebar.render();
    state.opening++;
    await openCase(cur.file);
    setSaveState("Took the version on disk.", "ok");
  } else {
    setSaveState("Not saved: the file changed on disk. Your changes stay in this browser.", "warn");
  }
}

function discard() {
  const cur = state.current;
  if (!cur) return;
  drafts.drop(cur.file);
  cur.data = clone(cur.disk);
  cur.hash = cur.diskHash;
  sidebar.render();
  showCase("Your changes are discarded.");
  gold.load(cur.data);
  assist.reset();
  scheduleCheck(0);
}

// ------------------------------------------------------------------------------ wiring

const gold = new GoldEditor($("#gold"), { onChange: changed });
const sidebar = new Sidebar({
  list: $("#case-list"),
  count: $("#case-count"),
  filterText: $("#filter-text"),
  filterStatus: $("#filter-status"),
  onOpen: openCase,
  isUnsaved: (file) => drafts.has(file),
});
const assist = new Assist($("#assist"), {
  getFile: () => state.current?.file,
  getData: () => state.current?.data,
  accept: (op, at) => gold.add(op, "kind", at),
  modelInput: $("#model"),
  seedInput: $("#seed"),
});

$("#add-op").addEventListener("click", () => {
  if (!state.current) return;
  const kind = (state.current.data.gold || []).some((op) => op.kind === "direct") ? "cascade" : "direct";
  gold.add({ op: "replace", path: "", value: null, kind }, "path");
});
$("#save").addEventListener("click", () => save("edited"));
$("#review").addEventListener("click", () => save("reviewed"));
$("#discard").addEventListener("click", discard);
$("#annotator").addEventListener("input", (event) => {
  drafts.remember("annotator", event.target.value);
  updateButtons();
});
$("#model").addEventListener("input", (event) => drafts.remember("model", event.target.value));

document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    if (!$("#save").disabled) save("edited");
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
  sidebar.setCases(listing.body.cases);
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted && listing.body.cases.some((c) => c.file === wanted)) sidebar.open(wanted);
}

boot();
