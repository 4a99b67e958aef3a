// The expected patch, operation by operation: op, path, value, kind, matcher, optional; add,
// reorder, delete. It edits the case's gold in place and calls onChange after every change.
// A regex_match operation also has the value it stands for (kept by the page, not the file),
// against which the server checks the pattern. A path field suggests the places of the artifact
// (`places`: [path, value] pairs); picking one for an operation without a value yet fills in the
// place's current value, to edit from. The turn's review flags (`flagHolder()`: what holds
// them) show on their operations and move with them.

import { resolvePointer } from "./caseview.js";
import { clear, el, option } from "./dom.js";
import { suggestPaths } from "./search.js";

export const OPS = ["replace", "add", "remove"];
export const KINDS = ["direct", "cascade"];
export const MATCHERS = ["strict", "regex_match", "any", "ref_equal"];
const RAW = new Set(["regex_match", "ref_equal"]);
const FIELDS = ["op", "path", "value", "kind", "match", "optional"];

function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "text";
  if (typeof value === "boolean") return "true/false";
  return typeof value;
}

export function valueText(value, match) {
  if (RAW.has(match)) return typeof value === "string" ? value : JSON.stringify(value ?? "");
  if (typeof value === "string") {
    try {
      JSON.parse(value);
      return JSON.stringify(value);
    } catch {
      return value;
    }
  }
  return value === undefined ? "" : JSON.stringify(value);
}

