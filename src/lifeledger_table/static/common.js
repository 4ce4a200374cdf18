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

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { message: res.statusText }; }
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

// Names for ids: players, teams, commanders (labels), with the id as the fallback.
class Names {
  constructor(header, labels) {
    this.map = Object.assign({}, labels || {});
    this.players = new Set();
    for (const p of header.players) { this.map[p.id] = p.name || p.id; this.players.add(p.id); }
  }
  of(id) { return id in this.map ? this.map[id] : String(id); }
  // The engine's sentences speak of player ids; show the players' names instead (a possessive
  // too, but not a contraction: a player "can" leaves "can't" alone).
  text(sentence) {
    return String(sentence).replace(/(?<![\w'’-])[\w-]+(?![\w-])(?!['’](?!s\b))/g, (word) => (this.players.has(word) ? this.map[word] : word));
  }
}

function showAmount(amount, names) {
  if (amount && typeof amount === "object" && "life_of" in amount) {
    const f = amount.fraction ? ` × ${amount.fraction[0]}/${amount.fraction[1]}` : "";
    const r = amount.round ? ` (rounded ${amount.round})` : "";
    return `${names.of(amount.life_of)}'s life${f}${r}`;
  }
  return String(amount);
}

const REASONS = {
  "life": "0 or less life", "team-life": "team at 0 or less life", "poison": "10 poison counters",
  "team-poison": "team's poison counters", "empty-library": "drew from an empty library",
  "commander-damage": "21 commander damage", "conceded": "conceded", "effect": "an effect",
  "penalty": "a penalty", "teammate": "a teammate lost", "emperor": "the emperor",
  "opponent-won": "an opponent won", "last-standing": "last one standing", "team": "the team won",
  "simultaneous-loss": "everyone lost at once", "loop": "an endless loop",
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
    case "add_counters": return `${n(a.player)} gets ${amt(a.amount)} ${a.kind} counter${a.amount === 1 ? "" : "s"}`;
    case "remove_counters": return `${n(a.player)} loses ${amt(a.amount)} ${a.kind} counter${a.amount === 1 ? "" : "s"}`;
    case "draw": return `${n(a.player)} draws ${a.count} card${a.count === 1 ? "" : "s"}`;
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
    case "together": return "Together: " + a.actions.map((x) => describe(x, names)).join("; ");
    default: return a.do;
  }
}

function describeChange(c, names) {
  const who = c.team ? names.of(c.team) : c.player ? names.of(c.player) : "";
  switch (c.what) {
    case "life": return `${who} life ${c.from} → ${c.to}`;
    case "poison": return `${who} poison ${c.from} → ${c.to}`;
    case "library": return `${who} library ${c.from} → ${c.to}`;
    case "counters": return `${who} ${c.key} ${c.from} → ${c.to}`;
    case "commander_damage": return `${who} commander damage from ${names.of(c.key)} ${c.from} → ${c.to}`;
    case "status": return `${who} ${describeResult(c.to, c.reason, c.rule)}`;
    case "game": return `game ${c.from} → ${c.to} (restart)`;
    case "over": return "the game is over";
    case "triggered": return `${names.of(c.key)} triggered (${c.to})`;
    default: return c.what;
  }
}
