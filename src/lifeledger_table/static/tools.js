// Starting and pacing the game: dice, a coin, the planar die, who starts, a clock per player
// (or team) and a tournament round timer. The server decides every result and keeps the
// clocks (tools.py); this page only asks, and shows what every phone at the table is shown.
// Loaded before table.js: it uses its globals (S, MODE, $, h, send, act, toast, showPicker)
// once the page runs, and table.js hands it the "tools" part of a welcome and every "tools"
// message (toolsReceive).

import { formatNumber, said, t } from "./i18n.js";
import { h, newId } from "./common.js";
import { header, MODE, S } from "./state.js";
import { $, close, toast } from "./toasts.js";
import { act, send } from "./connection.js";
import { showPicker } from "./sheets.js";

export const T = {
  tools: { recent: [], clock: null, round: null },
  offset: 0, // server time − this phone's time (ms): every phone shows the same countdown
  seen: 0, // the newest result shown
  resultTimer: null, shape: "",
};
const DICE = [4, 6, 8, 10, 12, 20, 100];
const TOOL_RESULT_SHOWN = 12000;

function serverNow() { return Date.now() + T.offset; }

export function toolsReceive(msg) {
  if (msg.type !== "welcome" && msg.type !== "tools") return;
  if (!msg.tools) return;
  if (typeof msg.now === "number") T.offset = msg.now - Date.now();
  const first = T.seen === 0 && msg.type === "welcome";
  T.tools = msg.tools;
  const newest = T.tools.recent.length ? T.tools.recent[T.tools.recent.length - 1] : null;
  if (newest && newest.n > T.seen) {
    T.seen = newest.n;
    if (!first) showResult(newest);
  }
  T.shape = "";
  renderStrip();
  if (!$("tools-sheet").classList.contains("hidden")) renderToolsSheet();
}

export function toolSend(tool, members) {
  if (MODE !== "play") return;
  if (!S.seat) { showPicker(); return; }
  if (!S.connected) { toast(t("Not connected: try again in a moment."), "bad"); return; }
  send(Object.assign({ type: "tool", id: newId(), tool }, members || {}));
}

// ------------------------------------------------------------------ what a result says

function sideName(id) { return S.names ? S.names.of(id) : id; }

function resultText(r) {
  const who = r.by ? sideName(r.by) : t("The table"); // rolled on the table device
  if (r.tool === "roll") {
    const values = r.values.map(formatNumber).join(" + ");
    if (r.values.length > 1) return t("{name} rolled {n}d{sides}: {values} = {total}", { name: who, n: r.values.length, sides: r.sides, values, total: r.total });
    return t("{name} rolled a d{sides}: {values}", { name: who, sides: r.sides, values });
  }
  if (r.tool === "coin") {
    const face = r.value === "heads" ? t("heads") : r.value === "tails" ? t("tails") : r.value;
    return t("{name} flipped a coin: {face}", { name: who, face });
  }
  if (r.tool === "planar") {
    const face = r.value === "planeswalker" ? t("Planeswalker symbol") : r.value === "chaos" ? t("chaos symbol") : r.value === "blank" ? t("blank") : r.value;
    return t("{name} rolled the planar die: {face} (901.9)", { name: who, face });
  }
  if (r.tool === "first_player") return `${said(r, S.names, "note")} (${r.rules.join(", ")})`;
  return "";
}

function showResult(r) {
  const box = $("tools-result");
  box.textContent = resultText(r);
  box.setAttribute("data-n", String(r.n));
  box.classList.remove("hidden");
  clearTimeout(T.resultTimer);
  T.resultTimer = setTimeout(() => box.classList.add("hidden"), TOOL_RESULT_SHOWN);
}

function clockText(ms) {
  const neg = ms < 0;
  const s = Math.floor(Math.abs(ms) / 1000);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const body = (hh ? `${hh}:${String(mm).padStart(2, "0")}` : String(mm)) + ":" + String(ss).padStart(2, "0");
  return (neg ? "−" : "") + body;
}

