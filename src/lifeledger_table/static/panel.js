// Panel parts: commander damage in one tap, poison and pinned counters with − and +, and what
// screen readers are told (a loss, the end of the game). Loaded after common.js and before
// table.js; it uses table.js's globals (S, KEY, MODE, act, header, playerState, units, render,
// showPicker, toast...) only when its functions are called, after every script has loaded.
//
// The page decides no rule here either: a tap sends a record action and the engine's state comes
// back. The thresholds shown (21 commander damage, 10 or 15 poison counters) only say how near a
// player is; the engine decides the loss.

import { formatNumber, listOf, t, tn } from "./i18n.js";
import { counterKind, counterWords, describeResult, h, isZero, parseWhole } from "./common.js";
import { PALETTE } from "./seating.js";
import { faceOverlay } from "./layout.js";
import { addExact, pendingCommanderDamage, shownCount } from "./taps.js";
import { cmdControllerPicks, cmdSheetController, commanderController } from "./marks.js";
import { commanderOwner, COUNTER_KINDS, header, KEY, MODE, playerState, S, teamOf, units } from "./state.js";
import { toast } from "./toasts.js";
import { act } from "./connection.js";
import { render } from "./render.js";
import { showPicker } from "./sheets.js";

const CMD_LOSES = 21; // 903.10a, 704.6c: 21 combat damage from the same commander
const CMD_NEAR = 15; // from here a commander's total is highlighted as near the threshold
const POISON_NEAR = 3; // poison counters this close to the threshold are highlighted
const LONG_PRESS_MS = 500;
// A counter kind as the record allows it (lifeledger.game.COUNTER_KIND): a lowercase word.
const COUNTER_KIND_RE = /^[a-z]+(?:[_-][a-z0-9]+)*$/;
const COUNTER_KIND_MAX = 64;
const COUNTER_ICONS = { poison: "☠", energy: "⚡", experience: "XP", rad: "☢" };

// ---------------------------------------------------------------- announcements

// Say ``text`` to screen readers now (the aria-live="assertive" region #announce). Emptied
// first, so that the same sentence said twice is read twice.
let speakTimer = null;
export function speak(text) {
  const region = document.getElementById("announce");
  if (!region || !text) return;
  region.textContent = "";
  clearTimeout(speakTimer);
  speakTimer = setTimeout(() => { region.textContent = text; }, 60);
}

// What an event says to screen readers: each loss (or win, or draw) it brings, with its reason
// and rule, and the end of the game. ``ended`` are its status changes, one per team or player
// (announce() in table.js merges a team's). Nothing for an undo, or an event that ends nothing.
export function spoken(entry, ended) {
  if (!entry || entry.kind === "undo") return "";
  const over = (entry.changes || []).some((c) => c.what === "over" && c.to === true);
  // A win is said once, in "Game over: ... won."
  const parts = (ended || []).filter((c) => !(over && c.to === "won"))
    .map((c) => `${S.names.of(c.team || c.player)} ${describeResult(c.to, c.reason, c.rule)}.`);
  if (over) {
    const won = S.state.players.filter((p) => p.status === "won").map((p) => S.names.of(p.id));
    const drew = S.state.players.some((p) => p.status === "drew");
    parts.push(won.length ? tn("Game over: {names} won.", "Game over: {names} won.", won.length, { names: listOf(won) })
      : drew ? t("Game over: a draw.") : t("Game over."));
  }
  return parts.join(" ");
}

// ---------------------------------------------------------------- pinned counters

// The kinds pinned to each panel, per table, on this device: localStorage
// lifeledger-pins-<table> = {unit id: [kind, ...]}. Anything else stored there is ignored.
function pinsKey() { return "lifeledger-pins-" + KEY; }
function loadPins() {
  try {
    const value = JSON.parse(localStorage.getItem(pinsKey()) || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch { return {}; }
}
function validKind(kind) { return typeof kind === "string" && kind.length <= COUNTER_KIND_MAX && COUNTER_KIND_RE.test(kind); }
function pinnedKinds(unitId) {
  const list = loadPins()[unitId];
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((k) => validKind(k) && k !== "poison"))];
}
function setPinned(unitId, kind, on) {
  const pins = loadPins();
  const list = pinnedKinds(unitId).filter((k) => k !== kind);
  if (on) list.push(kind);
  if (list.length) pins[unitId] = list; else delete pins[unitId];
  try { localStorage.setItem(pinsKey(), JSON.stringify(pins)); } catch { toast(t("This browser can't keep pins (storage is full or off)."), "bad"); }
}

