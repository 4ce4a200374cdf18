// The start page: a new game on this device in one tap (the last setup, or two players at 20,
// or four at Commander 40), the tables this device played lately, joining with a code, and
// everything else (names, colours, variants, a table for everyone's own phone) under "More
// options".

import {
  compilePlural, formatNumber, I18N, i18nReady, lang, languagePicker, onLangChange, said, sentence,
  t, tn, translateStatic,
} from "./i18n.js";
import {
  api, applyChanges, checkCode, claimSeat, formatCode, h, keptUnder, normCode, onlyHereNote,
  parseJSON, parseWhole, saveHost, toJSON,
} from "./common.js";
import { DeviceStore, DeviceTables, Engine, tableHref } from "./device.js";
import {
  colourName, loadElsewhere, loadPlaygroup, PALETTE, saveDevice, savePlaygroup, saveSeats,
  seatColours,
} from "./seating.js";
import "./install.js"; // the service worker: the app opens offline (and the install offer)

let CATALOGUE = null;

// What a person reads on this page, in one place (in the page's language, i18n.js).
const WORDS = {
  players: (n) => tn("{n} player", "{n} players", n, { n }),
  life: (n) => tn("{n} life", "{n} life", n, { n }),
  player: (n) => t("Player {n}", { n }),
  startFailed: (why) => t("The table could not be opened: {why}", { why }),
  offline: () => t("No connection to the server: a new table needs it. Recent tables open offline."),
  lifeOf: (name, life) => t("{name} {life}", { name, life }),
  over: () => t("game over"),
  today: (time) => t("today {time}", { time }),
  elsewhere: (server) => t("shared to {server}", { server }),
};

// Variants and formats by the catalogue's ids; an id not here is shown as its words.
function variantName(id) {
  switch (id) {
    case "two-player": return t("Two players");
    case "free-for-all": return t("Free-for-all");
    case "grand-melee": return t("Grand Melee");
    case "team-vs-team": return t("Team vs. team");
    case "two-headed-giant": return t("Two-Headed Giant");
    case "emperor": return t("Emperor");
    case "alternating-teams": return t("Alternating teams");
    case "archenemy": return t("Archenemy");
    case "supervillain-rumble": return t("Supervillain Rumble");
    case "normal": return t("Normal");
    case "commander": return t("Commander");
    case "brawl": return t("Brawl");
    case "vanguard": return t("Vanguard");
    case "planechase": return t("Planechase");
    default: return null;
  }
}

// One tap, one game on this device. Nobody is named: the panels say "Player 1", and the
// players name themselves and pick colours under "More options" next time (remembered). The
// names are in the language of the page that starts the game ("Giocatore 1").
function defaultPlayers(n) {
  return Array.from({ length: n }, (_, i) => ({ name: WORDS.player(i + 1), colour: i }));
}
// A Commander game tracks commander damage from the first tap (903.10a): each player has a
// commander from the start, "Commander of Player 1" (the table renames players, not yet
// commanders; a partner is added under "More options").
function withCommanders(players) {
  return players.map((p) => Object.assign({}, p, { commanders: [t("Commander of {name}", { name: p.name })] }));
}
let QUICK = [];
function quickGames() {
  return [
    // Two players, one game (a match of one: what players expect of a quick game, 100.6a).
    { key: "two", label: WORDS.players(2), detail: WORDS.life(20), form: { format: "normal", best_of: 1, players: defaultPlayers(2) } },
    { key: "commander", label: t("{players} · Commander", { players: WORDS.players(4) }), detail: WORDS.life(40), form: { format: "commander", players: withCommanders(defaultPlayers(4)) } },
  ];
}

// The last setup a game was started with on this device (the form as sent), offered first.
const LAST_KEY = "lifeledger-last-setup";
function loadLast() {
  try {
    const f = parseJSON(localStorage.getItem(LAST_KEY) || "null");
    return f && Array.isArray(f.players) && f.players.length ? f : null;
  } catch { return null; }
}
function saveLast(form) {
  try { localStorage.setItem(LAST_KEY, toJSON(form)); } catch { /* storage refused */ }
}

