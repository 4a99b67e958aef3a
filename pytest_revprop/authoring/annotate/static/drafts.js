// Unsaved work, kept in the browser (localStorage) so that it survives a reload or a crash.
// A draft remembers the hash of the file version it edits, so a save still detects conflicts.

const PREFIX = "revprop-annotate:";

function read(key) {
  try {
    const text = localStorage.getItem(PREFIX + key);
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

export const drafts = {
  get: (file) => read(`draft:${file}`),
  put: (file, hash, data, examples) =>
    write(`draft:${file}`, { hash, data, examples, time: new Date().toISOString() }),
  drop: (file) => localStorage.removeItem(`${PREFIX}draft:${file}`),
  has: (file) => localStorage.getItem(`${PREFIX}draft:${file}`) !== null,
  setting: (name, fallback = "") => read(`setting:${name}`) ?? fallback,
  remember: (name, value) => write(`setting:${name}`, value),
};
