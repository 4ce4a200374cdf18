// The table page's toasts (one at a time, never over a control waiting for a tap) and its
// drawers and sheets, opened and closed.

import { faceOverlay } from "./layout.js";
import { S } from "./state.js";

export function $(id) { return document.getElementById(id); }

// ---------------------------------------------------------------- toasts and drawers

let toastTimer = null;
// Toasts never take taps (pointer-events: none): the buttons under them keep working. Nor
// do they cover a control waiting for its confirming tap (issue 25 item 8: "Tap again: Di
// concedes…" under "Cy lost"): a toast that would lie over one waits until it is answered
// or gone, and one showing when such a control appears under it steps aside and waits too.
const TOAST_SHOWS = 5000;
const CONFIRMS = "[data-armed], [data-confirm], [data-undo-confirm]";
const TOASTS = { waiting: [], watch: null, shown: null };
export function toast(text, kind, pid) {
  TOASTS.waiting.push({ text, kind, pid, ms: TOAST_SHOWS });
  if (TOASTS.waiting.length > 3) TOASTS.waiting.shift(); // the latest few, in order
  if (!TOASTS.shown || !TOASTS.shown.held) nextToast();
  watchConfirms();
}
function showToast(one) {
  const el = $("toast");
  faceOverlay(el, one.pid); // on the table device, turned to the player it is for (layout.js)
  el.textContent = one.text;
  el.className = "toast " + (one.kind || "");
  el.toggleAttribute("aria-hidden", one.kind === "loss"); // a loss is said once, by #announce (panel.js)
  return el;
}
// The next waiting toast, shown if it covers no control waiting for a tap.
function nextToast() {
  clearTimeout(toastTimer);
  const one = TOASTS.waiting.shift();
  if (!one) { $("toast").classList.add("hidden"); TOASTS.shown = null; return; }
  const el = showToast(one);
  if (coversConfirm(el)) { el.classList.add("hidden"); TOASTS.waiting.unshift(one); TOASTS.shown = { held: true }; return; }
  TOASTS.shown = { one, since: Date.now() };
  toastTimer = setTimeout(nextToast, one.ms);
}
function confirmsShown() { return [...document.querySelectorAll(CONFIRMS)].filter((c) => c.getClientRects().length > 0); }
function confirmShown() { return confirmsShown().length > 0; }
function coversConfirm(el) {
  if (el.classList.contains("hidden")) return false;
  const r = el.getBoundingClientRect();
  return confirmsShown().some((c) => {
    const q = c.getBoundingClientRect();
    return r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom;
  });
}
// While a toast shows or waits: a showing one over a control now waiting for a tap goes back
// to wait (for the rest of its time); a waiting one shows once nothing it would cover is left.
function watchConfirms() {
  if (TOASTS.watch) return;
  TOASTS.watch = setInterval(() => {
    const el = $("toast");
    const shown = TOASTS.shown;
    if (shown && shown.one && coversConfirm(el)) {
      clearTimeout(toastTimer);
      const rest = Math.max(1500, shown.one.ms - (Date.now() - shown.since));
      TOASTS.waiting.unshift(Object.assign({}, shown.one, { ms: rest }));
      el.classList.add("hidden");
      TOASTS.shown = { held: true };
    } else if (shown && shown.held && !confirmShown()) {
      nextToast();
    } else if (!shown && !TOASTS.waiting.length) {
      clearInterval(TOASTS.watch);
      TOASTS.watch = null;
    }
  }, 200);
}

export function open(id) { $(id).classList.remove("hidden"); }
export function close(id) { $(id).classList.add("hidden"); if (id === "sheet") S.sheetFor = null; }

document.addEventListener("click", (e) => {
  const target = e.target.closest("[data-close]");
  if (target) close(target.getAttribute("data-close"));
});
