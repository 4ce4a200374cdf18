// Shared helpers for the lifeledger table pages. User data is only ever set with textContent.
"use strict";

// Build an element: h("div", {class: "x", onclick: fn}, "text", child, ...).
// Strings become text nodes, so names can never become markup.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// JSON text to values, with integers beyond 2^53 kept exact (as BigInt): life totals may be
// huge (107.1, up to 10^1000), and JSON.parse would round them.
const BIG_MARK = "\u0000int:";
function parseJSON(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (tok) => {
    if (tok[0] === '"' || /[.eE]/.test(tok) || Number.isSafeInteger(Number(tok))) return tok;
    return `"\\u0000int:${tok}"`;
  });
  return JSON.parse(marked, (key, value) =>
    (typeof value === "string" && value.startsWith(BIG_MARK) && /^-?\d+$/.test(value.slice(BIG_MARK.length))
      ? BigInt(value.slice(BIG_MARK.length)) : value));
}

// Values to JSON text, writing a BigInt as its exact digits (JSON.stringify can't).
function toJSON(value) {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return "[" + value.map((x) => (x === undefined ? "null" : toJSON(x))).join(",") + "]";
  if (value && typeof value === "object") {
    return "{" + Object.entries(value)
      .filter(([, x]) => x !== undefined && typeof x !== "function")
      .map(([k, x]) => JSON.stringify(k) + ":" + toJSON(x)).join(",") + "}";
  }
  return JSON.stringify(value);
}

// A whole number typed in a field, read exactly from its text: a Number when it is safe, a
// BigInt beyond 2^53. Throws an Error whose message names the field.
const MAX_WHOLE = BigInt("1" + "0".repeat(1000)); // the record's bound on integers (10^1000)
function parseWhole(text, label, min) {
  const t = String(text).trim().replace(/^[\u2212\u2013]/, "-");
  const m = /^([+-]?)0*(\d+)$/.exec(t);
  if (!m) {
    throw new Error(t === "" ? `${label}: enter a whole number.`
      : `${label}: “${t}” is not a whole number${min === 0 ? " (0 or more)" : ""}.`);
  }
  if (m[2].length > 1001 || BigInt(m[2]) > MAX_WHOLE) throw new Error(`${label}: at most 10^1000.`);
  const big = BigInt(m[1] === "-" ? "-" + m[2] : m[2]);
  if (min !== null && min !== undefined && big < BigInt(min)) {
    throw new Error(min === 0 ? `${label} can't be negative (“${t}”).` : `${label}: at least ${min} (not “${t}”).`);
  }
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : toJSON(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = parseJSON(await res.text()); } catch (e) { data = { message: res.statusText }; }
  if (!res.ok) {
    const err = new Error((data && data.message) || res.statusText);
    err.data = data; err.status = res.status;
    throw err;
  }
  return data;
}

function newId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function seatKey(tableId) { return "lifeledger-seat-" + tableId; }

function loadSeat(tableId) {
  try { return JSON.parse(localStorage.getItem(seatKey(tableId)) || "null"); } catch (e) { return null; }
}

function saveSeat(tableId, seat, token) {
  localStorage.setItem(seatKey(tableId), JSON.stringify({ seat, token }));
}

function clearSeat(tableId) { localStorage.removeItem(seatKey(tableId)); }

// The host token: this browser opened the table (it may approve seat takeovers, and take a
// seat at once).
function hostKey(tableId) { return "lifeledger-host-" + tableId; }
function loadHost(tableId) { try { return localStorage.getItem(hostKey(tableId)); } catch (e) { return null; } }
function saveHost(tableId, host) { if (host) localStorage.setItem(hostKey(tableId), host); }

// Table codes: 8 to 12 characters of this alphabet; spaces and dashes are ignored, and case.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
function normCode(text) { return String(text).replace(/[\s\-\u2010-\u2015]/g, "").toUpperCase(); }
function checkCode(code) {
  if (code.length < 8 || code.length > 12) return "A table code has 8 to 12 letters and digits.";
  const bad = [...code].find((c) => !CODE_ALPHABET.includes(c));
  if (bad) return `A table code has no “${bad}” (codes leave out 0, 1, I, L and O).`;
  return null;
}
// ABCD-EFGH, ABCD-EFGH-JK: groups of four, to read out.
function formatCode(code) { return (String(code).match(/.{1,4}/g) || []).join("-"); }

