// What the page shows of a case besides the editor: its facts, the conversation (a long patch
// value is cut and expands on a click) and the history; and the JSON Pointer helpers the page
// uses (a place's value, every place of a document, a pointer named as the page numbers ops).

import { $, clear, el, shortText } from "./dom.js";
import { pointerChild } from "./tree.js";

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
