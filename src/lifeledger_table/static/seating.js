// The players' colours, and what this device keeps of a table's seats, its device (the table's
// or a personal phone) and the playgroup: shared by the start page and the table page.

import { t } from "./i18n.js";
import { keptUnder, loadSeat } from "./common.js";

// ---------------------------------------------------------------- colours

// Sixteen distinct panel colours, each at least WCAG AA (4.5:1) against the white text on
// it: players get different colours until all sixteen are used.
export const PALETTE = [
  { name: "Blue", bg: "#2d4f94" }, { name: "Crimson", bg: "#8e2446" },
  { name: "Green", bg: "#1e6a4d" }, { name: "Amber", bg: "#8a4a0c" },
  { name: "Purple", bg: "#5b3aa0" }, { name: "Teal", bg: "#14646f" },
  { name: "Olive", bg: "#5f5a12" }, { name: "Slate", bg: "#485262" },
  { name: "Red", bg: "#a02c2c" }, { name: "Forest", bg: "#2e6a25" },
  { name: "Magenta", bg: "#862f86" }, { name: "Sky", bg: "#1f5f92" },
  { name: "Brown", bg: "#74482a" }, { name: "Indigo", bg: "#3b3f9a" },
  { name: "Rose", bg: "#9a3460" }, { name: "Pine", bg: "#23584f" },
];

// A colour's name, in the page's language (``name`` stays the colour's id: data-colour).
export function colourName(c) {
  switch (c.name) {
    case "Blue": return t("Blue");
    case "Crimson": return t("Crimson");
    case "Green": return t("Green");
    case "Amber": return t("Amber");
    case "Purple": return t("Purple");
    case "Teal": return t("Teal");
    case "Olive": return t("Olive");
    case "Slate": return t("Slate");
    case "Red": return t("Red");
    case "Forest": return t("Forest");
    case "Magenta": return t("Magenta");
    case "Sky": return t("Sky");
    case "Brown": return t("Brown");
    case "Indigo": return t("Indigo");
    case "Rose": return t("Rose");
    case "Pine": return t("Pine");
    default: return c.name;
  }
}

// The colour of each seat: chosen when the table was opened (``colours``), else the seat's
// place; a chosen colour is never given to a second seat while another is free.
export function seatColours(players, chosen) {
  const out = {};
  const used = new Set();
  for (const p of players) {
    const c = chosen ? chosen[p.id] : undefined;
    if (Number.isInteger(c) && c >= 0 && c < PALETTE.length && !used.has(c)) { out[p.id] = c; used.add(c); }
  }
  let next = 0;
  for (const p of players) {
    if (p.id in out) continue;
    while (used.has(next % PALETTE.length) && used.size < PALETTE.length) next++;
    out[p.id] = next % PALETTE.length;
    used.add(next % PALETTE.length);
    next++;
  }
  return out;
}

// ---------------------------------------------------------------- the device and its seats

// "table": one device for everyone (it holds every free seat); "phone": a player's own.
function deviceKey(tableId) { return "lifeledger-device-" + tableId; }
export function loadDevice(tableId) {
  try { return localStorage.getItem(deviceKey(tableId)) === "table" ? "table" : "phone"; } catch { return "phone"; }
}
export function saveDevice(tableId, device) { localStorage.setItem(deviceKey(tableId), device); }

// The seats this browser holds at a table: {seat: token}. The single-seat key of older
// pages is read too.
function seatsKey(tableId) { return "lifeledger-seats-" + tableId; }
export function loadSeats(tableId) {
  let out;
  try { out = JSON.parse(localStorage.getItem(seatsKey(tableId)) || "{}") || {}; } catch { out = {}; }
  if (typeof out !== "object" || Array.isArray(out)) out = {};
  const old = loadSeat(tableId);
  if (old && old.seat && old.token && !(old.seat in out)) out[old.seat] = old.token;
  return out;
}
export function saveSeats(tableId, seats) {
  localStorage.setItem(seatsKey(tableId), JSON.stringify(seats));
}

// The last players' names and colours ("our playgroup"), offered when opening a table.
const PLAYGROUP_KEY = "lifeledger-playgroup";
export function loadPlaygroup() {
  try {
    const g = JSON.parse(localStorage.getItem(PLAYGROUP_KEY) || "null");
    return g && Array.isArray(g.players) && g.players.length ? g : null;
  } catch { return null; }
}
export function savePlaygroup(group) { localStorage.setItem(PLAYGROUP_KEY, JSON.stringify(group)); }

// ---------------------------------------------------------------- tables shared elsewhere

// A device table shared from the app written as static files to a server at another address
// (share.js) goes on on that server's site, whose storage this app can't read: the app keeps
// where it went and who plays in it, and its start page lists it among the recent tables
// (index.js), a link to it there.
const ELSEWHERE_KEY = "lifeledger-elsewhere-"; // + the served table's id
export function keepElsewhere(tableId, href, header) {
  const players = header.players.map((p) => p.name || p.id);
  try { localStorage.setItem(ELSEWHERE_KEY + tableId, JSON.stringify({ href, kept: Date.now(), players })); } catch { /* not listed */ }
}
// Every table kept so: {id, href, kept, players}; one whose record is damaged is left out.
export function loadElsewhere() {
  return keptUnder(ELSEWHERE_KEY)
    .filter(({ value: v }) => v && /^https?:\/\//.test(v.href) && Number.isFinite(v.kept) && Array.isArray(v.players))
    .map(({ id, value: v }) => ({ id, href: v.href, kept: v.kept, players: v.players.map(String) }));
}
