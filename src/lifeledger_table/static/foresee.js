// Offline in a shared table (issue 27 item 4; docs/table.md, "Device tables", "What offline
// means"): a phone that loses the server decides its queued changes with its own engine and
// shows the rules' result at once, marked as not yet sent. The server stays the authority:
// the queue is sent as before (taps.js), and what the server decides replaces the foresight.
//
// - The game. A served table's page fetches the table's current game (GET
//   /api/tables/{table}/game: {seq, game}, the engine's own data as of event seq) after its
//   welcome and again FORESEE_AFTER after the table last changed (never twice for one change),
//   and keeps the newest in IndexedDB ("lifeledger-games"), so a reload with no network has it.
// - The foresight. While not connected, with changes queued and a kept game as of the event
//   the page shows, the engine worker (device.js's Engine: lifeledger_table.device.foresee)
//   applies the queue to that game, in order, again whenever the queue changes. The panels then
//   show the foreseen state (S.state is it: table.js), with the queued changes the foresight
//   covers counted in it once (taps.js's shownLife adds only the others); the strip says a
//   foreseen loss or win "waiting to send", and a change the rules refuse "would be refused"
//   (it stays queued: another phone's change may come first, and the server decides).
// - Back online, a queued change the server refuses is named (its description) with the
//   server's reason and rule; the strip keeps it until dismissed.
// Loaded after taps.js and before table.js; uses their globals only when called.

import { said, t } from "./i18n.js";
import { describe, describeResult, isZero, parseJSON, toJSON } from "./common.js";
import { Engine, engineAnswer } from "./device.js";
import { KEY, MODE, ON_DEVICE, S } from "./state.js";
import { toast } from "./toasts.js";
import { wire } from "./connection.js";
import { render, renderConn } from "./render.js";

const FORESEE_AFTER = 2000; // the game is fetched this long after the table's last change
const FORESEE_RETRY = 1500; // and again this long after a "busy" answer

export const FORESEE = {
  game: null, // {seq, text}: the newest game kept (fetched, or read from IndexedDB)
  result: null, // the last foresight: {seq, state, byId, results, stopped}
  timer: null, fetched: -1, asking: false, run: 0, soon: false,
  refusedSent: [], // what the server refused of the queue when the connection returned
};

// Foresight is for a served table's player page: a device table's engine decides at once.
function foresightWanted() { return MODE === "play" && !ON_DEVICE && !!KEY; }

// ---------------------------------------------------------------- the game, kept

