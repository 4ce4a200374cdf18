// The table page: play (/t/ID), watch (/w/WATCH) and replay (/replay).
// The server is authoritative: this page only sends record actions and shows the engine's state.
"use strict";

const path = location.pathname.split("/");
// A table page is /t/ID on a server; a device table's page is also table.html?t=ID, which a
// static host (no server at all) serves (device.js).
const ASKED = new URLSearchParams(location.search).get("t");
const MODE = path[1] === "t" || ASKED ? "play" : path[1] === "w" ? "watch" : "replay";
const KEY = ASKED || path[2] || "";
// A table that lives on this device: decided here, by the engine worker (device.js).
const ON_DEVICE = MODE === "play" && isDeviceTable(KEY);

const S = {
  info: null, names: null, seat: null, token: null, host: null,
  lastSeq: 0, entries: [], more: false, score: null, canUndo: false, undoTarget: undefined,
  // The state the panels show: the table's as the server last gave it (``truth``), or, with no
  // connection and changes queued, what the phone's engine foresees of them (foresee.js).
  truth: null,
  get state() { return (typeof foreseenState === "function" && foreseenState()) || this.truth; },
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

// Heartbeats: a ping every 10 s; the connection is lost when no answer comes within 5 s (a
// stalled proxy keeps a dead socket open for minutes), or when the socket closes.
const HEARTBEAT_EVERY = 10000;
const PONG_WAIT = 5000;
const CONNECT_WAIT = 10000;
// A change not acknowledged after this long is shown as waiting.
const SLOW_ACK = 1500;

const COUNTER_KINDS = ["poison", "energy", "experience", "rad"];
const MAX_MESSAGE = 16 * 1024; // the server closes a socket that sends more in one message
// After a missing event, the page asks for the whole state; again if no welcome came this long.
const RESYNC_WAIT = 3000;

function $(id) { return document.getElementById(id); }

// ---------------------------------------------------------------- toasts and drawers

let toastTimer = null;
// Toasts never take taps (pointer-events: none): the buttons under them keep working. Nor
// do they cover a control waiting for its confirming tap (issue 25 item 8: "Tap again: Di
// concedes…" under "Cy lost"): a toast that would lie over one waits until it is answered
// or gone, and one showing when such a control appears under it steps aside and waits too.
const TOAST_SHOWS = 5000;
const CONFIRMS = "[data-armed], [data-confirm], [data-undo-confirm]";
const TOASTS = { waiting: [], watch: null, shown: null };
function toast(text, kind, pid) {
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

function open(id) { $(id).classList.remove("hidden"); }
function close(id) { $(id).classList.add("hidden"); if (id === "sheet") S.sheetFor = null; }

document.addEventListener("click", (e) => {
  const target = e.target.closest("[data-close]");
  if (target) close(target.getAttribute("data-close"));
});

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

function hello() {
  const msg = { type: "hello", token: S.token, since: S.lastSeq };
  if (S.device === "table") {
    msg.tokens = Object.values(S.tokens);
    if (!msg.token) msg.token = msg.tokens[0] || null;
    msg.device = "table";
  }
  if (S.host) msg.host = S.host;
  return msg;
}

function connect() {
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
function drop(ws) {
  if (S.ws !== ws || !ws) return;
  S.ws = null;
  S.connected = false;
  clearTimeout(S.pongTimer); S.pongTimer = null;
  clearTimeout(S.connectTimer);
  try { ws.close(); } catch (e) { /* already closing */ }
  renderConn();
  foreseeSoon(); // the queue foreseen by the phone's engine meanwhile (foresee.js)
  if (S.unavailable) return; // the table can't be loaded: connecting again won't help
  S.retryTimer = setTimeout(connect, S.backoff);
  S.backoff = Math.min(S.backoff * 2, 8000);
}

// Ask the server for a sign of life, unless one is awaited already.
function ping() {
  if (!S.connected || !S.ws || S.pongTimer) return;
  const ws = S.ws;
  try { ws.send('{"type":"ping"}'); } catch (e) { drop(ws); return; }
  expectAnswer();
}

// Some message must come within PONG_WAIT (a pong, an ack...), or the connection is lost.
function expectAnswer() {
  if (!S.connected || !S.ws || S.pongTimer) return;
  const ws = S.ws;
  S.pongTimer = setTimeout(() => drop(ws), PONG_WAIT);
}

function send(msg) {
  if (S.ws && S.ws.readyState === 1 && S.connected) S.ws.send(toJSON(msg)); // 1: open (WebSocket, DeviceSocket)
}

// A change the server could not save ("storage": its store can't be reached) or did not take
// ("throttled": too many at once; "busy": the table's share of the server is spent for now):
// nothing changed, so it stays pending (its total shown, its panel "waiting") and is sent
// again, with its id, 2 to 5 s later (and on every welcome).
const SEND_AGAIN = new Set(["storage", "throttled", "busy"]);
function keepToSendAgain(msg) {
  if (!SEND_AGAIN.has(msg.error) || !msg.id || !S.pending.has(msg.id)) return false;
  setTimeout(() => { const m = S.pending.get(msg.id); if (m && !m.held) send(wire(m)); }, 2000 + Math.random() * 3000);
  return true;
}

// Every change carries its own id: a retry after a reconnect never applies twice.
function request(type, action, extra) {
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
function wire(msg) {
  const out = Object.assign({}, msg);
  delete out.sent; delete out.held; delete out.queued;
  if (!out.as && (S.device === "table" || S.seats.length > 1) && ["action", "undo", "next_game", "reset", "new_game", "setup"].includes(out.type)) {
    out.as = actingSeat(out.type === "setup" ? { player: out.player } : out.action);
  }
  return out;
}

function act(action) { request("action", action); }

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
function keepHeld(seats) {
  let changed = false;
  for (const seat of Object.keys(S.tokens)) if (!seats.includes(seat)) { delete S.tokens[seat]; changed = true; }
  if (changed) saveSeats(KEY, S.tokens);
}

// The table device takes every seat no phone holds (POST /api/tables/{t}/seats), then says
// hello again with all its tokens. ``always``: asked from the menu (else once per load).
async function takeFreeSeats(always) {
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
function becomeTableDevice() {
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
function becomePersonalPhone() {
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
function seatLeft(seat) {
  S.seats = S.seats.filter((x) => x !== seat);
  delete S.tokens[seat];
  saveSeats(KEY, S.tokens);
  if (S.seat === seat) { S.seat = S.seats[0] || null; S.token = S.seat ? S.tokens[S.seat] || null : null; }
  toast(t("{name} is on their own phone now.", { name: S.names.of(seat) }));
  render();
}

// Card names for the timeline, as card actions arrive.
function learnCards(msg) {
  const walk = (a) => {
    if (a.do === "card") S.names.map[a.id] = a.name;
    else if (a.do === "together") a.actions.forEach(walk);
  };
  for (const e of msg.entries || (msg.entry ? [msg.entry] : [])) if (e.action) walk(e.action);
}

function receive(msg) {
  learnCards(msg);
  switch (msg.type) {
    case "welcome": {
      S.connected = true; S.everConnected = true; S.backoff = 500; S.loadingEarlier = false;
      clearTimeout(S.connectTimer);
      // The welcome holds the last entries (paged): after a long gap, start over from them.
      const entries = msg.entries || [];
      const gap = msg.since > 0 && msg.more && entries.length && entries[0].seq > msg.since + 1;
      if (msg.since === 0 || gap) { S.entries = entries.slice(); S.more = !!msg.more; }
      else S.entries.push(...entries.filter((e) => e.seq > S.lastSeq));
      takeSnapshot(msg);
      S.undoAsks.clear(); // questions were put to the socket before: a new one answers none
      S.seat = msg.seat;
      S.seats = Array.isArray(msg.seats) ? msg.seats.slice() : msg.seat ? [msg.seat] : [];
      if (S.device === "table" && Array.isArray(msg.seats)) keepHeld(S.seats);
      if (MODE === "play" && S.token && !S.seat) { clearSeat(KEY); S.token = null; }
      S.info.taken = msg.taken;
      if (MODE === "play" && S.device === "table") takeFreeSeats(false);
      else if (MODE === "play" && !S.seat && !S.pickerDismissed && !S.claiming) showPicker();
      // A run of taps still open goes when it closes. The rest is the queue: a refusal names
      // the change (foresee.js).
      for (const m of S.pending.values()) if (!m.held) { m.queued = true; send(wire(m)); }
      gameAfterWelcome(); // the game the phone's engine foresees with (foresee.js)
      render();
      if (typeof toolsReceive === "function") toolsReceive(msg); // tools.js
      renderTurns(); // turns.js: with the tools' "who starts" pick
      break;
    }
    case "event":
      // An event carries what changed, applied here to the page's copy of the state. A missing
      // sequence number (or a change the copy can't take) asks for the whole state again.
      // The phone that sent the change gets it with the change's id: its acknowledgement.
      if (msg.id) { S.pending.delete(msg.id); renderConn(); }
      if (msg.seq <= S.lastSeq) return;
      if (msg.seq !== S.lastSeq + 1 || !takeEvent(msg)) { resync(); return; }
      S.entries.push(msg.entry);
      announce(msg.entry);
      gameSoon(); // foresee.js
      render();
      if (typeof followGameStart === "function") followGameStart(msg.entry); // tools.js
      break;
    case "history": {
      // Older entries, asked for with "Load earlier".
      const have = new Set(S.entries.map((e) => e.seq));
      S.entries = (msg.entries || []).filter((e) => !have.has(e.seq)).concat(S.entries).sort((x, y) => x.seq - y.seq);
      S.more = !!msg.more;
      S.loadingEarlier = false;
      if (!$("history").classList.contains("hidden")) renderHistory();
      break;
    }
    case "ack":
      S.pending.delete(msg.id);
      renderConn();
      break;
    case "waiting": // kept by the server, not saved yet: its database is away (issue 26 item 7)
      S.storeWait = msg;
      renderConn();
      break;
    case "error":
      // A change that needs a player's choice first waits for it, pending (taps.js, choices.js).
      if (keepForChoice(msg)) { renderConn(); renderChoices(); break; }
      // Not saved (the server's store can't be reached) or not taken (too many at once):
      // nothing changed, and it stays pending, sent again with its id (issue 21 item 5).
      if (keepToSendAgain(msg)) { renderConn(); break; }
      const sent = msg.id ? S.pending.get(msg.id) : null;
      if (msg.id) { tapRefused(msg); S.pending.delete(msg.id); } // a total shown early returns
      renderConn();
      // Taking back this seat's change would change what later changes did: said, then asked.
      if (msg.error === "undo-changes-later" && sent) { showUndoConfirm(sent.target, msg); break; }
      // Another phone's undo took the same action back first: nothing happened, nothing to say.
      if (msg.error === "already-undone") break;
      // A table device's token for a seat it no longer holds: the welcome says what it holds.
      if (msg.error === "bad-token" && S.device === "table") break;
      // The server can't load this table (a damaged log): say so where it stays.
      if (msg.error === "table-unavailable") { S.unavailable = msg; renderConn(); break; }
      if (queuedRefused(msg, sent)) break; // a change of the queue, named (foresee.js)
      if (msg.error === "refused") toast(t("Refused: {why} — {rule}", { why: said(msg, S.names), rule: msg.rule }), "refused");
      else toast(said(msg, S.names) + (msg.rule ? ` — ${msg.rule}` : "") + (msg.member ? ` (${msg.member})` : ""), "bad");
      break;
    case "seats":
      S.info.taken = msg.taken;
      if (!$("picker").classList.contains("hidden") && !S.claiming) showPicker();
      if (S.device === "table") render();
      break;
    case "seat_lost":
      // The table device gives a seat to the player's own phone, and keeps the others.
      if (S.device === "table" && (S.seats.length > 1 || !S.seats.includes(msg.seat))) { seatLeft(msg.seat); break; }
      S.seat = null; S.token = null; clearSeat(KEY); S.seats = []; S.tokens = {}; saveSeats(KEY, {});
      for (const [rid, ask] of S.asks) if (ask.seat === msg.seat) S.asks.delete(rid);
      showAsk();
      toast(t("Your seat was taken over on another device."), "bad");
      showPicker();
      render();
      break;
    case "takeover_request":
      S.asks.set(msg.request, msg);
      showAsk();
      break;
    case "undo_asked":
      // Undo of another seat's change: that seat's device (or the host) is asked (issue 17).
      S.pending.delete(msg.id);
      renderConn();
      toast(said(msg, S.names));
      break;
    case "undo_request":
      S.undoAsks.set(msg.request, msg);
      showUndoAsk();
      break;
    case "undo_closed":
      S.undoAsks.delete(msg.request);
      showUndoAsk();
      if (msg.status === "refused" || msg.status === "expired" || msg.status === "stale") toast(t("Not undone: {why}", { why: said(msg, S.names) }));
      break;
    case "takeover_closed":
      // Answered (from this phone or another one), or expired.
      S.asks.delete(msg.request);
      showAsk();
      break;
    default:
      if (typeof toolsReceive === "function") toolsReceive(msg); // "tools": tools.js
      if (msg.type === "tools") renderTurns(); // the "who starts" pick shows on the turn bar
      break;
  }
}

// Ask for the whole state after the last event this page holds: the welcome replaces it all.
// Asked once (events that arrive before the welcome are ignored), again after RESYNC_WAIT.
function resync() {
  if (S.resyncAsked && Date.now() - S.resyncAsked < RESYNC_WAIT) return;
  S.resyncAsked = Date.now();
  send(hello());
}

// An event: its changes applied to the state, and the score and the effects when it carries
// them (only when they changed). Returns false when the changes can't be applied.
function takeEvent(msg) {
  let state;
  if (msg.state) state = msg.state; // a server that still sends the whole state
  else {
    if (!S.state) return false;
    try { state = applyChanges(S.state, (msg.entry && msg.entry.changes) || []); } catch (e) { return false; }
  }
  S.lastSeq = msg.seq;
  S.state = state;
  if ("score" in msg) S.score = msg.score;
  if ("effects" in msg) takeEffects(msg.effects);
  takeChoices(msg); // choices.js: only when they changed
  if ("turns" in msg) S.turns = msg.turns; // the turn tracker's (turns.js)
  takeSetup(msg);
  S.canUndo = msg.can_undo;
  S.undoTarget = "undo_target" in msg ? msg.undo_target : undefined;
  S.undoOwn = msg.undo_own || {};
  return true;
}

// A welcome: the whole state, score and effects.
function takeSnapshot(msg) {
  S.resyncAsked = 0;
  S.lastSeq = msg.seq;
  S.state = msg.state;
  S.score = msg.score;
  S.canUndo = msg.can_undo;
  // The action an undo takes back, as the server says (the page may not hold every entry).
  S.undoTarget = "undo_target" in msg ? msg.undo_target : undefined;
  S.undoOwn = msg.undo_own || {}; // each seat's own last change in effect (issue 25 item 4)
  takeEffects(msg.effects);
  takeChoices(msg);
  S.turns = msg.turns || null; // the turn tracker's (turns.js)
  takeSetup(msg);
}

// The players' names and chosen colours, as changed at the table (issue 17 item 2): the view
// carries them, an event only when they changed.
function takeSetup(msg) {
  if (!S.info || !("names" in msg || "colours" in msg)) return;
  if (msg.names) {
    const players = S.info.header.players.map((p) => (p.id in msg.names && msg.names[p.id] !== p.name ? Object.assign({}, p, { name: msg.names[p.id] }) : p));
    S.info.header = Object.assign({}, S.info.header, { players });
  }
  if (msg.colours) S.info.colours = msg.colours;
  S.names = new Names(S.info.header, S.info.labels);
}

// Tell everyone what just happened that matters: a loss, the end of the game, an undo.
function announce(entry) {
  const ended = entry.changes.filter((c) => c.what === "status" && c.to !== "playing" && c.to);
  // A team's result is said once, not again for each of its members with the same result.
  const teamSaid = new Map(ended.filter((c) => c.team).map((c) => [c.team, c.to]));
  const lost = ended.filter((c) => c.team || !(teamOf(c.player) && teamSaid.get(teamOf(c.player)) === c.to));
  if (entry.kind === "undo") {
    const target = S.entries.find((e) => e.seq === entry.target);
    // A reset or a new game taken back is named as the Undo button named it (issue 25 item 10).
    const action = target && (target.action ? describe(target.action, S.names) : startOverName(target));
    const what = target ? actionBy(target, action) : t("the last action");
    toast(t("Undone: {what}", { what }) + allowedBy(entry));
  } else if (lost.length) {
    toast(lost.map((c) => `${S.names.of(c.team || c.player)} ${describeResult(c.to, c.reason, c.rule)}`).join(" · "), "loss", lost[0].team || lost[0].player);
  }
  speak(spoken(entry, lost)); // screen readers hear a loss and the end of the game (panel.js)
}

// ---------------------------------------------------------------- derived views (display only)

// The entries taken back by undo, among those this page holds (each undo names its target).
function undoneSeqs() {
  const undone = new Set();
  for (const e of S.entries) if (e.kind === "undo" && e.target !== null && e.target !== undefined) undone.add(e.target);
  return undone;
}

// Cards and effects that apply now, as the engine says (named from the card actions seen).
// The effects that apply now, as the server sends them; a card's effects name the card, so a
// phone that joined after its entry (beyond the timeline it holds) still shows its name.
function takeEffects(effects) {
  S.effects = effects || [];
  for (const e of S.effects) if (e.card) S.names.map[e.id] = e.card;
}

function activeCards() {
  const seen = new Map();
  for (const e of S.effects || []) {
    if (!seen.has(e.id)) seen.set(e.id, { id: e.id, name: S.names.of(e.id), controller: e.controller, kinds: [] });
    seen.get(e.id).kinds.push(e.kind);
  }
  return [...seen.values()];
}

function playerState(id) { return S.state.players.find((p) => p.id === id); }
function teamOf(id) { const p = S.state && playerState(id); return p ? p.team : null; }
// Whether the players count this library, or the engine tracks one stated since (set_library).
// An uncounted one is untracked (record 2: the header omits it) or, at a record-1 table, empty.
function counted(id) {
  if ((S.info.counted || []).includes(id)) return true;
  const seat = header().players.find((p) => p.id === id), p = S.state && playerState(id);
  return !!seat && !("library" in seat) && !!p && p.library !== null && p.library !== undefined;
}
function header() { return S.info.header; }
function commanderOwner(cid) { return header().players.find((p) => (p.commanders || []).includes(cid)); }

function units() {
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

function rotated() {
  try { return new Set(JSON.parse(localStorage.getItem("lifeledger-turned-" + KEY) || "[]")); } catch (e) { return new Set(); }
}
function toggleRotated(id) {
  const set = rotated();
  if (set.has(id)) set.delete(id); else set.add(id);
  localStorage.setItem("lifeledger-turned-" + KEY, JSON.stringify([...set]));
  render();
}

// ---------------------------------------------------------------- rendering

// The changes sent but not yet acknowledged that have waited long enough to show.
function waiting() {
  const now = Date.now();
  return [...S.pending.values()].filter((m) => !S.connected || now - m.sent >= SLOW_ACK);
}

// The players a waiting change is about (to mark their panels).
function waitingPlayers() {
  const out = new Set();
  const walk = (a) => {
    if (!a || typeof a !== "object") return;
    for (const key of ["player", "to", "controller"]) if (typeof a[key] === "string") out.add(a[key]);
    for (const key of ["players"]) if (Array.isArray(a[key])) a[key].forEach((p) => out.add(p));
    for (const key of ["each", "payments"]) if (a[key] && typeof a[key] === "object") Object.keys(a[key]).forEach((p) => out.add(p));
    if (Array.isArray(a.actions)) a.actions.forEach(walk);
  };
  for (const m of waiting()) walk(m.action);
  return out;
}

// The connection, said plainly: a lost connection and the changes waiting to be sent.
function renderConn() {
  const c = $("conn");
  const live = MODE === "replay" || S.connected;
  c.className = "conn " + (live ? "on" : "off");
  c.title = live ? t("connected") : t("reconnecting…");
  c.setAttribute("aria-label", c.title);
  const strip = $("netstate");
  if (!strip) return;
  const wait = MODE === "play" ? waiting().filter((m) => !waitsForChoice(m.id)).length : 0;
  const chooser = MODE === "play" ? [...S.pending.keys()].map(waitsForChoice).filter(Boolean) : [];
  const parts = [];
  if (S.unavailable) parts.push(said(S.unavailable, S.names)); // in this phone's language
  else if (ON_DEVICE && !live) parts.push(t("Starting the rules engine…")); // no network involved
  else if (!live && (!navigator.onLine || (S.fromKept && !S.everConnected))) parts.push(t("Offline — taps are kept and sent when the connection returns"));
  else if (!live) parts.push(S.everConnected ? t("Connection lost — reconnecting…") : t("Connecting…"));
  if (wait) parts.push(tn("{n} change waiting to be sent", "{n} changes waiting to be sent", wait, { n: wait }));
  if (S.storeWait && !S.pending.size) S.storeWait = null; // its changes were saved since
  if (S.storeWait) parts.push(said(S.storeWait, S.names)); // "Waiting for the database…"
  parts.push(...foresightParts(), ...refusedSentParts()); // foresee.js
  if (chooser.length) parts.push(tn("{n} change waiting for {name}'s choice", "{n} changes waiting for {name}'s choice", chooser.length, { n: chooser.length, name: S.names.of(chooser[0]) }));
  strip.replaceChildren(parts.join(" · "),
    chooser.length ? h("button", { "data-act": "cancel-waits", onclick: cancelChoiceWaits }, t("Cancel")) : "",
    FORESEE.refusedSent.length ? h("button", { "data-act": "dismiss-refused", onclick: dismissRefusedSent }, t("Dismiss")) : "");
  strip.classList.toggle("hidden", !parts.length);
  strip.classList.toggle("lost", !live || !!S.unavailable);
  const marked = waitingPlayers();
  for (const panel of document.querySelectorAll("#panels .panel")) {
    const heads = (panel.getAttribute("data-heads") || panel.getAttribute("data-unit") || "").split(" ");
    const on = heads.some((id) => marked.has(id));
    panel.classList.toggle("pending", on);
    const tag = panel.querySelector(".tag.waiting");
    if (on && !tag) panel.querySelector(".panel-top .spacer").before(h("span", { class: "tag waiting" }, t("waiting")));
    else if (!on && tag) tag.remove();
  }
}

function render() {
  if (!S.state) return;
  keepForOffline();
  renderConn();
  const canAct = MODE === "play" && (!!S.seat || S.seats.length > 0);
  // The table's code, to tell the others; who you are shows on your panel ("you").
  const title = MODE === "replay" ? t("Replay") : (S.info.code ? formatCode(S.info.code) : t("Watching"));
  $("title").textContent = title;
  $("title").title = S.device === "table" && MODE === "play" ? t("The table device") : S.seat ? t("You are {name}", { name: S.names.of(S.seat) }) : MODE === "watch" ? t("spectator") : "";
  renderUndo();
  if (S.undoAsks.size) showUndoAsk(); // a question about a change no longer last goes away
  if (S.undoConfirm && undoAim().target !== S.undoConfirm.target) hideUndoConfirm(); // the table changed
  $("undo-btn").classList.toggle("hidden", MODE !== "play");
  $("history-btn").classList.toggle("hidden", MODE === "replay");
  renderBanner();
  renderChoices(); // choices.js
  renderScore();
  renderTurns(); // turns.js: the turn bar, before the panels take the room left
  const cards = activeCards();
  const list = units();
  const box = $("panels");
  // A personal phone shows its own panel first and biggest; the table device, every panel
  // around the edges facing its player (layout.js).
  const table = MODE === "play" && S.device === "table";
  const own = table || !S.seat ? -1 : list.findIndex((u) => (u.kind === "team" ? u.heads.includes(S.seat) : u.id === S.seat));
  if (own > 0) list.unshift(...list.splice(own, 1));
  box.className = `panels n${Math.min(list.length, 8)}${list.length > 8 ? " many" : ""}${table ? " table-mode" : ""}`;
  S.colours = seatColours(header().players, S.info.colours);
  const turned = rotated();
  // In place (issue 17 item 12): a button under a finger stays the same element, so a press
  // that began before another phone's change arrived still ends in a click.
  updateInPlace(box, list.map((u, i) => renderUnit(u, i, canAct, cards, turned)));
  S.layout = { table, own: own >= 0 ? 0 : null };
  placePanels(box, table, S.layout.own);
  renderConn();
  showTotals(); // taps.js: counters moved by pending changes are marked as totals are
  if (!$("history").classList.contains("hidden")) renderHistory();
  graphChanged(); // graph.js: the drawer's life graph follows the game
  if (S.sheetFor) renderSheet(S.sheetFor);
}

// ---------------------------------------------------------------- updating in place

// Attributes that carry a value, not what an element is (the element is kept when they change),
// and those other code owns on a kept element (layout.js's facing and a total's length, a long
// press under way).
const VALUE_DATA = new Set(["data-life", "data-count", "data-text"]);
const KEPT_ATTRS = new Set(["style", "data-facing", "data-chars", "data-long"]);
// Classes others add to a kept element for a moment (a refusal's shake).
const KEPT_CLASSES = ["refused-flash"];

// What an element is: its tag and data-* attributes (the handlers h() attached were made for
// them), not its values, classes or labels.
function identity(el) {
  if (el.nodeType !== 1) return `#${el.nodeType}`;
  let out = el.tagName;
  for (const a of el.attributes) if (a.name.startsWith("data-") && !VALUE_DATA.has(a.name) && !KEPT_ATTRS.has(a.name)) out += ` ${a.name}=${a.value}`;
  return out;
}

// ``box``'s panels become ``panels`` (fresh from renderUnit): a panel with the same unit and key
// is updated in place, element by element; others are replaced. Other children stay.
function updateInPlace(box, panels) {
  const old = new Map([...box.children].filter((el) => el.classList.contains("panel")).map((el) => [el.getAttribute("data-unit"), el]));
  const kept = panels.map((fresh) => {
    const was = old.get(fresh.getAttribute("data-unit"));
    if (!was || was.getAttribute("data-key") !== fresh.getAttribute("data-key")) return fresh;
    old.delete(fresh.getAttribute("data-unit"));
    morph(was, fresh);
    return was;
  });
  for (const gone of old.values()) gone.remove();
  place(box, kept, [...box.children].find((el) => !el.classList.contains("panel")) || null);
}

// Put ``nodes`` in ``parent`` in this order (before ``end``), moving only what is out of place.
function place(parent, nodes, end) {
  let at = parent.firstChild;
  while (at && at !== end && !nodes.includes(at)) at = at.nextSibling;
  for (const node of nodes) {
    if (at === node) { at = node.nextSibling; continue; }
    parent.insertBefore(node, at || end);
  }
}

// ``was`` (in the page) made like ``fresh``: attributes, then children matched in order by
// identity (the kept ones morphed, the others replaced).
function morph(was, fresh) {
  for (const a of [...was.attributes]) {
    if (!fresh.hasAttribute(a.name) && !KEPT_ATTRS.has(a.name)) was.removeAttribute(a.name);
  }
  for (const a of fresh.attributes) {
    if (a.name === "style") {
      for (const prop of fresh.style) was.style.setProperty(prop, fresh.style.getPropertyValue(prop));
    } else if (a.name === "class") {
      const keep = KEPT_CLASSES.filter((c) => was.classList.contains(c));
      if (was.className !== a.value) was.className = a.value;
      for (const c of keep) was.classList.add(c);
    } else if (was.getAttribute(a.name) !== a.value) was.setAttribute(a.name, a.value);
  }
  if ("disabled" in fresh && was.disabled !== fresh.disabled) was.disabled = fresh.disabled;
  const olds = [...was.childNodes];
  const wanted = [...fresh.childNodes].map((node) => {
    if (olds.includes(node)) { olds.splice(olds.indexOf(node), 1); return node; } // the same node (a bubble)
    const i = olds.findIndex((o) => identity(o) === identity(node));
    if (i < 0) return node;
    const match = olds.splice(i, 1)[0];
    if (match.nodeType === 3) { if (match.data !== node.data) match.data = node.data; return match; }
    if (match.nodeType !== 1) return node;
    morph(match, node);
    return match;
  });
  for (const o of olds) o.remove();
  place(was, wanted, null);
}

function statusLine(st) {
  if (!st || st.status === "playing") return null;
  const word = statusWord(st.status).toLocaleUpperCase(lang());
  const why = st.reason ? reasonText(st.reason) : "";
  return h("div", { class: "status " + st.status }, `${word}${why ? " — " + why : ""}${st.rule ? " (" + st.rule + ")" : ""}`);
}

function badges(p, cards) {
  const out = [];
  // Poison, commander damage and pinned counters are the panel's parts (panel.js).
  for (const [kind, n] of Object.entries(p.counters || {})) if (!pinnedOnPanel(p.id, kind)) out.push(h("span", { class: "badge" }, t("{kind} {n}", { kind: counterKind(kind), n })));
  if (counted(p.id)) out.push(h("span", { class: "badge" }, t("library {n}", { n: p.library })));
  for (const c of cards.filter((c) => c.controller === p.id)) out.push(cardBadge(c)); // choices.js
  return out;
}

function renderUnit(u, index, canAct, cards, turned) {
  const isTeam = u.kind === "team";
  const st = isTeam ? u.team : u.player;
  const target = isTeam ? (S.selectedHead[u.id] && u.heads.includes(S.selectedHead[u.id]) ? S.selectedHead[u.id] : u.heads[0]) : u.id;
  const out = st.status !== "playing";
  const table = MODE === "play" && S.device === "table";
  const mine = !table && S.seat && (isTeam ? u.heads.includes(S.seat) : S.seat === u.id);
  // On the table device, a player who took their seat on their own phone: the panel still
  // takes effects (damage, life gain...), sent as a seat the device holds.
  const seats = isTeam ? u.heads : [u.id];
  const ownPhone = table && seats.every((id) => (S.info.taken || []).includes(id) && !S.seats.includes(id));
  const name = S.names.of(u.id);
  // 102.1, 805.4a: the panel of the player (the team) whose turn it is stands out.
  const active = Boolean(S.state && S.state.turn && seats.some((id) => S.state.turn.active.includes(id)));
  const tap = (action) => (canAct ? () => act(action) : MODE === "play" ? showPicker : null);
  const colour = PALETTE[S.colours[isTeam ? u.heads[0] : u.id] || 0];
  const panel = h("section", {
    class: `panel${out ? " out " + st.status : ""}${!table && turned.has(u.id) ? " turned" : ""}${mine ? " mine" : ""}${ownPhone ? " own-phone" : ""}${active ? " active-turn" : ""}`,
    "data-unit": u.id, "data-player": isTeam ? null : u.id, "data-team": isTeam ? u.id : null,
    "data-heads": isTeam ? [u.id, ...u.heads].join(" ") : null,
    // What the panel's handlers were made for: a panel is updated in place only while it holds.
    "data-key": `${target}|${canAct ? "act" : "look"}`,
    "data-colour": colour.name, "aria-label": active ? t("{name}, whose turn it is (102.1)", { name }) : name,
  });
  panel.style.backgroundColor = colour.bg;
  const top = h("div", { class: "panel-top" },
    h("span", { class: "pname" }, name),
    panelMarks(u), // the monarch, the initiative, the city's blessing (marks.js)
    !isTeam && u.player.team ? h("span", { class: "tag" }, S.names.of(u.player.team)) : null,
    mine ? h("span", { class: "tag you" }, tc("panel tag", "you")) : null,
    ownPhone ? h("span", { class: "tag phone" }, t("on own phone")) : null,
    h("span", { class: "spacer" }),
    table ? null : h("button", { class: "icon", "aria-label": t("Turn {name}'s panel", { name }), title: t("Turn to face its player"), onclick: () => toggleRotated(u.id) }, "⟲"),
    commanderOpener(u, target, canAct), // commander damage one tap from a compact panel (panel.js)
    MODE === "play" ? h("button", { "data-act": "more", class: "icon more", "aria-label": t("More for {name}", { name }), onclick: () => (canAct ? openSheet(target) : showPicker()) }, "⋯") : null,
  );
  panel.append(top);
  if (isTeam) {
    panel.append(h("div", { class: "heads" }, ...u.heads.map((hid) => {
      const hp = playerState(hid);
      return h("button", {
        class: "head" + (hid === target ? " selected" : "") + (hp.status !== "playing" ? " out" : ""),
        "data-head": hid, "aria-pressed": hid === target ? "true" : "false",
        onclick: () => { S.selectedHead[u.id] = hid; render(); },
      }, S.names.of(hid), hp.status !== "playing" ? ` (${statusWord(hp.status)})` : "", ...headMarks(hid));
    })));
  }
  // Life taps are taps.js's (data-tap): shown at once, pending until the server confirms.
  const lifeButton = (sign) => h("button", {
    class: `tap ${sign > 0 ? "plus" : "minus"}`, "data-act": sign > 0 ? "plus" : "minus",
    "data-tap": "life", "data-player": target, "data-delta": sign,
    "aria-label": sign > 0 ? t("{name} gains 1 life", { name }) : t("{name} loses 1 life", { name }), disabled: MODE !== "play" || !!S.state.over, // no taps once the game is over
  }, h("span", { "aria-hidden": "true" }, sign > 0 ? "+" : "−"));
  const shown = MODE === "replay" ? st.life : shownLife(u.id);
  const life = h("div", { class: "life-row" },
    lifeButton(-1),
    lifeButton(1),
    h("div", { class: "life" + (MODE !== "replay" && pendingMark(u.id) ? " pending" : ""), "data-life": st.life }, String(shown === null || shown === undefined ? st.life : shown)),
    MODE === "replay" ? null : tapBubble(u.id),
  );
  panel.append(life);
  panel.append(statusLine(st) || h("div", { class: "status none" }));
  const kept = keptLine(u, target); // what keeps them in at a losing total (panel.js)
  if (kept) panel.append(kept);
  // −5/+5 and the panel's parts (panel.js: poison, commander damage, pinned counters) share
  // one row where the panel is wide enough.
  const controls = h("div", { class: "controls" });
  if (MODE === "play") {
    controls.append(h("div", { class: "steps" },
      h("button", { "data-act": "minus5", "data-tap": "life", "data-player": target, "data-delta": -5, "aria-label": t("{name} loses 5 life", { name }), disabled: !!S.state.over || null }, "−5"),
      h("button", { "data-act": "plus5", "data-tap": "life", "data-player": target, "data-delta": 5, "aria-label": t("{name} gains 5 life", { name }), disabled: !!S.state.over || null }, "+5"),
    ));
  }
  controls.append(...panelParts(u, target, canAct));
  if (controls.childNodes.length) panel.append(controls);
  const members = isTeam ? u.heads.map(playerState) : [u.player];
  const b = [];
  for (const p of members) {
    const own = badges(isTeam ? Object.assign({}, p, { poison: 0 }) : p, cards);
    if (isTeam && own.length) b.push(h("span", { class: "badge who" }, S.names.of(p.id) + ":"));
    b.push(...own);
  }
  panel.append(h("div", { class: "badges" }, ...b));
  return panel;
}

function renderBanner() {
  const banner = $("banner");
  const st = S.state;
  if (!st.over) { banner.classList.add("hidden"); banner.replaceChildren(); return; }
  const winners = st.players.filter((p) => p.status === "won");
  const drew = st.players.filter((p) => p.status === "drew");
  let text;
  if (winners.length) {
    const w = winners[0];
    text = tn("Game over — {names} won: {why}", "Game over — {names} won: {why}", winners.length,
      { names: winners.map((p) => S.names.of(p.id)).join(" & "), why: describeResult("", w.reason, w.rule) });
  } else if (drew.length) {
    const d = drew[0];
    text = t("Game over — a draw: {why}", { why: describeResult("", d.reason, d.rule) });
  } else {
    text = t("Game over — everyone lost");
  }
  const items = [h("strong", { class: "over-text" }, text)];
  const matchOver = S.score && S.score.match_winner;
  if (matchOver) items.push(h("span", { class: "match" }, t("{name} won the match (100.6a)", { name: S.names.of(S.score.match_winner) })));
  if (MODE === "play" && S.seat) {
    items.push(h("button", { class: "primary", "data-act": "next-game", onclick: () => request("next_game") }, matchOver ? t("Next match") : t("Next game")));
  }
  if (MODE !== "replay") items.push(recordLink(S.score.game, t("Download record")));
  if (MODE !== "replay") items.push(h("button", { "data-act": "graph", onclick: () => showGraphSheet(S.score.game) }, t("Graph")));
  banner.replaceChildren(...items);
  faceOverlay(banner, winners.length ? winners[0].team || winners[0].id : null); // the table device: to the winner
  banner.classList.remove("hidden");
}

function renderScore() {
  const sc = S.score;
  const el = $("score");
  if (!sc || MODE === "replay") { el.replaceChildren(); return; }
  // The game's number within its match ("game" counts the table's games across matches):
  // the match's games that are over, plus this one while it is played.
  const inMatch = typeof sc.finished === "number" ? sc.finished + (S.state && S.state.over ? 0 : 1) : sc.game;
  const bits = [];
  if (sc.match > 1) bits.push(t("Match {n}", { n: sc.match }));
  bits.push(t("Game {n}", { n: Math.max(inMatch, 1) }));
  bits.push(sc.best_of ? t("best of {n}", { n: sc.best_of }) : t("open match"));
  const parts = [h("span", {}, bits.join(" · "))];
  if (sc.finished || sc.match > 1) {
    for (const side of sc.sides) {
      const matches = sc.match > 1 ? ` (${tn("{n} match won", "{n} matches won", side.matches, { n: side.matches })})` : "";
      parts.push(h("span", { class: "side" }, `${S.names.of(side.id)} ${side.wins}–${side.losses}–${side.draws}${matches}`));
    }
  }
  el.replaceChildren(...parts);
}

function recordUrl(n) {
  return MODE === "play" ? `/api/tables/${KEY}/games/${n}/record` : `/api/watch/${KEY}/games/${n}/record`;
}

// "Share this table": the device's table continues on the server this page came from
// (POST api/tables/shared, which decides its whole log again); this device keeps its host
// and seat tokens there and opens the served table as its table device (device.js keeps
// nothing more of it). Only once every tap is decided here: none is left behind.
async function shareTable() {
  if (S.pending.size) { toast(t("Wait until every change is decided here, then share."), "bad"); return; }
  try {
    const body = await DeviceTables.shared(KEY);
    body.host = loadHost(KEY);
    body.tokens = S.tokens;
    const res = await api("POST", "api/tables/shared", body);
    saveHost(res.id, body.host);
    saveDevice(res.id, "table");
    saveSeats(res.id, body.tokens);
    await DeviceTables.forget(KEY);
    location.href = tableHref(res.id);
  } catch (ex) {
    toast(ex.status ? t("Not shared: {why}", { why: said(ex.data, S.names) || ex.message })
      : t("Not shared: the server can't be reached. The table stays on this device."), "bad");
  }
}

// A link that downloads game n's record: the server's, or the one the device's engine writes.
function recordLink(n, label) {
  if (!ON_DEVICE) return h("a", { class: "button", href: recordUrl(n), download: "" }, label);
  return h("a", { class: "button", href: "#", onclick: async (e) => {
    e.preventDefault();
    try {
      const url = URL.createObjectURL(new Blob([await DeviceTables.record(KEY, n)], { type: "application/json" }));
      const a = h("a", { href: url, download: `lifeledger-game-${n}.json` });
      document.body.append(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (ex) { toast(said(ex.data, S.names) || ex.message, "bad"); }
  } }, label);
}

// ---------------------------------------------------------------- history

function seatName(seat) { return seat ? t("by {name}", { name: S.names.of(seat) }) : "—"; } // the seat that sent it, on any device

// What sent a change (issue 17 item 11): the table device ("the table"), else the seat's phone.
function byWhom(e) { return e.device === "table" ? t("the table") : e.seat ? S.names.of(e.seat) : t("nobody"); }
// "Cy loses 7 life, by Ana"; the table device's its own sentence (issue 25 item 14: Italian
// says "dal tavolo", not "da il tavolo", so "by the table" is never "by" + "the table").
function actionBy(e, action) {
  return e.device === "table" ? t("{action}, by the table", { action }) : t("{action}, by {who}", { action, who: byWhom(e) });
}
function sentBy(e) { return e.device === "table" ? t("by the table") : seatName(e.seat); }
// An undo of another seat's change says who allowed it.
function allowedBy(e) {
  if (!e.allowed) return "";
  return " " + (e.allowed === "host" ? t("(allowed by the host)") : t("(allowed by {name})", { name: S.names.of(e.allowed) }));
}

// ---------------------------------------------------------------- undo, named

// A change as the Undo button says it: "Cy −7", "Bo +1 poison"; else the history's sentence.
function shortAction(a) {
  if (!a) return "";
  const n = (id) => S.names.of(id);
  const amt = (x) => showAmount(x, S.names);
  switch (a.do) {
    case "lose_life": return `${n(a.player)} \u2212${amt(a.amount)}`;
    case "gain_life": return `${n(a.player)} +${amt(a.amount)}`;
    case "pay_life": return a.payments ? describe(a, S.names) : t("{name} pays {amount}", { name: n(a.player), amount: amt(a.amount) });
    case "damage": return `${n(a.to)} \u2212${amt(a.amount)}${a.source ? ` (${shortName(n(a.source))})` : ""}`;
    case "add_counters": return `${n(a.player)} +${amt(a.amount)} ${counterKind(a.kind)}`;
    case "remove_counters": return `${n(a.player)} \u2212${amt(a.amount)} ${counterKind(a.kind)}`;
    default: return describe(a, S.names);
  }
}

// Starting over (issue 17 item 3): a reset or a new game, as the Undo button and the history
// say it. The game left unfinished is not scored; the new one is the entry's game.
function startOverName(e) { return e.kind === "reset" ? t("Reset") : t("New game"); }
function startOverText(e) {
  return e.kind === "reset"
    ? t("↺ Reset: the game starts over (game {game}; game {before} left unfinished, not scored)", { game: e.game, before: e.game - 1 })
    : t("New game: game {before} left unfinished (not scored), game {game} begins", { game: e.game, before: e.game - 1 });
}

// A change of a player's name or colour (issue 17 item 2), as the history says it.
function setupText(e) {
  const c = e.setup || {};
  const parts = [];
  if (c.name) parts.push(t("{old} is now {name}", { old: c.name.from, name: c.name.to }));
  if (c.colour) parts.push(t("{name}'s colour changed", { name: c.name ? c.name.to : S.names.of(c.player) }));
  return parts.join("; ") || t("Names and colours");
}

// The ⋯ sheet's "Name and colour" (issue 17 item 2): a quick game's "Player 1" becomes Ana.
// Each is sent as a "setup" change, checked by the server (a refusal names the field).
function nameSection(pid) {
  const name = h("input", { id: "sh-name", type: "text", value: S.names.of(pid), maxlength: 40, autocomplete: "off", "aria-label": t("Name") });
  const save = h("button", {
    "data-sheet": "rename",
    onclick: () => {
      const value = name.value.trim();
      if (!value) { toast(t("Name: type a name."), "bad"); return; }
      if (value.length > 40) { toast(t("Name: at most 40 characters."), "bad"); return; }
      if (/[<>]/.test(value)) { toast(t("Name: no < or >."), "bad"); return; }
      if (value === S.names.of(pid)) { toast(t("{name} is the name already.", { name: value }), "bad"); return; }
      request("setup", null, { player: pid, name: value });
    },
  }, t("Rename"));
  const mine = S.colours ? S.colours[pid] : undefined;
  const swatches = PALETTE.map((colour, i) => {
    const owner = Object.keys(S.colours || {}).find((id) => id !== pid && S.colours[id] === i);
    const b = h("button", {
      class: "swatch", "data-swatch": i, "aria-pressed": String(mine === i),
      "aria-label": owner ? t("{colour}: {name}'s", { colour: colourName(colour), name: S.names.of(owner) }) : colourName(colour),
      disabled: owner || mine === i ? true : null,
      onclick: () => request("setup", null, { player: pid, colour: i }),
    }, mine === i ? "✓" : "");
    Object.assign(b.style, { background: colour.bg, color: "#fff", minWidth: "44px", minHeight: "44px", padding: "0", opacity: owner ? "0.35" : "1" });
    return b;
  });
  return h("div", { class: "sec" },
    h("h3", {}, t("Name and colour")),
    h("div", { class: "row" }, name, save),
    h("div", { class: "row", role: "group", "aria-label": t("{name}'s colour", { name: S.names.of(pid) }) }, ...swatches));
}

// The menu's "Reset game" and "New game": one more tap confirms (S.startOver: the one asked).
function startOverItems() {
  if (MODE !== "play" || !(S.seat || S.seats.length) || !S.state || S.state.over) return [];
  const items = [h("h3", {}, t("This game"))];
  const asked = S.startOver;
  if (!asked) {
    items.push(h("button", { "data-menu": "reset", onclick: () => { S.startOver = "reset"; renderMenu(); } }, t("Reset game…")));
    items.push(h("button", { "data-menu": "new-game", onclick: () => { S.startOver = "new_game"; renderMenu(); } }, t("New game…")));
    return items;
  }
  const question = asked === "reset"
    ? t("Start this game over from its beginning, with the same players? Every total goes back to its start. The game so far is not scored; Undo brings it back.")
    : t("End this game unfinished and begin the next, with the same players? The game so far is not scored; Undo brings it back.");
  items.push(h("p", { id: "start-over-text", role: "alert" }, question));
  items.push(h("div", { class: "row" },
    h("button", { class: "primary", "data-confirm": asked, onclick: () => { S.startOver = null; close("menu"); request(asked); } }, asked === "reset" ? t("Reset the game") : t("Begin a new game")),
    h("button", { "data-menu": "keep-playing", onclick: () => { S.startOver = null; renderMenu(); } }, t("Keep playing"))));
  return items;
}

// The Undo button names what it takes back (issue 17 item 10): "Undo: Cy −7, by Ana". Another
// seat's change is asked of them (or the host): the button says whose it is.
function renderUndo() {
  const btn = $("undo-btn");
  if (!btn || MODE !== "play") return;
  const canAct = !!S.seat || S.seats.length > 0;
  const aim = undoAim();
  btn.disabled = !(canAct && (S.canUndo || aim.own || !!TAPS.run));
  let text = t("Undo");
  let title = t("Nothing to undo");
  if (TAPS.run && TAPS.run.net) {
    text = t("Undo: {what}", { what: `${S.names.of(TAPS.run.player)} ${TAPS.run.net < 0 ? "\u2212" : "+"}${formatNumber(Math.abs(TAPS.run.net))}` });
    title = t("{undo} (not sent yet)", { undo: text });
  } else if (aim.own && aim.target !== S.undoTarget) {
    // This seat's own last change, under later ones: those are made again after it.
    const e = S.entries.find((x) => x.seq === aim.target);
    text = e ? t("Undo: {what}", { what: shortAction(e.action) }) : t("Undo event {n}", { n: String(aim.target) });
    title = t("{undo}: the changes made after it are made again", { undo: text });
  } else if (S.canUndo) {
    const e = S.entries.find((x) => x.seq === S.undoTarget);
    const what = e ? (e.action ? shortAction(e.action) : startOverName(e)) : "";
    if (!e) title = t("Undo event {n}", { n: String(S.undoTarget) });
    else if (e.seat && heldSeats().has(e.seat)) { text = t("Undo: {what}", { what }); title = `${text} (${sentBy(e)})`; }
    else if (e.device === "table") { text = t("Undo: {what}, by the table", { what }); title = t("{undo}: asks the table (or the host) to allow it", { undo: text }); }
    else { text = t("Undo: {what}, by {who}", { what, who: byWhom(e) }); title = t("{undo}: asks {who} (or the host) to allow it", { undo: text, who: byWhom(e) }); }
  }
  if (btn.dataset.text !== text) {
    btn.dataset.text = text;
    btn.textContent = `\u21b6 ${text}`;
  }
  btn.title = title;
  btn.setAttribute("aria-label", title);
}

// Another seat asks to take back this seat's change (or, on the host's phone, anyone's): one
// question at a time, while it is still the change Undo would take back. Issue 25 item 5: a
// card, not a dialog: play goes on around it (no backdrop, the panels and the bar stay
// tappable), it sits under the bars (toasts are at the bottom), above anything a toast could
// put over it, and on a table device it is turned to the seat asked, as its panel is.
const UNDO_ASK_Z = "52"; // above the toasts' 50 (style.css): a toast never covers Allow or Keep
function undoAskEl() {
  let el = $("undo-ask");
  if (el) return el;
  el = h("div", { id: "undo-ask", class: "undo-ask hidden", role: "dialog", "aria-modal": "false", "aria-labelledby": "undo-ask-title", "aria-describedby": "undo-ask-text" },
    h("strong", { id: "undo-ask-title" }, t("Undo is asked for")),
    h("p", { id: "undo-ask-text", class: "ask-text" }),
    h("div", { id: "undo-ask-buttons", class: "row ask-buttons" }));
  Object.assign(el.style, {
    position: "fixed", zIndex: UNDO_ASK_Z, width: "min(480px, 94vw)", maxHeight: "40vh", overflow: "auto",
    boxSizing: "border-box", padding: "10px 0", background: "var(--card)", border: "1px solid var(--warn)",
    borderRadius: "12px", boxShadow: "0 6px 24px rgba(0,0,0,.6)",
  });
  el.firstChild.style.padding = "0 14px";
  document.body.append(el);
  return el;
}

// Where the card goes: on a table device, over the asked seat's own panel and turned as it is
// (facingOf, layout.js), so that every other panel stays free; else under the header's bars.
function placeUndoAsk(el, pid) {
  const deg = typeof facingOf === "function" ? facingOf(pid) : 0;
  const panel = [...document.querySelectorAll("#panels.table-mode .panel")]
    .find((p) => [p.dataset.unit, ...(p.dataset.heads || "").split(" ")].includes(pid));
  if (panel) {
    el.dataset.facing = String(deg);
    const r = panel.getBoundingClientRect();
    const across = deg === 90 || deg === 270;
    Object.assign(el.style, {
      left: `${Math.round(r.left + r.width / 2)}px`, top: `${Math.round(r.top + r.height / 2)}px`,
      width: `${Math.round(Math.min(480, (across ? r.height : r.width) - 12))}px`,
      maxHeight: `${Math.round((across ? r.width : r.height) - 12)}px`,
      transform: `translate(-50%, -50%) rotate(${deg}deg)`,
    });
    return;
  }
  delete el.dataset.facing;
  const bars = ["bar", "turn-bar", "tools-strip"].map((id) => $(id)).filter((x) => x && !x.classList.contains("hidden"));
  const below = Math.max(0, ...bars.map((x) => x.getBoundingClientRect().bottom));
  Object.assign(el.style, { left: "50%", top: `${Math.round(below) + 6}px`, width: "min(480px, 94vw)", maxHeight: "40vh", transform: "translateX(-50%)" });
}

// What this device's Undo takes back (issue 25 item 4): on a personal phone, its seat's own
// last change in effect, even under other seats' later changes (the server takes it back and
// makes the later ones again); on a table device, or with no change of its own in effect, the
// table's last change, as before (another seat's is asked of them). A table device holds
// every seat, so "its own" would be whichever seat it last tapped for: the table's last
// change is what everyone at the table saw last.
function undoAim() {
  const own = S.device !== "table" && S.seat && S.undoOwn ? S.undoOwn[S.seat] : undefined;
  if (typeof own === "number") return { target: own, own: true };
  return { target: S.undoTarget, own: false };
}

// The server's answer to an undo that would change what later changes did ("undo-changes-
// later", naming each and how): said on a card (as the undo question is, never blocking
// play), with "Undo anyway" (the same undo, "confirm": true) and "Keep it".
function showUndoConfirm(target, msg) {
  let el = $("undo-confirm");
  if (!el) {
    el = undoAskEl().cloneNode(false);
    el.id = "undo-confirm";
    el.setAttribute("aria-labelledby", "undo-confirm-text");
    el.removeAttribute("aria-describedby");
    el.append(h("p", { id: "undo-confirm-text", class: "ask-text" }), h("ul", { id: "undo-confirm-list", class: "ask-text" }),
      h("div", { id: "undo-confirm-buttons", class: "row ask-buttons" }));
    document.body.append(el);
  }
  S.undoConfirm = { target };
  // Each later change, named, with what it did and what it would do now (the server's
  // "preview"; its sentence says the same where a page has no preview to show).
  const preview = Array.isArray(msg.preview) ? msg.preview : [];
  const mine = S.entries.find((x) => x.seq === target);
  const what = mine && mine.action ? shortAction(mine.action) : t("event {n}", { n: String(target) });
  const did = (list) => (list.length ? list.map((c) => describeChange(c, S.names)).join(", ") : t("nothing"));
  $("undo-confirm-text").textContent = preview.length
    ? t("Taking back {what} changes what later changes did:", { what })
    : said(msg, S.names);
  $("undo-confirm-list").replaceChildren(...preview.map((p) => h("li", { "data-seq": String(p.seq) },
    t("{change} (event {n}): {was}; now {now}", { change: actionBy(p, describe(p.action, S.names)), n: String(p.seq), was: did(p.was), now: did(p.now) }))));
  $("undo-confirm-buttons").replaceChildren(
    h("button", { class: "primary", "data-undo-confirm": "yes", onclick: () => { hideUndoConfirm(); request("undo", null, { target, confirm: true }); } }, t("Undo anyway")),
    h("button", { "data-undo-confirm": "no", onclick: hideUndoConfirm }, t("Keep it")),
  );
  el.classList.remove("hidden");
  placeUndoAsk(el, null);
}

function hideUndoConfirm() {
  S.undoConfirm = null;
  const el = $("undo-confirm");
  if (el) el.classList.add("hidden");
}

function showUndoAsk() {
  const el = undoAskEl();
  const ask = [...S.undoAsks.values()].find((a) => a.target === S.undoTarget);
  if (!ask) { el.classList.add("hidden"); return; }
  const mine = heldSeats().has(ask.owner);
  const opened = ask.action ? null : S.entries.find((x) => x.seq === ask.target && (x.kind === "reset" || x.kind === "new_game"));
  const what = ask.action ? shortAction(ask.action) : opened ? startOverName(opened) : t("event {n}", { n: String(ask.target) });
  $("undo-ask-title").textContent = t("Undo is asked for");
  $("undo-ask-text").textContent = mine
    ? t("{name} asks to take back your change: {what}.", { name: S.names.of(ask.seat), what })
    : t("{name} asks to take back {owner}'s change: {what}. (You opened the table.)", { name: S.names.of(ask.seat), owner: said(ask, S.names, "by"), what });
  const answer = (allow) => () => {
    S.undoAsks.delete(ask.request);
    send({ type: "undo_answer", request: ask.request, allow });
    showUndoAsk();
  };
  $("undo-ask-buttons").replaceChildren(
    h("button", { class: "primary", "data-undo-answer": "allow", onclick: answer(true) }, t("Allow undo")),
    h("button", { "data-undo-answer": "refuse", onclick: answer(false) }, t("Keep it")),
  );
  el.classList.remove("hidden");
  placeUndoAsk(el, mine ? ask.owner : null);
}

function groupEntries(undone) {
  const groups = [];
  for (const e of S.entries) {
    const last = groups[groups.length - 1];
    const a = e.action;
    const tappable = e.kind === "action" && (a.do === "gain_life" || a.do === "lose_life") && typeof a.amount === "number" && !undone.has(e.seq);
    if (tappable && last && last.tappable && last.seat === e.seat && last.do === a.do && last.player === a.player &&
        last.game === e.game && e.time - last.time < 4) {
      last.items.push(e); last.time = e.time; last.amount += a.amount;
      continue;
    }
    groups.push({ tappable, seat: e.seat, do: a && a.do, player: a && a.player, game: e.game, time: e.time, amount: a ? a.amount : 0, items: [e] });
  }
  return groups;
}

// An engine's note (or a refusal) in the page's language: its structured sentence when the
// server sends one ("sentence"), else its English text.
function noteText(n) {
  if (!n) return "";
  if (n.sentence && typeof n.sentence === "object") return sentence(n.sentence, S.names);
  if (n.text && typeof n.text === "object") return sentence(n.text, S.names);
  if (n.message && typeof n.message === "object") return sentence(n.message, S.names);
  return S.names.text(n.text !== undefined ? n.text : n.message || "");
}

function mergeChanges(items) {
  const merged = new Map();
  for (const e of items) {
    for (const c of e.changes) {
      const key = [c.team, c.player, c.what, c.key].join("|");
      if (merged.has(key) && "from" in c) merged.get(key).to = c.to;
      else merged.set(key, Object.assign({}, c));
    }
  }
  return [...merged.values()];
}

function renderHistory() {
  const undone = undoneSeqs();
  // A seat's own change taken back under later ones (issue 25 item 4): the later ones were
  // taken back and made again; the history shows the undo once and says which were made again.
  const again = new Set(S.entries.filter((x) => x.kind === "undo" && x.replay).map((x) => x.target));
  const list = $("history-list");
  const rows = [];
  for (const g of groupEntries(undone)) {
    const e = g.items[0];
    if (e.kind === "undo" && e.replay) continue; // part of the undo of the change it names
    const when = new Date(g.time * 1000).toLocaleTimeString(lang());
    let text;
    if (e.kind === "next_game") text = t("Game {n} begins", { n: e.game });
    else if (e.kind === "reset" || e.kind === "new_game") text = startOverText(e);
    else if (e.kind === "setup") text = setupText(e);
    else if (e.kind === "undo") {
      const was = S.entries.find((x) => x.seq === e.target);
      const what = was ? actionBy(was, was.action ? describe(was.action, S.names) : startOverText(was)) : "#" + e.target;
      text = t("↶ Undo: {what}", { what }) + allowedBy(e);
    } else if (g.items.length > 1) {
      // A run of taps is one change (taps.js): the changes' amounts, not a count of taps.
      const args = { name: S.names.of(g.player), amount: g.amount, parts: g.items.map((x) => formatNumber(x.action.amount)).join(" + ") };
      text = g.do === "gain_life"
        ? tn("{name} gains {amount} life ({parts})", "{name} gains {amount} life ({parts})", g.amount, args)
        : tn("{name} loses {amount} life ({parts})", "{name} loses {amount} life ({parts})", g.amount, args);
    } else text = describe(e.action, S.names);
    const changes = mergeChanges(g.items).map((c) => describeChange(c, S.names));
    rows.push(h("li", { class: (g.items.every((x) => undone.has(x.seq)) ? "undone " : "") + e.kind, "data-seq": e.seq },
      h("div", { class: "what" }, text,
        again.has(e.seq) ? h("span", { class: "muted" }, " " + t("(made again, after an earlier change was undone)"))
          : undone.has(e.seq) ? h("span", { class: "muted" }, " " + t("(undone)"))
            : e.replay ? h("span", { class: "muted" }, " " + t("(made again: event {n})", { n: String(e.replay) })) : null),
      h("div", { class: "meta" }, `#${e.seq} · ${when} · ${sentBy(e)} · ${t("game {n}", { n: e.game })}`),
      changes.length ? h("div", { class: "changes" }, changes.join(" · ")) : null,
      ...g.items.flatMap((x) => x.notes || []).map((n) => h("div", { class: "note" }, `${noteText(n)} (${n.rule})`)),
    ));
  }
  rows.reverse();
  if (!rows.length && !S.more) rows.push(h("li", { class: "muted" }, t("Nothing yet.")));
  // The page holds the last entries only: older ones come a page at a time.
  if (S.more) {
    const oldest = S.entries.length ? S.entries[0].seq : S.lastSeq + 1;
    rows.push(h("li", { class: "earlier" }, h("button", {
      id: "load-earlier", disabled: !S.connected || !!S.loadingEarlier,
      onclick: () => { S.loadingEarlier = true; send({ type: "history", before: oldest, limit: 200 }); renderHistory(); },
    }, S.loadingEarlier ? t("Loading…") : t("Load earlier"))));
  }
  list.replaceChildren(...rows);
}

// ---------------------------------------------------------------- the action sheet

function openSheet(pid) { S.sheetFor = pid; S.sheetShown = null; renderSheet(pid); faceOverlay($("sheet"), pid); open("sheet"); }

// Number fields are text fields: their text is read exactly (a total may be huge, 107.1).
function numberInput(id, value, label, signed) {
  return h("input", { id, type: "text", value, inputmode: signed ? null : "numeric", autocomplete: "off", "aria-label": label, class: "num" });
}
// The whole number in field ``id``; throws an Error naming the field (its label).
function num(id, min) { const el = $(id); return parseWhole(el.value, el.getAttribute("aria-label"), min === undefined ? 0 : min); }
// Send the action built by ``build``, unless a field is wrong: then say which, and send nothing.
function actFrom(build) {
  return () => {
    let action;
    try { action = build(); } catch (ex) { toast(ex.message, "bad"); return; }
    act(action);
  };
}

function renderSheet(pid) {
  // Drawn again as events arrive: what was typed (and the field being typed in) stays.
  const old = S.sheetShown === pid ? [...$("sheet-body").querySelectorAll("input[id], select[id]")] : [];
  const kept = old.map((el) => [el.id, el.type === "checkbox" ? el.checked : el.value]);
  const focused = old.includes(document.activeElement) ? document.activeElement.id : null;
  const p = playerState(pid);
  if (!p) return;
  const others = header().players.filter((x) => x.id !== pid);
  $("sheet-title").textContent = t("{name} — {life}", { name: S.names.of(pid), life: tn("{n} life", "{n} life", p.life, { n: p.life }) });
  const body = $("sheet-body");
  const amount = (min) => num("sh-amount", min);
  const sections = [];
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Life")),
    h("div", { class: "row" }, numberInput("sh-amount", 1, t("Amount"), true),
      h("button", { "data-sheet": "lose", onclick: actFrom(() => ({ do: "lose_life", player: pid, amount: amount() })) }, t("Lose")),
      h("button", { "data-sheet": "gain", onclick: actFrom(() => ({ do: "gain_life", player: pid, amount: amount() })) }, t("Gain")),
      h("button", { "data-sheet": "pay", onclick: actFrom(() => ({ do: "pay_life", player: pid, amount: amount() })) }, t("Pay")),
      // A life total may become negative (107.1b): "Set to" takes any whole number.
      h("button", { "data-sheet": "set", onclick: actFrom(() => ({ do: "set_life", player: pid, to: amount(null) })) }, t("Set to"))),
  ));
  const dmgSource = h("input", { id: "sh-source", placeholder: t("Source (a card's name)"), value: "", "aria-label": t("Damage source"), maxlength: 60 });
  const combat = h("input", { type: "checkbox", id: "sh-combat" });
  const infect = h("input", { type: "checkbox", id: "sh-infect" });
  const lifelink = h("input", { type: "checkbox", id: "sh-lifelink" });
  const controller = controllerSelect(pid); // combat damage and lifelink name it (marks.js)
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Damage")),
    h("div", { class: "row" }, numberInput("sh-damage", 1, t("Damage")), dmgSource),
    h("div", { class: "row" },
      h("label", { class: "check" }, combat, t("combat")),
      h("label", { class: "check" }, infect, t("infect")),
      h("label", { class: "check" }, lifelink, t("lifelink")), controller),
    h("div", { class: "row" }, h("button", {
      "data-sheet": "damage",
      onclick: actFrom(() => {
        const a = { do: "damage", to: pid, amount: num("sh-damage"), source: dmgSource.value.trim() || "damage" };
        const by = sheetController(controller, combat.checked, lifelink.checked);
        if (combat.checked) a.combat = true;
        if (infect.checked) a.infect = true;
        if (lifelink.checked) a.lifelink = true;
        if (by) a.controller = by;
        return a;
      }),
    }, t("Deal damage"))),
  ));
  const commanders = header().players.flatMap((o) => (o.commanders || []).map((c) => ({ c, owner: o.id }))).filter((x) => x.owner !== pid);
  if (commanders.length) {
    sections.push(h("div", { class: "sec" },
      h("h3", {}, t("Commander damage (combat)")),
      ...commanders.map(({ c, owner }) => h("div", { class: "row cmdrow", "data-commander": c },
        h("span", { class: "grow" }, `${S.names.of(c)} (${S.names.of(owner)})`),
        h("strong", { class: "cmd-total" }, String((p.commander_damage || {})[c] || 0)),
        ...[1, 5, 10].map((n) => h("button", {
          "data-cmd": n,
          onclick: actFrom(() => ({ do: "damage", source: c, to: pid, amount: n, combat: true, controller: commanderController(owner, pid) || sheetController(controller, true, false) })),
        }, `+${n}`)),
      )),
    ));
  }
  const kind = h("select", { id: "sh-kind", "aria-label": t("Counter kind") }, ...COUNTER_KINDS.map((k) => h("option", { value: k }, counterKind(k))));
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Counters")),
    h("div", { class: "row" }, kind, numberInput("sh-counters", 1, t("Counters")),
      h("button", { "data-sheet": "add-counters", onclick: actFrom(() => ({ do: "add_counters", player: pid, kind: kind.value, amount: num("sh-counters") })) }, t("Add")),
      h("button", { "data-sheet": "remove-counters", onclick: actFrom(() => ({ do: "remove_counters", player: pid, kind: kind.value, amount: num("sh-counters") })) }, t("Remove"))),
    h("p", { class: "muted", id: "sh-counts" }, [counterWords(p.poison, "poison"), ...Object.entries(p.counters || {}).map(([k, n]) => counterWords(n, k))].join(" · ")),
  ));
  if (MODE === "play") sections.push(pinSection(pid));
  if (MODE === "play" && (S.seat || S.seats.length)) sections.push(nameSection(pid));
  const marks = designationSection(pid); // marks.js
  if (marks) sections.push(marks);
  const other = h("select", { id: "sh-other", "aria-label": t("Exchange with") }, ...others.map((o) => h("option", { value: o.id }, S.names.of(o.id))));
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Exchange life totals")),
    h("div", { class: "row" }, other, h("button", { "data-sheet": "exchange", onclick: () => act({ do: "exchange_life", players: [pid, other.value] }) }, t("Exchange"))),
  ));
  const cardSel = h("select", { id: "sh-card", "aria-label": t("Card") }, ...S.info.catalogue.cards.map((c) => h("option", { value: c }, c)));
  const mine = activeCards().filter((c) => c.controller === pid);
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Cards on the battlefield")),
    h("div", { class: "row" }, cardSel, h("button", {
      "data-sheet": "card",
      onclick: () => {
        const id = cardSel.value.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") + "-" + newId().slice(0, 6);
        act({ do: "card", id, name: cardSel.value, controller: pid });
      },
    }, t("Enters"))),
    ...mine.map((c) => h("div", { class: "row" }, h("span", { class: "grow" }, c.name),
      h("button", { "data-end": c.id, onclick: () => act({ do: "end", id: c.id }) }, t("Leaves")))),
  ));
  const upkeep = h("button", { "data-sheet": "upkeep", onclick: () => act({ do: "upkeep", player: pid }) }, t("Upkeep begins"));
  sections.push(counted(pid)
    ? h("div", { class: "sec" },
      h("h3", {}, t("Library")),
      h("div", { class: "row" }, numberInput("sh-draw", 1, t("Cards to draw")),
        h("button", { "data-sheet": "draw", onclick: actFrom(() => ({ do: "draw", player: pid, count: num("sh-draw") })) }, t("Draw")), upkeep),
      h("p", { class: "muted" }, String(p.library) === "0"
        ? t("0 cards in library — drawing now draws from an empty library (704.5b).")
        : tn("{n} card in library.", "{n} cards in library.", p.library, { n: p.library })))
    : h("div", { class: "sec" },
      h("h3", {}, t("Library")),
      h("div", { class: "row" },
        // 121.4, 704.5b: record 2 states the library empty, then the draw, as one event.
        h("button", { "data-sheet": "draw", onclick: () => act(header().record === 2 ? { do: "together", actions: [{ do: "set_library", player: pid, count: 0 }, { do: "draw", player: pid, count: 1 }] } : { do: "draw", player: pid, count: 1 }) }, t("Draws from an empty library")),
        header().record === 2 ? h("button", { "data-sheet": "library-empty", onclick: () => act({ do: "set_library", player: pid, count: 0 }) }, t("Library is empty now")) : null, upkeep),
      h("p", { class: "muted" }, header().record === 2
        ? t("The table doesn't count this library: record here an attempt to draw from an empty library (704.5b), or that it is empty now (the next draw, the draw step's, is from an empty library).")
        : t("The table doesn't count this library: record here an attempt to draw from an empty library (704.5b).")))
  );
  if (pid === S.seat || (S.device === "table" && S.seats.includes(pid))) {
    const concede = h("button", {
      class: "danger", "data-sheet": "concede",
      onclick: () => {
        if (concede.dataset.armed) { act({ do: "concede", player: pid }); close("sheet"); return; }
        concede.dataset.armed = "1";
        concede.textContent = t("Tap again: {name} concedes. Final — it can't be undone.", { name: S.names.of(pid) });
      },
    }, t("Concede…"));
    sections.push(h("div", { class: "sec" }, h("h3", {}, t("Leave the game")), concede));
  } else {
    sections.push(h("div", { class: "sec" }, h("h3", {}, t("Leave the game")),
      h("p", { class: "muted" }, t("Only {name} can concede, from their own phone (104.3a).", { name: S.names.of(pid) }))));
  }
  body.replaceChildren(...sections);
  for (const [id, value] of kept) {
    const el = $(id);
    if (!el || !body.contains(el)) continue;
    if (el.type === "checkbox") el.checked = value; else el.value = value;
  }
  if (focused && $(focused)) $(focused).focus();
  S.sheetShown = pid;
}