// What a side of the clock has left now (the active side's time runs).
function sideLeft(c, side) {
  const ran = c.active === side.id && c.since !== null ? serverNow() - c.since : 0;
  return side.left_ms - Math.max(0, ran);
}

// The round timer's phase now (it turns from "running" to "time" on its own).
function roundPhase(r) {
  if (r.ends_at === null) return r.left_ms > 0 ? "paused" : (r.turns_done > r.extra_turns ? "over" : "time");
  if (serverNow() < r.ends_at) return "running";
  return r.turns_done > r.extra_turns ? "over" : "time";
}

function roundLine(r, phase) {
  if (phase === "running") return t("Round {time}", { time: clockText(r.ends_at - serverNow()) });
  if (phase === "paused") return t("Round {time} (paused)", { time: clockText(r.left_ms) });
  if (phase === "time") {
    const turn = r.turns_done;
    return turn === 0
      ? t("Time! Turn 0: the turn in progress, then {n} more", { n: r.extra_turns })
      : t("Time! Additional turn {n} of {total}", { n: turn, total: r.extra_turns });
  }
  return S.state && S.state.over ? t("Additional turns are over") : t("Additional turns are over: no winner, the game is a draw (MTR 2.4)");
}

// ------------------------------------------------------------------ one turn, one clock

// When a turn begins (Next ▶ on the turn bar, or the turn sheet, on any phone), the clock goes
// to that turn's player (their team's side where teams share their turns). The phone holding
// that player's seat asks at once; every other seated phone asks a moment later if it still
// hasn't happened (the server passes once: a pass to the side already running changes
// nothing). A pass by hand during a turn is left as it is until the next turn begins.
const FOLLOW_LATER = 1500;

function turnSide(c, turn) {
  const active = turn.active || [];
  const side = c.sides.find((s) => active.includes(s.id)
    || header().players.some((p) => p.team === s.id && active.includes(p.id)));
  return side ? side.id : null;
}

function followTurn() {
  if (MODE !== "play" || !S.state || !S.connected) return;
  const turn = S.state.turn;
  const key = turn ? `${turn.number}:${turn.active.join(",")}` : "";
  if (T.turnKey === undefined || key === T.turnKey) { T.turnKey = key; return; }
  T.turnKey = key;
  const c = T.tools.clock;
  const side = turn && c ? turnSide(c, turn) : null;
  if (!side || side === c.active || (!S.seat && !S.seats.length)) return;
  const passes = c.turns;
  const pass = () => { // not if the clock was passed meanwhile (by the turn, or by hand)
    const now = T.tools.clock;
    if (!now || now.active === side || now.turns !== passes || T.turnKey !== key || !S.connected) return;
    send({ type: "tool", id: newId(), tool: "clock", op: "pass", to: side, turn: turn.number });
  };
  const holds = (id) => id === S.seat || S.seats.includes(id);
  if (turn.active.some(holds)) pass(); else setTimeout(pass, FOLLOW_LATER);
}

// A reset, a new game or the next game begins a game (issue 25 item 10): the clock, a time per
// game, stops and every side gets its whole time again, to be started for the new game (▶).
// The phone that began the game asks at once, any other seated phone a moment later if it
// still hasn't happened (the server restarts it once per game, and only for the game in
// progress).
export function followGameStart(entry) {
  if (MODE !== "play" || !["reset", "new_game", "next_game"].includes(entry.kind)) return;
  if (!T.tools.clock || (!S.seat && !S.seats.length)) return;
  const game = entry.game;
  const ask = () => {
    const c = T.tools.clock;
    if (!c || c.game === game || !S.connected || !S.state || S.lastSeq < entry.seq) return;
    send({ type: "tool", id: newId(), tool: "clock", op: "restart", game });
  };
  const mine = entry.seat && (entry.seat === S.seat || S.seats.includes(entry.seat));
  if (mine) ask(); else setTimeout(ask, FOLLOW_LATER);
}

