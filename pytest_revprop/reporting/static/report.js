"use strict";
// Sample browser of the RevProp report. Every piece of case or model text is inserted with
// textContent (never innerHTML): replies and case files are untrusted.
// The page holds the sample index; a sample's details are in report_files/cNNNNN.js (one file
// per case) and its replies' text in replies/rNNNNN.js, loaded with script elements on demand.
(() => {
  const data = JSON.parse(document.getElementById("revprop-data").textContent);
  const index = data.index;
  const samples = index.case.map((where, i) => {
    const c = data.cases[where];
    return {
      index: i, where, case: c.id, model: data.models[index.model[i]], method: data.methods[index.method[i]],
      k: index.k[i], seed: index.seed[i], outcome: data.outcomes[index.outcome[i]],
      domain: c.domain, pattern: c.pattern, size: c.size, solved: c.solved,
    };
  });
  const FILTERS = ["model", "method", "k", "seed", "outcome", "domain", "pattern", "size", "solved"];
  const OUTCOME_ORDER = ["completed", "failed", "invalid", "error"];
  // How every (model, method, k) of the run did on the sample's case (html_data._mark_solved).
  const SOLVED_ORDER = ["by none", "by some", "by all"];
  const KIND_LABEL = { miss: "miss", over_edit: "over edit", wrong_value: "wrong value" };
  const LIST_LIMIT = 1000;
  let selected = -1;
  let onlyNotable = false;

  function el(tag, options, ...children) {
    const node = document.createElement(tag);
    const opts = options || {};
    if (opts.cls) node.className = opts.cls;
    if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
    if (opts.attrs) {
      for (const [name, value] of Object.entries(opts.attrs)) node.setAttribute(name, String(value));
    }
    for (const child of children) if (child) node.appendChild(child);
    return node;
  }

  const show = (value) => (value === undefined ? "" : JSON.stringify(value));
  const pretty = (value) => JSON.stringify(value, null, 2);
  const childPointer = (path, key) => path + "/" + String(key).replace(/~/g, "~0").replace(/\//g, "~1");
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const within = (path, ancestor) => path === ancestor || path.startsWith(ancestor + "/");

  function jsonEqual(a, b) {
    if (Array.isArray(a) && Array.isArray(b)) {
      return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
    }
    if (isObject(a) && isObject(b)) {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
    }
    return a === b;
  }

  // Places where ``after`` differs from ``before`` (objects per key, equal-length arrays per index).
  function changedPaths(before, after, path, out) {
    if (isObject(before) && isObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        const child = childPointer(path, key);
        if (!(key in before) || !(key in after)) out.add(child);
        else changedPaths(before[key], after[key], child, out);
      }
    } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      before.forEach((v, i) => changedPaths(v, after[i], childPointer(path, i), out));
    } else if (!jsonEqual(before, after)) {
      out.add(path);
    }
    return out;
  }

  // ------------------------------------------------------------------ filters and list

  function sortValues(values) {
    return values.sort((a, b) => {
      const na = Number(a);
      const nb = Number(b);
      return a !== "" && b !== "" && !isNaN(na) && !isNaN(nb) ? na - nb : a.localeCompare(b);
    });
  }

  function distinct(name) {
    const values = new Set();
    for (const s of samples) if (s[name] !== null && s[name] !== undefined) values.add(String(s[name]));
    if (name === "outcome") return OUTCOME_ORDER.filter((o) => values.has(o));
    if (name === "solved") return SOLVED_ORDER.filter((o) => values.has(o));
    return sortValues([...values]);
  }

  function buildFilters() {
    const box = document.getElementById("filters");
    for (const name of FILTERS) {
      const select = el("select", { attrs: { id: "filter-" + name, "data-filter": name } });
      select.appendChild(el("option", { text: "all", attrs: { value: "" } }));
      for (const value of distinct(name)) select.appendChild(el("option", { text: value, attrs: { value } }));
      select.addEventListener("change", renderList);
      box.appendChild(el("label", { text: name }, select));
    }
    const search = el("input", { attrs: { id: "filter-case", type: "search", placeholder: "case id contains" } });
    search.addEventListener("input", renderList);
    box.appendChild(el("label", { text: "case" }, search));
  }

  function activeFilters() {
    const active = {};
    for (const name of FILTERS) {
      const value = document.getElementById("filter-" + name).value;
      if (value !== "") active[name] = value;
    }
    return active;
  }

  function renderList() {
    const active = activeFilters();
    const text = document.getElementById("filter-case").value.trim().toLowerCase();
    const list = document.getElementById("sample-list");
    list.replaceChildren();
    const matches = [];
    samples.forEach((s, index) => {
      const ok = Object.entries(active).every(([name, value]) => String(s[name]) === value)
        && (!text || String(s.case).toLowerCase().includes(text));
      if (ok) matches.push(index);
    });
    for (const index of matches.slice(0, LIST_LIMIT)) list.appendChild(listItem(index));
    const shown = Math.min(matches.length, LIST_LIMIT);
    document.getElementById("sample-count").textContent =
      `${matches.length} of ${samples.length} samples` + (shown < matches.length ? ` (first ${shown} listed)` : "");
  }

  function listItem(index) {
    const s = samples[index];
    const item = el("button", {
      cls: "sample-item" + (index === selected ? " selected" : ""),
      attrs: { type: "button", role: "option", "data-index": index, "data-outcome": s.outcome },
    },
    el("span", { cls: "badge " + s.outcome, text: s.outcome }),
    el("span", { cls: "case-id", text: s.case }),
    el("span", { cls: "sub", text: `${s.model} · ${s.method}${s.k !== null ? " k=" + s.k : ""} · seed ${s.seed}` }));
    item.addEventListener("click", () => selectSample(index));
    return item;
  }

  // ------------------------------------------------------------------ data files

  const files = new Map(); // path -> Promise, one load per file
  const caseData = new Map(); // case number -> its file's data
  const replyTexts = new Map(); // reply key -> {content, reasoning}
  window.revpropCase = (number, text) => { caseData.set(number, JSON.parse(text)); };
  window.revpropReply = (reply) => { replyTexts.set(reply.key, reply); };
  const fileName = (prefix, number) => prefix + String(Number(number)).padStart(5, "0") + ".js";

  // Paths are built from numbers only; 'strict-dynamic' in the page's policy lets this
  // script load them from the folders beside the page.
  function load(path) {
    if (!files.has(path)) {
      files.set(path, new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = path;
        script.onload = resolve;
        script.onerror = () => reject(new Error(`${path} could not be loaded: keep the report_files and replies folders next to report.html`));
        document.head.appendChild(script);
      }));
    }
    return files.get(path);
  }

  async function caseFile(where) {
    if (!caseData.has(where)) await load(fileName("report_files/c", where));
    return caseData.get(where);
  }

  let shown = 0; // the latest selection; an older one finishing late is dropped

  async function selectSample(index) {
    selected = index;
    const ticket = ++shown;
    for (const item of document.querySelectorAll(".sample-item")) {
      item.classList.toggle("selected", Number(item.getAttribute("data-index")) === index);
    }
    const detail = document.getElementById("sample-detail");
    detail.setAttribute("data-state", "loading");
    detail.replaceChildren(el("p", { cls: "note loading", text: "loading…" }));
    try {
      const file = await caseFile(samples[index].where);
      if (ticket !== shown) return;
      const s = resolved(samples[index], file);
      renderDetail(s, file.case);
      await fillReplies(s, ticket);
      if (ticket === shown) detail.setAttribute("data-state", "ready");
    } catch (error) {
      if (ticket !== shown) return;
      detail.replaceChildren(el("p", { cls: "note load-error", text: String(error.message || error) }));
      detail.setAttribute("data-state", "error");
    }
  }

  // A sample with its details and their shared parts (findings, patch, artifact) looked up.
  function resolved(s, file) {
    const d = file.samples[String(s.index)] || {};
    return {
      ...s, ...d, findings: file.findings[d.findings] || [], patch: file.patches[d.patch],
      after: d.after === null || d.after === undefined ? undefined : file.artifacts[d.after],
    };
  }

  // ------------------------------------------------------------------ artifact trees

  function findingKinds(findings) {
    const kinds = new Map();
    for (const f of findings) kinds.set(f.path, f.kind);
    return kinds;
  }

  function goldKinds(gold) {
    const kinds = new Map();
    for (const op of gold || []) kinds.set(op.path, op.kind);
    return kinds;
  }

  // A pretty-printed JSON tree; each node carries data-path, and highlighted nodes a class.
  function renderTree(doc, marks, gold, changed) {
    const root = el("div", { cls: "tree" });
    const flagged = [...marks.keys(), ...changed, ...gold.keys()];
    const notable = (path) => flagged.some((p) => within(p, path) || within(path, p));
    const line = (text, path) => {
      const row = el("div", { cls: "line", text });
      if (path !== null && gold.has(path)) {
        const kind = gold.get(path);
        row.appendChild(el("span", { cls: "badge " + kind, text: kind }));
      }
      return row;
    };
    const node = (value, path, key, last) => {
      const block = el("div", { cls: "node", attrs: { "data-path": path } });
      if (marks.has(path)) {
        block.classList.add("hl-" + marks.get(path));
        block.setAttribute("data-kind", marks.get(path));
      } else if (changed.has(path)) {
        block.classList.add("changed");
      }
      if (!notable(path)) block.classList.add("quiet");
      const label = key === null ? "" : JSON.stringify(key) + ": ";
      const comma = last ? "" : ",";
      if (value !== null && typeof value === "object") {
        const array = Array.isArray(value);
        const entries = array ? value.map((v, i) => [i, v]) : Object.entries(value);
        if (!entries.length) {
          block.appendChild(line(label + (array ? "[]" : "{}") + comma, path));
          return block;
        }
        block.appendChild(line(label + (array ? "[" : "{"), path));
        entries.forEach(([k, v], i) => {
          block.appendChild(node(v, childPointer(path, k), array ? null : k, i === entries.length - 1));
        });
        block.appendChild(line((array ? "]" : "}") + comma, null));
        return block;
      }
      block.appendChild(line(label + JSON.stringify(value) + comma, path));
      return block;
    };
    root.appendChild(node(doc, "", null, true));
    return root;
  }

  function absentNotes(doc, findings) {
    const lines = findings.filter((f) => !hasPath(doc, f.path))
      .map((f) => `${KIND_LABEL[f.kind] || f.kind} at ${f.path}: not present here`);
    return lines.length ? el("p", { cls: "missing-note", text: lines.join("; ") }) : null;
  }

  function hasPath(doc, path) {
    if (path === "") return true;
    let node = doc;
    for (const raw of path.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) {
        if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return false;
        node = node[Number(token)];
      } else if (isObject(node)) {
        if (!Object.prototype.hasOwnProperty.call(node, token)) return false;
        node = node[token];
      } else {
        return false;
      }
    }
    return true;
  }

  // ------------------------------------------------------------------ detail

  function legend() {
    const item = (cls, text) => el("span", {}, el("span", { cls: "swatch " + cls }), document.createTextNode(text));
    return el("div", { cls: "legend", attrs: { id: "legend" } },
      item("miss", "miss (left unchanged, must change)"),
      item("over_edit", "over edit (changed, must not)"),
      item("wrong_value", "wrong value"),
      item("changed", "changed as required"),
      el("span", {}, el("span", { cls: "badge direct", text: "direct" }), document.createTextNode("named by the request")),
      el("span", {}, el("span", { cls: "badge cascade", text: "cascade" }), document.createTextNode("forced by a dependency")));
  }

  // A number as the terminal summary rounds it (cost 4 decimals, latency 2).
  function fixed(value, digits, missing = "n/a") {
    return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : missing;
  }

  function factsTable(s) {
    const rows = [
      ["model", s.model], ["method", s.method], ["k", s.k], ["seed", s.seed],
      ["outcome", s.outcome], ["error", s.error], ["reason", s.reason],
      ["miss / over edit / wrong value", `${s.miss ?? 0} / ${s.over_edit ?? 0} / ${s.wrong_value ?? 0}`],
      ["domain / pattern / size", `${s.domain ?? "?"} / ${s.pattern ?? "?"} / ${s.size ?? "?"}`],
      ["cost (USD) / latency (s) / calls", `${fixed(s.cost_usd, 4)} / ${fixed(s.latency_s, 2)} / ${s.calls ?? "n/a"}`],
      ["selection fell back", s.selection_fallback],
    ].filter(([, v]) => v !== null && v !== undefined);
    const body = el("tbody");
    for (const [name, value] of rows) body.appendChild(el("tr", {}, el("td", { text: name }), el("td", { text: value })));
    return el("table", { cls: "facts" }, body);
  }

  function findingsTable(findings) {
    if (!findings.length) return el("p", { cls: "note", text: "No findings." });
    const head = el("tr", {}, ...["kind", "path", "expected", "got", "gold op"].map((h) => el("th", { text: h })));
    const body = el("tbody");
    for (const f of findings) {
      body.appendChild(el("tr", { cls: "finding kind-" + f.kind, attrs: { "data-path": f.path } },
        el("td", { text: KIND_LABEL[f.kind] || f.kind }), el("td", { text: f.path }),
        el("td", { text: show(f.expected) }), el("td", { text: show(f.got) }), el("td", { text: f.gold_kind ?? "" })));
    }
    return el("table", { cls: "findings" }, el("thead", {}, head), body);
  }

  function goldTable(gold, findings, valid) {
    const head = el("tr", {}, ...["#", "op", "path", "value", "kind", "match", "result"].map((h) => el("th", { text: h })));
    const body = el("tbody");
    gold.forEach((op, i) => {
      const hit = findings.find((f) => within(f.path, op.path) || within(op.path, f.path));
      const result = !valid ? "—" : hit ? KIND_LABEL[hit.kind] || hit.kind : "ok";
      const kind = el("td", {}, el("span", { cls: "badge " + op.kind, text: op.kind }));
      if (op.optional) kind.appendChild(el("span", { cls: "badge optional", text: "optional" }));
      body.appendChild(el("tr", { cls: "gold-op", attrs: { "data-kind": op.kind, "data-path": op.path } },
        el("td", { text: i + 1 }), el("td", { text: op.op }), el("td", { text: op.path }),
        el("td", { text: op.op === "remove" ? "" : show(op.value) }), kind,
        el("td", { text: op.match || "strict" }),
        el("td", { cls: result === "ok" ? "status-ok" : result === "—" ? "" : "status-bad", text: result })));
    });
    return el("table", { cls: "gold" }, el("thead", {}, head), body);
  }

  function sides(s, c) {
    const findings = s.findings || [];
    const marks = findingKinds(findings);
    const gold = goldKinds(c.gold);
    const after = s.after;
    const changed = after === undefined ? new Set() : changedPaths(c.artifact, after, "", new Set());
    const before = el("div", { cls: "side", attrs: { id: "side-before" } },
      el("h4", { text: "before (current artifact)" }), renderTree(c.artifact, marks, gold, changed),
      absentNotes(c.artifact, findings));
    const afterBox = el("div", { cls: "side", attrs: { id: "side-after" } }, el("h4", { text: "after (model's patch applied)" }));
    if (after === undefined) {
      afterBox.appendChild(el("p", { cls: "note", text: "No artifact: " + (s.after_error || s.reason || s.error || "no usable patch") }));
    } else {
      afterBox.appendChild(renderTree(after, marks, gold, changed));
      const note = absentNotes(after, findings);
      if (note) afterBox.appendChild(note);
    }
    const toggle = el("input", { attrs: { type: "checkbox", id: "only-notable" } });
    const box = el("div", { cls: "sides" }, before, afterBox);
    toggle.checked = onlyNotable;
    box.classList.toggle("only-notable", onlyNotable);
    toggle.addEventListener("change", () => {
      onlyNotable = toggle.checked;
      box.classList.toggle("only-notable", onlyNotable);
    });
    syncScroll([...box.querySelectorAll(".tree")]);
    return el("div", {}, el("label", { cls: "toggle" }, toggle,
      document.createTextNode(" show only changed, flagged and gold places")), box);
  }

  // Before and after scroll together, so the same place stays side by side.
  function syncScroll(trees) {
    let busy = false;
    for (const tree of trees) {
      tree.addEventListener("scroll", () => {
        if (busy) return;
        busy = true;
        for (const other of trees) {
          if (other !== tree) {
            other.scrollTop = tree.scrollTop;
            other.scrollLeft = tree.scrollLeft;
          }
        }
        requestAnimationFrame(() => { busy = false; });
      });
    }
  }

  function conversation(c) {
    const box = el("details", { attrs: { open: "" } }, el("summary", { text: `conversation (${(c.conversation || []).length} turns)` }));
    (c.conversation || []).forEach((turn, i) => {
      box.appendChild(el("div", { cls: "turn" },
        el("div", { cls: "who", text: `turn ${i + 1} · user` }), el("div", { text: turn.user }),
        el("div", { cls: "who", text: "assistant (patch)" }), el("pre", { cls: "block", text: pretty(turn.assistant) })));
    });
    return box;
  }

  function replies(s) {
    const box = el("div", { cls: "replies" });
    if (!s.replies || !s.replies.length) {
      box.appendChild(el("p", { cls: "note", text: "No raw replies recorded (samples.jsonl not given)." }));
      return box;
    }
    s.replies.forEach((r, i) => {
      const facts = [`#${i + 1} ${r.role ?? "sample"}`, `seed ${r.seed}`, `finish ${r.finish_reason ?? "?"}`,
        `tokens in/out/reasoning ${r.input_tokens ?? "?"}/${r.output_tokens ?? "?"}/${r.reasoning_tokens ?? "?"}`,
        `${fixed(r.latency_s, 2, "?")} s`, r.cached ? "cached" : ""].filter(Boolean).join(" · ");
      box.appendChild(el("div", { cls: "reply", attrs: { "data-reply": i } }, el("div", { cls: "who", text: facts }),
        el("pre", { cls: "block reply-content loading", text: "loading…" })));
    });
    return box;
  }

  // The replies' text, from the reply files that hold it.
  async function fillReplies(s, ticket) {
    const wanted = new Set((s.replies || []).filter((r) => r.file !== null && r.file !== undefined).map((r) => r.file));
    await Promise.all([...wanted].map((n) => load(fileName("replies/r", n))));
    if (ticket !== shown) return;
    for (const box of document.querySelectorAll("#sample-detail .reply")) {
      const r = s.replies[Number(box.getAttribute("data-reply"))];
      const text = replyTexts.get(r.key);
      const content = box.querySelector(".reply-content");
      content.classList.remove("loading");
      if (!text) {
        content.classList.add("missing");
        content.textContent = "(the text of this reply is not in the replies folder)";
        continue;
      }
      content.textContent = text.content ?? "";
      if (text.reasoning) {
        box.appendChild(el("details", { cls: "reasoning" }, el("summary", { text: "reasoning" }),
          el("pre", { cls: "block", text: text.reasoning })));
      }
    }
  }

  function renderDetail(s, c) {
    const detail = document.getElementById("sample-detail");
    detail.replaceChildren(
      el("h3", {}, el("span", { cls: "badge " + s.outcome, text: s.outcome }), document.createTextNode(String(s.case))),
      factsTable(s), legend());
    if (!c) {
      detail.appendChild(el("p", { cls: "note", text: "The case file is not available (pass --cases to revprop report)." }));
    } else {
      if (c.theme) detail.appendChild(el("p", { cls: "note", text: c.theme }));
      detail.appendChild(sides(s, c));
    }
    detail.appendChild(el("h4", { text: "findings" }));
    detail.appendChild(findingsTable(s.findings || []));
    if (c) {
      detail.appendChild(el("h4", { text: "gold operations" }));
      detail.appendChild(goldTable(c.gold || [], s.findings || [], s.valid !== false));
    }
    detail.appendChild(el("h4", { text: "request" }));
    detail.appendChild(el("pre", { cls: "block request", text: s.request ?? (c ? c.request : "") }));
    if (c && c.reference !== null && c.reference !== undefined) {
      detail.appendChild(el("h4", { text: "reference data" }));
      detail.appendChild(el("pre", { cls: "block", text: pretty(c.reference) }));
    }
    detail.appendChild(el("h4", { text: "parsed patch" }));
    detail.appendChild(el("pre", { cls: "block patch", text: s.patch === null || s.patch === undefined ? "(none)" : pretty(s.patch) }));
    detail.appendChild(el("h4", { text: "raw replies" }));
    detail.appendChild(replies(s));
    if (c) {
      if (c.expected !== null && c.expected !== undefined) {
        detail.appendChild(el("details", {}, el("summary", { text: "expected artifact (gold applied)" }),
          renderTree(c.expected, new Map(), goldKinds(c.gold), changedPaths(c.artifact, c.expected, "", new Set()))));
      }
      detail.appendChild(el("h4", { text: "conversation" }));
      detail.appendChild(conversation(c));
    }
  }

  buildFilters();
  renderList();
})();
