// A picture of the game: the life graph of a game (inline SVG, drawn here: no chart library)
// and the table's statistics. Data from the server: GET .../games/{n}/series and .../stats
// (lifeledger_table/pictures.py). Uses common.js (h, api, plural, describeResult) and the
// table page's globals (S, MODE, KEY, $, open, toast).

import { formatNumber, lang, t, tn } from "./i18n.js";
import { api, describeResult, h, statusWord } from "./common.js";
import { KEY, MODE, S } from "./state.js";
import { $, open } from "./toasts.js";

// The history drawer's graph: which game it shows (following the current one, or an earlier
// one picked), its data, as of which event, and the fetch in flight.
const GRAPH = { game: null, follow: true, seq: -1, data: null, timer: null, ticket: 0 };
const SVG_NS = "http://www.w3.org/2000/svg";
// Line colours on the dark card, one per line (more than eight lines: dashed repeats).
const GRAPH_COLOURS = ["#7aa7ff", "#ff8fb0", "#4fd6a0", "#ffc061", "#c4a0ff", "#5fd8e8", "#e8df6a", "#d3d8e0"];
const MARK_COLOURS = { lost: "#ff6b6b", won: "#3ecf8e", drew: "#ffb547" };
// How a game ended, as the statistics name it, with the rule of each kind.
function endedText(kind) {
  switch (kind) {
    case "life": return t("life (704.5a)");
    case "poison": return t("poison (704.5c)");
    case "commander-damage": return t("commander damage (704.6c)");
    case "concession": return t("concession (104.3a)");
    case "draw": return t("draw (104.4)");
    case "other": return t("other");
    case "mixed": return t("mixed");
    default: return kind;
  }
}

// An SVG element: svg("path", {d: ...}, child, ...). Strings become text nodes.
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined && value !== false) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// ---------------------------------------------------------------- numbers

// Totals are exact: a Number, or a BigInt (up to 10^1000, 107.1).
function isBig(v) { return typeof v === "bigint" || Math.abs(v) >= 1e6; }

// log10(1 + |v|) with v's sign: a scale on which 10^1000 and 20 both have a place.
function symlog(v) {
  const neg = typeof v === "bigint" ? v < 0n : v < 0;
  const digits = (typeof v === "bigint" ? (neg ? -v : v) : Math.abs(v)).toString();
  let mag;
  if (typeof v === "number" || digits.length <= 15) mag = Math.log10(1 + Number(digits));
  else mag = Math.log10(Number(digits.slice(0, 15))) + digits.length - 15;
  return neg ? -mag : mag;
}

// A total to read: exact below a million, else a few digits and a power of ten.
function shortTotal(v) {
  if (!isBig(v)) return formatNumber(v);
  const neg = String(v).startsWith("-");
  const digits = String(v).replace("-", "");
  const point = (new Intl.NumberFormat(lang()).formatToParts(1.5).find((p) => p.type === "decimal") || { value: "." }).value;
  return `${neg ? "−" : ""}${digits[0]}${point}${digits.slice(1, 3)}×10^${digits.length - 1}`;
}

// A round step for about ``parts`` gridlines over ``range``.
function niceStep(range, parts) {
  const raw = range / parts;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * pow) return m * pow;
  return 10 * pow;
}

// ---------------------------------------------------------------- the graph

function graphSize(box) {
  const w = Math.max(280, Math.min(box.clientWidth || 360, 900));
  const h = Math.round(Math.max(150, Math.min(w * 0.6, window.innerHeight * 0.45)));
  return { w, h };
}

// A line's colour, for the legend (an SVG square: the page's CSP allows no inline style).
function swatch(i) {
  return svg("svg", { class: "swatch", width: 14, height: 14, viewBox: "0 0 14 14", "aria-hidden": "true" },
    svg("rect", { x: 1, y: 1, width: 12, height: 12, rx: 3, fill: GRAPH_COLOURS[i % 8] }));
}

