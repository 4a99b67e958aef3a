// Unsaved work, kept in the browser (localStorage) so that it survives a reload, a crash or a
// restarted server. Each tab has its own id (kept in sessionStorage, which a reload keeps and
// another tab does not see) and keys its drafts by it, so two tabs editing one case never restore
// each other's edits. A tab holds a Web Lock named by its id while it lives; a draft whose tab
// holds none was left by a closed tab (or a crash) and is adopted by the next tab that opens the
// case. A tab also holds a lock per case it shows, so another tab can say the case is open
// elsewhere. A draft remembers the version it edits (hash and data): a save detects a conflict
// and merges against that version. Drafts belong to a folder, not to a port: a file is stored
// under the identity the server hands out for the real path of the folder it was given in
// (`folders`), so a draft made in one folder is never offered in another served on the same
// port later.

const PREFIX = "revprop-annotate:";
const TAB_KEY = `${PREFIX}tab`;
const DRAFT = `${PREFIX}tabdraft:`; // DRAFT + tab + ":" + file
const TAB_LOCK = "revprop-annotate-tab:";
const OPEN_LOCK = "revprop-annotate-open:"; // OPEN_LOCK + tab + ":" + file

const locks = typeof navigator !== "undefined" && navigator.locks ? navigator.locks : null;
let tabId = null;
let liveTabs = new Set();
let releaseOpen = null;
let folders = [];

// "0/a/b.json" -> "<identity of folder 0>/a/b.json"; null for a folder the server did not name.
function stable(file) {
  const cut = file.indexOf("/");
  const folder = folders[Number(file.slice(0, cut))];
  return typeof folder === "string" && folder ? `${folder}${file.slice(cut)}` : null;
}

function read(key) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

function newId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// Hold the lock `name` until `release` is called; resolves to false when another tab holds it.
function hold(name) {
  return new Promise((resolve) => {
    locks.request(name, { ifAvailable: true }, (lock) => {
      if (!lock) {
        resolve(false);
        return undefined;
      }
      return new Promise((release) => resolve(release));
    });
  });
}

async function refreshLive() {
  if (!locks) return;
  const { held } = await locks.query();
  liveTabs = new Set(held.map((l) => l.name).filter((n) => n.startsWith(TAB_LOCK)).map((n) => n.slice(TAB_LOCK.length)));
}

// Every stored draft: {key, tab, file (with its folder's identity)}.
function stored() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(DRAFT)) {
      const rest = key.slice(DRAFT.length);
      const cut = rest.indexOf(":");
      if (cut > 0) out.push({ key, tab: rest.slice(0, cut), file: rest.slice(cut + 1) });
    }
  }
  return out;
}

const own = (file) => `${DRAFT}${tabId}:${stable(file)}`;
const NOTE = `${PREFIX}note:`; // NOTE + tab + ":" + file: the history note typed, not saved yet

// "<identity>/a/b.json" -> "0/a/b.json" (the key in this session); null for another folder's.
function keyOf(stableFile) {
  const cut = stableFile.indexOf("/");
  const index = folders.indexOf(stableFile.slice(0, cut));
  return cut > 0 && index >= 0 ? `${index}${stableFile.slice(cut)}` : null;
}
const orphaned = (d) => locks !== null && d.tab !== tabId && !liveTabs.has(d.tab);

export const drafts = {
  // Claim this tab's id (a duplicated tab copies sessionStorage, and so the id: it takes a new one).
  async start(folderIds) {
    folders = Array.isArray(folderIds) ? folderIds : [];
    let id = sessionStorage.getItem(TAB_KEY);
    if (locks) {
      if (!id || !(await hold(TAB_LOCK + id))) {
        id = newId();
        await hold(TAB_LOCK + id);
      }
    } else if (!id) {
      id = newId();
    }
    sessionStorage.setItem(TAB_KEY, id);
    tabId = id;
    await refreshLive();
  },
  tab: () => tabId,
  get: (file) => (stable(file) ? read(own(file)) : null),
  put: (file, draft) => Boolean(stable(file)) && write(own(file), { ...draft, time: new Date().toISOString() }),
  drop: (file) => localStorage.removeItem(own(file)),
  // This tab's draft, or one a closed tab left (shown with a dot, adopted on opening).
  has: (file) => Boolean(stable(file)) && (localStorage.getItem(own(file)) !== null || stored().some((d) => d.file === stable(file) && orphaned(d))),
  // The newest draft of `file` a closed tab left, moved to this tab; null when there is none.
  async adopt(file) {
    await refreshLive();
    const left = stored()
      .filter((d) => stable(file) && d.file === stable(file) && orphaned(d))
      .map((d) => ({ ...d, draft: read(d.key) }))
      .filter((d) => d.draft?.data)
      .sort((a, b) => String(b.draft.time).localeCompare(String(a.draft.time)));
    if (!left.length) return null;
    const [newest] = left;
    write(own(file), newest.draft);
    localStorage.removeItem(newest.key);
    return newest.draft;
  },
  // Mark `file` as shown in this tab; resolves to the number of other live tabs showing it.
  async show(file) {
    if (releaseOpen) releaseOpen();
    releaseOpen = null;
    if (!locks || file === null) return 0;
    const name = `${OPEN_LOCK}${tabId}:${stable(file)}`;
    releaseOpen = await hold(name);
    const { held } = await locks.query();
    const tabs = held
      .map((l) => l.name)
      .filter((n) => n.startsWith(OPEN_LOCK) && n !== name && n.endsWith(`:${stable(file)}`))
      .map((n) => n.slice(OPEN_LOCK.length, n.length - stable(file).length - 1));
    return new Set(tabs.filter((t) => t !== tabId && !t.includes(":"))).size;
  },
  refresh: refreshLive,
  // The keys of every file this tab (or a closed one) has a draft of, in this session's folders.
  files: () => [...new Set(stored().filter((d) => d.tab === tabId || orphaned(d)).map((d) => keyOf(d.file)).filter(Boolean))],
  // The history note ("what you changed") typed for `file` and not saved yet.
  note: (file) => (stable(file) ? read(`${NOTE}${tabId}:${stable(file)}`) || "" : ""),
  keepNote: (file, text) => stable(file) && (text ? write(`${NOTE}${tabId}:${stable(file)}`, text) : localStorage.removeItem(`${NOTE}${tabId}:${stable(file)}`)),
  setting: (name, fallback = "") => read(`${PREFIX}setting:${name}`) ?? fallback,
  remember: (name, value) => write(`${PREFIX}setting:${name}`, value),
  // The values regex_match operations stand for, per case file: "path\npattern" -> example.
  examples: (file) => read(`${PREFIX}examples:${stable(file)}`) || {},
  keepExamples: (file, map) => (Object.keys(map).length ? write(`${PREFIX}examples:${stable(file)}`, map) : localStorage.removeItem(`${PREFIX}examples:${stable(file)}`)),
};
