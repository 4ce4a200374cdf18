// The turn tracker (record version 2): a bar under the header on every device — whose turn,
// its number and step, day or night — with buttons for the later steps of this turn and the
// next turn, and a sheet with the rest (who plays first, spells cast, day and night, another
// player's turn). The page decides no rule: who may play first, who skips the first draw,
// whose turn is next, the spells counted and the rad counters to state all come from the
// engine, in the view's "turns" (engine.turns on the server; docs/table.md, "Turns").
// Loaded before table.js: it uses its globals (S, MODE, $, h, act, toast) once the page runs;
// table.js keeps the view's "turns" in S.turns and calls renderTurns() as it draws the page
// (and after a tools message: the "who starts" pick is highlighted).

import { t, tn } from "./i18n.js";
import { h, stepName } from "./common.js";
import { T } from "./tools.js";
import { MODE, S, teamOf } from "./state.js";
import { $, toast } from "./toasts.js";
import { act, request } from "./connection.js";

// drawn: what the bar shows, as last built (renderTurns keeps the bar while it is the same).
const TURNS = { sheet: false, rad: null, drawn: "" };
// The steps a record marks after the upkeep (the upkeep begins with the turn), as buttons.
const LATER_STEPS = ["draw", "main", "end", "cleanup"];
// A step's button, short: "Draw", "Main"...
function stepButton(step) {
  switch (step) {
    case "draw": return t("Draw");
    case "main": return t("Main");
    case "end": return t("End");
    case "cleanup": return t("Cleanup");
    default: return step;
  }
}
// Who skips the first draw, by the rule that says so.
function skipNote(rule) {
  switch (rule) {
    case "103.8a": return t("They skip their first draw (103.8a).");
    case "810.6": return t("That team skips its first draw (810.6).");
    case "103.8c": return t("No one skips their first draw (103.8c).");
    default: return "";
  }
}
const DAY_NIGHT = { day: ["☀", () => t("Day")], night: ["☾", () => t("Night")] };
function dayNightWord(dn) { return dn === "day" ? t("day") : dn === "night" ? t("night") : dn; }

function turnsInfo() { return S.turns || null; }
function canTurn() { return MODE === "play"; }
function turnName(ids) { return ids.map((id) => S.names.of(id)).join(" & "); }

// The newest pick of the table's "who starts" tool (tools.js, 103.1) made in this game, if any
// (a pick made before the last "next game", reset or new game was for an earlier game).
function pickedFirst() {
  const recent = T.tools ? T.tools.recent : [];
  const began = S.entries.reduce((t, e) => (["next_game", "reset", "new_game"].includes(e.kind) ? Math.max(t, e.time * 1000) : t), 0);
  for (let i = recent.length - 1; i >= 0; i--) {
    if (recent[i].tool === "first_player") return recent[i].at > began ? recent[i].players || [] : [];
  }
  return [];
}

// Who may play first, as choices: under shared team turns a team's (805.4: naming any of its
// players begins the team's turn), named by its players.
function firstChoices(info) {
  const out = [], seen = new Set();
  for (const id of info.first) {
    const team = info.shared ? teamOf(id) : null;
    if (team && seen.has(team)) continue;
    if (team) seen.add(team);
    const ids = team ? info.first.filter((x) => teamOf(x) === team) : [id];
    out.push({ id, ids, label: turnName(ids) });
  }
  return out;
}

function isPicked(choice, picked) { return choice.ids.some((id) => picked.includes(id)); }

// ------------------------------------------------------------------ sending

// A step of this turn: into or past the main phase, the engine says whose rad counters mill
// there (728.1), and the page asks their counts first.
function goToStep(step) {
  const rad = radiationDue(step);
  if (rad) { askRadiation(rad, (milled) => act({ do: "step", step, nonland_milled: milled })); return; }
  act({ do: "step", step });
}

// A turn begins, only while the game is at the turn this page shows ("at_turn"): two phones
// pressing Next at once begin one turn, not two (the second is answered "stale").
function beginTurn(player) {
  const turn = S.state && S.state.turn;
  request("action", { do: "turn", player }, { at_turn: turn ? turn.number : 0 });
}

// The next turn: a turn can't state rad counters' mills, so the main phase is marked first.
function nextTurn(player) {
  if (!player) return;
  const rad = radiationDue("cleanup");
  if (rad) {
    askRadiation(rad, (milled) => { act({ do: "step", step: "main", nonland_milled: milled }); beginTurn(player); });
    return;
  }
  beginTurn(player);
}

function radiationDue(step) {
  const info = turnsInfo();
  const turn = S.state && S.state.turn;
  if (!info || !turn || LATER_STEPS.indexOf(step) < LATER_STEPS.indexOf("main")) return null;
  const rad = info.radiation || {};
  return Object.keys(rad).length ? rad : null;
}