function unitName(u) { return S.names ? (u.kind === "team" ? (S.names.known(u.id) ? S.names.of(u.id) : u.label) : S.names.of(u.id)) : u.label; }

// (Named apart from tools.js's resultText: scripts share one global scope, and the later one won.)
function graphResultText(r) {
  if (!r.status || r.status === "playing") return t("playing");
  return describeResult(r.status, r.reason, r.rule);
}

// The graph of one game's series: a figure with the SVG (title and desc for screen readers)
// and a table of each line's totals and result, which is also the legend.
function drawGraph(data, box) {
  const { w: gw, h: gh } = graphSize(box);
  const m = { left: 0, right: 14, top: 16, bottom: 26 };
  const ph = gh - m.top - m.bottom;
  const count = Math.max(data.count, 1);
  const all = data.units.flatMap((u) => u.points.map((p) => p[1]));
  const log = all.some(isBig);
  const scaled = (v) => (log ? symlog(v) : Number(v));
  let lo = Math.min(...all.map(scaled));
  let hi = Math.max(...all.map(scaled));
  if (!log) { lo = Math.min(lo, 0); }
  if (hi - lo < 1) { hi += 1; lo -= 1; }
  const pad = (hi - lo) * 0.06;
  lo -= pad; hi += pad;
  // The vertical axis's figures (on the scale drawn: a total, or ±log10(1 + |total|)); the
  // left margin fits the longest.
  const ticks = [];
  if (log) {
    const top = Math.ceil(Math.max(Math.abs(hi), Math.abs(lo)));
    const step = Math.max(1, niceStep(top, 3));
    for (let k = -Math.floor(top / step) * step; k <= top; k += step) {
      if (k >= lo && k <= hi) ticks.push({ at: k, text: k === 0 ? "0" : `${k < 0 ? "−" : ""}10^${Math.abs(k)}` });
    }
  } else {
    const step = niceStep(hi - lo, Math.max(2, Math.round(ph / 40)));
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      ticks.push({ at: v, text: Math.abs(v) >= 10000 ? `${v / 1000}k` : String(v) });
    }
  }
  m.left = Math.max(30, 10 + 6.6 * Math.max(...ticks.map((t) => t.text.length), 1));
  const pw = gw - m.left - m.right;
  const X = (x) => m.left + (x / count) * pw;
  const Y = (v) => m.top + (1 - (scaled(v) - lo) / (hi - lo)) * ph;
  const r1 = (n) => Math.round(n * 10) / 10;
  const id = `graph-${data.game}-${Math.random().toString(36).slice(2, 8)}`;
  const title = tn("Life totals of game {game}, over {n} action", "Life totals of game {game}, over {n} actions", data.count, { game: data.game, n: data.count });
  const summary = data.units.map((u) => t("{name}: {start} to {end} (lowest {min}, highest {max}), {result}",
    { name: unitName(u), start: shortTotal(u.start), end: shortTotal(u.end), min: shortTotal(u.min), max: shortTotal(u.max), result: graphResultText(u) })).join(". ");
  const names = new Map(data.units.map((u) => [u.id, unitName(u)]));
  const marks = data.markers.map((mk) => t("{name} {status} after action {n} ({rule})", { name: names.get(mk.unit) || mk.unit, status: statusWord(mk.status), n: mk.x, rule: mk.rule })).join(". ");
  const parts = [
    svg("title", { id: id + "-t" }, title),
    svg("desc", { id: id + "-d" }, summary + "." + (marks ? " " + marks + "." : "") +
      (log ? " " + t("The scale is logarithmic.") : "") + (data.decimated ? " " + t("Simplified: every high, low and loss is kept.") : "")),
  ];
  // Gridlines and the vertical axis's figures.
  const grid = svg("g", { class: "grid" });
  for (const t of ticks) {
    const y = m.top + (1 - (t.at - lo) / (hi - lo)) * ph;
    grid.append(svg("line", { x1: m.left, x2: m.left + pw, y1: r1(y), y2: r1(y), class: t.at === 0 ? "zero" : null }),
      svg("text", { x: m.left - 4, y: r1(y + 4), "text-anchor": "end" }, t.text));
  }
  grid.append(svg("text", { x: m.left, y: gh - 8, "text-anchor": "start" }, "0"),
    svg("text", { x: m.left + pw, y: gh - 8, "text-anchor": "end" }, String(data.count)),
    svg("text", { x: m.left + pw / 2, y: gh - 8, "text-anchor": "middle", class: "axis" }, log ? t("actions · log scale") : t("actions")));
  parts.push(grid);
  // One line per player or team: a step line (a total holds until it changes), to the end.
  data.units.forEach((u, i) => {
    let d = `M${r1(X(u.points[0][0]))} ${r1(Y(u.points[0][1]))}`;
    for (const [x, v] of u.points.slice(1)) d += `H${r1(X(x))}V${r1(Y(v))}`;
    d += `H${r1(X(count))}`; // to the last action (across the graph before any)
    parts.push(svg("path", {
      d, class: "gl", "data-unit": u.id, "data-end": String(u.end), "data-status": u.status,
      stroke: GRAPH_COLOURS[i % 8], "stroke-dasharray": i >= 8 ? "6 3" : null,
    }));
  });
  // A marker where a player or team lost, drew or won, labelled with its rule: beside the dot
  // near the right edge (where games end), else above or below it; labels never overlap.
  const placed = [];
  const free = (x0, x1, y) => !placed.some((p) => Math.abs(p.y - y) < 12 && x0 < p.x1 && p.x0 < x1);
  for (const mk of data.markers) {
    const cx = X(mk.x);
    const cy = Y(mk.life);
    const text = mk.rule || mk.status;
    const wide = text.length * 6.6;
    const right = cx > m.left + pw * 0.75;
    const anchor = right ? "end" : cx < m.left + pw * 0.2 ? "start" : "middle";
    const tx = right ? cx - 9 : cx;
    const x0 = anchor === "end" ? tx - wide : anchor === "start" ? tx : tx - wide / 2;
    let ty = right ? cy + 4 : cy > m.top + 18 ? cy - 9 : cy + 17;
    const step = ty < m.top + ph / 2 ? 13 : -13;
    for (let n = 0; n < 8 && !free(x0, x0 + wide, ty); n += 1) ty += step;
    placed.push({ x0, x1: x0 + wide, y: ty });
    parts.push(svg("g", { class: `gm ${mk.status}`, "data-unit": mk.unit, "data-status": mk.status, "data-rule": mk.rule || "", "data-x": mk.x },
      svg("circle", { cx: r1(cx), cy: r1(cy), r: 5, fill: MARK_COLOURS[mk.status] || "#fff" }),
      svg("text", { x: r1(tx), y: r1(ty), "text-anchor": anchor }, text)));
  }
  const picture = svg("svg", {
    class: "graph", viewBox: `0 0 ${gw} ${gh}`, width: gw, height: gh, role: "img",
    "aria-labelledby": id + "-t", "aria-describedby": id + "-d", "data-game": data.game, "data-count": data.count,
  }, ...parts);
  // The table: the legend, and the numbers for anyone who can't see the lines.
  const rows = data.units.map((u, i) => h("tr", { "data-unit": u.id },
    h("th", { scope: "row" }, swatch(i), h("span", { class: "nm" }, unitName(u))),
    h("td", { class: "num end" }, shortTotal(u.end)),
    h("td", { class: "num" }, shortTotal(u.min)),
    h("td", { class: "num" }, shortTotal(u.max)),
    h("td", { class: "res" }, u.status === "playing" ? "—" : `${statusWord(u.status)}${u.rule ? " " + u.rule : ""}`),
  ));
  const table = h("table", { class: "graph-table" },
    h("caption", { class: "sr-only" }, t("Life totals of game {game}", { game: data.game })),
    h("thead", {}, h("tr", {}, ...["", t("Now"), t("Low"), t("High"), t("Result")].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rows));
  return h("figure", { class: "graph-figure" }, picture, table);
}

