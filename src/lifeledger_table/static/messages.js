// The messages the table page receives: events, welcomes and setups taken into the state,
// the answers to its own changes, and what is announced.

import { said, t } from "./i18n.js";
import { applyChanges, clearSeat, describe, describeResult, Names, parseJSON } from "./common.js";
import { saveSeats } from "./seating.js";
import { keepForChoice, tapRefused } from "./taps.js";
import { gameAfterWelcome, gameSoon, queuedRefused } from "./foresee.js";
import { followGameStart, toolsReceive } from "./tools.js";
import { speak, spoken } from "./panel.js";
import { renderChoices, takeChoices } from "./choices.js";
import { renderTurns } from "./turns.js";
import { KEY, MODE, ON_DEVICE, RESYNC_WAIT, S, takeEffects, teamOf } from "./state.js";
import { $, toast } from "./toasts.js";
import { handOver, hello, keepHeld, keepToSendAgain, seatLeft, send, takeFreeSeats, wire } from "./connection.js";
import { render, renderConn, renderSoon } from "./render.js";
import {
  actionBy, allowedBy, renderHistory, showUndoAsk, showUndoConfirm, startOverName,
} from "./history.js";
import { showAsk, showPicker } from "./sheets.js";

// Card names for the timeline, as card actions arrive.
function learnCards(msg) {
  const walk = (a) => {
    if (a.do === "card") S.names.map[a.id] = a.name;
    else if (a.do === "together") a.actions.forEach(walk);
  };
  for (const e of msg.entries || (msg.entry ? [msg.entry] : [])) if (e.action) walk(e.action);
}

// A device table's messages are its engine's answers (the worker's): the welcome that ends the
// page's opening, then the answers to the taps made meanwhile, one each, as the engine decides
// them in order. They are drawn once a frame (render.js): a tap made as they come is handled
// and painted without waiting on a render of each, and answers that come together are drawn
// once. A server's messages are drawn as they come.
function draw() {
  if (ON_DEVICE) renderSoon(); else render();
}

export function receive(msg) {
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
      toolsReceive(msg); // tools.js: before the turn bar is drawn, which shows its "who starts" pick
      draw();
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
      draw();
      followGameStart(msg.entry); // tools.js
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
    case "handed": // a device table's changes another page of this device left undecided as it
      // gave the table up to this one (device.js): this page's own from now on, kept in its
      // queue first, then sent (or at the welcome, if the table is not open here yet)
      for (const text of msg.changes) {
        let m;
        try { m = parseJSON(text); } catch { continue; }
        if (!m || typeof m !== "object" || typeof m.id !== "string" || typeof m.type !== "string" || S.pending.has(m.id)) continue;
        S.pending.set(m.id, m);
        if (S.connected) send(wire(m));
      }
      renderConn();
      break;
    case "waiting": // kept by the server, not saved yet: its database is away (issue 26 item 7)
      S.storeWait = msg;
      renderConn();
      break;
    case "error": {
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
      // Or another page of this device decides it now (device.js): this page's changes go there.
      if (msg.error === "table-unavailable") { S.unavailable = msg; if (msg.elsewhere) handOver(); renderConn(); break; }
      if (queuedRefused(msg, sent)) break; // a change of the queue, named (foresee.js)
      if (msg.error === "refused") toast(t("Refused: {why} — {rule}", { why: said(msg, S.names), rule: msg.rule }), "refused");
      else toast(said(msg, S.names) + (msg.rule ? ` — ${msg.rule}` : "") + (msg.member ? ` (${msg.member})` : ""), "bad");
      break;
    }
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
      toolsReceive(msg); // "tools": tools.js
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
    try { state = applyChanges(S.state, (msg.entry && msg.entry.changes) || []); } catch { return false; }
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
