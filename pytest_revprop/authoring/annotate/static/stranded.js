// A file renamed or deleted while open, or while this browser keeps unsaved changes of it: the
// changes stay in the browser, the sidebar lists the file as gone (so the "unsaved changes"
// filter keeps it), and the page offers them for the file it became (the same bytes, else the
// same case id) or saves them as a new file at the old place.

import { drafts } from "./drafts.js";

export const GONE = "gone from disk";

// The listing, with an entry for every file this tab keeps unsaved changes of that is not in it.
export function withStranded(entries) {
  const listed = new Set(entries.map((e) => e.file));
  const gone = drafts.files().filter((file) => !listed.has(file));
  return [...entries, ...gone.map((file) => ({ file, path: file.replace(/^\d+\//, ""), id: drafts.get(file)?.data?.id ?? null, status: "gone", gone: true, openable: null }))];
}

// The listed file the gone file `cur` became: the one with its bytes, else the one with its id.
export function successor(entries, cur) {
  const live = entries.filter((e) => !e.gone && !e.openable && e.file !== cur.file);
  return live.find((e) => e.hash === cur.diskHash) || live.find((e) => e.id === cur.data?.id) || null;
}

// Move this tab's unsaved changes (and history note) of `from` to `to`.
export function moveDraft(from, to) {
  const draft = drafts.get(from);
  if (draft) drafts.put(to, draft);
  drafts.drop(from);
  const note = drafts.note(from);
  if (note) drafts.keepNote(to, note);
  drafts.keepNote(from, "");
}