// A table's link that only the serving machine can open (localhost, 127.x.x.x, [::1]): the
// server listens on this machine only (or found no LAN address). The note saying so and how
// to let phones on the same Wi-Fi in, or null for a link phones can open.
const ONLY_HERE = "Only this computer can open this link and QR code: phones can't. To let phones on "
  + "the same Wi-Fi join, start the server with make run (or lifeledger serve --host 0.0.0.0) "
  + "and open the table again.";
function onlyHereNote(url) {
  let host;
  try { host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase(); } catch (e) { return null; }
  const here = host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1";
  return here ? h("p", { class: "error only-here", role: "alert" }, ONLY_HERE) : null;
}

// "1 counter", "2 counters": a count and its noun, in agreement.
function plural(n, one, many) {
  const word = String(n) === "1" ? one : (many || one + "s");
  return `${n} ${word}`;
}

// Taking a seat: free seats at once; a taken seat by asking its phone (or the host) to allow
// it. ``hooks.waiting(message)`` is told while the request waits. Resolves to {seat, token};
// throws an Error (``.code``: "seat-taken" with ``.connected``, "refused", "expired", ...).
async function claimSeat(tableId, seat, takeover, hooks) {
  const body = {};
  const host = loadHost(tableId);
  if (takeover) body.takeover = true;
  if (takeover && host) body.host = host;
  let res;
  try {
    res = await api("POST", `/api/tables/${tableId}/seats/${encodeURIComponent(seat)}`, body);
  } catch (ex) {
    const err = new Error(ex.message);
    err.code = ex.data && ex.data.error; err.connected = !!(ex.data && ex.data.connected); err.status = ex.status;
    err.device = !!(ex.data && ex.data.device); // a table device holds the seat
    throw err;
  }
  if (res.token) { saveSeat(tableId, res.seat, res.token); return res; }
  if (!res.request) throw new Error("The server didn't give this seat.");
  const rid = res.request;
  if (hooks && hooks.waiting) hooks.waiting(rid);
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const fail = (code, message) => { const err = new Error(message); err.code = code; return err; };
  for (;;) {
    // A long poll: the server answers when the request is settled, or after up to 25 s.
    const asked = Date.now();
    let st;
    try {
      st = await api("GET", `/api/tables/${tableId}/takeovers/${encodeURIComponent(rid)}`);
    } catch (ex) {
      if (ex.status === 404) throw fail("expired", "The request has expired; ask again.");
      await pause(2000);
      continue;
    }
    if (st.status === "allowed" && st.token) { saveSeat(tableId, seat, st.token); return { seat, token: st.token }; }
    if (st.status === "allowed") throw fail("expired", "The seat was given, but not to this page; ask again.");
    if (st.status === "refused") throw fail("refused", "The seat's phone refused.");
    if (st.status === "expired") throw fail("expired", "No answer came in time; ask again.");
    if (Date.now() - asked < 1000) await pause(1000);
  }
}

// Names for ids: players, teams, commanders and cards (labels), with the id as the fallback.
class Names {
  constructor(header, labels) {
    this.map = Object.assign({}, labels || {});
    this.players = new Set();
    for (const p of header.players) { this.map[p.id] = p.name || p.id; this.players.add(p.id); }
  }
  of(id) { return Object.prototype.hasOwnProperty.call(this.map, id) ? this.map[id] : String(id); }
  // The engine's sentences speak of ids. Words are never replaced as words (a player named
  // "Life" would rewrite "pay 99 life"): the sentence is matched against the engine's own
  // sentence shapes, and only the parts that are ids there are named. A sentence of another
  // shape is shown as the engine wrote it.
  text(sentence) {
    const s = String(sentence);
    for (const shape of SENTENCES) {
      const m = shape.re.exec(s);
      if (!m) continue;
      let out = "";
      shape.parts.forEach((part, i) => {
        if (i === 0) { out += part; return; }
        const value = m[i];
        const kind = shape.kinds[i - 1];
        if (kind === "id") out += this.known(value) ? this.map[value] : value;
        else if (kind === "ids") out += value.split(" and ").map((v) => (this.known(v) ? this.map[v] : v)).join(" and ");
        else if (kind === "list") out += value.split(", ").map((v) => this.leading(v)).join(", ");
        else if (kind === "sentence") out += this.text(value);
        else out += value;
        out += part;
      });
      return out;
    }
    return s;
  }
  known(id) { return Object.prototype.hasOwnProperty.call(this.map, id); }
  // An item of a {list}: an id, or an id and what happened to it ("ana +5 life").
  leading(item) {
    if (this.known(item)) return this.map[item];
    const space = item.indexOf(" ");
    const head = space < 0 ? item : item.slice(0, space);
    return this.known(head) ? this.map[head] + item.slice(head.length) : item;
  }
}

