// The table page's connection: the socket (a server's WebSocket, or device.js's DeviceSocket:
// the same interface), heartbeats, changes sent and sent again, and the table device's seats.

import { listOf, said, t } from "./i18n.js";
import { api, clearSeat, isZero, loadHost, newId, parseJSON, toJSON } from "./common.js";
import { DeviceSocket, DeviceTables } from "./device.js";
import { saveDevice, saveSeats } from "./seating.js";
import { closeRun, keepNoMore, notKeptText, TAPS } from "./taps.js";
import { foreseeSoon } from "./foresee.js";
import {
  CONNECT_WAIT, header, KEY, MAX_MESSAGE, MODE, ON_DEVICE, PONG_WAIT, S, SLOW_ACK, teamOf,
} from "./state.js";
import { close, toast } from "./toasts.js";
import { receive } from "./messages.js";
import { render, renderConn } from "./render.js";
import { showPicker } from "./sheets.js";

// ---------------------------------------------------------------- the connection

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // A seated phone names its token as it connects: a table full of spectators never keeps
  // its players out.
  const held = S.device === "table" ? Object.values(S.tokens) : S.token ? [S.token] : [];
  const query = MODE === "play" ? held.map((t) => `token=${encodeURIComponent(t)}`) : [];
  if (MODE === "play" && S.device === "table") query.push("device=table");
  const seat = query.length ? "?" + query.join("&") : "";
  return `${scheme}//${location.host}/ws/${MODE === "play" ? "t" : "w"}/${KEY}${seat}`;
}

export function hello() {
  const msg = { type: "hello", token: S.token, since: S.lastSeq };
  if (S.device === "table") {
    msg.tokens = Object.values(S.tokens);
    if (!msg.token) msg.token = msg.tokens[0] || null;
    msg.device = "table";
  }
  if (S.host) msg.host = S.host;
  return msg;
}

export function connect() {
  clearTimeout(S.retryTimer);
  const ws = ON_DEVICE ? new DeviceSocket(KEY) : new WebSocket(wsUrl());
  S.ws = ws;
  clearTimeout(S.connectTimer);
  S.connectTimer = setTimeout(() => { if (S.ws === ws && !S.connected) drop(ws); }, CONNECT_WAIT);
  ws.addEventListener("open", () => { if (S.ws === ws) ws.send(toJSON(hello())); });
  ws.addEventListener("message", (e) => {
    if (S.ws !== ws) return;
    clearTimeout(S.pongTimer); S.pongTimer = null; // any message shows the connection lives
    receive(parseJSON(e.data));
  });
  ws.addEventListener("close", () => drop(ws));
}

// The connection is lost: say so, and connect again (with backoff). Changes wait meanwhile.
export function drop(ws) {
  if (S.ws !== ws || !ws) return;
  S.ws = null;
  S.connected = false;
  clearTimeout(S.pongTimer); S.pongTimer = null;
  clearTimeout(S.connectTimer);
  try { ws.close(); } catch { /* already closing */ }
  renderConn();
  foreseeSoon(); // the queue foreseen by the phone's engine meanwhile (foresee.js)
  if (S.unavailable) return; // the table can't be loaded: connecting again won't help
  S.retryTimer = setTimeout(connect, S.backoff);
  S.backoff = Math.min(S.backoff * 2, 8000);
}

// Ask the server for a sign of life, unless one is awaited already.
export function ping() {
  if (!S.connected || !S.ws || S.pongTimer) return;
  const ws = S.ws;
  try { ws.send('{"type":"ping"}'); } catch { drop(ws); return; }
  expectAnswer();
}

// Some message must come within PONG_WAIT (a pong, an ack...), or the connection is lost.
export function expectAnswer() {
  if (!S.connected || !S.ws || S.pongTimer) return;
  const ws = S.ws;
  S.pongTimer = setTimeout(() => drop(ws), PONG_WAIT);
}

export function send(msg) {
  if (S.ws && S.ws.readyState === 1 && S.connected) S.ws.send(toJSON(msg)); // 1: open (WebSocket, DeviceSocket)
}

// A change the server could not save ("storage": its store can't be reached) or did not take
// ("throttled": too many at once; "busy": the table's share of the server is spent for now):
// nothing changed, so it stays pending (its total shown, its panel "waiting") and is sent
// again, with its id, 2 to 5 s later (and on every welcome).
const SEND_AGAIN = new Set(["storage", "throttled", "busy"]);
export function keepToSendAgain(msg) {
  if (!SEND_AGAIN.has(msg.error) || !msg.id || !S.pending.has(msg.id)) return false;
  setTimeout(() => { const m = S.pending.get(msg.id); if (m && !m.held) send(wire(m)); }, 2000 + Math.random() * 3000);
  return true;
}

// Every change carries its own id: a retry after a reconnect never applies twice.
export function request(type, action, extra) {
  if (MODE !== "play") return;
  if (!S.seat && !S.seats.length) { showPicker(); return; }
  closeRun(); // taps still gathering go first (taps.js)
  const msg = Object.assign({ type, id: newId() }, extra || {});
  if (action) msg.action = action;
  if (new TextEncoder().encode(toJSON(msg)).length > MAX_MESSAGE) { toast(t("That is too long to send."), "bad"); return; }
  msg.sent = Date.now();
  S.pending.set(msg.id, msg);
  if (!S.pending.kept && !S.connected) { S.pending.delete(msg.id); toast(notKeptText(), "bad"); return; } // taps.js
  send(wire(msg));
  expectAnswer(); // a change that gets no answer (its ack) shows a dead connection at once
  renderConn();
  setTimeout(renderConn, SLOW_ACK + 50);
}