// ---------------------------------------------------------------- where the graph shows

function seriesUrl(n) {
  return MODE === "play" ? `/api/tables/${KEY}/games/${n}/series` : `/api/watch/${KEY}/games/${n}/series`;
}
function statsUrl() { return MODE === "play" ? `/api/tables/${KEY}/stats` : `/api/watch/${KEY}/stats`; }

// The history drawer's graph: the current game's (kept up to date while the drawer is open),
// or an earlier game's, picked from the row of games.
export async function showGraph(n) {
  const box = $("graph-box");
  if (!box || MODE === "replay" || !S.score) return;
  const current = S.score.game;
  if (n) GRAPH.follow = n >= current;
  GRAPH.game = GRAPH.follow ? current : Math.min(n || GRAPH.game, current);
  const slot = box.querySelector(".graph-slot") || h("div", { class: "graph-slot" }, t("Loading…"));
  const pick = current > 1 ? h("div", { class: "graph-games", role: "group", "aria-label": t("Graph of game") },
    ...Array.from({ length: current }, (_, i) => i + 1).map((k) => h("button", {
      class: "chip" + (k === GRAPH.game ? " selected" : ""), "data-graph-game": k, "aria-pressed": k === GRAPH.game ? "true" : "false",
      onclick: () => showGraph(k),
    }, k === current ? t("Game {n} (now)", { n: k }) : t("Game {n}", { n: k })))) : null;
  box.replaceChildren(h("h3", {}, t("Life graph — game {n}", { n: GRAPH.game })), ...(pick ? [pick] : []), slot);
  const seq = GRAPH.game === current ? S.lastSeq : 0;
  if (GRAPH.data && GRAPH.data.game === GRAPH.game && GRAPH.seq === seq) { placeGraph(); return; }
  const ticket = ++GRAPH.ticket;
  let data;
  try { data = await api("GET", seriesUrl(GRAPH.game)); } catch (ex) {
    // A graph already shown stays (the next event asks again); else say why there is none.
    if (ticket === GRAPH.ticket && !slot.querySelector("svg.graph")) slot.replaceChildren(h("p", { class: "muted" }, ex.message));
    return;
  }
  if (ticket !== GRAPH.ticket) return; // another game was picked meanwhile
  GRAPH.data = data; GRAPH.seq = seq;
  placeGraph();
}

