// Instant taps: a tap on − or + changes the shown total at once, marked pending until the
// server's answer (the sender's own `event`, with the change's id). Rapid taps on one panel are
// one running bubble ("−7") and one change: the taps made within TAP_WINDOW of each other on
// the same player are coalesced into one lose_life/gain_life of their sum (its own id, given at
// the first tap), sent when the taps stop, so one Undo takes back what the bubble showed.
// Pressing and holding repeats, faster and faster. A refused change is taken off the shown
// total and the refusal shown with its rule (table.js says it). Pending changes are kept in
// localStorage (lifeledger-pending-<table>) and sent again, with the same ids, on the next
// welcome: after a reload, or when the connection returns after taps made offline; the server
// applies each id once. Loaded before table.js; uses its globals (S, MODE, KEY, send, wire, ...)
// only when called.

import { formatNumber, t } from "./i18n.js";
import { h, isZero, newId, parseJSON, toJSON } from "./common.js";
import { textWidth } from "./layout.js";
import { foreseeSoon, isForeseen } from "./foresee.js";
import { choiceOpen, CHOICES } from "./choices.js";
import { KEY, MODE, ON_DEVICE, S, SLOW_ACK } from "./state.js";
import { toast } from "./toasts.js";
import { connect, drop, expectAnswer, send, wire } from "./connection.js";
import { renderConn } from "./render.js";
import { renderUndo } from "./history.js";
import { showPicker } from "./sheets.js";

const TAP_WINDOW = 700; // a run of taps is sent this long after its last tap
const BUBBLE_SHOW = 2500; // the bubble starts fading this long after the last tap...
const BUBBLE_FADE = 600; // ...and is gone this much later
const HOLD_DELAY = 450; // a press held this long starts repeating,
const HOLD_FIRST = 220; // first every 220 ms,
const HOLD_FASTEST = 60; // then each step 15 % sooner, down to every 60 ms
const HOLD_SPEEDUP = 0.85;
const HOLD_CLICK = 600; // the click that ends a repeating press is not one more tap
// The actions whose effect on a life total is shown before the server's answer.
const LIFE_ACTIONS = new Set(["lose_life", "gain_life", "pay_life"]);
const OFFLINE_PREFIX = "lifeledger-offline-";

export const TAPS = { run: null, bubbles: new Map(), hold: null, heldUntil: 0, offlineTimer: null, keptNoMore: false, choices: new Map() };

// A counter moved by changes not yet confirmed is underlined with dots, as a total is (set
// through the style object: the page's policy allows no inline style sheet).
function markCount(el, pending) {
  el.classList.toggle("pending", pending);
  Object.assign(el.style, pending
    ? { textDecoration: "underline dotted", textDecorationThickness: "2px", textUnderlineOffset: ".15em" }
    : { textDecoration: "", textDecorationThickness: "", textUnderlineOffset: "" });
}

// ---------------------------------------------------------------- pending changes, kept

// S.pending: the changes sent (or about to be) and not yet answered, by id, in the order they
// were made. Every change to it is written to localStorage and shown on the panels.
class PendingMap extends Map {
  constructor(storageKey) {
    super();
    this.storageKey = storageKey;
    this.kept = true; // whether the last change was written to localStorage
    if (!storageKey) return;
    let kept;
    try { kept = parseJSON(localStorage.getItem(storageKey) || "[]"); } catch { kept = []; }
    for (const m of Array.isArray(kept) ? kept : []) {
      if (!m || typeof m !== "object" || typeof m.id !== "string" || typeof m.type !== "string") continue;
      if (m.held && m.action && isZero(m.action.amount)) continue; // taps that came to nothing
      delete m.held; // a run the last page left open is closed: sent at the next welcome
      super.set(m.id, m);
    }
  }
  set(id, msg) { super.set(id, msg); this.changed(); return this; }
  // This page writes the queue no more: another page of the device took the table, and the
  // device's one queue for it is that page's now (connection.js handOver).
  stopKeeping() { this.storageKey = null; }
  delete(id) { const had = super.delete(id); if (had) this.changed(); return had; }
  clear() { super.clear(); this.changed(); }
  changed() { this.save(); queueMicrotask(showTotals); foreseeSoon(); } // foresee.js
  // Whether the changes are kept; if not (storage full or refused) they stay in memory, and a
  // change made with no connection is refused where it was made (notKept).
  save() {
    if (!this.storageKey) return true;
    try {
      if (this.size) localStorage.setItem(this.storageKey, toJSON([...this.values()]));
      else localStorage.removeItem(this.storageKey);
      this.kept = true;
    } catch { this.kept = false; }
    return this.kept;
  }
}

