// Finding places in a case: the path search over the artifact tree (every leaf whose path or
// value holds all the words typed; Enter goes to the next, Shift+Enter to the previous), and the
// path suggestions of an operation's path field (the places of the artifact as the operations
// leave it, with their values; ↑/↓ and Enter or a click picks one).

import { clear, el, shortText } from "./dom.js";

const words = (text) => text.toLowerCase().split(/\s+/).filter(Boolean);

export class TreeSearch {
  constructor(input, count, getTree) {
    Object.assign(this, { input, count, getTree });
    this.hits = [];
    this.at = -1;
    input.addEventListener("input", () => this.run());
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.step(event.shiftKey ? -1 : 1);
      }
    });
  }

  // Run the search again over the tree as rendered now (after the tree was re-rendered).
  run() {
    const tree = this.getTree();
    for (const node of tree.querySelectorAll(".hit")) node.classList.remove("hit", "hit-current");
    const wanted = words(this.input.value);
    this.hits = [];
    this.at = -1;
    if (!wanted.length) {
      this.count.textContent = "";
      return;
    }
    for (const leaf of tree.querySelectorAll(".leaf, .node > details")) {
      const path = leaf.dataset.path ?? leaf.parentElement.dataset.path;
      const value = leaf.classList.contains("leaf") ? leaf.querySelector(".val")?.textContent || "" : "";
      const text = `${path} ${value}`.toLowerCase();
      if (wanted.every((w) => text.includes(w))) this.hits.push(leaf.classList.contains("leaf") ? leaf : leaf.querySelector("summary"));
    }
    for (const hit of this.hits) hit.classList.add("hit");
    this.step(1);
  }

  step(delta) {
    if (!this.hits.length) {
      this.count.textContent = this.input.value.trim() ? "no match" : "";
      return;
    }
    this.hits[this.at]?.classList.remove("hit-current");
    this.at = (this.at + delta + this.hits.length) % this.hits.length;
    const hit = this.hits[this.at];
    for (let node = hit.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    hit.classList.add("hit-current");
    hit.scrollIntoView({ block: "center" });
    this.count.textContent = `${this.at + 1} of ${this.hits.length}`;
  }
}

// Suggestions under a path field. `places()` gives [path, value] pairs; `onPick(path)` is called
// with the chosen one.
export function suggestPaths(input, places, onPick, limit = 12) {
  const list = el("ul", { class: "suggest", role: "listbox", hidden: true });
  input.setAttribute("autocomplete", "off");
  input.setAttribute("aria-autocomplete", "list");
  input.after(list);
  let shown = [];
  let at = -1;
  const close = () => {
    list.hidden = true;
    at = -1;
  };
  const mark = () => [...list.children].forEach((li, i) => li.setAttribute("aria-selected", i === at ? "true" : "false"));
  const pick = (path) => {
    close();
    onPick(path);
  };
  const render = () => {
    const wanted = words(input.value);
    const all = places();
    const matching = all.filter(([path]) => wanted.every((w) => path.toLowerCase().includes(w)));
    const starts = (p) => (input.value && p.startsWith(input.value) ? 0 : 1);
    shown = matching.sort((a, b) => starts(a[0]) - starts(b[0])).slice(0, limit);
    clear(list);
    for (const [path, value] of shown) {
      list.append(el("li", { role: "option", dataset: { path }, onmousedown: (event) => { event.preventDefault(); pick(path); } },
        el("span", { class: "s-path" }, path), el("span", { class: "s-value muted" }, ` = ${shortText(value, 40)}`)));
    }
    if (matching.length > shown.length) list.append(el("li", { class: "muted more" }, `${matching.length - shown.length} more: type more of the path`));
    list.hidden = !shown.length || (shown.length === 1 && shown[0][0] === input.value);
    at = -1;
    mark();
  };
  input.addEventListener("input", render);
  input.addEventListener("focus", render);
  input.addEventListener("blur", close);
  input.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      at = Math.max(0, Math.min(shown.length - 1, at + (event.key === "ArrowDown" ? 1 : -1)));
      mark();
      list.children[at]?.scrollIntoView({ block: "nearest" });
    } else if ((event.key === "Enter" || event.key === "Tab") && at >= 0) {
      event.preventDefault();
      pick(shown[at][0]);
    } else if (event.key === "Escape") {
      close();
    }
  });
  return list;
}