// ---------------------------------------------------------------- seats, menu

async function showPicker() {
  if (MODE !== "play" || S.claiming) return;
  // The table device has no seat of its own to pick: it takes the free ones.
  if (S.device === "table") { if (!S.seats.length) takeFreeSeats(true); return; }
  const box = $("picker-seats");
  const note = $("picker-note");
  note.textContent = t("Take your seat. It stays yours on this phone, even after a reload.");
  const taken = new Set(S.info.taken || []);
  box.replaceChildren(
    ...header().players.map((p) => {
      const name = S.names.of(p.id);
      const isTaken = taken.has(p.id);
      const btn = h("button", {
        class: "seat" + (isTaken ? " taken" : ""), "data-seat": p.id,
        onclick: async () => {
          if (S.claiming) return;
          // A taken seat is asked for: the phone or table device holding it (or the phone that
          // opened the table) allows it. It is first asked for plainly (it may have come free),
          // and the refusal (409) says who holds it and offers to ask.
          const ask = (isTaken && !!S.host) || !!btn.dataset.ask;
          if (ask && !btn.dataset.armed) {
            btn.dataset.armed = "1";
            btn.textContent = S.host ? t("Take {name}'s seat (this phone opened the table)", { name }) : t("Ask to take {name}'s seat", { name });
            return;
          }
          S.claiming = true;
          try {
            const res = await claimSeat(KEY, p.id, ask, {
              waiting: () => {
                note.textContent = btn.dataset.holder === "device" ? t("Waiting for the table device to allow it…") : t("Waiting for {name}'s phone to allow it…", { name });
                btn.disabled = true;
              },
            });
            S.token = res.token; S.seat = res.seat;
            S.tokens = { [res.seat]: res.token }; saveSeats(KEY, S.tokens);
            S.claiming = false;
            close("picker");
            send(hello());
          } catch (ex) {
            S.claiming = false;
            btn.disabled = false;
            if (ex.code === "seat-taken") {
              btn.dataset.ask = "1"; btn.dataset.armed = "1";
              btn.dataset.holder = ex.device ? "device" : "phone";
              btn.classList.add("taken");
              btn.textContent = t("Ask to take {name}'s seat", { name });
              note.textContent = ex.device
                ? t("{name}'s seat is on the table device. Ask to take it? One tap on the table device allows it.", { name })
                : ex.connected ? t("{name}'s seat is taken by a phone that is here. Ask to take it?", { name })
                  : t("{name}'s seat is taken. Ask to take it?", { name });
            } else {
              note.textContent = ex.code === "refused" ? t("{name}'s phone refused to give the seat.", { name }) : ex.message;
            }
          }
        },
      }, name, isTaken ? " " + t("(taken)") : "");
      return btn;
    }),
    h("button", { class: "seat device", "data-seat": "table", onclick: becomeTableDevice }, t("Use as the table device (one device for everyone)")),
    h("button", { class: "seat watch", "data-seat": "", onclick: () => { S.pickerDismissed = true; close("picker"); } }, t("Just watch")),
  );
  open("picker");
}