// The page's pending changes, kept per table (only a player's page sends changes).
export function pendingMap(table) { return new PendingMap(table ? "lifeledger-pending-" + table : null); }

// ---------------------------------------------------------------- what the panels show

// The change to a life total a pending action makes ({player, delta}), or null. Damage to a
// player (a commander's chip) is foreseen as that much life lost (120.3a) only when it is plain
// (no infect, no lifelink) and no card's effect is in play that could change it (prevention,
// replacement: S.effects); otherwise its total waits for the server.
function lifeDelta(a) {
  if (!a) return null;
  const n = a.amount;
  if (typeof n !== "number" && typeof n !== "bigint") return null;
  if (a.do === "damage") {
    const plain = typeof a.to === "string" && !a.infect && !a.lifelink && !(S.effects || []).length;
    return plain ? { player: a.to, delta: -n } : null;
  }
  if (!LIFE_ACTIONS.has(a.do) || typeof a.player !== "string") return null;
  return { player: a.player, delta: a.do === "gain_life" ? n : -n };
}

// The combat damage from commander ``source`` to ``to`` still pending (903.10a): a chip shows
// it at once, as the total shows life.
export function pendingCommanderDamage(to, source) {
  let sum = 0;
  for (const m of S.pending.values()) {
    const a = m.type === "action" ? m.action : null;
    if (a && a.do === "damage" && a.combat && a.to === to && a.source === source && lifeDelta(a) && !isForeseen(m.id)) sum = addExact(sum, a.amount);
  }
  return sum;
}

// a + b, exact: a BigInt when either is one (totals may be huge, 107.1) and the sum isn't safe.
export function addExact(a, b) {
  if (typeof a !== "bigint" && typeof b !== "bigint") return a + b;
  const sum = BigInt(a) + BigInt(b);
  return Number.isSafeInteger(Number(sum)) ? Number(sum) : sum;
}

// The unit (a team sharing its life, 810.9a, or a player) a player's or team's id belongs to:
// its id, its life total and the ids whose changes move that total.
function lifeUnit(id) {
  if (!S.state) return null;
  const p = S.state.players.find((x) => x.id === id);
  const teamId = p ? p.team : id;
  const team = (S.state.teams || []).find((t) => t.id === teamId && t.life !== null && t.life !== undefined);
  if (team) return { id: team.id, life: team.life, members: new Set([team.id, ...team.players]) };
  if (p) return { id: p.id, life: p.life, members: new Set([p.id]) };
  return null;
}

function pendingFor(members) {
  let sum = 0;
  let any = false;
  for (const m of S.pending.values()) {
    const d = m.type === "action" ? lifeDelta(m.action) : null;
    // A change the phone's engine foresaw is in the foreseen total already (foresee.js).
    if (d && members.has(d.player)) { if (!isForeseen(m.id)) sum = addExact(sum, d.delta); any = true; }
  }
  return { sum, any };
}

// The change to a counter a pending action makes ({player, kind, delta}): a plain add_counters
// or remove_counters of a whole number (issue 17 item 15: poison shows at once, as life does).
function counterDelta(a) {
  if (!a || (a.do !== "add_counters" && a.do !== "remove_counters")) return null;
  if (typeof a.player !== "string" || typeof a.kind !== "string") return null;
  const n = a.amount;
  if (typeof n !== "number" && typeof n !== "bigint") return null;
  return { player: a.player, kind: a.kind, delta: a.do === "add_counters" ? n : -n };
}

