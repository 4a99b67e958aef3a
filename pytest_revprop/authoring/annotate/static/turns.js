// A chain's turns on the page: turn 0 is the case's own revision, turn k >= 1 its follow-up
// k - 1 (`followups[k - 1]`). Each turn is edited with the same controls; the live check keys
// a follow-up's messages under `/followups/N`, which the page shows on that turn as if they
// were the case's own (`/gold/2/value`), and the turn bar marks every turn that holds an error
// (⚠) or review flags from the draft (⚑ and their number).

import { clear, el } from "./dom.js";

export const turnCount = (data) => 1 + (Array.isArray(data?.followups) ? data.followups.length : 0);

// The object a turn's request, reference, gold (and, for a follow-up, theme) live in.
export const turnData = (data, turn) => (turn === 0 ? data : data?.followups?.[turn - 1]);

// What holds a turn's review flags (`flags`: [{gold, reason}]) in the draft's record: turn 0's
// the draft itself, a follow-up's its note (`annotation.draft.followups[k - 1]`); null: none.
export function turnFlags(data, turn) {
  const draft = data?.annotation?.draft;
  const holder = turn === 0 ? draft : draft?.followups?.[turn - 1];
  return holder && typeof holder === "object" ? holder : null;
}

// (turn, pointer inside it) of a pointer into the case.
export function turnOf(pointer) {
  const found = /^\/followups\/(\d+)(\/.*)?$/.exec(pointer || "");
  return found ? [Number(found[1]) + 1, found[2] || ""] : [0, pointer || ""];
}

export const turnName = (turn) => (turn === 0 ? "turn 0 (the case's own revision)" : `turn ${turn}`);

// The check's messages about `turn`, their pointers relative to it.
export function turnMessages(messages, turn) {
  return (messages || []).flatMap((m) => {
    const [at, inner] = turnOf(m.pointer);
    return at === turn ? [{ ...m, pointer: inner }] : [];
  });
}

// The check's preview of `turn` (its `artifact`: the document before it).
export function turnReport(report, turn) {
  if (!report || turn === 0) return report;
  const part = report.turns?.[turn - 1];
  if (!part) return null;
  const errors = turnMessages(report.messages, turn).some((m) => m.level === "error");
  return { ...part, valid: report.valid && !errors };
}

// The turn bar: one tab per turn, marked when its turn holds an error; ←/→ (and Home/End) move.
export function renderTurnBar(bar, data, current, messages, onPick) {
  const count = turnCount(data);
  bar.hidden = count < 2;
  clear(bar);
  if (count < 2) return;
  for (let turn = 0; turn < count; turn++) {
    const errors = turnMessages(messages, turn).filter((m) => m.level === "error").length;
    const flags = (turnFlags(data, turn)?.flags || []).length;
    const label = turn === 0 ? "Turn 0 · own revision" : `Turn ${turn}`;
    const said = [errors ? `holds ${errors} error(s)` : "", flags ? `has ${flags} review flag(s) from the draft` : ""].filter(Boolean);
    bar.append(el("button", {
      type: "button",
      role: "tab",
      class: `turn-tab${errors ? " has-error" : ""}`,
      id: `turn-tab-${turn}`,
      dataset: { turn: String(turn), errors: String(errors), flags: String(flags) },
      "aria-selected": turn === current ? "true" : "false",
      tabindex: turn === current ? "0" : "-1",
      title: said.length ? `${turnName(turn)} ${said.join(" and ")}` : turnName(turn),
      onclick: () => onPick(turn),
      onkeydown: (event) => {
        const to = { ArrowLeft: turn - 1, ArrowRight: turn + 1, Home: 0, End: count - 1 }[event.key];
        if (to === undefined || to < 0 || to >= count) return;
        event.preventDefault();
        onPick(to, true);
      },
    }, label, flags ? el("span", { class: "turn-flags", "aria-hidden": "true" }, ` ⚑${flags}`) : null, errors ? el("span", { class: "turn-error", "aria-hidden": "true" }, " ⚠") : null));
  }
}