// A counter kind typed by a player, as the record allows it; throws an Error naming the field.
function readKind(text) {
  const kind = String(text).trim().toLowerCase();
  if (!kind) throw new Error(t("Counter kind: enter a kind (energy, experience, rad, …)."));
  if (!validKind(kind)) {
    throw new Error(t("Counter kind: “{kind}” is not a counter kind (one lowercase word of at most {max} letters, digits after the first letter, words joined by - or _).", { kind: kind.slice(0, 70), max: COUNTER_KIND_MAX }));
  }
  if (kind === "poison") throw new Error(t("Counter kind: poison has − and + on every panel already."));
  return kind;
}

// The panel (unit) that shows a player: their team's when the team shares a life total.
function unitIdOf(pid) {
  const u = units().find((x) => (x.kind === "team" ? x.heads.includes(pid) : x.id === pid));
  return u ? u.id : pid;
}

// The pinned kinds each player's panel shows as controls (set as the panel is built, so that
// table.js's badges don't show the same count twice).
const pinnedShown = new Map();
export function pinnedOnPanel(pid, kind) { const set = pinnedShown.get(pid); return !!set && set.has(kind); }

// ---------------------------------------------------------------- undo as the way back

// The seats this page acts for (one phone: its seat; a table device: every seat it holds).
export function heldSeats() {
  const out = new Set();
  if (S.seat) out.add(S.seat);
  if (Array.isArray(S.seats)) S.seats.forEach((s) => out.add(s));
  else if (S.seats && typeof S.seats === "object") Object.keys(S.seats).forEach((s) => out.add(s));
  return out;
}

