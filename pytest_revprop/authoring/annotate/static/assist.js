// Asking a model: "Propose gold" shows the model's patch as a proposal, each operation with a
// guessed kind, accepted one by one into the gold; "Ask" puts a question about one proposed
// operation to the same model. Both are for the turn shown (`getTurn`: a follow-up's model sees
// the canonical document before it and its request); nothing is applied without the annotator.

import { api } from "./api.js";
import { clear, el, option, shortText } from "./dom.js";
import { KINDS } from "./gold.js";

function sameOp(a, b) {
  return a.op === b.op && a.path === b.path && JSON.stringify(a.value) === JSON.stringify(b.value);
}

export class Assist {
  constructor(root, { getFile, getData, getTurn, getGold, accept, modelInput, seedInput }) {
    Object.assign(this, { root, getFile, getData, getTurn, getGold, accept, modelInput, seedInput });
    this.proposal = null;
    this.asking = null;
    this.status = root.querySelector("#assist-state");
    this.list = root.querySelector("#proposal");
    this.questionBox = root.querySelector("#question-box");
    this.question = root.querySelector("#question");
    this.answer = root.querySelector("#answer");
    root.querySelector("#propose").addEventListener("click", () => this.propose());
    root.querySelector("#ask").addEventListener("click", () => this.ask());
    this.question.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.ask();
      }
    });
  }

  reset() {
    this.proposal = null;
    this.asking = null;
    clear(this.list);
    this.status.textContent = "";
    this.questionBox.hidden = true;
    clear(this.answer);
  }

  seed() {
    const seed = Number.parseInt(this.seedInput.value, 10);
    return Number.isInteger(seed) && seed >= 0 ? seed : 0;
  }

  async propose() {
    const model = this.modelInput.value.trim();
    const button = this.root.querySelector("#propose");
    button.disabled = true;
    this.reset();
    this.status.textContent = `asking ${model}…`;
    const turn = this.getTurn();
    const reply = await api.propose(this.getFile(), this.getData(), model, this.seed(), turn);
    button.disabled = false;
    if (turn !== this.getTurn()) return; // another turn is shown now: the proposal is not its
    if (!reply.ok) {
      this.status.textContent = reply.body.error || "the proposal failed";
      this.status.className = "error-text";
      return;
    }
    this.status.className = "muted";
    this.proposal = { ...reply.body, turn };
    this.render();
  }

  render() {
    const p = this.proposal;
    clear(this.list);
    const cost = p.cost_usd ? `, $${p.cost_usd.toFixed(5)}` : "";
    this.status.textContent = `${p.model}, seed ${p.seed}: ${p.ops.length} operation(s)${p.cached ? " (from the cache)" : ""}${cost}`;
    if (p.error) {
      this.list.append(
        el("p", { class: "error-text" }, `No usable patch (${p.error}): ${p.reason || ""}`),
        p.reply ? el("details", {}, el("summary", {}, "The model's reply"), el("pre", { class: "reply" }, p.reply)) : null,
      );
      return;
    }
    const gold = this.getGold();
    const rows = p.ops.map((op, i) => this.row(op, i, gold.some((g) => sameOp(g, op))));
    this.list.append(el("ol", { class: "proposal-ops" }, rows));
    if (p.ops.length > 1) {
      const remaining = p.ops.some((op) => !gold.some((g) => sameOp(g, op)));
      this.list.append(el("button", { type: "button", id: "accept-all", disabled: !remaining, onclick: () => this.acceptAll() }, "Accept all remaining"));
    }
  }

  row(op, index, inGold) {
    const kind = el("select", { "aria-label": `kind of proposed operation ${index + 1}`, class: "proposed-kind" },
      KINDS.map((k) => option(k, k, op.kind === k)));
    kind.addEventListener("change", () => {
      op.kind = kind.value;
    });
    const value = op.op === "remove" ? "" : ` = ${shortText(op.value, 120)}`;
    const accept = el("button", { type: "button", class: "accept", disabled: inGold,
      onclick: () => this.acceptOne(index) }, inGold ? "in gold" : "Accept");
    const why = el("button", { type: "button", class: "why", onclick: () => this.openQuestion(index) }, "Ask why");
    return el("li", { class: `proposed${inGold ? " accepted" : ""}`, dataset: { index: String(index) } },
      el("code", {}, `${index + 1}. ${op.op} ${op.path}${value}`), kind, accept, why);
  }

  acceptOne(index) {
    const op = this.proposal.ops[index];
    const gold = { op: op.op, path: op.path };
    if (op.op !== "remove") gold.value = op.value;
    gold.kind = op.kind;
    this.accept(gold, this.position(index));
  }

  // Where an accepted op goes in the gold: after the ops the model wrote before it, so the
  // gold keeps the model's order (later paths may rely on earlier inserts and removals).
  position(index) {
    const gold = this.getGold();
    const at = (op) => gold.findIndex((g) => sameOp(g, op));
    for (let j = index - 1; j >= 0; j--) {
      const found = at(this.proposal.ops[j]);
      if (found >= 0) return found + 1;
    }
    for (let j = index + 1; j < this.proposal.ops.length; j++) {
      const found = at(this.proposal.ops[j]);
      if (found >= 0) return found;
    }
    return null;
  }

  acceptAll() {
    this.proposal.ops.forEach((op, i) => {
      if (!(this.getGold()).some((g) => sameOp(g, op))) this.acceptOne(i);
    });
  }

  refresh() {
    if (this.proposal && !this.proposal.error) this.render();
  }

  openQuestion(index) {
    this.asking = index;
    const op = this.proposal.ops[index];
    this.questionBox.hidden = false;
    this.questionBox.querySelector("#q-op").textContent = `${index + 1}: ${op.op} ${op.path}`;
    if (!this.question.value) this.question.value = "Why does the request force this change?";
    clear(this.answer);
    this.question.focus();
  }

  async ask() {
    if (this.asking === null || !this.proposal) return;
    const button = this.root.querySelector("#ask");
    button.disabled = true;
    this.answer.replaceChildren(el("p", { class: "muted" }, `asking ${this.proposal.model}…`));
    const ops = this.proposal.ops.map(({ op, path, value }) => (op === "remove" ? { op, path } : { op, path, value }));
    const reply = await api.ask({
      data: this.getData(),
      model: this.proposal.model,
      ops,
      index: this.asking,
      question: this.question.value,
      seed: this.proposal.seed,
      turn: this.proposal.turn,
    });
    button.disabled = false;
    const text = reply.ok ? reply.body.answer || reply.body.error : reply.body.error;
    this.answer.replaceChildren(el("p", { class: reply.ok && reply.body.answer ? "answer-text" : "error-text" }, text || "no answer"));
  }
}
