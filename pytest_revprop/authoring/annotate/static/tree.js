// A JSON document as a collapsible tree: objects and arrays are <details> elements (keyboard
// operable as they are), leaves are lines. Each node carries its JSON Pointer in data-path.
// Options: marks (pointer -> "changed" | "added"), labels (pointer -> how the place is judged),
// before (pointer -> the value a changed place had: shown as old → new), onPick(pointer, value) adds a button to each leaf and each array element ("start an
// operation here").

import { el } from "./dom.js";

export function pointerChild(pointer, token) {
  return `${pointer}/${String(token).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function leafText(value) {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function oldText(value) {
  if (value !== null && typeof value === "object") return Array.isArray(value) ? `[${value.length} items]` : `{${Object.keys(value).length} members}`;
  return leafText(value);
}

function pickButton(path, value, onPick, what) {
  return el(
    "button",
    {
      type: "button",
      class: "pick",
      title: `start an operation on ${path}`,
      "aria-label": `${what} ${path}`,
      onclick: (event) => {
        event.preventDefault();
        onPick(path, value);
      },
    },
    "+",
  );
}

function node(key, value, path, options, inArray) {
  const type = typeOf(value);
  const mark = options.marks[path];
  const classes = ["node", mark ? `mark-${mark}` : ""].join(" ").trim();
  const label = key === null ? null : el("span", { class: inArray ? "key index" : "key" }, String(key));
  const judged = options.labels[path] ? el("span", { class: "judged" }, options.labels[path]) : null;
  if (type !== "object" && type !== "array") {
    return el(
      "div",
      { class: `${classes} leaf`, dataset: { path } },
      label,
      label ? el("span", { class: "colon" }, ": ") : null,
      path in options.before ? el("del", { class: "old" }, oldText(options.before[path])) : null,
      path in options.before ? el("span", { class: "arrow" }, " → ") : null,
      el("span", { class: `val ${type}` }, leafText(value)),
      judged,
      options.onPick ? pickButton(path, value, options.onPick, "edit") : null,
    );
  }
  const entries = type === "array" ? value.map((v, i) => [i, v]) : Object.entries(value);
  const size = type === "array" ? `[${entries.length}]` : `{${entries.length}}`;
  const details = el(
    "details",
    { open: true },
    el(
      "summary",
      {},
      label,
      el("span", { class: "muted" }, ` ${size}`),
      judged,
      options.onPick && inArray ? pickButton(path, value, options.onPick, "remove or edit") : null,
    ),
    ...entries.map(([k, v]) => node(k, v, pointerChild(path, k), options, type === "array")),
  );
  return el("div", { class: classes, dataset: { path } }, details);
}

export function renderTree(container, value, options = {}) {
  const settings = { marks: {}, labels: {}, before: {}, onPick: null, ...options };
  container.replaceChildren(node(null, value, "", settings, false));
}
