"use strict";
// The chain view of a chain run's report (inlined after report.js, only for chain runs).
// A chain sample's detail shows its turns: the request, what the turn's patch changed, and
// whether it completed or how it failed; the turn where the chain first went wrong is marked.
// Text goes in with textContent only, as in report.js.
(() => {
  const data = JSON.parse(document.getElementById("revprop-data").textContent);
  const index = data.index;
  if (!index.chain) return;
  const cases = new Map(); // case number -> its file's data, kept as report.js loads it
  const loaded = window.revpropCase;
  window.revpropCase = (number, text) => {
    cases.set(number, JSON.parse(text));
    loaded(number, text);
  };
  const KIND_LABEL = { miss: "miss", over_edit: "over edit", wrong_value: "wrong value" };
  const SHORT_OPS = 6;

  function el(tag, cls, text, ...children) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const child of children) if (child) node.appendChild(child);
    return node;
  }

  const show = (value) => (value === undefined ? "" : JSON.stringify(value));

  function opLine(op) {
    if (op.op === "remove") return `remove ${op.path}`;
    if (op.op === "move" || op.op === "copy") return `${op.op} ${op.from} → ${op.path}`;
    return `${op.op} ${op.path} = ${show(op.value)}`;
  }

  // What the turn changed: its patch, one line per operation, the first few shown.
  function patchBox(patch) {
    if (!Array.isArray(patch)) return el("p", "note", "no patch");
    if (!patch.length) return el("p", "note", "an empty patch (changed nothing)");
    const list = el("ul", "ops");
    for (const op of patch.slice(0, SHORT_OPS)) list.appendChild(el("li", "", opLine(op)));
    if (patch.length <= SHORT_OPS) return list;
    const rest = el("ul", "ops");
    for (const op of patch.slice(SHORT_OPS)) rest.appendChild(el("li", "", opLine(op)));
    return el("div", "", null, list, el("details", "", null, el("summary", "", `${patch.length - SHORT_OPS} more`), rest));
  }

  function findingsTable(findings) {
    const head = el("tr", "", null, ...["kind", "path", "expected", "got"].map((h) => el("th", "", h)));
    const body = el("tbody");
    for (const f of findings) {
      body.appendChild(el("tr", "finding kind-" + f.kind, null, el("td", "", KIND_LABEL[f.kind] || f.kind),
        el("td", "", f.path), el("td", "", show(f.expected)), el("td", "", show(f.got))));
    }
    return el("table", "findings", null, el("thead", "", null, head), body);
  }

  function outcome(turn) {
    if (turn.completed) return "completed";
    if (turn.error === "call_failed" || turn.error === "method_failed") return "error";
    if (turn.valid === false || turn.error) return "invalid";
    return "failed";
  }

  function failureText(turn) {
    if (turn.error) return turn.error + (turn.reason ? ": " + turn.reason : "");
    const kinds = ["miss", "over_edit", "wrong_value"].filter((k) => turn[k])
      .map((k) => `${KIND_LABEL[k]} ${turn[k]}`);
    return kinds.join(", ") || turn.reason || "not completed";
  }

  function turnCard(turn, file, firstFailed) {
    const kind = outcome(turn);
    const card = el("li", "turn-card turn-" + kind);
    card.setAttribute("data-turn", turn.turn);
    card.setAttribute("data-outcome", kind);
    const title = el("div", "", null, el("span", "badge " + kind, kind),
      el("span", "turn-title", turn.turn === 0 ? "turn 0 (the case's own revision)" : `turn ${turn.turn}`));
    if (turn.regressions) title.appendChild(el("span", "badge regression", `regressions ${turn.regressions}`));
    if (turn.turn === firstFailed) {
      card.classList.add("first-failure");
      title.appendChild(el("span", "first-mark", "← the chain first went wrong here"));
    }
    card.appendChild(title);
    card.appendChild(el("div", "turn-label", "request"));
    card.appendChild(el("div", "turn-request", turn.request ?? ""));
    card.appendChild(el("div", "turn-label", "what it changed"));
    card.appendChild(patchBox(file.patches[turn.patch]));
    if (turn.regressions) {
      const places = Array.isArray(turn.regressed) ? turn.regressed : [];
      card.appendChild(el("div", "turn-label", "what it broke that an earlier turn got right"));
      const list = el("ul", "ops regressed");
      for (const place of places) list.appendChild(el("li", "", place));
      card.appendChild(places.length ? list : el("p", "note", `${turn.regressions} place(s), not named in this run's records`));
    }
    if (kind !== "completed") {
      card.appendChild(el("div", "turn-reason", failureText(turn)));
      const findings = file.findings[turn.findings] || [];
      if (findings.length) card.appendChild(findingsTable(findings));
    }
    return card;
  }

  function chainView(sample, file) {
    const turns = sample.turns || [];
    const failed = turns.find((t) => !t.completed);
    const firstFailed = failed ? failed.turn : null;
    const done = turns.filter((t) => t.completed).length;
    const head = failed
      ? `${sample.chain} chain: ${done} of ${turns.length} turns completed; first failed at turn ${firstFailed}`
      : `${sample.chain} chain: all ${turns.length} turns completed`;
    const list = el("ol", "chain-turns");
    for (const turn of turns) list.appendChild(turnCard(turn, file, firstFailed));
    const start = {
      teacher: "teacher: each turn starts from the correct document before it",
      free: "free: each turn starts from the document the model's turn before left",
    }[sample.chain];
    const view = el("section", "chain-view", null, el("h4", "", "chain, turn by turn"), el("p", "chain-head", head),
      start ? el("p", "note", start) : null, list);
    view.id = "chain-view";
    return view;
  }

  // Report.js's single-revision parts (before/after, findings, gold, request, patch) show turn 0
  // against the last patch: hidden for a chain, whose turns show them instead.
  function hideSingleView(node) {
    while (node) {
      const next = node.nextElementSibling;
      if (node.tagName === "H4" && node.textContent === "raw replies") {
        for (let rest = node.nextElementSibling; rest; rest = rest.nextElementSibling) {
          if (rest.tagName === "DETAILS" && rest.querySelector(".tree")) rest.classList.add("chain-hidden");
        }
        return;
      }
      node.classList.add("chain-hidden");
      node = next;
    }
  }

  function decorate() {
    const detail = document.getElementById("sample-detail");
    const legend = detail.querySelector("#legend");
    if (!legend || detail.querySelector("#chain-view")) return;
    const item = document.querySelector(".sample-item.selected");
    if (!item) return;
    const i = Number(item.getAttribute("data-index"));
    if (!index.chain[i]) return;
    const file = cases.get(index.case[i]);
    const sample = file && file.samples[String(i)];
    if (!sample) return;
    // the legend's colours and badges are the single view's; the theme, if any, stays above
    legend.classList.add("chain-hidden");
    const theme = legend.nextElementSibling;
    const above = theme && theme.tagName === "P" && theme.classList.contains("note") ? theme : legend;
    hideSingleView(above.nextElementSibling);
    above.after(chainView(sample, file));
    // each raw reply names the turn it answered
    for (const box of detail.querySelectorAll(".reply[data-reply]")) {
      const reply = (sample.replies || [])[Number(box.getAttribute("data-reply"))];
      const who = box.querySelector(".who");
      if (reply && Number.isInteger(reply.turn) && who) who.textContent = `turn ${reply.turn} · ` + who.textContent;
    }
  }

  function tagItems() {
    for (const item of document.querySelectorAll(".sample-item:not([data-chain])")) {
      const i = Number(item.getAttribute("data-index"));
      item.setAttribute("data-chain", index.chain[i] || "");
      const turns = index.turns[i];
      const sub = item.querySelector(".sub");
      if (index.chain[i] && turns && sub) {
        const how = turns[0] === turns[1] ? `all ${turns[1]} turns` : `first failed turn ${turns[0]} of ${turns[1]}`;
        sub.appendChild(el("span", "chain-tag", ` · ${index.chain[i]}, ${how}`));
      }
    }
  }

  new MutationObserver(decorate).observe(document.getElementById("sample-detail"), { childList: true });
  new MutationObserver(tagItems).observe(document.getElementById("sample-list"), { childList: true });
  tagItems();
})();