// ------------------------------------------------------------------ the strip on the table

export function renderStrip() {
  const strip = $("tools-strip");
  const c = T.tools.clock, r = T.tools.round;
  const canUse = MODE === "play" && !!S.seat;
  const phase = r ? roundPhase(r) : "";
  const shape = JSON.stringify([!!c, c && c.active, c && c.since === null, c && c.sides.length, phase, canUse, S.state && S.state.over, r && r.turns_done]);
  strip.classList.toggle("hidden", !c && !r);
  if (shape !== T.shape) {
    T.shape = shape;
    const parts = [];
    if (c) {
      const sides = c.sides.map((s) => h("span", { class: "tl-side" + (s.id === c.active ? " active" : ""), "data-side": s.id },
        h("span", { class: "tl-name" }, s.label), " ", h("span", { class: "tl-time", "data-side-time": s.id }, "")));
      const controls = [];
      if (canUse) {
        controls.push(h("button", { class: "tl-btn primary", id: "tl-pass", "aria-label": t("Pass the clock to the next player"), onclick: () => toolSend("clock", { op: "pass" }) }, t("Pass") + " ▶"));
        controls.push(c.since === null
          ? h("button", { class: "tl-btn", "aria-label": t("Resume the clock"), onclick: () => toolSend("clock", { op: "resume" }) }, "▶")
          : h("button", { class: "tl-btn", "aria-label": t("Pause the clock"), onclick: () => toolSend("clock", { op: "pause" }) }, "❚❚"));
      }
      parts.push(h("div", { class: "tl-clock", id: "tl-clock", "aria-label": c.mode === "turn" ? t("Turn timer") : t("Chess clock") }, ...sides, ...controls));
    }
    if (r) {
      const controls = [];
      if (canUse && phase === "time") controls.push(h("button", { class: "tl-btn", id: "tl-turn", onclick: () => toolSend("round", { op: "turn" }) }, t("Turn ended")));
      if (canUse && phase === "over" && S.state && !S.state.over) {
        // 104.4i: every seated player in the game sends the same draw; the table waits for all.
        controls.push(h("button", { class: "tl-btn primary", id: "tl-draw", onclick: () => act({ do: "intentional_draw" }) }, t("Record a draw (104.4i)")));
      }
      parts.push(h("div", { class: "tl-round " + phase, id: "tl-round" }, h("span", { class: "tl-round-text", id: "tl-round-text" }, ""), ...controls));
    }
    strip.replaceChildren(...parts);
  }
  tickStrip();
}

function tickStrip() {
  const c = T.tools.clock, r = T.tools.round;
  if (c) {
    for (const s of c.sides) {
      const el = document.querySelector(`[data-side-time="${CSS.escape(s.id)}"]`);
      if (!el) continue;
      const left = sideLeft(c, s);
      el.textContent = clockText(left);
      el.classList.toggle("over", left < 0);
    }
  }
  if (r) {
    const phase = roundPhase(r);
    const el = $("tl-round-text");
    if (el) el.textContent = roundLine(r, phase);
    const box = $("tl-round");
    if (box && !box.classList.contains(phase)) { T.shape = ""; renderStrip(); }
  }
}

// ------------------------------------------------------------------ the tools sheet

function toolNumber(id, value, label, min, max) {
  return h("input", { id, class: "num", type: "number", inputmode: "numeric", min: String(min), max: String(max), value: String(value), "aria-label": label });
}

function wholeIn(id, min, max) {
  const el = $(id);
  const n = Number(el.value);
  if (!Number.isInteger(n) || n < min || n > max) {
    toast(t("{label}: a whole number from {min} to {max}.", { label: el.getAttribute("aria-label"), min, max }), "bad");
    return null;
  }
  return n;
}

