// The conflict flow: the file changed on disk since it was opened. The annotator sees both
// versions (request, gold, notes, who saved last) and chooses; nothing is overwritten silently.

import { clear, el } from "./dom.js";

function opLine(op) {
  if (!op || typeof op !== "object") return JSON.stringify(op);
  const value = op.op === "remove" ? "" : ` = ${JSON.stringify(op.value)}`;
  const extra = [op.kind, op.match && op.match !== "strict" ? op.match : null, op.optional ? "optional" : null]
    .filter(Boolean)
    .join(", ");
  return `${op.op} ${op.path}${value} [${extra}]`;
}

function lastSave(data) {
  const history = data?.annotation?.history;
  const last = Array.isArray(history) ? history[history.length - 1] : null;
  return last ? `${last.action} by ${last.annotator} at ${last.time}` : "no saves recorded";
}

function side(title, data, other, error) {
  const gold = Array.isArray(data?.gold) ? data.gold.map(opLine) : [];
  const otherGold = new Set(Array.isArray(other?.gold) ? other.gold.map(opLine) : []);
  return el(
    "div",
    { class: "conflict-side" },
    el("h4", {}, title),
    error ? el("p", { class: "error-text" }, error) : null,
    el("p", { class: "muted" }, lastSave(data)),
    el("p", {}, el("strong", {}, "Request: "), data?.request ?? ""),
    el("ol", { class: "conflict-ops" }, gold.map((line) => el("li", { class: otherGold.has(line) ? "" : "differs" }, line))),
    data?.annotation?.notes ? el("p", {}, el("strong", {}, "Notes: "), data.annotation.notes) : null,
  );
}

export function chooseVersion(dialog, mine, disk) {
  const body = dialog.querySelector("#conflict-body");
  clear(body);
  if (!disk.data) {
    body.append(el("p", { class: "error-text" }, `The file on disk is not readable now: ${disk.error || "unknown error"}`));
  }
  body.append(side("On disk now (theirs)", disk.data, mine, disk.error), side("Yours (not saved)", mine, disk.data, null));
  return new Promise((resolve) => {
    const done = (choice) => {
      dialog.close();
      resolve(choice);
    };
    dialog.querySelector("#keep-mine").onclick = () => done("mine");
    dialog.querySelector("#take-theirs").onclick = () => done("theirs");
    dialog.querySelector("#decide-later").onclick = () => done("later");
    dialog.oncancel = (event) => {
      event.preventDefault();
      done("later");
    };
    dialog.showModal();
    dialog.querySelector("#decide-later").focus();
  });
}