export function parseValue(text, match) {
  if (RAW.has(match)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const MAX_EXACT = 2 ** 53 - 1;

// Why the page cannot hold a number typed in `text` exactly (null: it can): a whole number
// beyond 2^53 would be rounded, one out of the double range would become null.
export function numberProblem(text, match) {
  if (RAW.has(match)) return null;
  const tokens = String(text).match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) || [];
  for (const token of tokens) {
    if (token.startsWith('"')) continue;
    const number = Number(token);
    if (!Number.isFinite(number)) return `${token} is out of the range of numbers a case can hold: write it as text (in quotes)`;
    if (/^-?\d+$/.test(token) && Math.abs(number) > MAX_EXACT) return `${token} cannot be held exactly (whole numbers go up to 9007199254740991): write it as text (in quotes)`;
  }
  return null;
}

function escapeRegex(text) {
  return String(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export class GoldEditor {
  constructor(container, { onChange, onRemoved = () => {}, places = () => [], flagHolder = () => null }) {
    this.container = container;
    this.flagHolder = flagHolder;
    this.onChange = onChange;
    this.onRemoved = onRemoved;
    this.places = places;
    this.data = null;
    this.examples = new WeakMap();
    this.messages = [];
    this.refused = new WeakMap(); // op -> why its typed value cannot be held
  }

  load(data, examples = []) {
    this.data = data;
    this.examples = new WeakMap();
    (data.gold || []).forEach((op, i) => {
      if (examples[i] !== undefined && examples[i] !== null) this.examples.set(op, examples[i]);
    });
    this.render();
  }

  exampleList() {
    return (this.data?.gold || []).map((op) => (this.examples.has(op) ? this.examples.get(op) : null));
  }

  examplesByIndex() {
    const out = {};
    this.exampleList().forEach((value, i) => {
      if (value !== null && this.data.gold[i]?.match === "regex_match") out[i] = value;
    });
    return out;
  }

  flags(index) {
    const flags = this.flagHolder()?.flags;
    return Array.isArray(flags) ? flags.filter((f) => f && f.gold === index).map((f) => f.reason) : [];
  }

  changed(rerender = false) {
    if (rerender) this.render();
    this.onChange();
  }

  render() {
    clear(this.container);
    const gold = this.data?.gold || [];
    if (!gold.length) {
      this.container.append(el("p", { class: "muted empty-gold" }, "No operations yet: add one, pick a leaf of the artifact, or ask a model."));
    }
    gold.forEach((op, i) => this.container.append(this.row(op, i, gold.length)));
    this.showMessages(this.messages);
  }

  row(op, index, count) {
    const match = op.match || "strict";
    const update = (field, value, rerender = false) => {
      if (value === undefined || (field === "match" && value === "strict") || (field === "optional" && !value)) {
        delete op[field];
      } else {
        op[field] = value;
      }
      this.changed(rerender);
    };
    const valueInput = el("input", {
      class: "value",
      dataset: { field: "value" },
      "aria-label": `value of operation ${index + 1}`,
      value: op.op === "remove" ? "" : valueText(op.value, match),
      spellcheck: "false",
    });
    const typeLabel = el("span", { class: "type muted" }, op.op === "remove" || !("value" in op) ? "" : describe(op.value));
    valueInput.addEventListener("input", () => {
      const problem = numberProblem(valueInput.value, op.match || "strict");
      if (problem) this.refused.set(op, problem);
      else this.refused.delete(op);
      op.value = problem ? valueInput.value : parseValue(valueInput.value, op.match || "strict");
      this.showMessages(this.messages);
      typeLabel.textContent = RAW.has(op.match) ? (op.match === "ref_equal" ? "pointer" : "pattern") : describe(op.value);
      this.changed();
    });
    if (RAW.has(match)) typeLabel.textContent = match === "ref_equal" ? "pointer" : "pattern";
    const pathInput = el("input", {
      class: "path",
      dataset: { field: "path" },
      "aria-label": `path of operation ${index + 1}`,
      value: typeof op.path === "string" ? op.path : "",
      spellcheck: "false",
      placeholder: "/pointer/to/place",
    });
    pathInput.addEventListener("input", () => update("path", pathInput.value));
    const pathBox = el("span", { class: "path-wrap" }, pathInput);
    suggestPaths(pathInput, this.places, (path) => {
      pathInput.value = path;
      op.path = path;
      const place = this.places().find(([p]) => p === path);
      const fill = op.op !== "remove" && !("value" in op) && place !== undefined;
      if (fill) op.value = place[1];
      this.changed(true);
      this.container.children[index]?.querySelector(`[data-field="${fill ? "value" : "path"}"]`)?.focus();
    });
    const opSelect = el("select", { dataset: { field: "op" }, "aria-label": `op of operation ${index + 1}` },
      OPS.map((name) => option(name, name, op.op === name)));
    opSelect.addEventListener("change", () => {
      op.op = opSelect.value;
      if (op.op === "remove") delete op.value;
      else if (!("value" in op)) op.value = null;
      this.changed(true);
    });
    const kindSelect = el("select", { dataset: { field: "kind" }, "aria-label": `kind of operation ${index + 1}` },
      KINDS.map((name) => option(name, name, op.kind === name)));
    if (!KINDS.includes(op.kind)) kindSelect.prepend(option("", "kind?", true));
    kindSelect.addEventListener("change", () => {
      update("kind", kindSelect.value);
      this.container.children[index]?.setAttribute("data-kind", kindSelect.value);
    });
    const matchSelect = el("select", { dataset: { field: "match" }, "aria-label": `matcher of operation ${index + 1}` },
      MATCHERS.map((name) => option(name, name, match === name)));
    matchSelect.addEventListener("change", () => this.setMatcher(op, matchSelect.value));
    const optional = el("input", { type: "checkbox", dataset: { field: "optional" }, checked: op.optional === true });
    optional.addEventListener("change", () => update("optional", optional.checked));
    const button = (label, title, action, disabled = false) =>
      el("button", { type: "button", class: "icon", title, "aria-label": `${title} (operation ${index + 1})`, disabled, onclick: action }, label);
    const line = el(
      "div",
      { class: "op-line" },
      el("span", { class: "op-num" }, `${index + 1}`),
      opSelect,
      pathBox,
      op.op === "remove" ? null : valueInput,
      op.op === "remove" ? null : typeLabel,
    );
    const meta = el(
      "div",
      { class: "op-meta" },
      kindSelect,
      matchSelect,
      el("label", { class: "optional" }, optional, " optional"),
      el("span", { class: "spacer" }),
      button("↑", "move up", () => this.move(index, index - 1), index === 0),
      button("↓", "move down", () => this.move(index, index + 1), index === count - 1),
      button("✕", "delete", () => this.remove(index)),
    );
    const extra = [];
    if (match === "regex_match") {
      const example = el("input", {
        class: "example",
        dataset: { field: "example" },
        "aria-label": `value operation ${index + 1} stands for`,
        value: this.examples.has(op) ? String(this.examples.get(op)) : "",
        placeholder: "a value the pattern must accept",
        spellcheck: "false",
      });
      example.addEventListener("input", () => {
        if (example.value === "") this.examples.delete(op);
        else this.examples.set(op, example.value);
        this.changed();
      });
      extra.push(el("div", { class: "op-extra" }, el("label", {}, "stands for ", example)));
    }
    for (const reason of this.flags(index)) {
      extra.push(el("div", { class: "flag" }, "⚑ flagged by the draft: ", reason));
    }
    return el(
      "div",
      { class: "op", dataset: { index: String(index), kind: op.kind || "" } },
      line,
      meta,
      ...extra,
      el("ul", { class: "msgs" }),
    );
  }

  setMatcher(op, match) {
    const before = op.match || "strict";
    if (match === "regex_match" && before !== "regex_match") {
      const stood = typeof op.value === "string" ? op.value : JSON.stringify(op.value ?? "");
      this.examples.set(op, stood);
      op.value = escapeRegex(stood);
    } else if (match === "ref_equal" && before !== "ref_equal") {
      op.value = "";
    } else if (RAW.has(before) && !RAW.has(match)) {
      op.value = this.examples.has(op) ? parseValue(String(this.examples.get(op)), match) : op.value;
    }
    if (match === "strict") delete op.match;
    else op.match = match;
    this.changed(true);
  }

  add(op, focus = "value", at = null) {
    const gold = this.data.gold;
    const index = at === null || at > gold.length ? gold.length : at;
    gold.splice(index, 0, op);
    if (index < gold.length - 1) this.reindexFlags((i) => (i >= index ? i + 1 : i));
    this.changed(true);
    const row = this.container.children[index];
    const field = row?.querySelector(`[data-field="${focus}"]`) || row?.querySelector('[data-field="path"]');
    field?.focus();
    row?.scrollIntoView({ block: "nearest" });
  }

  // `+` on the artifact's place `aPath` (as the live `check` maps it through earlier operations):
  // a new operation on it (a leaf: replace, from its value after the gold; a container:
  // remove), or the one that already changes it. Returns [what to say, its level].
  pick(aPath, value, check) {
    const moved = check?.moved || {};
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
    if (path === null) return [`${aPath} is removed by an earlier operation`, "warn"];
    const gold = this.data.gold || [];
    const existing = gold.findIndex((op) => op.path === path);
    if (existing >= 0) {
      this.focusOp(existing);
      return [`op ${existing + 1} already changes ${path}: edit it there`, ""];
    }
    const kind = gold.some((op) => op.kind === "direct") ? "cascade" : "direct";
    if (isLeaf) {
      const now = check?.expected !== undefined && check?.expected !== null ? resolvePointer(check.expected, path) : undefined;
      this.add({ op: "replace", path, value: now === undefined ? value : now, kind }, "value");
    } else {
      this.add({ op: "remove", path, kind }, "path");
    }
    return ["", ""];
  }

  // Bring operation `index` into view and focus it (the `+` of a place that already has one).
  focusOp(index) {
    const row = this.container.children[index];
    if (!row) return;
    row.scrollIntoView({ block: "center" });
    (row.querySelector('[data-field="value"]') || row.querySelector('[data-field="path"]'))?.focus();
    row.classList.remove("flash");
    void row.offsetWidth;
    row.classList.add("flash");
  }

  reindexFlags(map) {
    const holder = this.flagHolder();
    if (!holder || !Array.isArray(holder.flags)) return;
    holder.flags = holder.flags
      .map((f) => (f && Number.isInteger(f.gold) ? { ...f, gold: map(f.gold) } : f))
      .filter((f) => f && f.gold !== null);
  }

  move(from, to) {
    const gold = this.data.gold;
    if (to < 0 || to >= gold.length) return;
    const [op] = gold.splice(from, 1);
    gold.splice(to, 0, op);
    this.reindexFlags((i) => (i === from ? to : i === to ? from : i));
    this.changed(true);
    this.container.children[to]?.querySelector(`button[title="${to < from ? "move up" : "move down"}"]`)?.focus();
  }

  remove(index) {
    const holder = this.flagHolder();
    const kept = Array.isArray(holder?.flags) ? JSON.parse(JSON.stringify(holder.flags)) : null;
    const [op] = this.data.gold.splice(index, 1);
    this.reindexFlags((i) => (i === index ? null : i > index ? i - 1 : i));
    this.changed(true);
    this.onRemoved(op, index, () => {
      this.data.gold.splice(Math.min(index, this.data.gold.length), 0, op);
      if (kept) holder.flags = kept;
      this.changed(true);
    });
  }

  // The values typed that the page cannot hold, as check messages (errors: Save waits for them).
  refusals() {
    return (this.data?.gold || []).flatMap((op, i) => (this.refused.has(op) ? [{ level: "error", pointer: `/gold/${i}/value`, message: this.refused.get(op) }] : []));
  }

  showMessages(messages) {
    this.messages = messages;
    messages = [...messages.filter((m) => !m.refused), ...this.refusals().map((m) => ({ ...m, refused: true }))];
    [...this.container.querySelectorAll(".op")].forEach((row) => {
      const prefix = `/gold/${row.dataset.index}`;
      const mine = messages.filter((m) => m.pointer === prefix || m.pointer.startsWith(`${prefix}/`));
      for (const field of FIELDS) {
        const input = row.querySelector(`[data-field="${field}"]`);
        if (!input) continue;
        const hits = mine.filter((m) => m.pointer === `${prefix}/${field}`);
        input.classList.toggle("invalid", hits.some((m) => m.level === "error"));
        input.classList.toggle("warned", hits.length > 0 && !hits.some((m) => m.level === "error"));
        input.setAttribute("aria-invalid", hits.some((m) => m.level === "error") ? "true" : "false");
      }
      const list = row.querySelector(".msgs");
      clear(list);
      for (const m of mine) {
        const field = m.pointer.slice(prefix.length + 1) || "operation";
        list.append(el("li", { class: m.level, dataset: { pointer: m.pointer } }, `${field}: ${m.message}`));
      }
    });
  }
}