const GameStore = {
  db: null,
  open() {
    if (!this.db) {
      this.db = new Promise((resolve, reject) => {
        const req = indexedDB.open("lifeledger-games", 1);
        req.onupgradeneeded = () => req.result.createObjectStore("games", { keyPath: "table" });
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      this.db.catch(() => { this.db = null; });
    }
    return this.db;
  },
  async put(table, seq, text) {
    const db = await this.open();
    await new Promise((resolve, reject) => {
      const tx = db.transaction("games", "readwrite");
      tx.objectStore("games").put({ table, seq, text, kept: Date.now() });
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  },
  async get(table) {
    const db = await this.open();
    return new Promise((resolve, reject) => {
      const got = db.transaction("games", "readonly").objectStore("games").get(table);
      got.onsuccess = () => resolve(got.result || null);
      got.onerror = () => reject(got.error);
    });
  },
};

// A game newer than the one held (or the first) is held, and kept for a reload offline.
function holdGame(seq, text, keep) {
  if (typeof seq !== "number" || (FORESEE.game && FORESEE.game.seq >= seq)) return;
  FORESEE.game = { seq, text };
  if (keep) GameStore.put(KEY, seq, text).catch(() => { /* storage refused: this page still has it */ });
  foreseeSoon();
}

// The game kept on this device for the table, if any (at the page's start).
export function loadKeptGame() {
  if (!foresightWanted() || typeof indexedDB === "undefined") return;
  GameStore.get(KEY).then((row) => { if (row) holdGame(row.seq, row.text, false); }, () => {});
}

// After the welcome: the game as of now, unless this page holds it already.
export function gameAfterWelcome() {
  FORESEE.result = null;
  if (!foresightWanted()) return;
  clearTimeout(FORESEE.timer);
  FORESEE.timer = setTimeout(fetchGame, 0);
}

// After a change of the table: the game FORESEE_AFTER after the last one (debounced).
export function gameSoon() {
  if (!foresightWanted()) return;
  clearTimeout(FORESEE.timer);
  FORESEE.timer = setTimeout(fetchGame, FORESEE_AFTER);
}

async function fetchGame() {
  const seq = S.lastSeq;
  if (!S.connected || FORESEE.asking || seq === FORESEE.fetched || (FORESEE.game && FORESEE.game.seq >= seq)) return;
  FORESEE.asking = true;
  FORESEE.fetched = seq; // once per change
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(KEY)}/game`, { cache: "no-store" });
    if (res.status === 503) { // a change being written: asked again shortly
      FORESEE.fetched = -1;
      clearTimeout(FORESEE.timer);
      FORESEE.timer = setTimeout(fetchGame, FORESEE_RETRY);
      return;
    }
    if (!res.ok) return;
    const text = await res.text();
    holdGame(parseJSON(text).seq, text, true);
  } catch {
    FORESEE.fetched = -1; // no answer: the next change asks again
  } finally {
    FORESEE.asking = false;
  }
}

// ---------------------------------------------------------------- the foresight

// The event the page's state is as of: the last one seen, or (opened with no network) the
// one the table kept for offline was as of.
function foresightBase() { return S.lastSeq || S.keptSeq || 0; }

// The queued changes foresight works on (a run of taps that came to nothing is none).
export function foreseenQueue() {
  return [...S.pending.values()].filter((m) => !(m.held && m.action && isZero(m.action.amount)));
}

// The foresight in force: not connected, changes queued, worked out from the game as of the
// event the page shows. Anything else shows the server's state, with the plain deltas.
export function activeForesight() {
  const f = FORESEE.result;
  if (!f || S.connected || !S.pending.size || f.seq !== foresightBase()) return null;
  return f;
}

// The foreseen state, or null (table.js's S.state reads it).
export function foreseenState() { const f = activeForesight(); return f ? f.state : null; }

// Whether queued change ``id`` is counted in the foreseen state (applied, or left out as the
// rules refuse it): its delta is not added again on the panels (taps.js).
export function isForeseen(id) { const f = activeForesight(); return !!f && f.byId.has(id); }

// Worked out again once, after whatever changed the queue or the connection this turn.
export function foreseeSoon() {
  if (FORESEE.soon || !foresightWanted()) return;
  FORESEE.soon = true;
  queueMicrotask(() => { FORESEE.soon = false; runForesight(); });
}

async function runForesight() {
  const queue = foreseenQueue();
  const game = FORESEE.game;
  const run = ++FORESEE.run;
  if (S.connected || !queue.length || !game || game.seq !== foresightBase()) {
    if (FORESEE.result) { FORESEE.result = null; foresightShown(); }
    return;
  }
  let out;
  try {
    out = engineAnswer(await Engine.callIn("foresee", "foresee", game.text, toJSON(queue.map(wire))));
  } catch {
    return; // the engine can't run here: the plain deltas stay
  }
  if (run !== FORESEE.run) return; // the queue changed meanwhile: a newer run answers
  const stoppedAt = out.stopped ? S.pending.get(out.stopped) : null;
  // An undo (or a reset, a new game...) waits for the server, and what it takes back may be
  // any of the changes before it: with one queued, nothing is foreseen (the plain deltas show).
  FORESEE.result = stoppedAt && stoppedAt.type !== "action" ? null : {
    seq: out.seq, state: out.state, results: out.results, stopped: out.stopped,
    byId: new Map(out.results.map((r) => [r.id, r])),
  };
  foresightShown();
}

function foresightShown() { if (S.info && S.truth) render(); }

// What the strip says of the foresight: each foreseen result of the game (a loss, a win, a
// draw), waiting to send, and each queued change the rules would refuse.
export function foresightParts() {
  const f = activeForesight();
  const parts = [];
  if (!f) return parts;
  for (const r of f.results) {
    const m = S.pending.get(r.id);
    if (r.refused) {
      const what = m && m.action ? describe(m.action, S.names) : "";
      parts.push(t("{what} would be refused: {why}", { what, why: said(r.refused, S.names) }) + (r.refused.rule ? ` — ${r.refused.rule}` : ""));
      continue;
    }
    const ended = (r.changes || []).filter((c) => c.what === "status" && c.to && c.to !== "playing");
    const teams = new Map(ended.filter((c) => c.team).map((c) => [c.team, c.to]));
    for (const c of ended) {
      const team = c.team ? null : (S.truth.players.find((p) => p.id === c.player) || {}).team;
      if (team && teams.get(team) === c.to) continue; // a team's result is said once
      const what = `${S.names.of(c.team || c.player)} ${describeResult(c.to, c.reason, c.rule)}`;
      parts.push(t("{what}, waiting to send", { what }));
    }
  }
  return parts;
}

// ---------------------------------------------------------------- back online

// A change of the queue the server refused once the connection returned: named, with the
// server's reason and rule, in a toast and on the strip until dismissed. True if it was one.
export function queuedRefused(msg, sent) {
  if (!foresightWanted() || !sent || !sent.queued || msg.error !== "refused") return false;
  const what = sent.action ? describe(sent.action, S.names) : sent.type;
  const text = t("Refused when sent: {what} — {why}", { what, why: said(msg, S.names) }) + (msg.rule ? ` — ${msg.rule}` : "");
  FORESEE.refusedSent.push(text);
  renderConn();
  toast(text, "refused");
  return true;
}

// The strip's words for those refusals, and a button that dismisses them.
export function refusedSentParts() { return FORESEE.refusedSent.slice(); }
export function dismissRefusedSent() { FORESEE.refusedSent = []; renderConn(); }