// Another phone asks for a seat this phone holds (or, on the host's phone, any seat).
function showAsk() {
  const [rid, ask] = S.asks.entries().next().value || [];
  if (!rid) { close("ask"); return; }
  const name = S.names.of(ask.seat);
  // On the table device, the seat is one of the players' it holds: allowing gives it to
  // the asking phone (the player's own, if they came with one).
  $("ask-text").textContent = S.device === "table" && S.seats.includes(ask.seat)
    ? t("A phone asks for {name}'s seat. Allow it if it is {name}'s own phone.", { name })
    : ask.seat === S.seat
      ? t("Someone wants to take your seat ({name}).", { name })
      : t("Someone wants to take {name}'s seat.", { name });
  const answer = (allow) => () => {
    S.asks.delete(rid);
    send({ type: "takeover_answer", request: rid, allow });
    showAsk();
  };
  $("ask-buttons").replaceChildren(
    h("button", { class: "primary", "data-answer": "allow", onclick: answer(true) }, t("Allow")),
    h("button", { "data-answer": "refuse", onclick: answer(false) }, t("Refuse")),
  );
  open("ask");
}

function renderMenu() {
  const body = $("menu-body");
  const items = [];
  if (ON_DEVICE) {
    items.push(h("p", { class: "muted", "data-menu": "on-device" }, t("This table lives on this device: it needs no server and no connection, and it is kept here.")));
    items.push(h("button", { "data-menu": "share", onclick: () => { close("menu"); shareTable(); } }, t("Share this table")));
    items.push(h("p", { class: "muted small" }, t("The game moves to the server this page came from: everyone joins from their own phone with its code or QR code, and this device goes on as the table device.")));
  } else if (MODE === "play") {
    items.push(h("p", {}, t("Code:") + " ", h("strong", { class: "code" }, formatCode(S.info.code))));
    items.push(h("img", { class: "qr", src: `/api/tables/${KEY}/qr.svg`, alt: t("QR code of this table's link") }));
    // The server's links: the ones the other phones reach it by (its LAN address, not localhost).
    const links = S.links || { play: `${location.origin}/t/${KEY}`, watch: `${location.origin}/w/${S.info.watch}` };
    items.push(h("p", { class: "link-row" }, t("Players:") + " ", h("a", { href: `/t/${KEY}` }, links.play)));
    items.push(h("p", { class: "link-row" }, t("Spectators:") + " ", h("a", { href: `/w/${S.info.watch}` }, links.watch)));
    const onlyHere = onlyHereNote(links.play);
    if (onlyHere) items.push(onlyHere);
    if (S.device === "table") {
      items.push(h("p", { class: "muted" }, t("This is the table device: every panel is controlled here.")));
      items.push(h("button", { "data-menu": "take-seats", onclick: () => { close("menu"); takeFreeSeats(true); } }, t("Take the free seats")));
      items.push(h("button", { "data-menu": "personal", onclick: () => { close("menu"); becomePersonalPhone(); } }, t("Use as my own phone")));
    } else {
      items.push(h("button", { onclick: () => { close("menu"); S.pickerDismissed = false; showPicker(); } }, S.seat ? t("Change seat") : t("Take a seat")));
      items.push(h("button", { "data-menu": "table-device", onclick: () => { close("menu"); becomeTableDevice(); } }, t("Use as the table device")));
    }
  }
  items.push(...startOverItems());
  const games = S.score ? S.score.game : 1;
  items.push(h("button", { "data-act": "stats", onclick: () => { close("menu"); showStats(); } }, t("Statistics")));
  items.push(h("h3", {}, t("Game records")));
  for (let n = 1; n <= games; n++) items.push(recordLink(n, t("Download game {n}", { n })));
  items.push(h("p", {}, h("a", { href: "/replay" }, t("Watch a record replay"))));
  items.push(h("p", { class: "muted", id: "awake-note" }, awakeText()));
  if (INSTALL.prompt) items.push(h("button", { id: "install-btn", onclick: () => { close("menu"); installApp(); } }, t("Install the app")));
  items.push(h("h3", {}, t("Language")), languagePicker("menu-lang"));
  body.replaceChildren(...items);
}

