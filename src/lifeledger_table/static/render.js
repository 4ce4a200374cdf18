// The table page drawn: the connection's line, the panels (updated in place), the banner
// and the score.

import { lang, said, t, tc, tn } from "./i18n.js";
import { counterKind, describeResult, formatCode, h, reasonText, statusWord } from "./common.js";
import { PALETTE, seatColours } from "./seating.js";
import { dressTotals, faceOverlay, PLACED, placePanels } from "./layout.js";
import { graphChanged, showGraphSheet } from "./graph.js";
import {
  cancelChoiceWaits, keepForOffline, pendingMark, shownLife, showTotals, tapBubble, waitsForChoice,
} from "./taps.js";
import { dismissRefusedSent, FORESEE, foresightParts, refusedSentParts } from "./foresee.js";
import { commanderOpener, keptLine, panelParts, pinnedOnPanel } from "./panel.js";
import { cardBadge, renderChoices } from "./choices.js";
import { headMarks, panelMarks } from "./marks.js";
import { renderTurns } from "./turns.js";
import {
  activeCards, counted, header, MODE, ON_DEVICE, playerState, rotated, S, SLOW_ACK, toggleRotated,
  units,
} from "./state.js";
import { $ } from "./toasts.js";
import { request } from "./connection.js";
import { hideUndoConfirm, recordLink, renderHistory, renderUndo, showUndoAsk, undoAim } from "./history.js";
import { openSheet, renderSheet, showPicker } from "./sheets.js";

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
export function renderConn() {
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
  const starting = ON_DEVICE && !live && !S.unavailable;
  if (S.unavailable) parts.push(said(S.unavailable, S.names)); // in this phone's language
  else if (starting) parts.push(t("Starting the rules engine…")); // no network involved
  else if (!live && (!navigator.onLine || (S.fromKept && !S.everConnected))) parts.push(t("Offline — taps are kept and sent when the connection returns"));
  else if (!live) parts.push(S.everConnected ? t("Connection lost — reconnecting…") : t("Connecting…"));
  if (wait) parts.push(tn("{n} change waiting to be sent", "{n} changes waiting to be sent", wait, { n: wait }));
  if (S.storeWait && !S.pending.size) S.storeWait = null; // its changes were saved since
  if (S.storeWait) parts.push(said(S.storeWait, S.names)); // "Waiting for the database…"
  parts.push(...foresightParts(), ...refusedSentParts()); // foresee.js
  if (chooser.length) parts.push(tn("{n} change waiting for {name}'s choice", "{n} changes waiting for {name}'s choice", chooser.length, { n: chooser.length, name: S.names.of(chooser[0]) }));
  // A device table another page of this device decides now (device.js): this page's table is
  // out of reach of taps (style.css), and it can take the table back.
  const elsewhere = !!(S.unavailable && S.unavailable.elsewhere);
  document.body.classList.toggle("elsewhere", elsewhere);
  strip.replaceChildren(parts.join(" · "),
    elsewhere ? h("button", { "data-act": "use-here", onclick: () => location.reload() }, t("Use it here")) : "",
    chooser.length ? h("button", { "data-act": "cancel-waits", onclick: cancelChoiceWaits }, t("Cancel")) : "",
    FORESEE.refusedSent.length ? h("button", { "data-act": "dismiss-refused", onclick: dismissRefusedSent }, t("Dismiss")) : "");
  strip.classList.toggle("hidden", !parts.length);
  // The engine's line alone (a device table's first second or two) floats over the panels
  // and lets taps through, instead of taking a row of the page that the engine's welcome
  // would give back: every panel would move and be sized again under a finger.
  // (Alone: a choice waited for or a refusal adds a part of its own, and a button.)
  strip.classList.toggle("floating", starting && parts.length === 1);
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

// A render asked for by a message that may come while a tap is under way (a device table's
// engine's answers, messages.js: its welcome as the page opens, then the taps made meanwhile
// decided): drawn once, in the next frame (or RENDER_LATEST later when the page gets no
// frames: hidden), so that the message's own task stays short and a tap made meanwhile is
// handled first. Several asked for before then are one render; render() itself draws at once,
// and takes the place of one asked for.
const RENDER_LATEST = 100;
let soon = null;
export function renderSoon() {
  if (soon) return;
  const run = () => { if (soon) render(); };
  soon = { frame: requestAnimationFrame(run), timer: setTimeout(run, RENDER_LATEST) };
}

export function render() {
  if (soon) { cancelAnimationFrame(soon.frame); clearTimeout(soon.timer); soon = null; }
  if (!S.state) return;
  keepForOffline();
  renderConn();
  const canAct = MODE === "play" && (!!S.seat || S.seats.length > 0);
  // The table's code, to tell the others; who you are shows on your panel ("you").
  // Its groups are boxes of their own, so the header's title is never narrower than the
  // widest ("QM5B-"): a browser's line break after a hyphen sizes the text's box by less.
  const code = MODE !== "replay" && S.info.code ? formatCode(S.info.code) : null;
  const title = MODE === "replay" ? t("Replay") : code || t("Watching");
  if ($("title").textContent !== title) {
    if (code) $("title").replaceChildren(...code.split("-").map((g, i, all) => h("span", { class: "group" }, i < all.length - 1 ? g + "-" : g)));
    else $("title").textContent = title;
  }
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
  const base = `panels n${Math.min(list.length, 8)}${list.length > 8 ? " many" : ""}${table ? " table-mode" : ""}`;
  S.colours = seatColours(header().players, S.info.colours);
  const turned = rotated();
  const panels = list.map((u, i) => renderUnit(u, i, canAct, cards, turned));
  const shape = `${base}|${own}|${shapeOf(panels)}`;
  // In place (issue 17 item 12): a button under a finger stays the same element, so a press
  // that began before another phone's change arrived still ends in a click. Laid out again
  // only when what decides the layout changed (a life total's digits change it only in number):
  // laying out measures the page, several times, after each change (most of a render's time).
  const kept = updateInPlace(box, panels);
  S.layout = { table, own: own >= 0 ? 0 : null };
  if (kept && shape === laidOut) dressTotals(box);
  else {
    box.className = base;
    placePanels(box, table, S.layout.own);
    laidOut = box.classList.contains("placed") ? shape : null;
  }
  renderConn();
  showTotals(); // taps.js: counters moved by pending changes are marked as totals are
  if (!$("history").classList.contains("hidden")) renderHistory();
  graphChanged(); // graph.js: the drawer's life graph follows the game
  if (S.sheetFor) renderSheet(S.sheetFor);
}

// ---------------------------------------------------------------- updating in place

// The panels' shape the page last laid out (render), and what it is: what decides where the
// panels go and how big their totals are (layout.js placePanels): each panel's elements, their
// classes and inline style, and the words they show, a total's digits counted, not read
// (tabular figures: as many digits, as wide). Not labels and data, a pending mark (an
// underline) nor a tap's bubble (placed over the total: taps.js), which take no room.
let laidOut = null;
function shapeOf(panels) {
  const out = [];
  const walk = (node, total) => {
    if (node.nodeType === 3) { out.push(total ? `#${node.data.length}` : node.data); return; }
    if (node.nodeType !== 1 || node.classList.contains("bubble")) return;
    out.push(`<${node.tagName}`);
    for (const a of node.attributes) {
      if (/^(data-|aria-|title$|role$)/.test(a.name)) continue;
      out.push(` ${a.name}=${a.name === "class" ? a.value.split(" ").filter((c) => c !== "pending").join(" ") : a.value}`);
    }
    out.push(">");
    for (const child of node.childNodes) walk(child, total || node.classList.contains("life"));
    out.push("</>");
  };
  for (const panel of panels) walk(panel, false);
  return out.join("");
}

// Attributes that carry a value, not what an element is (the element is kept when they change),
// and those other code owns on a kept element (layout.js's facing and a total's length, a long
// press under way).
const VALUE_DATA = new Set(["data-life", "data-count", "data-text"]);
const KEPT_ATTRS = new Set(["style", "data-facing", "data-chars", "data-long"]);
// Classes others add to a kept element for a moment (a refusal's shake), and to a kept panel
// until they lay the panels out again (layout.js).
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
// is updated in place, element by element; others are replaced. Other children stay. Whether
// every panel was updated in place (none new, none gone).
function updateInPlace(box, panels) {
  const old = new Map([...box.children].filter((el) => el.classList.contains("panel")).map((el) => [el.getAttribute("data-unit"), el]));
  const kept = panels.map((fresh) => {
    const was = old.get(fresh.getAttribute("data-unit"));
    if (!was || was.getAttribute("data-key") !== fresh.getAttribute("data-key")) return fresh;
    old.delete(fresh.getAttribute("data-unit"));
    morph(was, fresh);
    return was;
  });
  const same = !old.size && kept.every((el, i) => el !== panels[i]);
  for (const gone of old.values()) gone.remove();
  place(box, kept, [...box.children].find((el) => !el.classList.contains("panel")) || null);
  return same;
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
      const keep = (was.classList.contains("panel") ? [...KEPT_CLASSES, ...PLACED] : KEPT_CLASSES).filter((c) => was.classList.contains(c));
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