function placeGraph() {
  const slot = document.querySelector("#graph-box .graph-slot");
  if (!slot || !GRAPH.data) return;
  slot.replaceChildren(drawGraph(GRAPH.data, slot));
}

// After every render: while the drawer is open on the current game, its graph follows the
// game (asked again a moment after the last event; a new game is followed too).
export function graphChanged() {
  if (MODE === "replay" || !S.score || !GRAPH.follow || $("history").classList.contains("hidden")) return;
  if (GRAPH.game === S.score.game && GRAPH.seq === S.lastSeq) return;
  clearTimeout(GRAPH.timer);
  GRAPH.timer = setTimeout(() => showGraph(), 600);
}

// A game's graph in the sheet (the banner's "Graph", the statistics' games).
export async function showGraphSheet(n) {
  S.sheetFor = null;
  $("sheet-title").textContent = t("Game {n} — life graph", { n });
  const slot = h("div", { class: "graph-slot" }, t("Loading…"));
  $("sheet-body").replaceChildren(slot);
  open("sheet");
  try {
    const data = await api("GET", seriesUrl(n));
    slot.replaceChildren(drawGraph(data, slot));
  } catch (ex) { slot.replaceChildren(h("p", { class: "muted" }, ex.message)); }
}

// A phone turned sideways (or a window resized): the open drawer's graph is drawn again to fit.
// (Only graph.js's own names here: this may run before table.js has loaded.)
window.addEventListener("resize", () => {
  const drawer = document.getElementById("history");
  if (drawer && !drawer.classList.contains("hidden")) placeGraph();
});