export function renderToolsSheet() {
  const body = $("tools-body");
  const canUse = MODE === "play" && !!S.seat;
  const info = S.info && S.info.header ? S.info.header : { players: [] };
  const teams = info.variant === "two-headed-giant";
  const secs = [];
  const dis = canUse ? {} : { disabled: "" };

  secs.push(h("div", { class: "sec" }, h("h3", {}, t("Who starts")),
    h("div", { class: "row" }, h("button", Object.assign({ id: "tool-first", onclick: () => toolSend("first_player") }, dis), teams ? t("Pick a team") : t("Pick a player"))),
    h("p", { class: "muted small" }, teams
      ? t("The team picked starts (or lets the other team start); the team that plays first skips the draw step of its first turn (103.1a, 810.6).")
      : t("The one picked starts, or chooses another player to (103.1)."))));

  const count = toolNumber("tool-count", 1, t("Dice"), 1, 20);
  const custom = toolNumber("tool-sides", 6, t("Sides"), 2, 1000);
  const roll = (sides) => () => {
    const n = wholeIn("tool-count", 1, 20);
    if (n !== null) toolSend("roll", { sides, count: n });
  };
  secs.push(h("div", { class: "sec" }, h("h3", {}, t("Dice and coin")),
    h("div", { class: "row tool-dice" }, ...DICE.map((d) => h("button", Object.assign({ "data-die": String(d), onclick: roll(d) }, dis), `d${d}`))),
    h("div", { class: "row" }, h("label", { class: "tool-field" }, t("How many"), count), h("label", { class: "tool-field" }, "d", custom),
      h("button", Object.assign({ id: "tool-roll-custom", onclick: () => { const s = wholeIn("tool-sides", 2, 1000); if (s !== null) roll(s)(); } }, dis), t("Roll"))),
    h("div", { class: "row" }, h("button", Object.assign({ id: "tool-coin", onclick: () => toolSend("coin") }, dis), t("Flip a coin")),
      info.format === "planechase" ? h("button", Object.assign({ id: "tool-planar", onclick: () => toolSend("planar") }, dis), t("Roll the planar die")) : null)));

  const c = T.tools.clock;
  const clockRow = c
    ? h("div", { class: "row" },
      h("button", Object.assign({ onclick: () => toolSend("clock", { op: "pass" }) }, dis), t("Pass") + " ▶"),
      c.since === null
        ? h("button", Object.assign({ onclick: () => toolSend("clock", { op: "resume" }) }, dis), t("Resume"))
        : h("button", Object.assign({ onclick: () => toolSend("clock", { op: "pause" }) }, dis), t("Pause")),
      h("button", Object.assign({ id: "tool-clock-stop", onclick: () => toolSend("clock", { op: "stop" }) }, dis), t("Stop")))
    : h("div", { class: "row" },
      h("select", { id: "tool-clock-mode", "aria-label": t("Kind of clock") },
        h("option", { value: "chess" }, t("Chess clock (time per game)")), h("option", { value: "turn" }, t("Turn timer (time per turn)"))),
      h("label", { class: "tool-field" }, t("Minutes"), toolNumber("tool-clock-min", 20, t("Minutes"), 1, 1440)),
      h("button", Object.assign({ id: "tool-clock-start", onclick: () => {
        const m = wholeIn("tool-clock-min", 1, 1440);
        if (m !== null) toolSend("clock", { op: "start", mode: $("tool-clock-mode").value, seconds: m * 60 });
      } }, dis), t("Start")));
  secs.push(h("div", { class: "sec" }, h("h3", {}, teams ? t("Clock (per team)") : t("Clock (per player)")), clockRow,
    h("p", { class: "muted small" }, t("Pass hands the time to the next player still in the game. The clock decides nothing: running out is for the table to settle."))));

  const r = T.tools.round;
  const phase = r ? roundPhase(r) : "";
  const roundRow = r
    ? h("div", { class: "row" },
      phase === "running" ? h("button", Object.assign({ onclick: () => toolSend("round", { op: "pause" }) }, dis), t("Pause")) : null,
      phase === "paused" ? h("button", Object.assign({ onclick: () => toolSend("round", { op: "resume" }) }, dis), t("Resume")) : null,
      phase === "running" || phase === "paused" ? h("button", Object.assign({ onclick: () => toolSend("round", { op: "extend", minutes: 5 }) }, dis), t("+5 min")) : null,
      phase === "time" ? h("button", Object.assign({ onclick: () => toolSend("round", { op: "turn" }) }, dis), t("Turn ended")) : null,
      h("button", Object.assign({ id: "tool-round-stop", onclick: () => toolSend("round", { op: "stop" }) }, dis), t("Stop")))
    : h("div", { class: "row" },
      h("label", { class: "tool-field" }, t("Minutes"), toolNumber("tool-round-min", 50, t("Round minutes"), 1, 600)),
      h("label", { class: "tool-field" }, t("Extra turns"), toolNumber("tool-round-turns", teams ? 3 : 5, t("Extra turns"), 0, 10)),
      h("button", Object.assign({ id: "tool-round-start", onclick: () => {
        const m = wholeIn("tool-round-min", 1, 600), turns = wholeIn("tool-round-turns", 0, 10);
        if (m !== null && turns !== null) toolSend("round", { op: "start", minutes: m, extra_turns: turns });
      } }, dis), t("Start round")));
  secs.push(h("div", { class: "sec" }, h("h3", {}, t("Round timer")), roundRow,
    h("p", { class: "muted small" }, t("When time is called, the turn in progress ends, then {n} additional turns are played (Magic Tournament Rules 2.4). If no one has won then, each player records the draw (104.4i).", { n: teams ? 3 : 5 }))));

  const recent = T.tools.recent.slice().reverse();
  secs.push(h("div", { class: "sec" }, h("h3", {}, t("Recent")),
    recent.length
      ? h("ol", { class: "tool-recent", id: "tool-recent" }, ...recent.map((x) => h("li", { "data-n": String(x.n) }, resultText(x))))
      : h("p", { class: "muted" }, t("Nothing rolled yet."))));
  // What was typed stays when another phone's result redraws the sheet.
  const typed = new Map(Array.from(body.querySelectorAll("input[id], select[id]"), (el) => [el.id, el.value]));
  body.replaceChildren(...secs);
  for (const [id, value] of typed) { const el = $(id); if (el) el.value = value; }
}