// ---------------------------------------------------------------- replay mode

function showFrame(i) {
  S.frame = Math.max(0, Math.min(i, S.frames.length - 1));
  const f = S.frames[S.frame];
  S.state = f.state;
  S.effects = f.effects;
  // Frame n shows the game after its n-th action (frame 0: before any): the slider, its
  // figure and the caption count the same way.
  $("rp-slider").value = String(S.frame);
  $("rp-pos").textContent = `${S.frame} / ${S.frames.length - 1}`;
  const cap = $("rp-caption");
  if (f.action === null) cap.textContent = t("The game begins.");
  else {
    const changes = (f.changes || []).map((c) => describeChange(c, S.names)).join(" · ");
    const notes = (f.notes || []).map((n) => `${noteText(n)} (${n.rule})`).join(" · ");
    cap.textContent = t("Action {n} of {total}: {action}", { n: S.frame, total: S.frames.length - 1, action: describe(f.action, S.names) }) +
      (f.refused ? " — " + t("refused: {why} ({rule})", { why: said(f.refused, S.names), rule: f.refused.rule }) : changes ? ` — ${changes}` : "") +
      (notes ? ` — ${notes}` : "");
  }
  cap.className = "caption" + (f.refused ? " refused" : "");
  render();
}

function stopPlaying() {
  clearInterval(S.playTimer);
  S.playTimer = null;
  $("rp-play").textContent = "▶ " + t("Play");
}

