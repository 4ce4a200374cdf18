// Shared helpers for the lifeledger table pages. User data is only ever set with textContent.

import { formatNumber, listOf, said, t, tn } from "./i18n.js";

// Build an element: h("div", {class: "x", onclick: fn}, "text", child, ...).
// Strings become text nodes, so names can never become markup.
export function h(tag, attrs, ...children) {
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
export function parseJSON(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (tok) => {
    if (tok[0] === '"' || /[.eE]/.test(tok) || Number.isSafeInteger(Number(tok))) return tok;
    return `"\\u0000int:${tok}"`;
  });
  return JSON.parse(marked, (key, value) =>
    (typeof value === "string" && value.startsWith(BIG_MARK) && /^-?\d+$/.test(value.slice(BIG_MARK.length))
      ? BigInt(value.slice(BIG_MARK.length)) : value));
}

// Values to JSON text, writing a BigInt as its exact digits (JSON.stringify can't). The page's
// values are plain data (parsed from JSON, or made of literals): JSON.stringify writes them the
// same, natively (a tap keeps its pending changes with it, the page's opening the kept table),
// and throws on a BigInt, which is then written here.
export function toJSON(value) {
  try { return JSON.stringify(value); } catch { return toJSONExact(value); }
}
function toJSONExact(value) {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return "[" + value.map((x) => (x === undefined ? "null" : toJSONExact(x))).join(",") + "]";
  if (value && typeof value === "object") {
    return "{" + Object.entries(value)
      .filter(([, x]) => x !== undefined && typeof x !== "function")
      .map(([k, x]) => JSON.stringify(k) + ":" + toJSONExact(x)).join(",") + "}";
  }
  return JSON.stringify(value);
}

// A whole number typed in a field, read exactly from its text: a Number when it is safe, a
// BigInt beyond 2^53. Throws an Error whose message names the field.
const MAX_WHOLE = BigInt("1" + "0".repeat(1000)); // the record's bound on integers (10^1000)
export function parseWhole(text, label, min) {
  const text_ = String(text).trim().replace(/^[\u2212\u2013]/, "-");
  const m = /^([+-]?)0*(\d+)$/.exec(text_);
  if (!m) {
    throw new Error(text_ === "" ? t("{label}: enter a whole number.", { label })
      : min === 0 ? t("{label}: “{text}” is not a whole number (0 or more).", { label, text: text_ })
        : t("{label}: “{text}” is not a whole number.", { label, text: text_ }));
  }
  if (m[2].length > 1001 || BigInt(m[2]) > MAX_WHOLE) throw new Error(t("{label}: at most 10^1000.", { label }));
  const big = BigInt(m[1] === "-" ? "-" + m[2] : m[2]);
  if (min !== null && min !== undefined && big < BigInt(min)) {
    throw new Error(min === 0 ? t("{label} can't be negative (“{text}”).", { label, text: text_ })
      : t("{label}: at least {min} (not “{text}”).", { label, min, text: text_ }));
  }
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

// The names the server's messages may name (its players'), to say them in: the table page
// sets names() to its own (state.js), the start page has none.
export const API = { names: () => null };

export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : toJSON(body);
  }
  const res = await fetch(path, init);
  let data;
  try { data = parseJSON(await res.text()); } catch { data = { message: res.statusText }; }
  if (!res.ok) {
    // The server's message in the page's language: its structured sentence (i18n.js), else
    // its English text.
    const err = new Error((data && (said(data, API.names()) || data.message)) || res.statusText);
    err.data = data; err.status = res.status;
    throw err;
  }
  return data;
}

export function newId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// What this device keeps in localStorage under ``prefix`` + an id: {id, value} for each, its
// value read as JSON (totals of any size); one that can't be read is left out.
export function keptUnder(prefix) {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(prefix)) continue;
    try { out.push({ id: key.slice(prefix.length), value: parseJSON(localStorage.getItem(key)) }); } catch { /* damaged */ }
  }
  return out;
}

function seatKey(tableId) { return "lifeledger-seat-" + tableId; }

export function loadSeat(tableId) {
  try { return JSON.parse(localStorage.getItem(seatKey(tableId)) || "null"); } catch { return null; }
}

function saveSeat(tableId, seat, token) {
  localStorage.setItem(seatKey(tableId), JSON.stringify({ seat, token }));
}

export function clearSeat(tableId) { localStorage.removeItem(seatKey(tableId)); }