function castSpell(player) { act({ do: "cast", player }); }
function setDayNight(to) { act({ do: "day_night", to }); }

// ------------------------------------------------------------------ the bar

export function renderTurns() {
  const bar = $("turn-bar");
  if (!bar) return;
  const st = S.state;
  const score = $("score");
  if (!st || !("turn" in st) || MODE === "replay" && !st.turn) {
    if (bar.contains(score)) bar.before(score); // the score line, back in its own row
    bar.classList.add("hidden");
    TURNS.drawn = "";
    return;
  }
  bar.classList.remove("hidden");
  const info = turnsInfo();
  const turn = st.turn;
  const dn = st.designations ? st.designations.day_night : null;
  const play = canTurn() && !st.over;
  // The score line shares the bar's first column (the panels keep the room: docs/table.md).
  const text = h("span", { class: "tb-text", id: "turn-text" });
  const parts = [h("div", { class: "tb-info" }, text)]; // the score first, once it is drawn
  let caster = null;
  if (dn) {
    const sym = DAY_NIGHT[dn][0], word = DAY_NIGHT[dn][1]();
    const label = t("It is {when} (731). Change day and night", { when: dayNightWord(dn) });
    parts.push(play
      ? h("button", { class: "tb-btn tb-dn " + dn, id: "turn-daynight", "aria-label": label, title: label, onclick: openTurnSheet }, `${sym} ${word}`)
      : h("span", { class: "tb-dn " + dn, id: "turn-daynight", "aria-label": t("It is {when}", { when: dayNightWord(dn) }) }, `${sym} ${word}`));
  }
  if (!turn && st.over) {
    text.textContent = t("No turn was taken.");
  } else if (!turn) {
    if (info && info.markers) {
      text.textContent = t("Grand Melee of 8 or more: several turns at once (807.4), not tracked here.");
    } else {
      const note = info ? skipNote(info.first_draw) : "";
      const picked = pickedFirst();
      // The tools' pick said who starts (103.1): the bar says so too (issue 25 item 10), and
      // still offers every player (the one picked may let another start).
      const chosen = info ? firstChoices(info).find((c) => isPicked(c, picked)) : null;
      const asks = chosen
        ? tn("{names} was picked to play first (103.1).", "{names} were picked to play first (103.1).", chosen.ids.length, { names: chosen.label })
        : t("Who plays first?");
      text.append(h("strong", {}, asks + " "), h("span", { id: "turn-skip", "data-rule": info ? info.first_draw : "" }, note));
      if (play && info) {
        firstChoices(info).forEach((c, i) => parts.push(h("button", {
          class: "tb-btn tb-first" + (isPicked(c, picked) ? " picked primary" : ""), "data-first": c.id, "data-fold": isPicked(c, picked) ? "1" : String(100 + i),
          "aria-label": tn("{names} plays first", "{names} play first", c.ids.length, { names: c.label }), onclick: () => beginTurn(c.id),
        }, c.label)));
        parts.push(h("button", { class: "tb-btn tb-more", id: "turn-more", "aria-label": t("Who plays first: all players"), onclick: openTurnSheet }, "⋯"));
      }
    }
  } else {
    text.append(h("strong", {}, t("Turn {n}", { n: turn.number })), ` · ${turnName(turn.active)} · `, h("span", { id: "turn-step", "data-step": turn.step }, stepName(turn.step)));
    text.setAttribute("data-turn", String(turn.number));
    if (play && info) {
      const cast = info.cast || {};
      if (dn) {
        const who = castingPlayer(turn);
        caster = who;
        const n = cast[who] || 0;
        parts.push(h("button", { class: "tb-btn tb-cast", id: "turn-cast", "data-fold": "50",
          "aria-label": t("{name} casts a spell ({n} this turn)", { name: S.names.of(who), n }), title: t("Spells cast this turn (731.2)"), onclick: () => castSpell(who) }, `✦ ${n}`));
      }
      const from = LATER_STEPS.indexOf(turn.step) + 1;
      LATER_STEPS.slice(from).forEach((step, i) => parts.push(h("button", {
        class: "tb-btn tb-step", "data-step": step, "data-fold": String(60 + i),
        "aria-label": t("Go to: {step}", { step: stepName(step) }), onclick: () => goToStep(step),
      }, stepButton(step))));
      if (info.next) {
        parts.push(h("button", { class: "tb-btn primary tb-next", id: "turn-next",
          "aria-label": t("Next turn: {name}", { name: S.names.of(info.next) }), title: t("Next turn: {name}", { name: S.names.of(info.next) }), onclick: () => nextTurn(info.next) }, t("Next") + " ▶"));
      }
      parts.push(h("button", { class: "tb-btn tb-more", id: "turn-more", "aria-label": t("More about the turn"), onclick: openTurnSheet }, "⋯"));
    }
  }
  // A bar the same as the one shown (its words and buttons, whom they act for, the score's line
  // beside them) is kept, not built and fitted again: every render draws the bar (a tap's
  // answer's too), and a fit lays the page out. A size change fits it again (setupTurns).
  const drawn = parts.map((el) => el.outerHTML).join("") + `|${caster}|${info ? info.next : ""}|${score.textContent}`;
  if (drawn !== TURNS.drawn || !bar.contains(score)) {
    TURNS.drawn = drawn;
    parts[0].prepend(score);
    bar.replaceChildren(...parts);
    fitTurnBar(bar);
  }
  if (TURNS.sheet) renderTurnSheet();
}

