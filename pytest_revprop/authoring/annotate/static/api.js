// The server's JSON API. Every call answers {ok, status, body}; nothing here throws on HTTP errors.
// While a call is out, and until the code awaiting it has run, the page is aria-busy: assistive
// technology (and a test) can tell a page still updating from one at rest.

let outstanding = 0;

function busy(change) {
  outstanding += change;
  if (outstanding > 0) document.body.setAttribute("aria-busy", "true");
  else document.body.removeAttribute("aria-busy");
}

async function call(method, url, payload) {
  busy(+1);
  try {
    return await send(method, url, payload);
  } finally {
    setTimeout(() => busy(-1), 0); // after the awaiting code's own continuation has run
  }
}

async function send(method, url, payload) {
  const init = { method, headers: { Accept: "application/json" } };
  if (payload !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(payload);
  }
  try {
    const response = await fetch(url, init);
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = { error: `the server answered HTTP ${response.status}` };
    }
    return { ok: response.ok, status: response.status, body };
  } catch (error) {
    return { ok: false, status: 0, body: { error: `the server cannot be reached (${error.message})` } };
  }
}

export const api = {
  session: () => call("GET", "/api/session"),
  cases: () => call("GET", "/api/cases"),
  stamp: () => call("GET", "/api/stamp"),
  read: (file) => call("GET", `/api/case?file=${encodeURIComponent(file)}`),
  check: (data, examples, turnExamples = {}) => call("POST", "/api/check", { data, examples, turn_examples: turnExamples }),
  save: (payload) => call("POST", "/api/save", payload),
  merge: (payload) => call("POST", "/api/merge", payload),
  propose: (file, data, model, seed, turn = 0) => call("POST", "/api/propose", { file, data, model, seed, turn }),
  ask: (payload) => call("POST", "/api/ask", payload),
};
