// What the page shows of a case besides the editor: its facts, the conversation (a long patch
// value is cut and expands on a click) and the history; and the JSON Pointer helpers the page
// uses (a place's value, every place of a document, a pointer named as the page numbers ops).

import { $, clear, el, shortText } from "./dom.js";
import { pointerChild, renderTree } from "./tree.js";

const PATCH_CUT = 160;

export function resolvePointer(doc, pointer) {
  if (pointer === "") return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(token in node)) return undefined;
    node = node[token];
  }
  return node;
}

// Every place of `doc` (containers and leaves, not the root) with its value.
export function places(doc, pointer = "", out = []) {
  if (doc === null || typeof doc !== "object") return out;
  for (const [key, value] of Array.isArray(doc) ? doc.map((v, i) => [i, v]) : Object.entries(doc)) {
    const path = pointerChild(pointer, key);
    out.push([path, value]);
    places(value, path, out);
  }
  return out;
}

// A JSON Pointer as the page names it: a gold operation by its number (from 1).
export function where(pointer) {
  const turn = /^\/followups\/(\d+)(\/.*)?$/.exec(pointer || "");
  if (turn) return `turn ${Number(turn[1]) + 1} ${where(turn[2] || "")}`;
  const found = /^\/gold\/(\d+)(\/(.*))?$/.exec(pointer || "");
  if (!found) return pointer || "(case)";
  return `op ${Number(found[1]) + 1}${found[3] ? ` ${found[3]}` : ""}`;
}

export function showMeta(data) {
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

export function showConversation(turns) {
  const list = clear($("#conversation"));
  turns.forEach((turn, i) => {
    const line = (op) => {
      const full = JSON.stringify(op.value);
      if (full.length <= PATCH_CUT) return el("li", {}, el("code", {}, `${op.op} ${op.path} = ${full}`));
      return el("li", {}, el("details", { class: "long-patch" },
        el("summary", {}, el("code", {}, `${op.op} ${op.path} = ${shortText(op.value, PATCH_CUT)}`)),
        el("pre", { class: "patch-value" }, JSON.stringify(op.value, null, 2))));
    };
    list.append(
      el("li", { class: "turn" },
        el("p", { class: "user" }, el("span", { class: "who" }, `User ${i + 1}: `), turn.user),
        el("ul", { class: "patch" }, turn.assistant.map(line))),
    );
  });
}

export function showHistory(data) {
  const list = clear($("#history"));
  const history = data?.annotation?.history || [];
  for (const h of history) list.append(el("li", {}, `${h.time} ${h.action} by ${h.annotator}${h.note ? `: ${h.note}` : ""}`));
  if (!history.length) list.append(el("li", { class: "muted" }, "no saves recorded"));
  $("#history-box").querySelector("summary").textContent = `History (${history.length})`;
}

// The live check's messages: on the operations (`gold`), on the request, and the rest.
export function showMessages(messages, gold) {
  gold.showMessages(messages);
  const isOp = (m) => /^\/gold\/\d+(\/|$)/.test(m.pointer);
  const request = messages.filter((m) => m.pointer === "/request");
  const general = messages.filter((m) => !isOp(m) && m.pointer !== "/request");
  const item = (m, label) => el("li", { class: m.level, dataset: { pointer: m.pointer } }, label ? `${where(m.pointer)}: ${m.message}` : m.message);
  clear($("#request-messages")).append(...request.map((m) => item(m, false)));
  clear($("#general-messages")).append(...general.map((m) => item(m, true)));
  $("#request").classList.toggle("invalid", request.some((m) => m.level === "error"));
}

// The preview of the expected artifact, what the gold removes, and the verdicts.
export function showPreview(report, data) {
  renderTree($("#preview"), report.expected ?? data.artifact, { marks: report.marks || {}, labels: report.labels || {}, before: report.before || {} });
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