// Whether the action undo would take back now is this page's own one-counter tap of ``kind``
// on one of ``players``: then − takes that tap back (undo), and the record keeps no trace of
// the mistake. Anything else is a real removal (remove_counters).
function ownLastTap(players, kind) {
  if (!S.canUndo || S.undoTarget === undefined || S.undoTarget === null) return false;
  const e = S.entries.find((x) => x.seq === S.undoTarget);
  const a = e && e.kind === "action" ? e.action : null;
  return !!(a && a.do === "add_counters" && a.kind === kind && a.amount === 1 && players.includes(a.player) && heldSeats().has(e.seat));
}
function pendingTap(players, kind) {
  for (const m of S.pending.values()) {
    const a = m.action;
    if (a && a.do === "add_counters" && a.kind === kind && players.includes(a.player)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- long press

// ``fn`` after a press held LONG_PRESS_MS (and on a context menu, which some phones open on a
// long press); the click that ends a long press is swallowed.
function onLongPress(el, fn) {
  let timer = null;
  const stop = () => { clearTimeout(timer); timer = null; };
  el.addEventListener("pointerdown", (e) => {
    if (e.button !== undefined && e.button !== 0) return;
    stop();
    delete el.dataset.long; // a long press whose release landed elsewhere (on its sheet) is over
    timer = setTimeout(() => { timer = null; el.dataset.long = "1"; fn(); }, LONG_PRESS_MS);
  });
  for (const type of ["pointerup", "pointerleave", "pointercancel"]) el.addEventListener(type, stop);
  el.addEventListener("contextmenu", (e) => { e.preventDefault(); stop(); el.dataset.long = "1"; fn(); });
  el.addEventListener("click", (e) => {
    if (!el.dataset.long) return;
    delete el.dataset.long;
    e.stopImmediatePropagation();
    e.preventDefault();
  }, true);
}

// ---------------------------------------------------------------- the panel's parts

// The elements renderUnit appends to unit ``u``'s panel: its commander damage (a row of the
// opposing commanders for each player the panel shows), its poison and its pinned counters.
// ``target`` is the player the panel's taps are for; ``canAct``: this page may send actions.
export function panelParts(u, target, canAct) {
  const heads = u.kind === "team" ? u.heads : [u.id];
  for (const hid of heads) pinnedShown.set(hid, new Set());
  const parts = h("div", { class: "parts" });
  // On the table device the commander rows are in the panel's top row (commanderOpener).
  if (!onTableDevice() && header().players.some((p) => (p.commanders || []).length)) {
    for (const hid of heads) {
      const row = commanderRow(hid, u.kind === "team", canAct);
      if (row) parts.append(row);
    }
  }
  const play = MODE === "play";
  const poison = poisonOf(u, target);
  if (play || !isZero(poison.count)) parts.append(counterGroup(u, target, "poison", canAct));
  const pinned = play ? pinnedKinds(u.id) : [];
  pinnedShown.set(target, new Set(pinned));
  for (const kind of pinned) parts.append(counterGroup(u, target, kind, canAct));
  if (S.cmdSheet && heads.includes(S.cmdSheet.to)) refreshCmdSheet();
  return parts.childNodes.length ? [parts] : [];
}

// Whether this page is the table device (one device for everyone, every panel turned).
function onTableDevice() { return MODE === "play" && S.device === "table"; }

// Commander damage one tap from every panel (issue 17; issue 25 item 3). On the table device
// the panel's top row holds its commander chips (a compact panel's beside its name and ⋯,
// layout.js), and where they can't fit (more than six players, a panel too small) they give
// way to a ⚔ button with the most one commander has dealt, which opens the amounts (the sheet
// below). A whole panel hides the ⚔ (style.css): its chips are there.
export function commanderOpener(u, target, canAct) {
  if (MODE === "replay" || !header().players.some((p) => (p.commanders || []).length)) return null;
  const heads = u.kind === "team" ? u.heads : [u.id];
  const opener = commanderButton(u, target, canAct, heads);
  if (!onTableDevice()) return opener;
  const rows = heads.map((hid) => commanderRow(hid, u.kind === "team", canAct)).filter(Boolean);
  return [opener, rows.length ? h("div", { class: "cmd-top" }, ...rows) : null];
}

function commanderButton(u, target, canAct, heads) {
  const most = (pid) => commandersAgainst(pid).reduce((a, x) => (!a || x.n > a.n ? x : a), null);
  const to = heads.includes(target) && most(target) ? target : heads.find((hid) => most(hid));
  if (!to) return null;
  const top = heads.map(most).filter(Boolean).reduce((a, x) => (x.n > a.n ? x : a));
  const limit = commanderLimit();
  const level = limit === null ? "" : top.n >= limit ? " lethal" : top.n >= CMD_NEAR ? " near" : "";
  const who = S.names.of(u.id);
  const label = limit !== null
    ? t("Commander damage to {name}: the most from one commander is {n} of {limit}", { name: S.names.of(to), n: top.n, limit })
    : t("Commander damage to {name}: the most from one commander is {n}", { name: S.names.of(to), n: top.n });
  if (MODE !== "play") return h("span", { class: "icon cmd-open" + level, role: "img", "aria-label": label }, "⚔", String(top.n));
  return h("button", {
    class: "icon cmd-open" + level, "data-act": "cmd-open", "data-to": to, "aria-label": label, title: t("Commander damage to {name}", { name: who }),
    onclick: () => (canAct ? openCmdSheet(to, most(to).c) : showPicker()),
  }, h("span", { "aria-hidden": "true" }, "⚔"), h("span", { "aria-hidden": "true" }, String(top.n)));
}

// ---------------------------------------------------------------- kept in the game

// What keeps a player (a team) in the game while one of their totals is at or below the
// threshold that loses (issue 17): life at 0 or less (704.5a; a team's, 704.6a), poison at
// its threshold (704.5c, 704.6b), 21 combat damage from one commander (704.6c). The effects
// in play say what (S.effects, the engine's: kind, controller and card): "can't lose the game"
// (104.3: Platinum Angel; Abyssal Persecutor's reaches its controller's opponents) keeps a
// player in whatever the threshold, "doesn't lose for having 0 or less life" (Phyrexian Unlife,
// Transcendence) for life only. A team is kept where one of its players is (810.8a).
const KEEPS = {
  cant_lose_game: { says: () => t("can't lose the game"), rule: "104.3", what: ["life", "poison", "commander"] },
  no_loss_for_life: { says: () => t("doesn't lose for having 0 or less life"), rule: "704.5a", what: ["life"] },
};
const REACHES_OPPONENTS = new Set(["Abyssal Persecutor"]);
function keptBy(pid, what) {
  const out = [];
  for (const e of S.effects || []) {
    const keep = KEEPS[e.kind];
    if (!keep || !keep.what.includes(what)) continue;
    const card = e.card || S.names.of(e.id);
    const mates = (pid2) => pid2 === e.controller || (teamOf(pid2) && teamOf(pid2) === teamOf(e.controller));
    const reaches = REACHES_OPPONENTS.has(card) ? !mates(pid) : pid === e.controller;
    if (reaches && !out.some((x) => x.card === card && x.says === keep.says())) out.push({ card, says: keep.says(), rule: keep.rule });
  }
  return out;
}
export function keptLine(u, target) {
  const st = u.kind === "team" ? u.team : u.player;
  if (!st || st.status !== "playing" || !S.state || S.state.over) return null;
  const heads = u.kind === "team" ? u.heads : [u.id];
  const at = [];
  const life = st.life;
  if (life !== null && life !== undefined && Number(life) <= 0) at.push({ what: "life", text: tn("{n} life", "{n} life", life, { n: formatNumber(life).replace("-", "\u2212") }), rule: u.kind === "team" ? "704.6a" : "704.5a" });
  const poison = poisonOf(u, target);
  if (Number(poison.count) >= poison.limit) at.push({ what: "poison", text: t("{n} poison", { n: poison.count }), rule: poison.rule });
  const limit = commanderLimit();
  if (limit !== null) {
    for (const hid of heads) {
      for (const x of commandersAgainst(hid)) {
        if (x.n >= limit) at.push({ what: "commander", text: t("{n} from {commander}", { n: x.n, commander: shortName(S.names.of(x.c)) }), rule: "704.6c" });
      }
    }
  }
  if (!at.length) return null;
  const keeps = [];
  for (const a of at) {
    for (const hid of heads) {
      for (const k of keptBy(hid, a.what)) if (!keeps.some((x) => x.card === k.card && x.says === k.says)) keeps.push(k);
    }
  }
  if (!keeps.length) return null;
  const who = S.names.of(u.id);
  const why = at.map((a) => `${a.text} (${a.rule})`).join(", ");
  const by = keeps.map((k) => `${k.card}: ${k.says} (${k.rule})`).join("; ");
  return h("div", { class: "kept", role: "note", "data-kept": keeps.map((k) => k.card).join("|"),
    "aria-label": t("{name} is still in the game at {why}: {by}", { name: who, why, by }) },
  t("Still in: {cards} — {at}", { cards: keeps.map((k) => `${k.card} (${k.rule})`).join(", "), at: at.map((a) => a.text).join(", ") }));
}

// The threshold of commander damage that loses (903.10a), or null where there is none
// (Brawl, 903.12h).
function commanderLimit() { return header().format === "brawl" ? null : CMD_LOSES; }

// The commanders whose damage ``pid`` may take: every opponent's (a teammate's is no opponent),
// and any other that has dealt them combat damage (a commander changes control).
export function commandersAgainst(pid) {
  // Teams as the engine's state has them (Archenemy's heroes have a team the header may not name).
  const team = teamOf(pid);
  const taken = (playerState(pid) || {}).commander_damage || {};
  const out = [];
  for (const o of header().players) {
    for (const c of o.commanders || []) {
      const opposing = o.id !== pid && !(team && teamOf(o.id) === team);
      const n = addExact(taken[c] || 0, pendingCommanderDamage(pid, c)); // shown at once (taps.js)
      if (opposing || !isZero(n)) out.push({ c, owner: o.id, n });
    }
  }
  return out;
}

// A commander's name as a chip shows it: up to its first comma ("Atraxa, Praetors' Voice").
export function shortName(name) { const short = String(name).split(",")[0].trim(); return short || String(name); }

// One player's row: a chip per commander whose damage they may take, with the total taken.
// A tap records 1 combat damage from that commander (903.10a: it counts toward 21, and costs
// life, 120.3); a long press (or the context-menu key) opens the sheet for another amount.
function commanderRow(pid, labelled, canAct) {
  const list = commandersAgainst(pid);
  if (!list.length) return null;
  const limit = commanderLimit();
  const who = S.names.of(pid);
  const play = MODE === "play";
  const chips = h("div", { class: "cmd-chips" });
  const row = h("div", { class: "cmds", role: "group", "data-cmd-to": pid, "aria-label": t("Commander damage to {name}", { name: who }) },
    labelled ? h("span", { class: "cmd-who", "aria-hidden": "true" }, who) : null, chips);
  for (const { c, owner, n } of list) {
    const name = S.names.of(c);
    const ownerName = S.names.of(owner);
    const near = limit !== null && n >= CMD_NEAR;
    const lethal = limit !== null && n >= limit;
    const total = limit !== null
      ? t("{name} has taken {n} of {limit} combat damage from {commander}", { name: who, n, limit, commander: name })
      : t("{name} has taken {n} combat damage from {commander}", { name: who, n, commander: name });
    // A partner's chip names its commander where a small chip shows one name (style.css);
    // the others, their player's (the quick game's commanders are "Commander of Player 1").
    const partner = (commanderOwner(c) || { commanders: [] }).commanders.length > 1;
    const chip = h(play ? "button" : "div", {
      class: "cmd" + (lethal ? " lethal" : near ? " near" : "") + (partner ? " partner" : ""),
      "data-from": c, "data-owner": owner, "data-to": pid,
      "aria-label": play ? t("{commander} ({owner}) deals 1 combat damage to {name}. {total}. Hold for another amount.", { commander: name, owner: ownerName, name: who, total }) : null,
      title: play ? t("1 combat damage from {commander} ({owner}), 903.10a; hold for another amount", { commander: name, owner: ownerName }) : total,
    },
    h("span", { class: "cmd-name" }, shortName(name)),
    h("span", { class: "cmd-line" },
      h("span", { class: "cmd-owner" }, ownerName),
      h("strong", { class: "cmd-total" }, String(n)),
      limit !== null ? h("span", { class: "cmd-max" }, `/${limit}`) : null));
    if (play) {
      chip.addEventListener("click", () => {
        if (!canAct) { showPicker(); return; }
        // Combat damage names its controller (725.2, 726.2; marks.js): the page asks if it can't know.
        const controller = commanderController(owner, pid);
        if (!controller) { openCmdSheet(pid, c); return; }
        act({ do: "damage", source: c, to: pid, amount: 1, combat: true, controller });
        render(); // the chip and the total move at once, pending until the server answers
      });
      onLongPress(chip, () => { if (canAct) openCmdSheet(pid, c); else showPicker(); });
    }
    // The stripe of the commander's player's colour (layout.js): whose it is at a glance.
    const colour = PALETTE[(S.colours || {})[owner] || 0];
    if (colour) chip.style.setProperty("--owner", colour.bg);
    chips.append(chip);
  }
  return row;
}

// A panel's poison: the count as the rules read it (the team's where it is shared, 810.10a),
// who shares it, and the count that loses (704.5c: 10; 704.6b: a team's 15, 810.11: +5 per
// player beyond the second).
function poisonOf(u, target) {
  const shared = u.kind === "team" && u.team.poison !== null && u.team.poison !== undefined;
  const p = playerState(target);
  return {
    count: shared ? u.team.poison : p.poison,
    players: shared ? u.heads : [target],
    limit: shared ? 15 + 5 * Math.max(0, u.heads.length - 2) : 10,
    rule: shared ? "704.6b" : "704.5c",
  };
}

function counterGroup(u, target, kind, canAct) {
  const p = playerState(target);
  const poison = kind === "poison" ? poisonOf(u, target) : null;
  const players = poison ? poison.players : [target];
  // A plain counter change shows at once, pending until the server's answer (taps.js).
  const served = poison ? poison.count : (p.counters || {})[kind] || 0;
  const shown = MODE === "play" ? shownCount(served, players, kind) : { n: served, pending: false };
  const count = shown.n;
  const who = poison && players.length > 1 ? S.names.of(u.id) : S.names.of(target);
  const near = poison && count >= poison.limit - POISON_NEAR;
  const play = MODE === "play";
  const icon = COUNTER_ICONS[kind] || kind.slice(0, 4);
  const undoes = play && ownLastTap(players, kind);
  const noun = (n) => counterWords(n, kind);
  const kindName = counterKind(kind);
  const group = h("div", {
    class: "ctr" + (near ? " near" : ""), role: "group", "data-counter": kind,
    "data-players": players.join(" "), "data-count": String(served),
    "aria-label": `${who}: ${noun(count)}${poison ? "; " + t("{n} lose the game ({rule})", { n: poison.limit, rule: poison.rule }) : ""}`,
  });
  const minus = play ? h("button", {
    class: "ctr-minus" + (undoes ? " undoes" : ""), "data-step": "minus", disabled: isZero(count) || null,
    "aria-label": undoes ? t("Take back {name}'s last {kind} counter (undo)", { name: who, kind: kindName }) : t("{name} loses {counters}", { name: who, counters: noun(1) }),
    title: undoes ? t("Undo the last + (a mistake leaves no trace)") : t("Remove 1 (an effect removes it, 122)"),
    onclick: () => {
      if (!canAct) { showPicker(); return; }
      if (ownLastTap(players, kind)) { document.getElementById("undo-btn").click(); return; }
      if (pendingTap(players, kind)) { toast(t("The last + is still on its way: tap − again once it shows.")); return; }
      act({ do: "remove_counters", player: target, kind, amount: 1 });
    },
  }, "−") : null;
  const plus = play ? h("button", {
    class: "ctr-plus", "data-step": "plus",
    "aria-label": t("{name} gets {counters}", { name: who, counters: noun(1) }),
    onclick: () => (canAct ? act({ do: "add_counters", player: target, kind, amount: 1 }) : showPicker()),
  }, "+") : null;
  group.append(...[
    minus,
    h("span", { class: "ctr-count", "aria-hidden": "true", title: t("{kind} counters", { kind: kindName }) },
      h("span", { class: "ctr-icon" }, icon), " ",
      COUNTER_ICONS[kind] && kind !== "poison" ? h("span", { class: "ctr-kind" }, kindName + " ") : null,
      h("strong", { class: "ctr-n" + (shown.pending ? " pending" : "") }, String(count)),
      poison ? h("span", { class: "ctr-max" }, `/${poison.limit}`) : null),
    plus,
  ].filter(Boolean));
  return group;
}

// ---------------------------------------------------------------- another amount

// A small sheet for commander damage of any amount: pick the commander, tap an amount (or type
// one). S.cmdSheet = {to, commander} while it is open.
function cmdSheetEl() {
  let el = document.getElementById("cmd-sheet");
  if (el) return el;
  el = h("div", { id: "cmd-sheet", class: "sheet hidden", role: "dialog", "aria-modal": "true", "aria-labelledby": "cmd-sheet-title" },
    h("div", { class: "sheet-inner" },
      h("div", { class: "drawer-head" },
        h("h2", { id: "cmd-sheet-title" }),
        h("button", { class: "close", "data-close": "cmd-sheet", "aria-label": t("Close") }, "✕")),
      h("div", { id: "cmd-sheet-body" })));
  el.addEventListener("keydown", (e) => { if (e.key === "Escape") closeCmdSheet(); });
  document.body.append(el);
  return el;
}

export function openCmdSheet(pid, commander) {
  S.cmdSheet = { to: pid, commander };
  const el = cmdSheetEl();
  buildCmdSheet();
  faceOverlay(el, pid); // the player it is for reads it (layout.js)
  el.classList.remove("hidden");
  const first = el.querySelector(`[data-pick="${CSS.escape(commander)}"]`);
  if (first) first.focus();
}

export function buildCmdSheet() {
  const { to, commander } = S.cmdSheet;
  const who = S.names.of(to);
  document.getElementById("cmd-sheet-title").textContent = t("Commander damage to {name}", { name: who });
  const limit = commanderLimit();
  const list = commandersAgainst(to);
  const owner = (commanderOwner(commander) || {}).id;
  const record = (amount) => {
    let controller;
    try { controller = cmdSheetController(to, owner); } catch (ex) { toast(ex.message, "bad"); return; }
    act({ do: "damage", source: S.cmdSheet.commander, to, amount, combat: true, controller });
    closeCmdSheet();
  };
  const field = h("input", { id: "cmd-amount", type: "text", inputmode: "numeric", autocomplete: "off", "aria-label": t("Amount"), class: "num", value: "" });
  // The controls first, the rule after them: on a phone the sheet turned to a player at a
  // long side has every control on the screen without scrolling (issue 25 item 3).
  document.getElementById("cmd-sheet-body").replaceChildren(
    h("div", { class: "picks", role: "group", "aria-label": t("Commander") },
      ...list.map(({ c, owner, n }) => h("button", {
        class: "pick", "data-pick": c, "aria-pressed": String(c === commander),
        onclick: () => { S.cmdSheet.commander = c; buildCmdSheet(); },
      }, h("span", {}, `${S.names.of(c)} (${S.names.of(owner)})`),
      h("span", {}, h("strong", { class: "pick-total" }, String(n)), limit !== null ? `/${limit}` : "")))),
    cmdControllerPicks(to, owner) || "", // (replaceChildren would write a null as "null")
    h("div", { class: "amounts", role: "group", "aria-label": t("Amount") },
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("button", {
        "data-amount": n, "aria-label": tn("{n} combat damage from {commander} to {name}", "{n} combat damage from {commander} to {name}", n, { n, commander: S.names.of(commander), name: who }), onclick: () => record(n),
      }, `+${n}`))),
    h("div", { class: "row" }, field, h("button", {
      class: "primary", "data-amount": "typed",
      onclick: () => {
        let n;
        try { n = parseWhole(field.value, t("Amount"), 1); } catch (ex) { toast(ex.message, "bad"); return; }
        record(n);
      },
    }, t("Record"))),
    h("p", { class: "muted" }, limit !== null
      ? t("Combat damage from a commander: {name} loses that much life (120.3), and {limit} from the same commander loses the game (903.10a, 704.6c).", { name: who, limit })
      : t("Combat damage from a commander: {name} loses that much life (120.3); in Brawl it never loses the game (903.12h).", { name: who })),
  );
}

// The sheet's totals, kept current while it is open (the panels are rebuilt on each event).
function refreshCmdSheet() {
  const el = document.getElementById("cmd-sheet");
  if (!el || el.classList.contains("hidden")) { S.cmdSheet = null; return; }
  const taken = (playerState(S.cmdSheet.to) || {}).commander_damage || {};
  for (const b of el.querySelectorAll("[data-pick]")) b.querySelector(".pick-total").textContent = String(taken[b.dataset.pick] || 0);
}

export function closeCmdSheet() {
  S.cmdSheet = null;
  const el = document.getElementById("cmd-sheet");
  if (el) el.classList.add("hidden");
}

// ---------------------------------------------------------------- the ⋯ sheet's pins

// The ⋯ sheet's section that pins counter kinds to ``pid``'s panel (this device only).
export function pinSection(pid) {
  const unit = unitIdOf(pid);
  const pinned = pinnedKinds(unit);
  const p = playerState(pid);
  const pin = (kind) => { setPinned(unit, kind, true); render(); };
  const offered = [...new Set([...COUNTER_KINDS, ...Object.keys(p.counters || {})])].filter((k) => k !== "poison" && !pinned.includes(k));
  const field = h("input", { id: "sh-pin-kind", type: "text", autocomplete: "off", autocapitalize: "none", maxlength: 80, placeholder: t("another kind"), "aria-label": t("Counter kind") });
  return h("div", { class: "sec pins" },
    h("h3", {}, t("Counters on the panel")),
    h("p", { class: "muted" }, t("Pin a kind to give it − and + on {name}'s panel (this device remembers it). A mistake is taken back with Undo.", { name: S.names.of(unit) })),
    h("div", { class: "row" }, ...offered.map((k) => h("button", { "data-pin": k, "aria-label": t("Pin {kind} counters to the panel", { kind: counterKind(k) }), onclick: () => pin(k) }, `📌 ${counterKind(k)}`))),
    h("div", { class: "row" }, field, h("button", {
      "data-pin": "typed",
      onclick: () => {
        let kind;
        try { kind = readKind(field.value); } catch (ex) { toast(ex.message, "bad"); return; }
        pin(kind);
      },
    }, t("Pin"))),
    ...pinned.map((k) => h("div", { class: "row" },
      h("span", { class: "grow" }, t("{kind}: pinned", { kind: counterKind(k) })),
      h("button", { "data-unpin": k, "aria-label": t("Unpin {kind} counters", { kind: counterKind(k) }), onclick: () => { setPinned(unit, k, false); render(); } }, t("Unpin")))),
  );
}