// The host token: this browser opened the table (it may approve seat takeovers, and take a
// seat at once).
function hostKey(tableId) { return "lifeledger-host-" + tableId; }
export function loadHost(tableId) { try { return localStorage.getItem(hostKey(tableId)); } catch { return null; } }
export function saveHost(tableId, host) { if (host) localStorage.setItem(hostKey(tableId), host); }

// Table codes: 8 to 12 characters of this alphabet; spaces and dashes are ignored, and case.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export function normCode(text) { return String(text).replace(/[\s\-\u2010-\u2015]/g, "").toUpperCase(); }
export function checkCode(code) {
  if (code.length < 8 || code.length > 12) return t("A table code has 8 to 12 letters and digits.");
  const bad = [...code].find((c) => !CODE_ALPHABET.includes(c));
  if (bad) return t("A table code has no “{char}” (codes leave out 0, 1, I, L and O).", { char: bad });
  return null;
}
// ABCD-EFGH, ABCD-EFGH-JK: groups of four, to read out.
export function formatCode(code) { return (String(code).match(/.{1,4}/g) || []).join("-"); }

// A table's link that only the serving machine can open (localhost, 127.x.x.x, [::1]): the
// server listens on this machine only (or found no LAN address). The note saying so and how
// to let phones on the same Wi-Fi in, or null for a link phones can open.
function onlyHereText() {
  return t("Only this computer can open this link and QR code: phones can't. To let phones on the same Wi-Fi join, start the server with {make} (or {serve}) and open the table again.",
    { make: "make run", serve: "lifeledger serve --host 0.0.0.0" });
}
export function onlyHereNote(url) {
  let host;
  try { host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase(); } catch { return null; }
  const here = host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1";
  return here ? h("p", { class: "error only-here", role: "alert" }, onlyHereText()) : null;
}

// "1 poison counter", "2 poison counters": a count and its counters' kind, in agreement. The
// kinds the table knows have their own words; another kind is named as the record names it.
export function counterWords(n, kind) {
  const args = { n, kind };
  switch (kind) {
    case "poison": return tn("{n} poison counter", "{n} poison counters", n, args);
    case "energy": return tn("{n} energy counter", "{n} energy counters", n, args);
    case "experience": return tn("{n} experience counter", "{n} experience counters", n, args);
    case "rad": return tn("{n} rad counter", "{n} rad counters", n, args);
    case "omen": return tn("{n} omen counter", "{n} omen counters", n, args);
    default: return tn("{n} {kind} counter", "{n} {kind} counters", n, args);
  }
}

// A counter kind's name, as a panel's label says it ("poison", "veleno").
export function counterKind(kind) {
  switch (kind) {
    case "poison": return t("poison");
    case "energy": return t("energy");
    case "experience": return t("experience");
    case "rad": return t("rad");
    case "omen": return t("omen");
    default: return kind;
  }
}

// Taking a seat: free seats at once; a taken seat by asking its phone (or the host) to allow
// it. ``hooks.waiting(message)`` is told while the request waits. Resolves to {seat, token};
// throws an Error (``.code``: "seat-taken" with ``.connected``, "refused", "expired", ...).
export async function claimSeat(tableId, seat, takeover, hooks) {
  const body = {};
  const host = loadHost(tableId);
  if (takeover) body.takeover = true;
  if (takeover && host) body.host = host;
  let res;
  try {
    res = await api("POST", `/api/tables/${tableId}/seats/${encodeURIComponent(seat)}`, body);
  } catch (ex) {
    const err = new Error(ex.message);
    err.data = ex.data;
    err.code = ex.data && ex.data.error; err.connected = !!(ex.data && ex.data.connected); err.status = ex.status;
    err.device = !!(ex.data && ex.data.device); // a table device holds the seat
    throw err;
  }
  if (res.token) { saveSeat(tableId, res.seat, res.token); return res; }
  if (!res.request) throw new Error(t("The server didn't give this seat."));
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
      if (ex.status === 404) throw fail("expired", t("The request has expired; ask again."));
      await pause(2000);
      continue;
    }
    if (st.status === "allowed" && st.token) { saveSeat(tableId, seat, st.token); return { seat, token: st.token }; }
    if (st.status === "allowed") throw fail("expired", t("The seat was given, but not to this page; ask again."));
    if (st.status === "refused") throw fail("refused", t("The seat's phone refused."));
    if (st.status === "expired") throw fail("expired", t("No answer came in time; ask again."));
    if (Date.now() - asked < 1000) await pause(1000);
  }
}