// Who the bar's spell button counts for: this phone's player when active, else the first
// active player (the sheet has a button for each).
function castingPlayer(turn) {
  if (S.seat && turn.active.includes(S.seat)) return S.seat;
  const held = S.seats || [];
  return turn.active.find((id) => held.includes(id)) || turn.active[0];
}

// One line always: buttons marked data-fold give way (highest first) until the rest fits,
// its words whole in the bar's 44 px (issue 25 item 7: they wrap, never cut): the first
// draw's note goes first (the sheet says it too); the sheet (⋯) offers every button.
let fitted = ""; // the bar's size (CSS px) when it was last fitted
function fitTurnBar(bar) {
  const folds = [...bar.querySelectorAll("[data-fold]")].sort((a, b) => Number(b.dataset.fold) - Number(a.dataset.fold));
  for (const el of folds) el.classList.remove("hidden");
  const info = bar.querySelector(".tb-info");
  // (Too tall for the bar, whose height is fixed (style.css), or a line of it, the score's,
  // wider than the column.)
  const tall = () => !!info && (info.scrollHeight > bar.clientHeight + 1 || [...info.children].some((el) => el.scrollWidth > el.clientWidth + 1));
  const note = bar.querySelector("#turn-skip");
  if (note) note.classList.toggle("hidden", false);
  if (note && tall()) note.classList.add("hidden");
  const fits = () => bar.scrollWidth <= bar.clientWidth + 1 && !tall();
  for (const el of folds) {
    if (fits()) break;
    el.classList.add("hidden");
  }
  fitted = `${bar.clientWidth}x${bar.clientHeight}`;
}

// ------------------------------------------------------------------ the sheet

export function openTurnSheet() {
  TURNS.sheet = true;
  TURNS.rad = null;
  renderTurnSheet();
  $("turn-sheet").classList.remove("hidden");
}

export function closeTurnSheet() {
  TURNS.sheet = false;
  TURNS.rad = null;
  $("turn-sheet").classList.add("hidden");
}

function askRadiation(rad, then) {
  // A player who mills no card (an empty library) has no nonland card to state: 0.
  if (Object.values(rad).every((most) => String(most) === "0")) { then(Object.fromEntries(Object.keys(rad).map((id) => [id, 0]))); return; }
  TURNS.sheet = true;
  TURNS.rad = { rad, then };
  renderTurnSheet();
  $("turn-sheet").classList.remove("hidden");
}

function sheetButton(attrs, text) { return h("button", attrs, text); }