// A pending change as it is sent (without the page's own bookkeeping).
// A socket holding several seats (the table device) says which acts ("as"), as it sends.
export function wire(msg) {
  const out = Object.assign({}, msg);
  delete out.sent; delete out.held; delete out.queued;
  if (!out.as && (S.device === "table" || S.seats.length > 1) && ["action", "undo", "next_game", "reset", "new_game", "setup"].includes(out.type)) {
    out.as = actingSeat(out.type === "setup" ? { player: out.player } : out.action);
  }
  return out;
}

export function act(action) { request("action", action); }

// A device table another page of this device took (device.js, "one page at a time"): this
// page's changes not yet decided, a run of taps still open among them, go to that page, which
// decides them; and this page writes the device's queue for the table, and its copy for
// opening at once, no more (they are that page's now).
export function handOver() {
  if (TAPS.run) { clearTimeout(TAPS.run.timer); TAPS.run = null; }
  const left = [...S.pending.values()].filter((m) => !(m.held && m.action && isZero(m.action.amount)));
  S.pending.stopKeeping();
  keepNoMore();
  DeviceTables.handOver(KEY, left.map((m) => toJSON(wire(m))));
}

// ---------------------------------------------------------------- the table device

// Which held seat acts for an action: the panel's player when held, else a teammate, else
// any seat this device holds (a player on their own phone still takes damage from here).
function actingSeat(action) {
  const subjects = [];
  const walk = (a) => {
    if (!a || typeof a !== "object") return;
    for (const key of ["player", "to", "controller"]) if (typeof a[key] === "string") subjects.push(a[key]);
    if (Array.isArray(a.players)) subjects.push(...a.players);
    for (const key of ["each", "payments"]) if (a[key] && typeof a[key] === "object") subjects.push(...Object.keys(a[key]));
    if (Array.isArray(a.actions)) a.actions.forEach(walk);
  };
  walk(action);
  const held = S.seats.length ? S.seats : Object.keys(S.tokens);
  const mine = subjects.find((id) => held.includes(id));
  if (mine) return mine;
  const team = subjects.map(teamOf).find((t) => t);
  const mate = team && held.find((id) => teamOf(id) === team);
  return mate || held[0] || S.seat;
}

// The seats the server says the device holds: tokens of the others are forgotten.
export function keepHeld(seats) {
  let changed = false;
  for (const seat of Object.keys(S.tokens)) if (!seats.includes(seat)) { delete S.tokens[seat]; changed = true; }
  if (changed) saveSeats(KEY, S.tokens);
}

// The table device takes every seat no phone holds (POST /api/tables/{t}/seats), then says
// hello again with all its tokens. ``always``: asked from the menu (else once per load).
export async function takeFreeSeats(always) {
  if (S.takingSeats || (S.tookSeats && !always)) return;
  const taken = new Set(S.info.taken || []);
  const free = header().players.map((p) => p.id).filter((id) => !taken.has(id) && !(id in S.tokens));
  S.tookSeats = true;
  if (!free.length) { if (always) toast(t("Every seat is held already.")); return; }
  S.takingSeats = true;
  try {
    const body = { seats: free, device: "table" };
    const host = loadHost(KEY);
    if (host) body.host = host;
    const res = await api("POST", `/api/tables/${KEY}/seats`, body);
    Object.assign(S.tokens, res.tokens || {});
    saveSeats(KEY, S.tokens);
    const skipped = Object.keys(res.skipped || {});
    if (skipped.length) toast(t("On their own phones: {names}", { names: listOf(skipped.map((id) => S.names.of(id))) }));
    send(hello());
  } catch (ex) {
    toast(t("The table device could not take the seats: {why}", { why: said(ex.data, S.names) || ex.message }), "bad");
  } finally {
    S.takingSeats = false;
  }
}

// Make this device the table's: one device for everyone.
export function becomeTableDevice() {
  S.device = "table";
  saveDevice(KEY, "table");
  if (S.seat && S.token) S.tokens[S.seat] = S.token;
  saveSeats(KEY, S.tokens);
  close("picker");
  takeFreeSeats(true);
  render();
}

// Back to a personal phone: the device lets its seats go (held lately, as any seat: for a
// minute a phone that asks needs the host's yes) and this phone picks its own.
export function becomePersonalPhone() {
  S.device = "phone";
  saveDevice(KEY, "phone");
  S.tokens = {}; saveSeats(KEY, {}); clearSeat(KEY);
  S.seats = []; S.seat = null; S.token = null; S.tookSeats = false;
  drop(S.ws); // connects again holding no seat
  S.pickerDismissed = false;
  showPicker();
  render();
}

// A seat the table device held is now on its player's own phone.
export function seatLeft(seat) {
  S.seats = S.seats.filter((x) => x !== seat);
  delete S.tokens[seat];
  saveSeats(KEY, S.tokens);
  if (S.seat === seat) { S.seat = S.seats[0] || null; S.token = S.seat ? S.tokens[S.seat] || null : null; }
  toast(t("{name} is on their own phone now.", { name: S.names.of(seat) }));
  render();
}
