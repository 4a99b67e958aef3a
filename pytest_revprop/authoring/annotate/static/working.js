// The working copy's bookkeeping: which editable fields changed between two versions of the
// page's data, carrying edits made while a save or a merge was in flight over its answer, and
// each operation's identity (the base operation it was loaded from), which the merge pairs
// operations by.

export const clone = (value) => JSON.parse(JSON.stringify(value));

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const annotationNotes = (data) => data?.annotation?.notes;

// The editable fields `now` has changed since `before`.
export function editedSince(before, now) {
  const out = ["request", "notes", "size", "gold", "followups"].filter((name) => !same(before?.[name], now?.[name]));
  if (!same(annotationNotes(before), annotationNotes(now))) out.push("annotation notes");
  return out;
}

// `saved` (a copy) with the fields named taken from `now`; the gold as the same objects, so the
// editor keeps its rows (and the focus) and each operation its identity.
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
    } else {
      data[name] = clone(now[name]);
      if (name === "followups") (data.annotation?.draft?.followups || []).forEach((note, i) => carryFlags(note, now.annotation?.draft?.followups?.[i]));
    }
  }
  return data;
}

// A turn's review flags as `now` moved them with their operations (the save keeps them so).
function carryFlags(holder, nowHolder) {
  if (holder && typeof holder === "object" && Array.isArray(nowHolder?.flags)) holder.flags = clone(nowHolder.flags);
}

// Operation (object) -> index of the base operation it comes from. `list` gives it per
// operation (null: added); without a list, operation i is base operation i; with `false`,
// none is known (the server then pairs operations by op and path).
export function origins(ops, list) {
  const map = new WeakMap();
  if (list === false) return null;
  (ops || []).forEach((op, i) => {
    const from = Array.isArray(list) ? list[i] : i;
    if (Number.isInteger(from)) map.set(op, from);
  });
  return map;
}

export const originList = (ops, map) => (map ? (ops || []).map((op) => (map.has(op) ? map.get(op) : null)) : null);

// Set a field's text only when it differs, so the caret of a field being typed in stays put.
export function setText(node, text) {
  if (node.value !== text) node.value = text;
}
