// Noticing changes on disk without a reload: every few seconds (while the page is visible) the
// page asks the server for a stamp of the case files (their names, sizes and times: cheap to
// make), and calls `onChange` when it differs from the last one, and `onAnswer` whenever the
// server answers (after an outage: the page checks its work again).

export function watchDisk(api, onChange, onAnswer = () => {}, everyMs = 2000) {
  let last = null;
  let busy = false;
  const tick = async () => {
    if (busy || document.visibilityState === "hidden") return;
    busy = true;
    try {
      const reply = await api.stamp();
      if (reply.ok) onAnswer();
      if (reply.ok && reply.body.stamp !== last) {
        const first = last === null;
        last = reply.body.stamp;
        if (!first) await onChange();
      }
    } finally {
      busy = false;
    }
  };
  tick();
  return setInterval(tick, everyMs);
}