export function renderTurnSheet() {
  const body = $("turn-body");
  if (!body || !S.state) return;
  const st = S.state;
  const info = turnsInfo() || { first: [], cast: {}, radiation: {} };
  const turn = st.turn;
  const play = canTurn() && !st.over;
  const secs = [];
  if (TURNS.rad) {
    $("turn-title").textContent = t("Rad counters (728.1)");
    const rows = Object.entries(TURNS.rad.rad).map(([id, most]) => h("label", { class: "tool-field tb-rad" },
      t("{name} mills {n}: nonland cards", { name: S.names.of(id), n: most }),
      h("input", { id: "rad-" + id, class: "num", type: "number", inputmode: "numeric", min: "0", max: String(most), value: "0",
        "data-rad": id, "aria-label": t("Nonland cards {name} milled (0 to {n})", { name: S.names.of(id), n: most }) })));
    secs.push(h("div", { class: "sec" },
      h("p", { class: "muted small" }, t("At the beginning of the precombat main phase each player with rad counters mills that many cards; for each nonland card milled they lose 1 life and remove a rad counter (728.1). How many nonland cards were milled?")),
      ...rows,
      h("div", { class: "row" }, sheetButton({ class: "primary", id: "rad-go", onclick: sendRadiation }, t("Record and go on")))));
    body.replaceChildren(...secs);
    return;
  }
  $("turn-title").textContent = turn ? t("Turn {n}", { n: turn.number }) : t("The first turn");
  if (!turn) {
    const picked = pickedFirst();
    secs.push(h("div", { class: "sec" }, h("h3", {}, t("Who plays first? (103.1)")),
      h("div", { class: "row" }, ...firstChoices(info).map((c) => sheetButton({ class: isPicked(c, picked) ? "primary picked" : "", "data-first": c.id,
        ...(play ? {} : { disabled: "" }), onclick: () => { closeTurnSheet(); beginTurn(c.id); } }, c.label))),
      h("p", { class: "muted small" }, skipNote(info.first_draw))));
  } else {
    const from = LATER_STEPS.indexOf(turn.step) + 1;
    secs.push(h("div", { class: "sec" }, h("h3", {}, `${turnName(turn.active)}: ${stepName(turn.step)}`),
      h("div", { class: "row" },
        ...LATER_STEPS.slice(from).map((step) => sheetButton({ "data-step": step, ...(play ? {} : { disabled: "" }),
          onclick: () => { closeTurnSheet(); goToStep(step); } }, stepButton(step))),
        info.next ? sheetButton({ class: "primary", id: "sheet-next", ...(play ? {} : { disabled: "" }),
          onclick: () => { closeTurnSheet(); nextTurn(info.next); } }, t("Next turn: {name}", { name: S.names.of(info.next) })) : null)));
    const cast = info.cast || {};
    secs.push(h("div", { class: "sec" }, h("h3", {}, t("Spells cast this turn (502.2, 731.2)")),
      h("div", { class: "row" }, ...turn.active.map((id) => sheetButton({ "data-cast": id, ...(play ? {} : { disabled: "" }),
        "aria-label": t("{name} casts a spell ({n} this turn)", { name: S.names.of(id), n: cast[id] || 0 }), onclick: () => castSpell(id) },
      `${S.names.of(id)}: ${cast[id] || 0} ✦+`)))));
    const others = st.players.filter((p) => p.status === "playing");
    secs.push(h("div", { class: "sec" }, h("h3", {}, t("Another player's turn (an extra turn, 500.7)")),
      h("div", { class: "row" }, ...others.map((p) => sheetButton({ "data-turn-for": p.id, ...(play ? {} : { disabled: "" }),
        onclick: () => { closeTurnSheet(); nextTurn(p.id); } }, S.names.of(p.id))))));
  }
  const dn = st.designations ? st.designations.day_night : null;
  secs.push(h("div", { class: "sec" }, h("h3", {}, t("Day and night (731)")),
    h("p", { class: "small", id: "sheet-daynight" }, dn ? t("It is {when}. As a turn begins, day becomes night if the previous turn's active player cast no spells, and night becomes day if they cast two or more (731.2).", { when: dayNightWord(dn) }) : t("Neither day nor night: a daybound or nightbound card makes it day (731.1).")),
    h("div", { class: "row" }, ...["day", "night"].filter((x) => x !== dn).map((x) => sheetButton({ "data-day-night": x, ...(play ? {} : { disabled: "" }),
      onclick: () => { closeTurnSheet(); setDayNight(x); } }, `${DAY_NIGHT[x][0]} ${x === "day" ? t("It becomes day") : t("It becomes night")}`)))));
  body.replaceChildren(...secs);
}

function sendRadiation() {
  const ask = TURNS.rad;
  if (!ask) return;
  const milled = {};
  for (const [id, most] of Object.entries(ask.rad)) {
    const el = $("rad-" + id);
    const n = Number(el.value);
    if (el.value.trim() === "" || !Number.isInteger(n) || n < 0 || n > most) {
      toast(t("Nonland cards {name} milled: a whole number from 0 to {n}.", { name: S.names.of(id), n: most }), "bad");
      return;
    }
    milled[id] = n;
  }
  closeTurnSheet();
  ask.then(milled);
}

// ------------------------------------------------------------------ set up

export function setupTurns() {
  const bar = h("div", { id: "turn-bar", class: "turn-bar hidden", role: "region", "aria-label": t("Turn") });
  $("bar").after(bar); // right under the header's buttons (style.css tucks it in)
  document.body.append(h("div", { id: "turn-sheet", class: "sheet hidden", role: "dialog", "aria-modal": "true", "aria-labelledby": "turn-title" },
    h("div", { class: "sheet-inner" },
      h("div", { class: "drawer-head" }, h("h2", { id: "turn-title" }, t("Turn")), h("button", { class: "close", id: "turn-close", "aria-label": t("Close"), onclick: closeTurnSheet }, "✕")),
      h("div", { id: "turn-body" }))));
  // Fitted again when its size changes (turning the phone), not for the size renderTurns just
  // fitted it for, nor while it is hidden (as the page opens: the observer's first notice).
  if ("ResizeObserver" in window) {
    new ResizeObserver(() => {
      if (!bar.classList.contains("hidden") && fitted !== `${bar.clientWidth}x${bar.clientHeight}`) fitTurnBar(bar);
    }).observe(bar);
  }
}