// The engine's sentences (refusals and notes, lifeledger/game.py) as shapes: {id} is an id,
// {ids} ids joined by " and ", {list} ids joined by ", " (each may be followed by words: "ana
// +5 life"), {sentence} a nested sentence, {n} a number, {text} anything.
const SENTENCES = [
  "action {n} of the group is refused: {sentence}",
  "damage is dealt to {id} as though its source had infect",
  "{ids} can't pay {n} life with {text}",
  "{id} can't lose life, so can't pay {n} life",
  "{id} can't lose life, so the {text} won't happen",
  "{id} can't gain life, so the {text} won't happen",
  "{id} can't gain life: the gain of {n} does nothing",
  "{id} can't lose life: the loss of {n} does nothing",
  "{id} can't exchange life totals with a teammate",
  "team {id} orders its abilities as {id} stated",
  "{id} can't get poison counters",
  "{id} can't lose the game{text}",
  "{id} can't win the game",
  "{id} has left the game ({text})",
  "{id} is outside {id}'s range of influence",
  "{id} attempted to draw from an empty library",
  "{id}: {id} loses {n} life instead of gaining it",
  "{id}: {id} gains {n} instead",
  "{id}: {id} would win the game instead of drawing",
  "{id}: {id} has {n} life at upkeep",
  "{id} triggers: {id}'s {text}",
  "{id} triggers: {id} {text}",
  // Turns and designations (record version 2).
  "turn {n}: {id}'s turn begins",
  "it is {id}'s turn, not {id}'s",
  "{id} takes the game's first turn, not {id}",
  "{id} left the game as the turn before ended",
  "{id} plays first and skips the draw step of the first turn",
  "{id} draws a card in the draw step",
  "{id} mills {n} cards for their rad counters, {n} nonland",
  "{id} is the monarch and draws a card",
  "{id} already has the city's blessing",
  "{id} already has {text}",
  "{id} ceases to have {text}; {id} has it",
  "{id} leaves the game: {id} has the {text}",
  "{id} ends with the turn",
  "{id} has left the game: their {text} trigger too",
  "combat damage to {id}: {id} {text}",
  // Triggered abilities on the stack and replacements (record version 2). A trigger is named
  // "card (controller's, amount)" and, with a target, "... targeting player".
  "{id} ({id}'s, {n}) targeting {id} {sentence}",
  "{id} ({id}'s, {n}) {sentence}",
  "is put on the stack",
  "doesn't resolve: its target is illegal",
  "resolves: {id} loses {n} life",
  "resolves: {id} gains {n} life",
  "resolves: {text} loses 1 life",
  "resolves: {id} gains {n} life (2 for each 1)",
  "resolves: {id} loses the game (104.3e)",
  "resolves: {id} has the highest life total ({n}) and wins",
  "resolves: {text} are tied for the highest life total ({n}): the game is a draw",
  "{text} resolves: {id} gains {n} life (2 for each 1)",
  "{text} resolves: {id} loses the game (104.3e)",
  "{id} enters with {n} omen counters",
  "{text} resolves: {id} loses {n} life",
  "{text} resolves: {id} gains {n} life",
  "{id}: the damage reduces {id}'s life total to 1 at most",
  "{id}: {id} would lose the game ({text}); instead their cards are shuffled into their library, they draw seven and their life total becomes 20",
  "{id} leaves the game with {id}",
  "{id}: {id} has exactly 1 life at upkeep",
  "{id}: {id} would gain {n} instead",
  "{id} has no legal target: it is removed",
  // Loops decided by the engine (104.4b, 732.4, 732.2a): the cards, then each player's change.
  "the triggered abilities of {list} repeat with no way to stop and no player able to lose by them: a loop of mandatory actions",
  "the loop of {list} repeats {text} more times at once (computed): {list}",
].map((shape) => {
  const parts = [];
  const kinds = [];
  let re = "^";
  let last = 0;
  shape.replace(/\{(id|ids|list|n|text|sentence)\}/g, (whole, kind, at) => {
    const lit = shape.slice(last, at);
    parts.push(lit);
    re += lit.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    re += kind === "n" ? "(-?\\d+)" : kind === "id" || kind === "ids" || kind === "list" ? "(.+?)" : "(.*)";
    kinds.push(kind);
    last = at + whole.length;
    return whole;
  });
  const tail = shape.slice(last);
  parts.push(tail);
  re += tail.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
  return { re: new RegExp(re), parts, kinds };
});