// A counter as a panel shows it ({n, pending}): the server's ``count`` of ``kind`` on
// ``players`` (a team's shared poison: its heads', 810.10), moved by the pending changes; never
// below 0 (the engine removes no more counters than there are, 122).
export function shownCount(count, players, kind) {
  let sum = 0;
  let any = false;
  for (const m of S.pending.values()) {
    const d = m.type === "action" ? counterDelta(m.action) : null;
    if (d && d.kind === kind && players.includes(d.player)) { if (!isForeseen(m.id)) sum = addExact(sum, d.delta); any = true; }
  }
  if (!any) return { n: count, pending: false };
  const n = addExact(count, sum);
  return { n: n < 0 ? 0 : n, pending: true };
}

// A count kept as text (data-count): a BigInt past 2^53 (107.1), else a number.
function countOf(text) {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

// The life total a panel shows: the server's, moved by the pending changes (a team: its heads').
export function shownLife(unitId) {
  const u = lifeUnit(unitId);
  if (!u || u.life === null || u.life === undefined) return u ? u.life : null;
  return addExact(u.life, pendingFor(u.members).sum);
}

// Whether the panel's total includes changes the server hasn't confirmed yet.
export function pendingMark(unitId) {
  const u = lifeUnit(unitId);
  return !!u && pendingFor(u.members).any;
}

// The running bubble of a panel ("−7"), while it shows: the same element across renders.
export function tapBubble(unitId) {
  const b = TAPS.bubbles.get(unitId);
  return b ? b.el : null;
}

function panelOf(unitId) {
  return document.querySelector(`#panels [data-unit="${CSS.escape(unitId)}"]`);
}

// The totals, pending marks and bubbles brought up to date without drawing the panels again.
export function showTotals() {
  if (!S.state || MODE === "replay") return;
  for (const panel of document.querySelectorAll("#panels [data-unit]")) {
    const id = panel.getAttribute("data-unit");
    const el = panel.querySelector(".life");
    if (!el) continue;
    const shown = shownLife(id);
    if (shown !== null && shown !== undefined) el.textContent = String(shown);
    el.classList.toggle("pending", pendingMark(id));
    const b = TAPS.bubbles.get(id);
    const row = panel.querySelector(".life-row");
    if (b && row && b.el.parentNode !== row) row.append(b.el);
    if (b && row) placeBubble(b.el, row);
    // Counters (poison, pinned kinds) move at once too, pending until the server answers.
    for (const g of panel.querySelectorAll(".ctr[data-counter][data-count]")) {
      const s = shownCount(countOf(g.dataset.count), (g.dataset.players || "").split(" "), g.dataset.counter);
      const n = g.querySelector(".ctr-n");
      if (n) { n.textContent = String(s.n); markCount(n, s.pending); }
      const minus = g.querySelector(".ctr-minus");
      if (minus) minus.disabled = isZero(s.n);
    }
  }
  renderUndo(); // table.js: the button names what it takes back (a run of taps, or a change)
}

function bump(unitId, delta) {
  let b = TAPS.bubbles.get(unitId);
  if (!b) {
    b = { net: 0, el: h("span", { class: "bubble", "aria-hidden": "true" }), fade: null, gone: null };
    TAPS.bubbles.set(unitId, b);
  }
  b.net += delta;
  b.el.textContent = b.net > 0 ? `+${b.net}` : b.net < 0 ? `\u2212${-b.net}` : "\u00b10";
  b.el.classList.remove("fading");
  b.el.classList.toggle("up", b.net > 0);
  b.el.classList.toggle("down", b.net < 0);
  const row = b.el.parentNode;
  if (row) placeBubble(b.el, row);
  clearTimeout(b.fade);
  clearTimeout(b.gone);
  b.fade = setTimeout(() => {
    b.el.classList.add("fading");
    b.gone = setTimeout(() => dropBubble(unitId), BUBBLE_FADE);
  }, BUBBLE_SHOW);
}

// The bubble beside the total's digits, never over them (issue 25 item 8): level with their
// top, right of them where there is room (the total is centred: the same room on its left),
// else above them. Placed in the row's own coordinates: a turned panel's too. It is measured
// and placed just before the next frame is drawn, once whatever the taps changed by then:
// measured in the tap's own handler, it would make the browser lay the page out twice.
const toPlace = new Map();
function placeBubble(el, row) {
  if (!toPlace.size) requestAnimationFrame(() => {
    const now = [...toPlace];
    toPlace.clear(); // first: one that fails to place leaves the next taps' bubbles placed
    for (const [bubble, itsRow] of now) placeBubbleNow(bubble, itsRow);
  });
  toPlace.set(el, row);
}
function placeBubbleNow(el, row) {
  const life = row.querySelector(".life");
  if (!life || !el.isConnected) return;
  const size = parseFloat(life.style.fontSize || getComputedStyle(life).fontSize) || 0;
  const digits = life.classList.contains("negative") ? life.offsetWidth : textWidth(life, life.textContent.trim() || "0", size);
  const w = row.clientWidth, hgt = row.clientHeight;
  const bw = el.offsetWidth, bh = el.offsetHeight;
  const top = hgt / 2 - size * 0.42; // the digits' top (their cap height is about 0.7 of the size)
  el.style.transform = "none";
  if (w - (w + digits) / 2 - 4 >= bw) Object.assign(el.style, { left: `${(w + digits) / 2 + 4}px`, top: `${Math.max(0, top)}px` });
  else Object.assign(el.style, { left: `${(w - bw) / 2}px`, top: `${hgt / 2 - size * 0.7 - bh}px` }); // over their line
}

export function dropBubble(unitId) {
  const b = TAPS.bubbles.get(unitId);
  if (!b) return;
  clearTimeout(b.fade);
  clearTimeout(b.gone);
  b.el.remove();
  TAPS.bubbles.delete(unitId);
}

// ---------------------------------------------------------------- taps and runs

// A short buzz where the phone can (navigator.vibrate), unless reduced motion is asked for.
function buzz(pattern) {
  if (typeof navigator.vibrate !== "function") return;
  if (window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  try { navigator.vibrate(pattern || 8); } catch { /* not allowed yet: no buzz */ }
}

// One tap: ``delta`` (±1, ±5) to ``player``'s life, shown at once; the run it joins is sent
// TAP_WINDOW after its last tap (a tap on another player sends it first: changes keep their
// order).
function tapLife(player, delta, unitId) {
  let run = TAPS.run;
  if (run && run.player !== player) { closeRun(); run = null; }
  if (!run) {
    const msg = { type: "action", id: newId(), action: { do: "lose_life", player, amount: 0 }, held: true };
    run = { player, unit: unitId, net: 0, msg, timer: null };
    TAPS.run = run;
    S.pending.set(msg.id, msg);
  }
  run.net += delta;
  run.msg.action = { do: run.net < 0 ? "lose_life" : "gain_life", player, amount: Math.abs(run.net) };
  if (!S.pending.save() && !S.connected) { notKept(run, delta); return; }
  clearTimeout(run.timer);
  run.timer = setTimeout(closeRun, TAP_WINDOW);
  bump(unitId, delta);
  showTotals();
  buzz();
}

// The open run, sent now (nothing, if its taps came to 0). table.js calls it before any other
// change, so that the server gets the changes in the order they were made.
export function closeRun() {
  const run = TAPS.run;
  if (!run) return;
  TAPS.run = null;
  clearTimeout(run.timer);
  const msg = run.msg;
  if (!S.pending.has(msg.id)) return;
  if (run.net === 0) { S.pending.delete(msg.id); return; }
  delete msg.held;
  msg.sent = Date.now();
  S.pending.save();
  send(wire(msg));
  expectAnswer(); // no answer in time shows a dead connection
  renderConn();
  setTimeout(renderConn, SLOW_ACK + 50);
}

// Undo while a run is still open takes its taps back before they are sent; true if it did.
export function cancelRun() {
  const run = TAPS.run;
  if (!run) return false;
  TAPS.run = null;
  clearTimeout(run.timer);
  S.pending.delete(run.msg.id);
  dropBubble(run.unit);
  toast(t("Undone: {what} (not sent)", { what: `${S.names.of(run.player)} ${run.net < 0 ? "\u2212" : "+"}${formatNumber(Math.abs(run.net))}` }));
  return true;
}

// The server refused a change (``msg``, an error with the change's id): if it moved a shown
// total, the panel shakes (its total returns as the change leaves S.pending).
export function tapRefused(msg) {
  const m = msg.id ? S.pending.get(msg.id) : null;
  if (!m || msg.error === "already-undone") return;
  const d = m.type === "action" ? lifeDelta(m.action) || counterDelta(m.action) : null;
  const u = d ? lifeUnit(d.player) : null;
  if (!u) return;
  if (!("kind" in d)) dropBubble(u.id);
  shake(u.id);
}

function shake(unitId) {
  const panel = panelOf(unitId);
  if (panel) {
    panel.classList.remove("refused-flash");
    void panel.offsetWidth; // restart the animation
    panel.classList.add("refused-flash");
  }
  buzz([40, 60, 40]);
}

// What a change this device can't keep, with no connection to take it, is refused with.
export function notKeptText() {
  return t("Not kept: this browser can't store the change (storage is full or off) and there is no connection to send it. Nothing changed.");
}

// A tap that can't be kept (storage full or refused) while no connection takes it: refused
// where it was made (its panel shakes, a toast says why), never held in memory only to be lost
// by a reload (issue 25 item 1). The run's earlier taps stay as they were kept.
function notKept(run, delta) {
  run.net -= delta;
  if (run.net === 0) {
    TAPS.run = null;
    clearTimeout(run.timer);
    S.pending.delete(run.msg.id);
    dropBubble(run.unit);
  } else {
    run.msg.action = { do: run.net < 0 ? "lose_life" : "gain_life", player: run.player, amount: Math.abs(run.net) };
  }
  showTotals();
  shake(run.unit);
  toast(notKeptText(), "bad", run.player);
}

// The server turned a change down "choice-needed" (603.3b, 603.3d): it stays pending, its
// total shown, waiting for that player's choice (true); resendAfterChoice sends it again, with
// its id, once the open choices changed and that one is no longer open (choices.js).
export function keepForChoice(msg) {
  if (msg.error !== "choice-needed" || !msg.id || !msg.choice || !S.pending.has(msg.id)) return false;
  TAPS.choices.set(msg.id, { choice: msg.choice, at: CHOICES.version });
  return true;
}

export function resendAfterChoice() {
  for (const [id, w] of TAPS.choices) {
    const m = S.pending.get(id);
    if (!m) { TAPS.choices.delete(id); continue; }
    if (CHOICES.version === w.at || choiceOpen(w.choice)) continue;
    TAPS.choices.delete(id);
    m.sent = Date.now();
    send(wire(m));
  }
}

// The changes waiting for a choice, taken back on this device (the chooser may never choose):
// their totals return to the server's, and they are never sent again.
export function cancelChoiceWaits() {
  for (const id of TAPS.choices.keys()) S.pending.delete(id);
  TAPS.choices.clear();
  renderConn();
}

// What a pending change waits for: a player's choice ("Ana's choice"), or null.
export function waitsForChoice(id) {
  const w = TAPS.choices.get(id);
  return w ? w.choice.player : null;
}

// The tap a button (data-tap="life" data-player=P data-delta=±N) makes, if any.
function tapOf(btn) {
  if (!btn || btn.disabled || btn.getAttribute("data-tap") !== "life" || MODE !== "play") return null;
  const player = btn.getAttribute("data-player");
  const delta = Number(btn.getAttribute("data-delta"));
  if (!player || !Number.isSafeInteger(delta) || delta === 0) return null;
  const panel = btn.closest("[data-unit]");
  return { player, delta, unit: panel ? panel.getAttribute("data-unit") : player };
}

function tapButton(btn) {
  const tap = tapOf(btn);
  if (!tap) return;
  if (!S.seat) { showPicker(); return; }
  tapLife(tap.player, tap.delta, tap.unit);
}

// Press and hold: repeats after HOLD_DELAY, faster and faster, until the press ends.
function repeat(hold, every) {
  if (TAPS.hold !== hold) return;
  hold.repeated += 1;
  tapLife(hold.tap.player, hold.tap.delta, hold.tap.unit);
  hold.timer = setTimeout(() => repeat(hold, Math.max(HOLD_FASTEST, every * HOLD_SPEEDUP)), every);
}

function stopHold() {
  const hold = TAPS.hold;
  if (!hold) return;
  TAPS.hold = null;
  clearTimeout(hold.timer);
  if (hold.repeated) TAPS.heldUntil = Date.now() + HOLD_CLICK;
}

function tapTarget(e) { return e.target && e.target.closest ? e.target.closest("[data-tap]") : null; }

document.addEventListener("pointerdown", (e) => {
  if (e.button !== 0) return;
  const btn = tapTarget(e);
  const tap = tapOf(btn);
  if (!tap || !S.seat) return;
  stopHold();
  const hold = { btn, tap, repeated: 0, timer: null };
  TAPS.hold = hold;
  hold.timer = setTimeout(() => repeat(hold, HOLD_FIRST), HOLD_DELAY);
});
for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, stopHold);
document.addEventListener("pointerout", (e) => {
  const hold = TAPS.hold;
  if (hold && e.target === hold.btn && !(e.relatedTarget && hold.btn.contains(e.relatedTarget))) stopHold();
});
window.addEventListener("blur", stopHold);
// A click is one tap (a keyboard's too); the click that ends a repeating press is not.
document.addEventListener("click", (e) => {
  const btn = tapTarget(e);
  if (!btn) return;
  if (Date.now() < TAPS.heldUntil) { TAPS.heldUntil = 0; return; }
  tapButton(btn);
});
// A long press is a repeat, not the phone's menu.
document.addEventListener("contextmenu", (e) => { if (tapTarget(e)) e.preventDefault(); });
// Leaving the page sends the open run (if it can't, the next page sends it: it is kept).
window.addEventListener("pagehide", closeRun);

// ---------------------------------------------------------------- offline

// The connection follows the browser's: offline, the socket is given up at once (taps wait,
// kept); back online, the page connects at once rather than at its next retry.
// A device table needs no connection: its engine is on the phone (device.js).
window.addEventListener("offline", () => { if (S.ws && !ON_DEVICE) drop(S.ws); });
window.addEventListener("online", () => {
  if (MODE === "replay" || !S.info || S.connected || S.unavailable) return;
  if (S.ws) return; // connecting already
  clearTimeout(S.retryTimer);
  S.backoff = 500;
  connect();
});

function offlineKey() { return `${OFFLINE_PREFIX}${MODE}-${KEY}`; }

// The table as last seen (setup, state, score), kept for opening it with no network.
// Called after each render; written at most once a second, and as the page is left (a reload
// right after a change opens the table as it was then: issue 25 item 1).
export function keepForOffline() {
  if (MODE === "replay" || !S.state || !S.info || TAPS.offlineTimer || TAPS.keptNoMore) return;
  TAPS.offlineTimer = setTimeout(writeOffline, 1000);
}

// The table has left this page: shared to a server (share.js), no copy of it is kept here from
// now on, not by a write already timed nor as the page is left, which would list it again among
// the recent tables (index.js) as a table the device no longer holds; or taken by another page
// of the device (connection.js handOver), whose copy is newer.
export function keepNoMore() {
  TAPS.keptNoMore = true;
  clearTimeout(TAPS.offlineTimer);
  TAPS.offlineTimer = null;
}

function writeOffline() {
  clearTimeout(TAPS.offlineTimer);
  TAPS.offlineTimer = null;
  try {
    // The server's state (not a foreseen one: foresee.js), and the event it is as of.
    localStorage.setItem(offlineKey(), toJSON({ info: S.info, state: S.truth, seq: S.lastSeq || S.keptSeq || 0, score: S.score, effects: S.effects, kept: Date.now() }));
  } catch { /* storage full or refused: no offline copy */ }
}
window.addEventListener("pagehide", () => { if (TAPS.offlineTimer) writeOffline(); });

// With no network, the table as it was last seen here (true), to show and tap on until the
// connection returns; the welcome then replaces it all (since 0: the whole state).
export function restoreOffline() {
  let kept;
  try { kept = parseJSON(localStorage.getItem(offlineKey()) || "null"); } catch { kept = null; }
  if (!kept || !kept.info || !kept.info.header || !kept.state || !Array.isArray(kept.state.players)) return false;
  S.info = kept.info;
  S.state = kept.state;
  S.score = kept.score || null;
  S.effects = kept.effects || [];
  S.lastSeq = 0;
  S.keptSeq = typeof kept.seq === "number" ? kept.seq : null; // foresee.js's foresightBase
  S.canUndo = false;
  return true;
}