function openTools() { renderToolsSheet(); $("tools-sheet").classList.remove("hidden"); }

// ------------------------------------------------------------------ set up

export function setupTools() {
  if (MODE === "replay") return;
  const strip = h("div", { id: "tools-strip", class: "tools-strip hidden", role: "timer", "aria-label": t("Clocks") });
  // The newest result, for a while (a tap hides it at once).
  const result = h("div", { id: "tools-result", class: "tools-result hidden", role: "status", "aria-live": "polite",
    onclick: () => result.classList.add("hidden") });
  $("panels").before(strip, result);
  document.body.append(h("div", { id: "tools-sheet", class: "sheet hidden", role: "dialog", "aria-modal": "true", "aria-labelledby": "tools-title" },
    h("div", { class: "sheet-inner" },
      h("div", { class: "drawer-head" }, h("h2", { id: "tools-title" }, t("Dice, clocks and who starts")), h("button", { class: "close", "data-close": "tools-sheet", "aria-label": t("Close") }, "✕")),
      h("div", { id: "tools-body" }))));
  const btn = h("button", { id: "tools-btn", class: "barbtn", "aria-label": t("Dice, clocks and who starts"), title: t("Dice, clocks and who starts"), onclick: openTools }, "⚄");
  $("history-btn").before(btn);
  // The menu offers the same sheet (table.js fills the menu first: this runs after it).
  $("menu-btn").addEventListener("click", () => {
    $("menu-body").append(h("button", { id: "menu-tools", onclick: () => { close("menu"); openTools(); } }, t("Dice, clocks and who starts")));
  });
  // The countdowns tick; the strip is rebuilt only when what it offers changes (a game over).
  setInterval(() => { followTurn(); if (T.tools.clock || T.tools.round) renderStrip(); }, 250);
}

