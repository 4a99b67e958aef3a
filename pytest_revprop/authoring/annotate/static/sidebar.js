// The case list: status, domain, pattern, size and gold operations per case; a text and a
// status filter, and the number of cases per status (each a button for its filter); keyboard
// navigation (arrows, Home, End) as a listbox. A "broken file" is one the loader refuses: not
// JSON, or JSON that breaks a loading rule (the latter still opens, to be fixed).

import { clear, el } from "./dom.js";

export const STATUS_LABELS = {
  draft: "draft",
  annotated: "annotated",
  changed: "changed since review",
  reviewed: "reviewed",
  error: "broken file",
  unsaved: "unsaved changes",
};

function statusOf(entry) {
  return entry.openable ? "error" : entry.status || "annotated";
}

const broken = (entry) => Boolean(entry.openable || entry.error);

// The URL's hash: a case's id (or its file key), then `&turn=N` when a chain's turn N >= 1 is
// shown. A case's part is encoded, so a `&` in it never reads as the turn's.
const TURN_IN_HASH = /&turn=(\d+)$/;

// The case part of the URL's hash, as text.
export function hashText() {
  const part = location.hash.slice(1).replace(TURN_IN_HASH, "");
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

// The chain turn the URL's hash names (0 when it names none).
export function hashTurn() {
  const found = TURN_IN_HASH.exec(location.hash);
  return found ? Number(found[1]) : 0;
}

function facts(entry) {
  const parts = [entry.domain, entry.pattern];
  if (Number.isInteger(entry.size)) parts.push(`${entry.size} leaves`);
  if (Number.isInteger(entry.ops)) parts.push(`${entry.ops} op${entry.ops === 1 ? "" : "s"}`);
  if (entry.turns > 1) parts.push(`${entry.turns} turns`);
  return parts.filter(Boolean).join(" · ");
}

export class Sidebar {
  constructor({ list, count, counts, filterText, filterStatus, onOpen, isUnsaved, goneLabel = "gone" }) {
    Object.assign(this, { list, count, counts, filterText, filterStatus, onOpen, isUnsaved, goneLabel });
    this.entries = [];
    this.selected = null;
    this.pinned = null; // the open case whose status changed on disk: a status filter keeps it
    filterText.addEventListener("input", () => this.render());
    filterStatus.addEventListener("change", () => this.render());
    list.addEventListener("keydown", (event) => this.onKey(event));
  }

  setCases(entries) {
    this.entries = entries;
    this.render();
  }

  update(file, fields) {
    const entry = this.entries.find((e) => e.file === file);
    if (entry) Object.assign(entry, fields);
    this.render();
  }

  matches(entry) {
    const status = this.filterStatus.value;
    if (status === "unsaved" && !this.isUnsaved(entry.file)) return false;
    if (status === "error" && !broken(entry)) return false;
    if (status && status !== "unsaved" && status !== "error" && statusOf(entry) !== status && entry.file !== this.pinned) return false;
    const words = this.filterText.value.toLowerCase().split(/\s+/).filter(Boolean);
    const text = [entry.id, entry.path, entry.domain, entry.pattern, entry.split, statusOf(entry), entry.request]
      .filter(Boolean)
      .join(" ")
      .toLowerCase();
    return words.every((w) => text.includes(w));
  }

  visible() {
    return this.entries.filter((e) => this.matches(e));
  }

  render() {
    const shown = this.visible();
    clear(this.list);
    shown.forEach((entry, i) => this.list.append(this.item(entry, i)));
    this.count.textContent = `${shown.length} of ${this.entries.length} cases`;
    this.renderCounts();
    this.list.removeAttribute("aria-activedescendant");
    const active = this.list.querySelector('[aria-selected="true"]');
    if (active) this.list.setAttribute("aria-activedescendant", active.id);
  }

  // How many cases have each status (and how many are broken or have unsaved changes).
  renderCounts() {
    const tally = Object.fromEntries(Object.keys(STATUS_LABELS).map((k) => [k, 0]));
    for (const entry of this.entries) {
      if (!entry.openable && !entry.gone) tally[statusOf(entry)] = (tally[statusOf(entry)] || 0) + 1;
      if (broken(entry)) tally.error++;
      if (this.isUnsaved(entry.file)) tally.unsaved++;
    }
    clear(this.counts);
    for (const [status, label] of Object.entries(STATUS_LABELS)) {
      const on = this.filterStatus.value === status;
      this.counts.append(el("button", {
        type: "button",
        class: `count-chip ${status}${on ? " on" : ""}`,
        dataset: { status, count: String(tally[status]) },
        "aria-pressed": on ? "true" : "false",
        title: on ? "show every status" : `show only: ${label}`,
        onclick: () => {
          this.filterStatus.value = on ? "" : status;
          this.render();
        },
      }, `${label} ${tally[status]}`));
    }
  }

  item(entry, index) {
    const status = statusOf(entry);
    const unsaved = this.isUnsaved(entry.file);
    return el(
      "li",
      {
        id: `case-opt-${index}`,
        role: "option",
        class: `case-item status-${status}`,
        "aria-selected": entry.file === this.selected ? "true" : "false",
        dataset: { file: entry.file, status },
        onclick: () => this.open(entry.file),
      },
      el(
        "div",
        { class: "case-line" },
        el("span", { class: "case-id" }, entry.id || entry.file.replace(/^\d+\//, "")),
        unsaved ? el("span", { class: "unsaved", title: "unsaved changes" }, "●") : null,
      ),
      el(
        "div",
        { class: "case-facts" },
        el("span", { class: `badge ${status}` }, status === "error" ? "broken" : entry.gone ? this.goneLabel : STATUS_LABELS[status] || status),
        " ",
        facts(entry),
      ),
      entry.error ? el("div", { class: "case-error", dataset: { turn: String(entry.error_turn ?? 0) } }, entry.error_turn ? `turn ${entry.error_turn}: ${entry.error}` : entry.error) : null,
    );
  }

  // A case's place in the URL: its id when no other case has it, else its file key.
  hashFor(file) {
    const entry = this.entries.find((e) => e.file === file);
    const unique = entry?.id && this.entries.filter((e) => e.id === entry.id).length === 1;
    return encodeURIComponent(unique ? entry.id : file).replaceAll("%2F", "/");
  }

  // The hash that shows `file` at chain turn `turn`.
  urlFor(file, turn) {
    return `#${this.hashFor(file)}${turn ? `&turn=${turn}` : ""}`;
  }

  // The URL made to name `file` at `turn`, without a new entry in the history (a reload or a
  // link then shows that turn).
  keepInUrl(file, turn) {
    const url = this.urlFor(file, turn);
    if (location.hash !== url) history.replaceState(null, "", url);
  }

  // The file a hash names (by file key or id); null when no listed case has it.
  fromHash(wanted) {
    if (!wanted) return null;
    const entry = this.entries.find((e) => e.file === wanted) || this.entries.find((e) => e.id === wanted);
    return entry ? entry.file : null;
  }

  select(file) {
    this.selected = file;
    for (const item of this.list.children) {
      const on = item.dataset.file === file;
      item.setAttribute("aria-selected", on ? "true" : "false");
      if (on) {
        this.list.setAttribute("aria-activedescendant", item.id);
        item.scrollIntoView({ block: "nearest" });
      }
    }
  }

  open(file) {
    this.select(file);
    this.onOpen(file);
  }

  move(delta) {
    const shown = this.visible();
    if (!shown.length) return;
    const at = shown.findIndex((e) => e.file === this.selected);
    let next;
    if (delta === Infinity) next = shown.length - 1;
    else if (delta === -Infinity) next = 0;
    else next = at < 0 ? 0 : Math.min(shown.length - 1, Math.max(0, at + delta));
    if (shown[next].file !== this.selected) this.open(shown[next].file);
  }

  onKey(event) {
    const moves = { ArrowDown: 1, ArrowUp: -1, Home: -Infinity, End: Infinity, PageDown: 10, PageUp: -10 };
    if (event.key in moves) {
      event.preventDefault();
      this.move(moves[event.key]);
    } else if (event.key === "Enter" && this.selected) {
      event.preventDefault();
      this.onOpen(this.selected);
    }
  }
}