function setupReplay() {
  $("replay-bar").classList.remove("hidden");
  renderConn();
  $("title").textContent = t("Replay");
  $("undo-btn").classList.add("hidden");
  $("history-btn").classList.add("hidden");
  $("menu-btn").classList.add("hidden");
  $("replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    stopPlaying();
    try {
      const res = await api("POST", "/api/replay", await file.text());
      S.frames = res.frames;
      S.info = { header: res.header, labels: {}, catalogue: { cards: [] }, taken: [] };
      S.names = new Names(res.header, {});
      for (const f of res.frames) if (f.action && f.action.do === "card") S.names.map[f.action.id] = f.action.name;
      $("rp-slider").max = String(res.frames.length - 1);
      $("replay-controls").classList.remove("hidden");
      showFrame(0);
    } catch (ex) { toast(ex.message, "bad"); }
  });
  $("rp-first").addEventListener("click", () => showFrame(0));
  $("rp-prev").addEventListener("click", () => showFrame(S.frame - 1));
  $("rp-next").addEventListener("click", () => showFrame(S.frame + 1));
  $("rp-slider").addEventListener("input", (e) => showFrame(Number(e.target.value)));
  $("rp-play").addEventListener("click", () => {
    if (S.playTimer) { stopPlaying(); return; }
    $("rp-play").textContent = "⏸ " + t("Pause");
    S.playTimer = setInterval(() => {
      if (S.frame >= S.frames.length - 1) { stopPlaying(); return; }
      showFrame(S.frame + 1);
    }, 900);
  });
}

