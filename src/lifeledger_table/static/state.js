// The table page's state: which table this page shows (play /t/ID, watch /w/WATCH, replay
// /replay), everything it holds of it (S), and the views derived from it (display only).
// The server is authoritative: this page only sends record actions and shows the engine's state.

import { API } from "./common.js";
import { isDeviceTable } from "./device.js";
import { pendingMap } from "./taps.js";
import { foreseenState } from "./foresee.js";
import { render } from "./render.js";

const path = location.pathname.split("/");
// A table page is /t/ID on a server; a device table's page is also table.html?t=ID, which a
// static host (no server at all) serves (device.js).
const ASKED = new URLSearchParams(location.search).get("t");
export const MODE = path[1] === "t" || ASKED ? "play" : path[1] === "w" ? "watch" : "replay";
export const KEY = ASKED || path[2] || "";
// A table that lives on this device: decided here, by the engine worker (device.js).
export const ON_DEVICE = MODE === "play" && isDeviceTable(KEY);

export const S = {
  info: null, names: null, seat: null, token: null, host: null,
  lastSeq: 0, entries: [], more: false, score: null, canUndo: false, undoTarget: undefined,
  // The state the panels show: the table's as the server last gave it (``truth``), or, with no
  // connection and changes queued, what the phone's engine foresees of them (foresee.js).
  truth: null,
  get state() { return foreseenState() || this.truth; },
  set state(value) { this.truth = value; },
  effects: [], resyncAsked: 0,
  pending: pendingMap(MODE === "play" ? KEY : null), ws: null, connected: false, everConnected: false, backoff: 500,
  pongTimer: null, connectTimer: null, retryTimer: null, claiming: false, asks: new Map(), undoAsks: new Map(),
  selectedHead: {}, sheetFor: null, frames: null, frame: 0, playTimer: null,
  startOver: null, // the menu's "Reset game" or "New game" asked, awaiting its confirming tap
  // Table mode (layout.js): "table" when this device is the one in the middle of the table,
  // holding every free seat (``tokens``: {seat: token}; ``seats``: the seats its socket holds).
  device: "phone", tokens: {}, seats: [],
};
// The server's messages name this table's players (common.js api).
API.names = () => S.names;

// Heartbeats: a ping every 10 s; the connection is lost when no answer comes within 5 s (a
// stalled proxy keeps a dead socket open for minutes), or when the socket closes.
export const HEARTBEAT_EVERY = 10000;
export const PONG_WAIT = 5000;
export const CONNECT_WAIT = 10000;
// A change not acknowledged after this long is shown as waiting.
export const SLOW_ACK = 1500;

export const COUNTER_KINDS = ["poison", "energy", "experience", "rad"];
export const MAX_MESSAGE = 16 * 1024; // the server closes a socket that sends more in one message
// After a missing event, the page asks for the whole state; again if no welcome came this long.
export const RESYNC_WAIT = 3000;


// ---------------------------------------------------------------- derived views (display only)

// The entries taken back by undo, among those this page holds (each undo names its target).
export function undoneSeqs() {
  const undone = new Set();
  for (const e of S.entries) if (e.kind === "undo" && e.target !== null && e.target !== undefined) undone.add(e.target);
  return undone;
}

// Cards and effects that apply now, as the engine says (named from the card actions seen).
// The effects that apply now, as the server sends them; a card's effects name the card, so a
// phone that joined after its entry (beyond the timeline it holds) still shows its name.
export function takeEffects(effects) {
  S.effects = effects || [];
  for (const e of S.effects) if (e.card) S.names.map[e.id] = e.card;
}

export function activeCards() {
  const seen = new Map();
  for (const e of S.effects || []) {
    if (!seen.has(e.id)) seen.set(e.id, { id: e.id, name: S.names.of(e.id), controller: e.controller, kinds: [] });
    seen.get(e.id).kinds.push(e.kind);
  }
  return [...seen.values()];
}

export function playerState(id) { return S.state.players.find((p) => p.id === id); }
export function teamOf(id) { const p = S.state && playerState(id); return p ? p.team : null; }
// Whether the players count this library, or the engine tracks one stated since (set_library).
// An uncounted one is untracked (record 2: the header omits it) or, at a record-1 table, empty.
export function counted(id) {
  if ((S.info.counted || []).includes(id)) return true;
  const seat = header().players.find((p) => p.id === id), p = S.state && playerState(id);
  return !!seat && !("library" in seat) && !!p && p.library !== null && p.library !== undefined;
}
export function header() { return S.info.header; }
export function commanderOwner(cid) { return header().players.find((p) => (p.commanders || []).includes(cid)); }

export function units() {
  const shared = S.state.teams.filter((t) => t.life !== null);
  const out = [];
  const inTeam = new Set();
  for (const team of shared) {
    out.push({ kind: "team", id: team.id, team, heads: team.players });
    team.players.forEach((p) => inTeam.add(p));
  }
  for (const p of S.state.players) if (!inTeam.has(p.id)) out.push({ kind: "player", id: p.id, player: p });
  // Seating order: by the first seat of each unit.
  const order = header().players.map((p) => p.id);
  const first = (u) => order.indexOf(u.kind === "team" ? u.heads[0] : u.id);
  return out.sort((a, b) => first(a) - first(b));
}

export function rotated() {
  try { return new Set(JSON.parse(localStorage.getItem("lifeledger-turned-" + KEY) || "[]")); } catch { return new Set(); }
}
export function toggleRotated(id) {
  const set = rotated();
  if (set.has(id)) set.delete(id); else set.add(id);
  localStorage.setItem("lifeledger-turned-" + KEY, JSON.stringify([...set]));
  render();
}
