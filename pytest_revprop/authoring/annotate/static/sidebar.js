// The case list: status, domain, pattern, size and gold operations per case; a text and a
// status filter; keyboard navigation (arrows, Home, End) as a listbox.

import { clear, el } from "./dom.js";


function statusOf(entry) {
  return entry.openable ? "error" : entry.status || "annotated";
}

function facts(entry) {
  const parts = [entry.domain, entry.pattern];
  if (Number.isInteger(entry.size)) parts.push(`${entry.size} leaves`);
  if (Number.isInteger(entry.ops)) parts.push(`${entry.ops} op${entry.ops === 1 ? "" : "s"}`);
  return parts.filter(Boolean).join(" · ");
}

export class Sidebar {
  constructor({ list, count, filterText, filterStatus, onOpen, isUnsaved }) {
    Object.assign(this, { list, count, filterText, filterStatus, onOpen, isUnsaved });
    this.entries = [];
    this.selected = null;
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
    if (status === "unsaved" ? !this.isUnsaved(entry.file) : status && statusOf(entry) !== status) {
      return false;
    }
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
    this.list.removeAttribute("aria-activedescendant");
    const active = this.list.querySelector('[aria-selected="true"]');
    if (active) this.list.setAttribute("aria-activedescendant", active.id);
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
        el("span", { class: `badge ${status}` }, status),
        " ",
        facts(entry),
      ),
      entry.error ? el("div", { class: "case-error" }, entry.error) : null,
    );
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