// ---------------------------------------------------------------- start

// The page's own words (its HTML is in English) in the page's language.
function translatePage() {
  document.title = t("lifeledger — table");
  translateStatic([
    [".home", t("Home"), "aria-label"],
    ["#undo-btn", "↶ " + t("Undo")],
    ["#history-btn", t("History")],
    ["#menu-btn", t("Menu"), "aria-label"],
    ["#conn", t("connection"), "title"],
    ["#conn", t("connection"), "aria-label"],
    ["#replay-file-label", t("Open a record")],
    ["#rp-first", t("First"), "aria-label"],
    ["#rp-prev", t("Previous"), "aria-label"],
    ["#rp-play", t("Play"), "aria-label"],
    ["#rp-play", "▶ " + t("Play")],
    ["#rp-next", t("Next"), "aria-label"],
    ["#rp-slider", t("Position"), "aria-label"],
    ["#history", t("History"), "aria-label"],
    ["#history-title", t("History")],
    ["#menu", t("Menu"), "aria-label"],
    ["#menu-title", t("Table")],
    ["[data-close]", t("Close"), "aria-label"],
    ["#picker-title", t("Who are you?")],
    ["#picker-note", t("Take your seat. It stays yours on this phone, even after a reload.")],
    ["#ask-title", t("A seat is asked for")],
  ]);
}