function showAmount(amount, names) {
  if (amount && typeof amount === "object" && "life_of" in amount) {
    const f = amount.fraction ? ` × ${amount.fraction[0]}/${amount.fraction[1]}` : "";
    const r = amount.round ? ` (rounded ${amount.round})` : "";
    return `${names.of(amount.life_of)}'s life${f}${r}`;
  }
  return String(amount);
}

// "1 poison counter", "3 energy counters", "Ana's life poison counters" (an expression).
function counters(amount, kind, names) {
  if (amount && typeof amount === "object") return `${showAmount(amount, names)} ${kind} counters`;
  return plural(amount, `${kind} counter`);
}

const REASONS = {
  "life": "0 or less life", "team-life": "team at 0 or less life", "poison": "10 poison counters",
  "team-poison": "team's poison counters", "empty-library": "drew from an empty library",
  "commander-damage": "21 commander damage", "conceded": "conceded", "effect": "an effect",
  "penalty": "a penalty", "teammate": "a teammate lost", "emperor": "the emperor",
  "opponent-won": "an opponent won", "last-standing": "last one standing", "team": "the team won",
  "simultaneous-loss": "everyone lost at once", "loop": "a loop of mandatory actions",
  "intentional": "an intentional draw",
};

function describeResult(status, reason, rule) {
  const why = reason ? (REASONS[reason] || reason) : "";
  return `${status}${why ? " — " + why : ""}${rule ? " (" + rule + ")" : ""}`;
}

