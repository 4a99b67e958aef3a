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

function shown(value, field, base) {
  if (field === "gold") {
    const ops = Array.isArray(value) ? value : [];
    const none = Array.isArray(base) && base.length ? "(removed)" : "(not there)";
    return ops.length ? el("ol", { class: "conflict-ops" }, ops.map((op) => el("li", {}, opLine(op)))) : el("p", { class: "muted" }, none);
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
      shown(value, conflict.field, side === "base" ? null : conflict.base),
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

// Resolves to {choice: "merge", result} (the checked merge to save), {choice: "edit", result}
// (a merge that breaks a rule, to fix in the editor), {choice: "again"} (the file changed again),
// {choice: "theirs"} (drop all of mine) or {choice: "later"}. `resolve(choices)` asks the server
// for the merge with the sides chosen (conflict id -> "mine" | "theirs"); while what it answers
// cannot be saved, the dialog stays open and says why.
export function chooseSides(dialog, { merge, base, annotator, stale, resolve }) {
  const body = clear(dialog.querySelector("#conflict-body"));
  const saves = merge.saves || [];
  const who = saves.length ? [...new Set(saves.map((h) => h.annotator))].join(", ") : "someone";
  const labels = {
    base: `Base: the version you opened (${lastSave(base)})`,
    theirs: saves.length ? `Theirs: ${saves.map(saveText).join("; ")}` : "Theirs: on disk now (no save recorded: a script or a git pull?)",
    mine: `Mine: ${annotator || "you"}, not saved`,
  };
  const conflicts = merge.conflicts || [];
  const buttons = ["#save-merge", "#keep-mine", "#take-theirs", "#decide-later"].map((id) => dialog.querySelector(id));
  const [saveButton, keepMine] = buttons;
  const choices = {};
  const problems = el("div", { class: "merge-problems", role: "alert" });
  const update = () => {
    saveButton.disabled = Boolean(merge.error) || conflicts.some((c) => !choices[c.id]);
    keepMine.disabled = Boolean(merge.error) || !conflicts.length;
  };
  if (merge.error) {
    body.append(el("p", { class: "error-text" }, `The file on disk cannot be merged now: ${merge.error.replace(/^the file on disk cannot be merged: /, "")}.`),
      el("p", {}, "Your changes stay in this browser. Fix the file on disk (or put the last version back), then save again: your changes merge with it. Or take the version on disk as it is."));
  } else {
    body.append(el("p", {}, saves.length ? `Saved meanwhile: ${saves.map(saveText).join("; ")}.` : "The file was changed on disk without a history entry (a script, an editor or a git pull)."));
    if (stale) body.append(el("p", {}, "Your unsaved changes were made on an earlier version of this file: check the merge before it is saved."));
    const merged = [];
    if (merge.theirs_changes?.length) merged.push(`${who}: ${merge.theirs_changes.join(", ")}`);
    if (merge.mine_changes?.length) merged.push(`you: ${merge.mine_changes.join(", ")}`);
    if (merged.length) body.append(el("p", { class: "muted merge-changes" }, `Changed since the version you opened: ${merged.join("; ")}. Whatever only one side changed is merged by itself.`));
    body.append(el("p", {}, conflicts.length ? `You both changed ${conflicts.length} place(s); choose a side for each:` : "Nothing was changed differently on both sides."));
    for (const conflict of conflicts) body.append(conflictBlock(conflict, labels, choices, (id, side) => { choices[id] = side; update(); }));
  }
  body.append(problems);
  update();
  return new Promise((resolveChoice) => {
    const done = (result) => {
      dialog.close();
      resolveChoice(result);
    };
    const submit = async (chosen) => {
      buttons.forEach((b) => { b.disabled = true; });
      clear(problems);
      const answer = await resolve(chosen);
      buttons.forEach((b) => { b.disabled = false; });
      update();
      if (answer.again) return done({ choice: "again" });
      if (answer.error) return problems.append(el("p", { class: "error-text" }, `Not saved: ${answer.error}`));
      if (!answer.problems?.length) return done({ choice: "merge", result: answer });
      problems.append(
        el("p", { class: "error-text" }, `This merge breaks a rule: ${answer.problems.join("; ")}. Choose other sides, or edit it here and save.`),
        el("button", { type: "button", id: "edit-merge", onclick: () => done({ choice: "edit", result: answer }) }, "Edit the merge here"),
      );
      return undefined;
    };
    saveButton.onclick = () => submit(choices);
    keepMine.onclick = () => submit(Object.fromEntries(conflicts.map((c) => [c.id, "mine"])));
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