// Another language chosen (the menu): the table again, in it. Everything the page draws is
// drawn anew; what the server said (the history's sentences) is rendered again from its parts.
function languageChanged() {
  translatePage();
  if (!S.state) return;
  $("undo-btn").dataset.text = "";
  render();
  if (!$("menu").classList.contains("hidden")) renderMenu();
  if (!$("history").classList.contains("hidden")) renderHistory();
  if (typeof renderTurns === "function") renderTurns();
  if (typeof showGraph === "function" && !$("history").classList.contains("hidden")) showGraph();
  // Whatever else is open is drawn again in the new language.
  const shown = (id) => $(id) && !$(id).classList.contains("hidden");
  if (shown("picker") && !S.claiming) showPicker();
  if (S.asks.size) showAsk();
  if (S.undoAsks.size) showUndoAsk();
  if (typeof T === "object" && $("tools-strip")) { T.shape = ""; renderStrip(); }
  if (shown("tools-sheet")) renderToolsSheet();
  if (shown("turn-sheet")) renderTurnSheet();
  if (shown("cmd-sheet") && S.cmdSheet) buildCmdSheet();
  translateStatic([
    ["#turn-bar", t("Turn"), "aria-label"],
    ["#turn-close", t("Close"), "aria-label"],
    ["#tools-title", t("Dice, clocks and who starts")],
    ["#tools-btn", t("Dice, clocks and who starts"), "aria-label"],
    ["#tools-btn", t("Dice, clocks and who starts"), "title"],
    ["#tools-strip", t("Clocks"), "aria-label"],
  ]);
}

