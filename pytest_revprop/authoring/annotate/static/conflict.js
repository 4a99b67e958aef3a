// The conflict flow: the file changed on disk since this page opened it. The server merges the
// two sets of edits against the version both started from (three-way); what only one side changed
// merges by itself. Each place both sides changed differently is shown as base / theirs / mine,
// each labelled with who saved it, and the annotator picks a side per place. Nothing of theirs is
// dropped unless the annotator picks "mine" for that very place (or drops all of their own work).

import { clear, el } from "./dom.js";

export function opLine(op) {
  if (!op || typeof op !== "object") return JSON.stringify(op);
  const value = op.op === "remove" ? "" : ` = ${JSON.stringify(op.value)}`;
  const extra = [op.kind, op.match && op.match !== "strict" ? op.match : null, op.optional ? "optional" : null]
    .filter(Boolean)
    .join(", ");
  return `${op.op} ${op.path}${value} [${extra}]`;
}

function saveText(h) {
  return `${h.action} by ${h.annotator} at ${h.time}${h.note ? ` ("${h.note}")` : ""}`;
}

function lastSave(data) {
  const history = data?.annotation?.history;
  const last = Array.isArray(history) && history.length ? history[history.length - 1] : null;
  return last ? `last ${saveText(last)}` : "no saves recorded";
}

function shown(value, field) {
  if (field === "gold") {
    const ops = Array.isArray(value) ? value : [];
    return ops.length ? el("ol", { class: "conflict-ops" }, ops.map((op) => el("li", {}, opLine(op)))) : el("p", { class: "muted" }, "(no operation here)");
  }
  if (value === null || value === undefined || value === "") return el("p", { class: "muted" }, "(empty)");
  return el("p", { class: "conflict-text" }, typeof value === "string" ? value : JSON.stringify(value));
}

function conflictBlock(conflict, labels, choices, onChoose) {
  const column = (side, title, value) => {
    const radio = side === "base" ? null : el("input", { type: "radio", name: `conflict-${conflict.id}`, value: side, "aria-label": `use ${side} for ${conflict.label}` });
    if (radio) {
      radio.checked = choices[conflict.id] === side;
      radio.addEventListener("change", () => onChoose(conflict.id, side));
    }
    return el(
      "div",
      { class: `conflict-col ${side}` },
      el("h5", {}, title),
      shown(value, conflict.field),
      radio ? el("label", { class: "use" }, radio, side === "mine" ? " use mine" : " use theirs") : null,
    );
  };
  return el(
    "fieldset",
    { class: "conflict", dataset: { id: String(conflict.id), field: conflict.field } },
    el("legend", {}, conflict.label),
    el(
      "div",
      { class: "conflict-cols" },
      column("base", labels.base, conflict.base),
      column("theirs", labels.theirs, conflict.theirs),
      column("mine", labels.mine, conflict.mine),
    ),
  );
}

// Resolves to {choice: "merge", choices} (conflict id -> "mine" | "theirs"), {choice: "theirs"}
// (drop all of mine) or {choice: "later"}.
export function chooseSides(dialog, { merge, base, annotator }) {
  const body = clear(dialog.querySelector("#conflict-body"));
  const saves = merge.saves || [];
  const who = saves.length ? [...new Set(saves.map((h) => h.annotator))].join(", ") : "someone";
  const labels = {
    base: `Base: the version you opened (${lastSave(base)})`,
    theirs: saves.length ? `Theirs: ${saves.map(saveText).join("; ")}` : "Theirs: on disk now (no save recorded: a script or a git pull?)",
    mine: `Mine: ${annotator || "you"}, not saved`,
  };
  body.append(el("p", {}, saves.length ? `Saved meanwhile: ${saves.map(saveText).join("; ")}.` : "The file was changed on disk without a history entry (a script, an editor or a git pull)."));
  const merged = [];
  if (merge.theirs_changes.length) merged.push(`${who}'s change to ${merge.theirs_changes.join(", ")}`);
  if (merge.mine_changes.length) merged.push(`your change to ${merge.mine_changes.join(", ")}`);
  if (merged.length) body.append(el("p", { class: "muted" }, `Changed since the base: ${merged.join("; ")}. Whatever only one side changed is merged by itself.`));
  const choices = {};
  const saveButton = dialog.querySelector("#save-merge");
  const update = () => {
    saveButton.disabled = merge.conflicts.some((c) => !choices[c.id]);
  };
  const choose = (id, side) => {
    choices[id] = side;
    update();
  };
  if (merge.error) {
    body.append(el("p", { class: "error-text" }, merge.error));
  } else {
    body.append(el("p", {}, `You both changed ${merge.conflicts.length} place(s); choose a side for each:`));
    for (const conflict of merge.conflicts) body.append(conflictBlock(conflict, labels, choices, choose));
  }
  update();
  dialog.querySelector("#keep-mine").disabled = Boolean(merge.error);
  return new Promise((resolve) => {
    const done = (result) => {
      dialog.close();
      resolve(result);
    };
    saveButton.onclick = () => done({ choice: "merge", choices });
    dialog.querySelector("#keep-mine").onclick = () => done({ choice: "merge", choices: Object.fromEntries(merge.conflicts.map((c) => [c.id, "mine"])) });
    dialog.querySelector("#take-theirs").onclick = () => done({ choice: "theirs" });
    dialog.querySelector("#decide-later").onclick = () => done({ choice: "later" });
    dialog.oncancel = (event) => {
      event.preventDefault();
      done({ choice: "later" });
    };
    dialog.showModal();
    dialog.querySelector("#decide-later").focus();
  });
}
