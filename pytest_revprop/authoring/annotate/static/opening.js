// Opening a case (from the list, the URL's hash, Back or Forward) with this tab's unsaved
// changes or a closed tab's, and following the case files on disk while one is open.

import { api } from "./api.js";
import { scheduleCheck } from "./checking.js";
import { $ } from "./dom.js";
import { drafts } from "./drafts.js";
import { assist, channel, examplesFor, isDirty, loadGold, persist, sidebar, state, statusOf, updateButtons } from "./page.js";
import { pickTurn, say, showBadge, showBroken, showCase, showGone } from "./show.js";
import { hashText, hashTurn } from "./sidebar.js";
import { moveDraft, withStranded } from "./stranded.js";
import { turnCount } from "./turns.js";
import { dropUndo } from "./undo.js";
import { clone, origins } from "./working.js";

// `turn`: the chain turn to show (default: the turn shown when the case is open, else 0); a
// turn the case does not have shows turn 0.
export async function openCase(file, { push = true, turn = null } = {}) {
  const token = ++state.opening;
  state.saveAfterCheck = false;
  document.body.dataset.checking = "true"; // until the case is shown and checked (or shown broken)
  const reply = await api.read(file);
  if (token !== state.opening) return;
  const shown = turn ?? (state.current?.file === file ? state.turn : 0);
  const hash = sidebar.urlFor(file, shown);
  if (location.hash !== hash) {
    if (push && location.hash) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
  }
  $("#placeholder").hidden = true;
  $("#case-view").hidden = false;
  const left = reply.status === 404 ? drafts.get(file) : null;
  if (!reply.ok && !left?.data) {
    state.current = null;
    showBroken(file, reply.body.error || "cannot be read");
    return;
  }
  // A file gone from disk whose unsaved changes this tab keeps opens from them.
  const entry = reply.ok ? reply.body : { path: file.replace(/^\d+\//, ""), hash: left.hash, data: left.base || left.data, error: null, rule: null, leaves: null };
  if (entry.openable) {
    state.current = null;
    showBroken(entry.path, entry.openable);
    return;
  }
  const cur = { file, path: entry.path, hash: entry.hash, diskHash: entry.hash, disk: entry.data, base: entry.data, data: clone(entry.data), error: entry.error, rule: entry.rule, leaves: entry.leaves };
  let draft = drafts.get(file);
  let notice = "";
  if (draft?.data) {
    notice = "Your unsaved changes are restored.";
  } else {
    draft = await drafts.adopt(file);
    if (draft) notice = "Unsaved changes a closed tab left are restored.";
  }
  const others = await drafts.show(file);
  if (token !== state.opening) return;
  channel?.postMessage({ opened: file, tab: drafts.tab() });
  cur.origin = origins(cur.data);
  if (draft?.data) {
    cur.data = draft.data;
    cur.hash = draft.hash;
    cur.base = draft.hash === entry.hash ? entry.data : draft.base || entry.data;
    cur.origin = origins(cur.data, draft.origin || false);
    cur.stale = draft.hash !== entry.hash; // its base version is gone: merged, never saved silently
    if (cur.stale) notice += " The file changed on disk since: saving shows the merge of your changes with the version on disk.";
  }
  if (others) notice += ` This case is also open in ${others === 1 ? "another tab" : `${others} other tabs`}: each tab keeps its own unsaved changes, and whichever saves second merges with the first.`;
  cur.gone = !reply.ok;
  if (sidebar.pinned !== file) sidebar.pinned = null;
  cur.program = entry.program || null;
  state.turn = shown < turnCount(cur.data) ? shown : 0;
  state.turnExamples = {};
  state.current = cur;
  state.check = null;
  dropUndo();
  showCase(notice.trim());
  if (state.turn) state.turnExamples[0] = examplesFor(file, cur.data, draft?.examples || []);
  loadGold(state.turn ? [] : draft?.examples || []);
  assist.reset();
  scheduleCheck(0);
  if (draft) sidebar.render();
}

export async function bringTo(file) {
  const cur = state.current;
  if (!cur || !file) return;
  persist();
  moveDraft(cur.file, file);
  sidebar.setCases(withStranded(sidebar.entries.filter((e) => !e.gone)));
  sidebar.select(file);
  await openCase(file);
}

// The case (and chain turn) the URL's hash names (on loading, a link, Back or Forward).
export function openFromHash() {
  const file = sidebar.fromHash(hashText());
  if (file) {
    if (file !== state.current?.file) {
      sidebar.select(file);
      openCase(file, { push: false, turn: hashTurn() });
    } else if (hashTurn() !== state.turn) {
      pickTurn(hashTurn());
      sidebar.keepInUrl(file, state.turn); // a turn it does not have: the one shown
    }
  } else if (location.hash.length > 1) {
    state.opening++;
    state.current = null;
    delete document.body.dataset.checking;
    $("#case-view").hidden = true;
    $("#placeholder").hidden = false;
    $("#placeholder").textContent = `No case ${hashText()} here. Pick a case on the left.`;
  }
}

// The case files changed on disk (a save elsewhere, a git checkout, a new draft, a fix).
export async function diskChanged() {
  const listing = await api.cases();
  if (!listing.ok) return;
  sidebar.setCases(withStranded(listing.body.cases));
  const cur = state.current;
  if (!cur) {
    if (sidebar.fromHash(hashText())) openFromHash();
    return;
  }
  const entry = sidebar.entries.find((e) => e.file === cur.file && !e.gone);
  if (Boolean(cur.gone) === !entry) {
    if (cur.gone) showGone(); // the file it became may have appeared
  } else if (!state.saving) {
    cur.gone = !entry;
    persist();
    showGone();
    updateButtons();
    if (!entry) sidebar.setCases(withStranded(listing.body.cases));
  }
  if (!entry || entry.hash === cur.diskHash || state.saving) return;
  const status = entry.status || "annotated";
  if (status !== statusOf(cur.disk)) sidebar.pinned = cur.file; // it stays in a status filter while open
  sidebar.render();
  if (isDirty()) {
    showBadge(status);
    say("The file changed on disk since you opened it: your next save merges your changes with it.");
  } else {
    const node = $("#save-state");
    const kept = /^Saved/.test(node.textContent) ? [node.textContent, node.className] : null;
    await openCase(cur.file, { push: false });
    say("The file changed on disk: this is its new version.");
    if (kept && state.current?.file === cur.file) [node.textContent, node.className] = kept; // your save still stands
  }
}