// One sentence for a record action.
function describe(a, names) {
  if (!a) return "";
  const n = (id) => names.of(id);
  const amt = (x) => showAmount(x, names);
  switch (a.do) {
    case "damage": {
      const bits = [];
      if (a.combat) bits.push("combat");
      if (a.infect) bits.push("infect");
      if (a.lifelink) bits.push(`lifelink for ${n(a.controller)}`);
      else if (a.controller) bits.push(`controlled by ${n(a.controller)}`); // 725.2, 726.2
      return `${a.source ? n(a.source) : "Damage"}: ${amt(a.amount)} damage to ${n(a.to)}` +
        (bits.length ? ` (${bits.join(", ")})` : "");
    }
    case "lose_life": return `${n(a.player)} loses ${amt(a.amount)} life`;
    case "gain_life": return `${n(a.player)} gains ${amt(a.amount)} life`;
    case "pay_life":
      if (a.payments) return "Pay life: " + Object.entries(a.payments).map(([p, v]) => `${n(p)} ${amt(v)}`).join(", ");
      return `${n(a.player)} pays ${amt(a.amount)} life`;
    case "set_life":
      if (a.each) return "Life totals become " + Object.entries(a.each).map(([p, v]) => `${n(p)} ${amt(v)}`).join(", ");
      return `${n(a.player)}'s life total becomes ${amt(a.to)}`;
    case "exchange_life": return `${n(a.players[0])} and ${n(a.players[1])} exchange life totals`;
    case "redistribute_life": return "Life totals redistributed";
    case "add_counters": return `${n(a.player)} gets ${counters(a.amount, a.kind, names)}`;
    case "remove_counters": return `${n(a.player)} loses ${counters(a.amount, a.kind, names)}`;
    case "draw": return `${n(a.player)} draws ${plural(a.count, "card")}`;
    case "concede": return `${n(a.player)} concedes`;
    case "win": return `${n(a.player)} wins by an effect`;
    case "lose": return `${a.players ? a.players.map(n).join(", ") : n(a.player)} lose${a.players ? "" : "s"} by an effect`;
    case "draw_game": return "An effect makes the game a draw";
    case "loop": return "The game is in a loop of mandatory actions";
    case "intentional_draw": return "The players agree to a draw";
    case "penalty": return `${n(a.player)} gets a game loss (penalty)`;
    case "restart": return "The game restarts";
    case "card": return `${a.name} on ${n(a.controller)}'s battlefield`;
    case "effect": return `Effect ${a.kind} (${n(a.controller)})`;
    case "end": return `${names.of(a.id)} stops applying`;
    case "upkeep": return `${n(a.player)}'s upkeep begins`;
    case "turn": return `${n(a.player)}'s turn begins`;
    case "step": return `The ${STEP_NAMES[a.step] || a.step} begins` +
      (a.nonland_milled ? " (rad counters milled " + Object.entries(a.nonland_milled).map(([p, v]) => `${plural(v, "nonland card")} for ${n(p)}`).join(", ") + ")" : "");
    case "cast": return `${n(a.player)} casts ${plural(a.count === undefined ? 1 : a.count, "spell")}`;
    case "become_monarch": return `${n(a.player)} becomes the monarch`;
    case "take_initiative": return `${n(a.player)} takes the initiative`;
    case "day_night": return `It becomes ${a.to}`;
    case "city_blessing": return `${n(a.player)} gets the city's blessing`;
    case "set_library": return `${n(a.player)}'s library has ${plural(a.count, "card")}`;
    case "choose": {
      const bits = [];
      if (a.order) bits.push("puts " + a.order.map(n).join(", then ") + " on the stack in that order");
      for (const [id, t] of Object.entries(a.targets || {})) bits.push(`${n(id)} targets ${[].concat(t).map(n).join(" or else ")}`);
      if (a.replacements) bits.push("applies " + a.replacements.map(n).join(", then ") + " to their life gains");
      return `${n(a.player)} chooses: ${bits.join("; ")}`;
    }
    case "repeat": return `${plural(a.times, "time")}: ` + a.actions.map((x) => describe(x, names)).join("; ");
    case "together": return "Together: " + a.actions.map((x) => describe(x, names)).join("; ");
    default: return a.do;
  }
}

// The steps of a turn the record marks (docs/record-format.md, "Turns").
const STEP_NAMES = { upkeep: "upkeep", draw: "draw step", main: "main phase", end: "end step", cleanup: "cleanup step" };

// What changed among the designations (725 monarch, 726 initiative, 731 day/night, 702.131c).
function designationsChange(from, to, names) {
  const out = [];
  if (from.monarch !== to.monarch) out.push(to.monarch ? `${names.of(to.monarch)} is the monarch` : "no monarch");
  if (from.initiative !== to.initiative) out.push(to.initiative ? `${names.of(to.initiative)} has the initiative` : "no initiative");
  if (from.day_night !== to.day_night) out.push(`it is ${to.day_night || "neither day nor night"}`);
  const had = new Set(from.city_blessing || []);
  for (const p of to.city_blessing || []) if (!had.has(p)) out.push(`${names.of(p)} has the city's blessing`);
  return out.join(", ") || "designations";
}

// What changed among the omen counters on each Celestial Convergence (122.1), by card id.
function omensChange(from, to, names) {
  const out = [];
  for (const [id, n] of Object.entries(to)) if (from[id] !== n) out.push(`${names.of(id)}: ${n} omen counter${n === 1 ? "" : "s"}`);
  for (const id of Object.keys(from)) if (!(id in to)) out.push(`${names.of(id)}: no omen counters`);
  return out.join(", ") || "omen counters";
}