// ---------------------------------------------------------------- statistics

function countsText(counts) {
  const items = Object.entries(counts || {});
  return items.length ? items.map(([k, n]) => `${endedText(k)}: ${formatNumber(n)}`).join(" · ") : "—";
}

export async function showStats() {
  S.sheetFor = null;
  $("sheet-title").textContent = t("Statistics");
  const body = $("sheet-body");
  body.replaceChildren(h("p", { class: "muted" }, t("Loading…")));
  open("sheet");
  let st;
  try { st = await api("GET", statsUrl()); } catch (ex) { body.replaceChildren(h("p", { class: "muted" }, ex.message)); return; }
  const name = (id) => S.names.of(id) || id;
  const label = (side) => (S.names.known(side.id) ? S.names.of(side.id) : side.label);
  const wins = h("table", { class: "stats-table", id: "stats-wins" },
    h("caption", {}, t("Games won")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, t("Match {n}", { n: st.match.number })),
      h("th", { scope: "col" }, t("Table")), h("th", { scope: "col" }, t("Matches")))),
    h("tbody", {}, ...st.sides.map((side) => h("tr", { "data-side": side.id },
      h("th", { scope: "row" }, label(side)),
      h("td", { class: "num", "data-of": "match" }, String(st.match.wins[side.id] || 0)),
      h("td", { class: "num", "data-of": "table" }, String(st.table.wins[side.id] || 0)),
      h("td", { class: "num", "data-of": "matches" }, String(st.table.matches[side.id] || 0))))));
  const kinds = [...new Set([...Object.keys(st.match.ended), ...Object.keys(st.table.ended)])];
  const ended = h("table", { class: "stats-table", id: "stats-ended" },
    h("caption", {}, t("How the games ended")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, t("Match {n}", { n: st.match.number })), h("th", { scope: "col" }, t("Table")))),
    h("tbody", {}, ...(kinds.length ? kinds.map((k) => h("tr", { "data-ended": k },
      h("th", { scope: "row" }, endedText(k)),
      h("td", { class: "num", "data-of": "match" }, String(st.match.ended[k] || 0)),
      h("td", { class: "num", "data-of": "table" }, String(st.table.ended[k] || 0)))) : [h("tr", {}, h("td", { colspan: 3, class: "muted" }, t("No game is over yet.")))])));
  const head = [tn("{n} game over at this table", "{n} games over at this table", st.table.games, { n: st.table.games }),
    st.best_of ? t("matches are best of {n}", { n: st.best_of }) : t("open match"),
    st.match.winner ? t("{name} won match {n} (100.6a)", { name: name(st.match.winner), n: st.match.number }) : null].filter(Boolean).join(" · ");
  const games = st.games.slice().reverse().map((g) => {
    const who = g.winners.length ? tn("{names} won", "{names} won", g.winners.length, { names: g.winners.map(name).join(" & ") }) : g.ended === "draw" ? t("a draw") : t("no winner");
    const why = g.results.filter((r) => r.status !== "won").map((r) => `${name(r.side)} ${describeResult(r.status, r.reason, r.rule)}`).join(" · ");
    return h("li", { "data-game": g.game },
      h("div", { class: "what" }, t("Game {n} (match {match}): {who} — {how}", { n: g.game, match: g.match, who, how: endedText(g.ended) })),
      why ? h("div", { class: "meta" }, why) : null,
      h("button", { class: "chip", "data-graph-game": g.game, onclick: () => showGraphSheet(g.game) }, "Graph"));
  });
  const lossTotals = Object.keys(st.table.losses).length ? h("p", { class: "muted" }, t("Losses by cause (table): {counts}", { counts: countsText(st.table.losses) })) : null;
  body.replaceChildren(
    h("p", { class: "muted" }, head), wins, ended, lossTotals,
    games.length ? h("ol", { class: "history stats-games" }, ...games) : null);
}
