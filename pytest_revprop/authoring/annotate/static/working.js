// The working copy's bookkeeping: which editable fields changed between two versions of the
// page's data, carrying edits made while a save or a merge was in flight over its answer, and
// each operation's identity in its turn (the base operation it was loaded from), which the
// merge pairs operations by.

export const clone = (value) => JSON.parse(JSON.stringify(value));

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const annotationNotes = (data) => data?.annotation?.notes;

// The editable fields `now` has changed since `before`.
export function editedSince(before, now) {
  const out = ["request", "notes", "size", "gold", "followups"].filter((name) => !same(before?.[name], now?.[name]));
  if (!same(annotationNotes(before), annotationNotes(now))) out.push("annotation notes");
  return out;
}

// `saved` (a copy) with the fields named taken from `now`; every turn's gold as the same
// objects, so the editor keeps its rows (and the focus) and each operation its identity.
export function carry(saved, now, fields) {
  const data = clone(saved);
  for (const name of fields) {
    if (name === "annotation notes") {
      const notes = annotationNotes(now);
      if (!data.annotation) data.annotation = { status: "annotated", history: [] };
      if (notes) data.annotation.notes = notes;
      else delete data.annotation.notes;
    } else if (name === "gold") {
      data.gold = now.gold;
      carryFlags(data.annotation?.draft, now.annotation?.draft);
    } else if (now[name] === undefined) {
      delete data[name];
    } else if (name === "followups") {
      // (each turn's gold as the same objects, as turn 0's: its rows and identities stay)
      data.followups = now.followups.map((f) => (f && Array.isArray(f.gold) ? { ...clone(f), gold: f.gold } : clone(f)));
      (data.annotation?.draft?.followups || []).forEach((note, i) => carryFlags(note, now.annotation?.draft?.followups?.[i]));
    } else {
      data[name] = clone(now[name]);
    }
  }
  return data;
}

// A turn's review flags as `now` moved them with their operations (the save keeps them so).
function carryFlags(holder, nowHolder) {
  if (holder && typeof holder === "object" && Array.isArray(nowHolder?.flags)) holder.flags = clone(nowHolder.flags);
}

// Each turn's operations (turn 0's, then each follow-up's): the lists themselves.
export const turnOps = (data) => [data?.gold || [], ...(Array.isArray(data?.followups) ? data.followups.map((f) => f?.gold || []) : [])];

// Per turn, operation (object) -> index of the base operation of that turn it comes from: the
// identity the merge pairs operations by, alike for turn 0 and every follow-up. `lists` gives it
// per turn and operation (null: added); without lists, operation i of a turn is its base
// operation i; a turn whose list is missing, or of another length, knows none (null: the
// server then pairs that turn's operations by op and path).
export function origins(data, lists) {
  return turnOps(data).map((ops, turn) => {
    const list = lists === undefined ? ops.map((_, i) => i) : Array.isArray(lists) ? lists[turn] : null;
    if (!Array.isArray(list) || list.length !== ops.length) return null;
    const map = new WeakMap();
    ops.forEach((op, i) => Number.isInteger(list[i]) && map.set(op, list[i]));
    return map;
  });
}

// The identities as the server takes them (`mine_origin`) and a draft keeps them: per turn, a
// base index or null per operation (null for a turn that knows none).
export const originLists = (data, maps) => turnOps(data).map((ops, turn) => {
  const map = maps?.[turn];
  return map ? ops.map((op) => (map.has(op) ? map.get(op) : null)) : null;
});

// After a save: in each turn, an operation that was sent (`sent`: per turn, the operations
// sent) is the saved version's operation of its place there; one typed since is new.
export function sentOrigins(data, sent) {
  const lists = turnOps(data).map((ops, turn) => ops.map((op) => {
    const at = (sent[turn] || []).indexOf(op);
    return at >= 0 ? at : null;
  }));
  return origins(data, lists);
}

// Set a field's text only when it differs, so the caret of a field being typed in stays put.
export function setText(node, text) {
  if (node.value !== text) node.value = text;
}