// A variant's or format's name as read: "two-headed-giant" -> "Two-Headed Giant".
function nameOf(id) {
  const known = variantName(id);
  if (known) return known;
  const words = String(id).replace(/-/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// The last setup as a button reads: its players' names, then its format and life.
function describeSetup(form) {
  const names = form.players.map((p) => p.name).join(", ");
  const bits = [];
  if (form.variant) bits.push(nameOf(form.variant));
  if (form.format && form.format !== "normal") bits.push(nameOf(form.format));
  if (form.starting_life !== null && form.starting_life !== undefined) bits.push(WORDS.life(form.starting_life));
  return { label: names, detail: bits.length ? bits.join(" · ") : WORDS.players(form.players.length) };
}

// Start a game on this device: a table kept and decided on this device, this device
// everyone's (it holds every seat), and straight to the panels.
async function startHere(form, btn) {
  const err = document.getElementById("start-error");
  err.textContent = "";
  btn.disabled = true;
  try {
    // Kept on this device and decided here: no server needed (device.js). "Share this
    // table" brings it to a server later, for everyone's own phone.
    const res = await DeviceTables.create(form);
    saveLast(form);
    saveHost(res.id, res.host);
    saveDevice(res.id, "table");
    saveSeats(res.id, res.tokens);
    location.href = tableHref(res.id);
  } catch (ex) {
    btn.disabled = false;
    err.textContent = WORDS.startFailed(said(ex.data, null) || ex.message);
  }
}

function quickButton(key, text, form, primary) {
  const btn = h("button", {
    type: "button", class: "quick-start" + (primary ? " primary" : ""), "data-quick": key,
    onclick: () => startHere(form, btn),
  }, h("span", { class: "quick-label" }, text.label), h("span", { class: "quick-detail" }, text.detail));
  return btn;
}

function renderQuick() {
  QUICK = quickGames();
  const last = loadLast();
  const same = (a, b) => toJSON(a) === toJSON(b);
  const buttons = [];
  if (last && !QUICK.some((q) => same(q.form, last))) buttons.push(quickButton("last", describeSetup(last), last, true));
  for (const q of QUICK) {
    const isLast = !!last && same(q.form, last);
    buttons.push(quickButton(q.key, { label: q.label, detail: q.detail }, q.form, isLast || (!last && q.key === "two")));
  }
  document.getElementById("quick").replaceChildren(...buttons);
}

// The tables this device played lately: every table page keeps its last view here for
// offline use (lifeledger-offline-play-<id>), so the list opens offline too; and the tables
// this app shared to a server at another address (seating.js), latest first.
const RECENT_SHOWN = 5;
function recentTables() {
  const played = keptUnder("lifeledger-offline-play-")
    .filter(({ value: kept }) => kept && kept.info && kept.info.header && kept.state && Array.isArray(kept.state.players))
    .map(({ id, value: kept }) => ({ id, when: kept.kept || 0, kept }));
  const shared = loadElsewhere().map((elsewhere) => ({ id: elsewhere.id, when: elsewhere.kept, elsewhere }));
  return [...played, ...shared].sort((a, b) => b.when - a.when).slice(0, RECENT_SHOWN);
}

function whenText(ms) {
  if (!ms) return "";
  const d = new Date(ms);
  const time = d.toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === new Date().toDateString() ? WORDS.today(time) : d.toLocaleDateString(lang());
}

function renderRecent() {
  const tables = recentTables();
  document.getElementById("recent").classList.toggle("hidden", !tables.length);
  const item = (id, href, main, meta) => h("li", {}, h("a", { class: "recent-table", href, "data-table": id },
    h("span", { class: "recent-lives" }, main), h("span", { class: "recent-meta muted" }, meta.filter(Boolean).join(" · "))));
  document.getElementById("recent-list").replaceChildren(...tables.map(({ id, kept, elsewhere }) => {
    // Shared to a server at another address: who plays, and where (the totals are there).
    if (elsewhere) {
      return item(id, elsewhere.href, elsewhere.players.join(" · "), [WORDS.elsewhere(new URL(elsewhere.href).host), whenText(elsewhere.kept)]);
    }
    const names = new Map(kept.info.header.players.map((p) => [p.id, p.name || p.id]));
    const lives = kept.state.players.map((p) => WORDS.lifeOf(names.get(p.id) || p.id, formatNumber(p.life)));
    const fmt = kept.info.header.format && kept.info.header.format !== "normal" ? nameOf(kept.info.header.format) : "";
    return item(id, tableHref(id), lives.join(" · "), [fmt, kept.state.over ? WORDS.over() : "", whenText(kept.kept)]);
  }));
}

// The presets of "More options", by key (their labels: presetLabel); the teams are named in
// the page's language.
const presetForms = () => ({
  "two": { variant: "two-player", format: "normal", players: [{ name: "Ana" }, { name: "Bo" }] },
  "commander": {
    variant: "free-for-all", format: "commander",
    players: [
      { name: "Ana", commanders: ["Atraxa"] }, { name: "Bo", commanders: ["Thrasios", "Tymna"] },
      { name: "Cy", commanders: ["Edgar"] }, { name: "Di", commanders: ["Krenko"] },
    ],
  },
  "two-headed-giant": {
    variant: "two-headed-giant", format: "normal",
    players: [
      { name: "Ana", team: t("North") }, { name: "Bo", team: t("North") },
      { name: "Cy", team: t("South") }, { name: "Di", team: t("South") },
    ],
  },
  "free-for-all": {
    variant: "free-for-all", format: "normal", players: [{ name: "Ana" }, { name: "Bo" }, { name: "Cy" }],
  },
});

function presetLabel(key) {
  switch (key) {
    case "two": return t("Two players");
    case "commander": return t("Commander ×4");
    case "two-headed-giant": return t("Two-Headed Giant");
    case "free-for-all": return t("Free-for-all ×3");
    default: return key;
  }
}

// A colour for a new player: the first no other row has.
function freeColour() {
  const used = new Set([...document.querySelectorAll(".p-colour")].map((s) => Number(s.value)));
  for (let i = 0; i < PALETTE.length; i++) if (!used.has(i)) return i;
  return used.size % PALETTE.length;
}

function colourSelect(value) {
  const sel = h("select", { class: "p-colour", "aria-label": t("Colour") },
    ...PALETTE.map((c, i) => h("option", { value: i }, colourName(c))));
  sel.value = String(value);
  const paint = () => { sel.style.backgroundColor = PALETTE[Number(sel.value)].bg; };
  sel.addEventListener("change", paint);
  paint();
  return sel;
}

function playerRow(p) {
  p = p || {};
  const cmd = p.commanders || [];
  const colour = Number.isInteger(p.colour) && p.colour >= 0 && p.colour < PALETTE.length ? p.colour : freeColour();
  const row = h("div", { class: "player-row" },
    h("input", { class: "p-name", placeholder: t("Name"), value: p.name || "", "aria-label": t("Name"), maxlength: 40 }),
    colourSelect(colour),
    h("input", { class: "p-team opt-team", placeholder: t("Team"), value: p.team || "", "aria-label": t("Team"), maxlength: 40 }),
    h("input", { class: "p-cmd opt-cmd", placeholder: t("Commander"), value: cmd[0] || "", "aria-label": t("Commander"), maxlength: 40 }),
    h("input", { class: "p-partner opt-cmd", placeholder: t("Partner"), value: cmd[1] || "", "aria-label": t("Partner"), maxlength: 40 }),
    h("input", { class: "p-library opt-library", type: "text", inputmode: "numeric", autocomplete: "off", placeholder: t("Library"), value: p.library ?? "", "aria-label": t("Cards in library (optional)") }),
    h("input", { class: "p-modifier opt-vanguard", type: "text", autocomplete: "off", placeholder: t("Life modifier"), value: p.life_modifier ?? "", "aria-label": t("Vanguard life modifier") }),
    h("label", { class: "check opt-archenemy" }, h("input", { type: "checkbox", class: "p-archenemy", checked: !!p.archenemy }), t("Archenemy")),
    h("label", { class: "check opt-emperor" }, h("input", { type: "checkbox", class: "p-emperor", checked: !!p.emperor }), t("Emperor")),
    h("button", { type: "button", class: "remove", "aria-label": t("Remove player"), onclick: (e) => { e.target.closest(".player-row").remove(); } }, "✕"),
  );
  return row;
}

function applyVisibility() {
  const variant = document.getElementById("variant").value;
  const format = document.getElementById("format").value;
  const form = document.getElementById("create-form");
  const teams = ["team-vs-team", "two-headed-giant", "emperor", "alternating-teams", "archenemy"].includes(variant);
  form.classList.toggle("show-team", teams);
  form.classList.toggle("show-cmd", format === "commander" || format === "brawl");
  form.classList.toggle("show-vanguard", format === "vanguard");
  form.classList.toggle("show-archenemy", variant === "archenemy" || variant === "supervillain-rumble");
  form.classList.toggle("show-emperor", variant === "emperor");
  form.classList.toggle("show-library", document.getElementById("count-library").checked);
}

// The variant follows the number of players: a third player turns "Two players" (103) into
// a free-for-all (806), and back at two a free-for-all is a two-player game again (800.1:
// a multiplayer game has more than two players). Any other variant is the players' choice.
function fitVariant() {
  const variant = document.getElementById("variant");
  const n = document.querySelectorAll(".player-row").length;
  if (variant.value === "two-player" && n > 2) variant.value = "free-for-all";
  else if (variant.value === "free-for-all" && n === 2) variant.value = "two-player";
}

function fill(preset) {
  document.getElementById("variant").value = preset.variant || "";
  document.getElementById("format").value = preset.format || "normal";
  const box = document.getElementById("players");
  box.replaceChildren();
  for (const p of preset.players) box.append(playerRow(p));
  applyVisibility();
}

// A number field, read exactly from its text (empty: not given); an error names the field.
function numberOrNull(input, label, min) {
  return input.value.trim() === "" ? null : parseWhole(input.value, label, min);
}

function readForm() {
  const form = {
    variant: document.getElementById("variant").value || null,
    format: document.getElementById("format").value,
    starting_life: numberOrNull(document.getElementById("starting-life"), t("Starting life"), 1),
    players: [],
  };
  const bestOf = document.getElementById("best-of").value;
  if (bestOf === "open") form.best_of = null;
  else if (bestOf !== "auto") form.best_of = Number(bestOf);
  const cls = document.getElementById("create-form").classList;
  let index = 0;
  for (const row of document.querySelectorAll(".player-row")) {
    index += 1;
    const p = { name: row.querySelector(".p-name").value, colour: Number(row.querySelector(".p-colour").value) };
    const who = p.name.trim() || WORDS.player(index);
    if (cls.contains("show-team") && row.querySelector(".p-team").value.trim()) p.team = row.querySelector(".p-team").value;
    if (cls.contains("show-cmd")) {
      p.commanders = [row.querySelector(".p-cmd").value, row.querySelector(".p-partner").value].filter((x) => x.trim());
    }
    if (cls.contains("show-library")) {
      const lib = numberOrNull(row.querySelector(".p-library"), t("{name}'s library", { name: who }), 0);
      if (lib !== null) p.library = lib;
    }
    if (cls.contains("show-vanguard")) {
      const m = numberOrNull(row.querySelector(".p-modifier"), t("{name}'s life modifier", { name: who }), null);
      if (m !== null) p.life_modifier = m;
    }
    if (cls.contains("show-archenemy") && row.querySelector(".p-archenemy").checked) p.archenemy = true;
    if (cls.contains("show-emperor") && row.querySelector(".p-emperor").checked) p.emperor = true;
    form.players.push(p);
  }
  return form;
}

// "I'm Ana": take the seat; a seat another phone took meanwhile is asked for (this browser
// opened the table, so the server gives it at once).
function seatButton(res, p) {
  const name = p.name || p.id;
  const note = document.getElementById("opened-note");
  const btn = h("button", {
    class: "seat", "data-seat": p.id,
    onclick: async () => {
      if (btn.disabled) return;
      btn.disabled = true;
      try {
        await claimSeat(res.id, p.id, !!btn.dataset.ask, {
          waiting: () => { note.textContent = t("Waiting for {name}'s phone to allow it…", { name }); },
        });
        location.href = `/t/${res.id}`;
      } catch (ex) {
        btn.disabled = false;
        if (ex.code === "seat-taken") {
          btn.dataset.ask = "1";
          btn.textContent = t("Ask to take {name}'s seat", { name });
          note.textContent = t("Another phone has taken {name}'s seat. Ask to take it?", { name });
        } else note.textContent = ex.code === "refused" ? t("{name}'s phone refused to give the seat.", { name }) : said(ex.data, null) || ex.message;
      }
    },
  }, t("I'm {name}", { name }));
  return btn;
}

function showOpened(res) {
  // The server's links reach it from the other phones (its LAN address when this page was
  // opened on the serving machine itself as localhost).
  const links = res.links || { play: `${location.origin}/t/${res.id}`, watch: `${location.origin}/w/${res.watch}` };
  saveHost(res.id, res.host);
  document.getElementById("opened").classList.remove("hidden");
  document.getElementById("opened-code").textContent = formatCode(res.code);
  const link = document.getElementById("opened-link");
  link.textContent = links.play; link.href = `/t/${res.id}`;
  const watch = document.getElementById("opened-watch");
  watch.textContent = links.watch; watch.href = `/w/${res.watch}`;
  document.getElementById("opened-only-here").replaceChildren(onlyHereNote(links.play) || "");
  document.getElementById("opened-qr").src = `/api/tables/${res.id}/qr.svg`;
  document.getElementById("one-device").onclick = () => { saveDevice(res.id, "table"); location.href = `/t/${res.id}`; };
  document.getElementById("own-phones").onclick = () => {
    saveDevice(res.id, "phone");
    document.getElementById("opened-seats-title").scrollIntoView({ behavior: "smooth" });
    const first = document.querySelector("#opened-seats button");
    if (first) first.focus({ preventScroll: true });
  };
  const seats = document.getElementById("opened-seats");
  seats.replaceChildren(
    ...res.header.players.map((p) => seatButton(res, p)),
    h("a", { class: "seat watch", href: `/t/${res.id}` }, t("Choose later")),
  );
  document.getElementById("opened").scrollIntoView({ behavior: "smooth" });
}

// The page's own words (its HTML is in English) in the page's language.
function translatePage() {
  document.title = t("lifeledger — the table");
  translateStatic([
    ["#tagline", t("A life counter that knows the rules.")],
    ["#start-title", t("New game on this device")],
    ["#quick-note", t("One tap, and everyone plays on this screen. Phones join from the table's menu (☰) with its code or QR code.")],
    ["#recent-title", t("Recent tables")],
    ["#join-title", t("Join a table")],
    ["#join-code", t("Table code"), "placeholder"],
    ["#join-code", t("Table code, e.g. K7QM-2XPA-RT"), "aria-label"],
    ["#join-btn", t("Join")],
    ["#more-title", t("More options")],
    ["#more-note", t("Names, colours, teams, commanders, variants and formats; a table for everyone's own phone, with its code and QR code.")],
    ["#variant-label", t("Variant")],
    ["#format-label", t("Format")],
    ["#life-label", t("Starting life")],
    ["#starting-life", t("usual"), "placeholder"],
    ["#match-label", t("Match")],
    ["#best-of option[value=auto]", t("usual length")],
    ["#best-of option[value='1']", t("best of {n}", { n: 1 })],
    ["#best-of option[value='3']", t("best of {n}", { n: 3 })],
    ["#best-of option[value='5']", t("best of {n}", { n: 5 })],
    ["#best-of option[value='7']", t("best of {n}", { n: 7 })],
    ["#best-of option[value=open]", t("no limit")],
    ["#players-title", t("Players")],
    ["#players-order", t("(in seating order, clockwise)")],
    ["#add-player", t("+ Add player")],
    ["#count-library-label", t("Count cards in libraries")],
    ["#open-table", t("Open table")],
    ["#replay-link", t("Watch a game record replay →")],
    ["#opened-title", t("Table open")],
    ["#opened-code-label", t("Code to type:")],
    ["#opened-qr", t("QR code of the table's link"), "alt"],
    ["#opened-link-label", t("Link:")],
    ["#opened-watch-label", t("Spectators (read-only):")],
    ["#how-title", t("How do you play?")],
    ["#one-device", t("One device for everyone")],
    ["#own-phones", t("Everyone on their own phone")],
    ["#how-note", t("One device in the middle of the table: every panel turns to face its player. Players may still join on their own phones with the code.")],
    ["#opened-seats-title", t("Which seat is this phone?")],
  ]);
  document.getElementById("lang-box").replaceChildren(languagePicker("lang-select"));
}

async function main() {
  await i18nReady();
  translatePage();
  // Another language chosen: the page again, in it (a table just opened stays on screen: its
  // words are set anew, the rest of the page follows at the next load).
  onLangChange(() => {
    if (document.getElementById("opened").classList.contains("hidden")) location.reload();
    else translatePage();
  });
  // What this device has: shown first, with no network too (an installed app resumes a table).
  renderQuick();
  renderRecent();
  try { CATALOGUE = await api("GET", "/api/catalogue"); } catch (ex) {
    document.getElementById("start-error").textContent = ex.status ? said(ex.data, null) || ex.message : WORDS.offline();
    return;
  }
  const variant = document.getElementById("variant");
  variant.append(h("option", { value: "" }, t("automatic")), ...CATALOGUE.variants.map((v) => h("option", { value: v.name }, nameOf(v.name))));
  const format = document.getElementById("format");
  format.append(...CATALOGUE.formats.map((f) => h("option", { value: f }, nameOf(f))));
  variant.addEventListener("change", applyVisibility);
  format.addEventListener("change", applyVisibility);
  document.getElementById("count-library").addEventListener("change", applyVisibility);
  const presets = document.getElementById("presets");
  // Our playgroup: the last table's players, names and colours, offered first.
  const group = loadPlaygroup();
  if (group) {
    presets.append(h("button", { type: "button", class: "chip playgroup", "data-preset": "playgroup", onclick: () => fill(group) },
      t("Our playgroup: {names}", { names: group.players.map((p) => p.name).join(", ") })));
  }
  const PRESETS = presetForms();
  for (const [key, preset] of Object.entries(PRESETS)) {
    presets.append(h("button", { type: "button", class: "chip", "data-preset": key, onclick: () => fill(preset) }, presetLabel(key)));
  }
  fill(group || PRESETS.two);
  document.getElementById("add-player").addEventListener("click", () => {
    document.getElementById("players").append(playerRow({}));
    fitVariant();
    applyVisibility();
  });
  document.getElementById("players").addEventListener("click", (e) => { if (e.target.closest(".remove")) fitVariant(); });
  document.getElementById("create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = document.getElementById("create-error");
    err.textContent = "";
    let form;
    try { form = readForm(); } catch (ex) { err.textContent = ex.message; return; }
    try {
      const res = await api("POST", "/api/tables", form);
      saveLast(form);
      savePlaygroup({ variant: form.variant || "", format: form.format, players: form.players.map((p) => ({
        name: p.name, team: p.team, commanders: p.commanders, colour: p.colour,
      })) });
      showOpened(res);
    } catch (ex) {
      err.textContent = (said(ex.data, null) || ex.message) + (ex.data && ex.data.member ? ` (${ex.data.member})` : "");
    }
  });
  document.getElementById("join-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = document.getElementById("join-error");
    err.textContent = "";
    const code = normCode(document.getElementById("join-code").value);
    const wrong = checkCode(code);
    if (wrong) { err.textContent = wrong; return; }
    try {
      const res = await api("GET", "/api/code/" + encodeURIComponent(code));
      location.href = `/t/${res.id}`;
    } catch (ex) { err.textContent = said(ex.data, null) || ex.message; }
  });
}

// The page's inspection surface, and its only global (docs/table.md, "The page's scripts"):
// what the browser tests read and call in the page (lifeledger.PALETTE...), in one named
// object. No module of the page reads it.
window.lifeledger = Object.freeze({
  applyChanges, compilePlural, DeviceStore, Engine, I18N, PALETTE, parseJSON, seatColours, sentence,
  tn, toJSON,
});

main();