// Names for ids: players, teams, commanders and cards (labels), with the id as the fallback.
export class Names {
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

// An amount: a whole number (for the locale), or an expression ("Ana's life × 1/2 (rounded up)").
export function showAmount(amount, names) {
  if (amount && typeof amount === "object" && "life_of" in amount) {
    const who = names.of(amount.life_of);
    const life = amount.fraction
      ? t("{name}'s life × {a}/{b}", { name: who, a: amount.fraction[0], b: amount.fraction[1] })
      : t("{name}'s life", { name: who });
    if (!amount.round) return life;
    return amount.round === "up" ? t("{amount} (rounded up)", { amount: life })
      : amount.round === "down" ? t("{amount} (rounded down)", { amount: life })
        : t("{amount} (rounded {way})", { amount: life, way: amount.round });
  }
  return typeof amount === "number" || typeof amount === "bigint" || /^-?\d+$/.test(String(amount)) ? formatNumber(amount) : String(amount);
}

// The count a plural form is chosen by: an expression counts as many.
function pluralAmount(amount) { return amount && typeof amount === "object" ? 2 : amount; }

// "1 poison counter", "3 energy counters", "Ana's life poison counters" (an expression).
function counters(amount, kind, names) {
  return counterWords(amount && typeof amount === "object" ? showAmount(amount, names) : amount, kind);
}

// Why a game ended for a player, by the engine's reason ids.
export function reasonText(reason) {
  switch (reason) {
    case "life": return t("0 or less life");
    case "team-life": return t("team at 0 or less life");
    case "poison": return t("10 poison counters");
    case "team-poison": return t("team's poison counters");
    case "empty-library": return t("drew from an empty library");
    case "commander-damage": return t("21 commander damage");
    case "conceded": return t("conceded");
    case "effect": return t("an effect");
    case "penalty": return t("a penalty");
    case "teammate": return t("a teammate lost");
    case "emperor": return t("the emperor");
    case "opponent-won": return t("an opponent won");
    case "last-standing": return t("last one standing");
    case "team": return t("the team won");
    case "simultaneous-loss": return t("everyone lost at once");
    case "loop": return t("a loop of mandatory actions");
    case "intentional": return t("an intentional draw");
    default: return reason;
  }
}

// A player's standing, as a word: "won", "lost", "drew", "playing".
export function statusWord(status) {
  switch (status) {
    case "won": return t("won");
    case "lost": return t("lost");
    case "drew": return t("drew");
    case "playing": return t("playing");
    case "left": return t("left");
    default: return status;
  }
}

export function describeResult(status, reason, rule) {
  const why = reason ? reasonText(reason) : "";
  const word = status ? statusWord(status) : "";
  return `${word}${why ? (word ? " — " : "") + why : ""}${rule ? " (" + rule + ")" : ""}`;
}

// One sentence for a record action.
export function describe(a, names) {
  if (!a) return "";
  const n = (id) => names.of(id);
  const amt = (x) => showAmount(x, names);
  const pairs = (obj) => listOf(Object.entries(obj).map(([p, v]) => t("{name} {amount}", { name: n(p), amount: amt(v) })));
  switch (a.do) {
    case "damage": {
      const bits = [];
      if (a.combat) bits.push(t("combat"));
      if (a.infect) bits.push(t("infect"));
      if (a.lifelink) bits.push(t("lifelink for {name}", { name: n(a.controller) }));
      else if (a.controller) bits.push(t("controlled by {name}", { name: n(a.controller) })); // 725.2, 726.2
      const args = { source: a.source ? n(a.source) : t("Damage"), amount: amt(a.amount), to: n(a.to), how: bits.join(", ") };
      return bits.length
        ? tn("{source}: {amount} damage to {to} ({how})", "{source}: {amount} damage to {to} ({how})", pluralAmount(a.amount), args)
        : tn("{source}: {amount} damage to {to}", "{source}: {amount} damage to {to}", pluralAmount(a.amount), args);
    }
    case "lose_life": return tn("{name} loses {amount} life", "{name} loses {amount} life", pluralAmount(a.amount), { name: n(a.player), amount: amt(a.amount) });
    case "gain_life": return tn("{name} gains {amount} life", "{name} gains {amount} life", pluralAmount(a.amount), { name: n(a.player), amount: amt(a.amount) });
    case "pay_life":
      if (a.payments) return t("Pay life: {payments}", { payments: pairs(a.payments) });
      return tn("{name} pays {amount} life", "{name} pays {amount} life", pluralAmount(a.amount), { name: n(a.player), amount: amt(a.amount) });
    case "set_life":
      if (a.each) return t("Life totals become {totals}", { totals: pairs(a.each) });
      return t("{name}'s life total becomes {amount}", { name: n(a.player), amount: amt(a.to) });
    case "exchange_life": return t("{a} and {b} exchange life totals", { a: n(a.players[0]), b: n(a.players[1]) });
    case "redistribute_life": return t("Life totals redistributed");
    case "add_counters": return t("{name} gets {counters}", { name: n(a.player), counters: counters(a.amount, a.kind, names) });
    case "remove_counters": return t("{name} loses {counters}", { name: n(a.player), counters: counters(a.amount, a.kind, names) });
    case "draw": return tn("{name} draws {n} card", "{name} draws {n} cards", a.count, { name: n(a.player), n: a.count });
    case "concede": return t("{name} concedes", { name: n(a.player) });
    case "win": return t("{name} wins by an effect", { name: n(a.player) });
    case "lose": return a.players
      ? t("{names} lose by an effect", { names: listOf(a.players.map(n)) })
      : t("{name} loses by an effect", { name: n(a.player) });
    case "draw_game": return t("An effect makes the game a draw");
    case "loop": return t("The game is in a loop of mandatory actions");
    case "intentional_draw": return t("The players agree to a draw");
    case "penalty": return t("{name} gets a game loss (penalty)", { name: n(a.player) });
    case "restart": return t("The game restarts");
    case "card": return t("{card} on {name}'s battlefield", { card: a.name, name: n(a.controller) });
    case "effect": return t("Effect {kind} ({name})", { kind: a.kind, name: n(a.controller) });
    case "end": return t("{card} stops applying", { card: names.of(a.id) });
    case "upkeep": return t("{name}'s upkeep begins", { name: n(a.player) });
    case "turn": return t("{name}'s turn begins", { name: n(a.player) });
    case "step": {
      const begins = stepBegins(a.step);
      if (!a.nonland_milled) return begins;
      const milled = listOf(Object.entries(a.nonland_milled).map(([p, v]) =>
        tn("{n} nonland card for {name}", "{n} nonland cards for {name}", v, { n: v, name: n(p) })));
      return t("{step} (rad counters milled {milled})", { step: begins, milled });
    }
    case "cast": {
      const c = a.count === undefined ? 1 : a.count;
      return tn("{name} casts {n} spell", "{name} casts {n} spells", c, { name: n(a.player), n: c });
    }
    case "become_monarch": return t("{name} becomes the monarch", { name: n(a.player) });
    case "take_initiative": return t("{name} takes the initiative", { name: n(a.player) });
    case "day_night": return a.to === "day" ? t("It becomes day") : a.to === "night" ? t("It becomes night") : t("It becomes {what}", { what: a.to });
    case "city_blessing": return t("{name} gets the city's blessing", { name: n(a.player) });
    case "set_library": return tn("{name}'s library has {n} card", "{name}'s library has {n} cards", a.count, { name: n(a.player), n: a.count });
    case "choose": {
      const bits = [];
      if (a.order) bits.push(t("puts {cards} on the stack in that order", { cards: a.order.map(n).join(t(", then ")) }));
      for (const [id, x] of Object.entries(a.targets || {})) {
        bits.push(t("{card} targets {targets}", { card: n(id), targets: [].concat(x).map(n).join(t(" or else ")) }));
      }
      if (a.replacements) bits.push(t("applies {effects} to their life gains", { effects: a.replacements.map(n).join(t(", then ")) }));
      return t("{name} chooses: {choices}", { name: n(a.player), choices: bits.join("; ") });
    }
    case "repeat": return tn("{n} time: {actions}", "{n} times: {actions}", a.times, { n: a.times, actions: a.actions.map((x) => describe(x, names)).join("; ") });
    case "together": return t("Together: {actions}", { actions: a.actions.map((x) => describe(x, names)).join("; ") });
    default: return a.do;
  }
}

// The steps of a turn the record marks (docs/record-format.md, "Turns"), by name.
export function stepName(step) {
  switch (step) {
    case "upkeep": return t("upkeep");
    case "draw": return t("draw step");
    case "main": return t("main phase");
    case "end": return t("end step");
    case "cleanup": return t("cleanup step");
    default: return step;
  }
}

// "The draw step begins".
function stepBegins(step) {
  switch (step) {
    case "upkeep": return t("The upkeep begins");
    case "draw": return t("The draw step begins");
    case "main": return t("The main phase begins");
    case "end": return t("The end step begins");
    case "cleanup": return t("The cleanup step begins");
    default: return t("The {step} begins", { step });
  }
}

// What changed among the designations (725 monarch, 726 initiative, 731 day/night, 702.131c).
function designationsChange(from, to, names) {
  const out = [];
  if (from.monarch !== to.monarch) out.push(to.monarch ? t("{name} is the monarch", { name: names.of(to.monarch) }) : t("no monarch"));
  if (from.initiative !== to.initiative) out.push(to.initiative ? t("{name} has the initiative", { name: names.of(to.initiative) }) : t("no initiative"));
  if (from.day_night !== to.day_night) {
    out.push(to.day_night === "day" ? t("it is day") : to.day_night === "night" ? t("it is night")
      : to.day_night ? t("it is {what}", { what: to.day_night }) : t("it is neither day nor night"));
  }
  const had = new Set(from.city_blessing || []);
  for (const p of to.city_blessing || []) if (!had.has(p)) out.push(t("{name} has the city's blessing", { name: names.of(p) }));
  return out.join(", ") || t("designations");
}

// What changed among the omen counters on each Celestial Convergence (122.1), by card id.
function omensChange(from, to, names) {
  const out = [];
  for (const [id, n] of Object.entries(to)) if (from[id] !== n) out.push(t("{card}: {counters}", { card: names.of(id), counters: counterWords(n, "omen") }));
  for (const id of Object.keys(from)) if (!(id in to)) out.push(t("{card}: no omen counters", { card: names.of(id) }));
  return out.join(", ") || t("omen counters");
}

// A count in a change: a number for the locale, "uncounted" for none.
function countText(value) { return value === null || value === undefined ? t("uncounted") : formatNumber(value); }

export function describeChange(c, names) {
  const who = c.team ? names.of(c.team) : c.player ? names.of(c.player) : "";
  const fromTo = { who, from: countText(c.from), to: countText(c.to) };
  switch (c.what) {
    case "life": return t("{who} life {from} → {to}", fromTo);
    case "poison": return t("{who} poison {from} → {to}", fromTo);
    case "library": return t("{who} library {from} → {to}", fromTo);
    case "counters": return t("{who} {kind} {from} → {to}", Object.assign({ kind: counterKind(c.key) }, fromTo));
    case "commander_damage": return t("{who} commander damage from {commander} {from} → {to}", Object.assign({ commander: names.of(c.key) }, fromTo));
    case "status": return `${who} ${describeResult(c.to, c.reason, c.rule)}`;
    case "game": return t("game {from} → {to} (restart)", fromTo);
    // "over" is reported both ways: false when an undo takes back the action that ended it.
    case "over": return c.to === false ? t("the game is no longer over") : t("the game is over");
    case "turn": return c.to
      ? t("turn {n}: {players}, {step}", { n: c.to.number, players: c.to.active.map((p) => names.of(p)).join(" & "), step: stepName(c.to.step) })
      : t("no turn");
    case "designations": return designationsChange(c.from || {}, c.to || {}, names);
    case "omens": return omensChange(c.from || {}, c.to || {}, names);
    case "triggered": return c.to === null
      ? t("{card}: triggers no longer counted", { card: names.of(c.key) })
      : t("{card} triggered ({n})", { card: names.of(c.key), n: c.to });
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
export function isZero(n) { return n !== null && n !== undefined && String(n) === "0"; }

// A state with an event's changes (entry.changes) applied: the page's copy of the server's
// state, moved on by one event. Pure: ``state`` is not modified. Throws an Error when a change
// names a player or team the state doesn't hold, or is of an unknown kind (the page then asks
// for the whole state again). The rules are the server's (lifeledger_table.changes.apply_changes):
// - a team's "life"/"poison" is the team's and every member's (a shared total, 810.9a);
// - "counters" and "commander_damage" to 0 remove their key; "triggered" to null removes its
//   key (a trigger count of 0 is a count);
// - "status" sets status, reason and rule; "game" and "over" set the game's.
export function applyChanges(state, changes) {
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