function describeChange(c, names) {
  const who = c.team ? names.of(c.team) : c.player ? names.of(c.player) : "";
  switch (c.what) {
    case "life": return `${who} life ${c.from} → ${c.to}`;
    case "poison": return `${who} poison ${c.from} → ${c.to}`;
    case "library": return `${who} library ${c.from ?? "uncounted"} → ${c.to ?? "uncounted"}`;
    case "counters": return `${who} ${c.key} ${c.from} → ${c.to}`;
    case "commander_damage": return `${who} commander damage from ${names.of(c.key)} ${c.from} → ${c.to}`;
    case "status": return `${who} ${describeResult(c.to, c.reason, c.rule)}`;
    case "game": return `game ${c.from} → ${c.to} (restart)`;
    // "over" is reported both ways: false when an undo takes back the action that ended it.
    case "over": return c.to === false ? "the game is no longer over" : "the game is over";
    case "turn": return c.to ? `turn ${c.to.number}: ${c.to.active.map((p) => names.of(p)).join(" & ")}, ${STEP_NAMES[c.to.step] || c.to.step}` : "no turn";
    case "designations": return designationsChange(c.from || {}, c.to || {}, names);
    case "omens": return omensChange(c.from || {}, c.to || {}, names);
    case "triggered": return c.to === null ? `${names.of(c.key)}: triggers no longer counted` : `${names.of(c.key)} triggered (${c.to})`;
    default: return c.what;
  }
}

// ---------------------------------------------------------------- deltas

// A copy of a state (plain JSON values and BigInts), so that applying changes leaves the old
// one as it was.
function copyState(value) {
  if (Array.isArray(value)) return value.map(copyState);
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, x] of Object.entries(value)) out[k] = copyState(x);
    return out;
  }
  return value;
}

// Whether a count is zero (a Number, or a BigInt from a huge total).
function isZero(n) { return n !== null && n !== undefined && String(n) === "0"; }

// A state with an event's changes (entry.changes) applied: the page's copy of the server's
// state, moved on by one event. Pure: ``state`` is not modified. Throws an Error when a change
// names a player or team the state doesn't hold, or is of an unknown kind (the page then asks
// for the whole state again). The rules are the server's (lifeledger_table.changes.apply_changes):
// - a team's "life"/"poison" is the team's and every member's (a shared total, 810.9a);
// - "counters" and "commander_damage" to 0 remove their key; "triggered" to null removes its
//   key (a trigger count of 0 is a count);
// - "status" sets status, reason and rule; "game" and "over" set the game's.
function applyChanges(state, changes) {
  const out = copyState(state);
  const players = new Map((out.players || []).map((p) => [p.id, p]));
  const teams = new Map((out.teams || []).map((t) => [t.id, t]));
  const find = (map, id, what) => {
    const x = map.get(id);
    if (!x) throw new Error(`a change names an unknown ${what} ${JSON.stringify(id)}`);
    return x;
  };
  // A counter or commander damage at 0 leaves its mapping. A trigger count keeps 0 (the spec's
  // "triggered" lists every trigger the game has seen, 0 included): only null removes it.
  const setCount = (holder, group, key, to, gone) => {
    if (!holder[group] || typeof holder[group] !== "object") holder[group] = {};
    if (gone) delete holder[group][key];
    else holder[group][key] = to;
  };
  const standing = (x, c) => {
    x.status = c.to;
    x.reason = c.reason === undefined ? null : c.reason;
    x.rule = c.rule === undefined ? null : c.rule;
  };
  for (const c of changes || []) {
    if (c.team !== undefined && c.team !== null) {
      const team = find(teams, c.team, "team");
      if (c.what === "life" || c.what === "poison") {
        team[c.what] = c.to;
        for (const p of out.players || []) if (p.team === c.team) p[c.what] = c.to;
      } else if (c.what === "status") standing(team, c);
      else throw new Error(`unknown team change ${JSON.stringify(c.what)}`);
    } else if (c.player !== undefined && c.player !== null) {
      const p = find(players, c.player, "player");
      if (c.what === "life" || c.what === "poison" || c.what === "library") p[c.what] = c.to;
      else if (c.what === "counters" || c.what === "commander_damage") setCount(p, c.what, c.key, c.to, isZero(c.to) || c.to === null);
      else if (c.what === "status") standing(p, c);
      else throw new Error(`unknown player change ${JSON.stringify(c.what)}`);
    } else if (c.what === "game" || c.what === "over" || c.what === "turn" || c.what === "designations" || c.what === "omens") out[c.what] = c.to;
    else if (c.what === "triggered") setCount(out, "triggered", c.key, c.to, c.to === null || c.to === undefined);
    else throw new Error(`unknown change ${JSON.stringify(c.what)}`);
  }
  return out;
}