async function main() {
  await i18nReady();
  translatePage();
  onLangChange(languageChanged);
  $("history-btn").addEventListener("click", () => { renderHistory(); open("history"); showGraph(); });
  $("menu-btn").addEventListener("click", () => { S.startOver = null; renderMenu(); open("menu"); });
  // Undo names the action it takes back: two phones pressing at once undo it once.
  $("undo-btn").addEventListener("click", () => {
    if (cancelRun()) return;
    const aim = undoAim();
    hideUndoConfirm();
    request("undo", null, aim.target === undefined ? null : { target: aim.target });
  });
  if (MODE === "replay") { setupReplay(); return; }
  try {
    // A device table opens from the copy the page kept, drawn at once: the engine decides the
    // taps made meanwhile, in order, once it has started (its welcome).
    if (ON_DEVICE && restoreOffline()) Engine.start();
    else {
      const data = ON_DEVICE ? await DeviceTables.info(KEY) : await api("GET", MODE === "play" ? `/api/tables/${KEY}` : `/api/watch/${KEY}`);
      S.info = data.table;
      S.links = data.links;
    }
  } catch (ex) {
    // No network (no answer at all): the table as this phone last saw it, if it did (taps.js).
    if (ex.status || !restoreOffline()) {
      $("panels").replaceChildren(h("p", { class: "card error" }, said(ex.data, null) || ex.message || t("There is no such table.")));
      return;
    }
    S.fromKept = true; // the server can't be reached: offline, whatever navigator.onLine says
  }
  S.names = new Names(S.info.header, S.info.labels);
  const saved = MODE === "play" ? loadSeat(KEY) : null;
  if (saved) { S.token = saved.token; S.seat = saved.seat; }
  if (MODE === "play") {
    S.device = loadDevice(KEY);
    S.tokens = loadSeats(KEY);
    if (S.device === "table") { S.seat = null; S.token = null; }
    // Until the server's welcome says which seats this socket holds, the page plays as the
    // seats it kept (issue 25 item 1: a table device reloaded offline kept every panel
    // playable, its taps queued); the welcome then corrects them (keepHeld).
    S.seats = S.device === "table" ? Object.keys(S.tokens) : S.seat ? [S.seat] : [];
    if (S.device === "table") S.seat = S.seats[0] || null;
  }
  // The panels are laid out again when their space changes (turning the phone, a banner).
  if ("ResizeObserver" in window) {
    new ResizeObserver(() => { if (S.layout) placePanels($("panels"), S.layout.table, S.layout.own); }).observe($("panels"));
  }
  if (MODE === "play") S.host = loadHost(KEY);
  loadKeptGame(); // for foresight with no connection (foresee.js)
  keepAwake();
  connect();
  setInterval(ping, HEARTBEAT_EVERY);
  setInterval(() => { if (S.pending.size) renderConn(); }, 1000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") ping(); });
  renderConn();
  render(); // a table kept for offline shows at once (otherwise: nothing until the welcome)
}

main();
