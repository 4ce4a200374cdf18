// Layouts of the table page: where each panel sits and which way it faces, and life totals
// sized to fill their panels.

import { t, tn } from "./i18n.js";
import { h } from "./common.js";
import { MODE, S } from "./state.js";

// ---------------------------------------------------------------- where the panels sit

// A panel needs this much room (CSS px, before turning) for all its controls; a compact
// panel (name and ⋯ beside −, total, +) this much.
// (A compact panel: a row with its name, ⚔ and ⋯ over a row with −, the total and +.)
const FULL = { w: 160, h: 176 };
const COMPACT = { w: 132, h: 100 };
const TEAM_EXTRA = 48; // a team's panel adds a row of its heads

// Around a tall table (the device upright), in seating order, clockwise: each slot is
// [x, y, w, h] as fractions of the area and the edge its player sits at ("b", "l", "t",
// "r"); the panel turns to face that edge. A wide area uses the same slots turned a
// quarter (the players at the left and right sides sit at the top and bottom).
const EDGES = {
  1: [[0, 0, 1, 1, "b"]],
  2: [[0, 0.5, 1, 0.5, "b"], [0, 0, 1, 0.5, "t"]],
  3: [[0, 0.34, 0.5, 0.66, "l"], [0, 0, 1, 0.34, "t"], [0.5, 0.34, 0.5, 0.66, "r"]],
  4: [[0, 0.5, 0.5, 0.5, "l"], [0, 0, 0.5, 0.5, "l"], [0.5, 0, 0.5, 0.5, "r"], [0.5, 0.5, 0.5, 0.5, "r"]],
  5: [[0, 0.62, 0.5, 0.38, "l"], [0, 0.24, 0.5, 0.38, "l"], [0, 0, 1, 0.24, "t"],
    [0.5, 0.24, 0.5, 0.38, "r"], [0.5, 0.62, 0.5, 0.38, "r"]],
  6: [[0, 2 / 3, 0.5, 1 / 3, "l"], [0, 1 / 3, 0.5, 1 / 3, "l"], [0, 0, 0.5, 1 / 3, "l"],
    [0.5, 0, 0.5, 1 / 3, "r"], [0.5, 1 / 3, 0.5, 1 / 3, "r"], [0.5, 2 / 3, 0.5, 1 / 3, "r"]],
  7: [[0, 0.72, 0.5, 0.28, "l"], [0, 0.44, 0.5, 0.28, "l"], [0, 0.16, 0.5, 0.28, "l"], [0, 0, 1, 0.16, "t"],
    [0.5, 0.16, 0.5, 0.28, "r"], [0.5, 0.44, 0.5, 0.28, "r"], [0.5, 0.72, 0.5, 0.28, "r"]],
  8: [[0, 0.75, 0.5, 0.25, "l"], [0, 0.5, 0.5, 0.25, "l"], [0, 0.25, 0.5, 0.25, "l"], [0, 0, 0.5, 0.25, "l"],
    [0.5, 0, 0.5, 0.25, "r"], [0.5, 0.25, 0.5, 0.25, "r"], [0.5, 0.5, 0.5, 0.25, "r"], [0.5, 0.75, 0.5, 0.25, "r"]],
};
const TURN = { b: 0, l: 90, t: 180, r: 270 };
const QUARTER = { t: "r", r: "b", b: "l", l: "t" }; // an edge, after turning the area a quarter

// The panel's box before turning: a panel on a side is as long as the side's slot is tall.
function upright(s) { return s.rot % 180 ? { w: s.h, h: s.w } : { w: s.w, h: s.h }; }
// A whole panel narrower than ONE_ROW puts −5/+5 and its parts (poison...) on two rows.
const ONE_ROW = 284;
// A row of commanders (panel.js) wraps its chips (52 px and a gap each) onto more rows.
function heightFor(need, w) {
  if (!need.full) return need.h;
  const chipRows = Math.max(1, Math.ceil((need.chips || 0) * 56 / Math.max(56, w - 16)));
  return need.h + (w < ONE_ROW ? 48 : 0) + (need.cmds || 0) * 48 * chipRows;
}
function roomFor(s, need) { const u = upright(s); return u.w >= need.w && u.h >= heightFor(need, u.w); }

// Slots around the edges for ``n`` panels in a W×H area (px), or null when n has no edge
// layout or a slot is too small even for a compact panel. What decides is what fits in a
// compact panel, not a phone's exact size (issue 25 item 13: eight players sat around the
// edges of a 375x667 phone but in a grid on a 360x640 one, 130 px short of 132): its top row
// (⚔ and ⋯, 44 px each, and three letters of the name) and a total of 32 px need EDGE_LEAST.
const EDGE_LEAST = { w: 120 };
function edgeSlots(n, W, H, gap, extra) {
  const shapes = EDGES[n];
  if (!shapes) return null;
  const wide = W > H;
  const slots = shapes.map(([x, y, w, h, edge]) => {
    if (wide) { [x, y, w, h] = [1 - y - h, x, h, w]; edge = QUARTER[edge]; }
    return { x: x * W + gap / 2, y: y * H + gap / 2, w: w * W - gap, h: h * H - gap, rot: TURN[edge] };
  });
  const need = { w: EDGE_LEAST.w, h: COMPACT.h + extra };
  return slots.every((s) => roomFor(s, need)) ? slots : null;
}

// A grid of ``n`` panels in a W×H area: the number of columns that gives the largest
// panels (content of a compact panel at least); the upper half turned to face across.
// ``scroll`` lets the grid grow taller than the area (it scrolls).
function gridSlots(n, W, H, gap, turnTop, need, scroll) {
  let best = null;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = W / cols - gap;
    const fits = H / rows - gap >= heightFor(need, w);
    // (A grid that scrolls anyway gives its totals some more room.)
    const h = Math.max(H / rows - gap, scroll ? heightFor(need, w) + 40 : 0);
    if (w < need.w) break;
    if (h < heightFor(need, w)) continue;
    // Panels on one screen: the largest; a grid that scrolls: the fewest rows.
    // (A compact panel's total is as wide as its row allows: width counts more.)
    const score = fits ? Math.min(w, h * (need.full ? 1.5 : 2.5)) : -rows * 10000 + w;
    if (!best || score > best.score) best = { cols, rows, w, h, score };
  }
  if (!best) return null;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = Math.floor(i / best.cols);
    const col = i % best.cols;
    const top = turnTop && row < Math.floor(best.rows / 2);
    out.push({ x: col * (best.w + gap) + gap / 2, y: row * (best.h + gap) + gap / 2, w: best.w, h: best.h, rot: top ? 180 : 0 });
  }
  return out;
}

// Table mode: panels around the edges facing their players; many players, a dense grid.
function tableSlots(n, W, H, gap, extra) {
  const edges = edgeSlots(n, W, H, gap, extra);
  if (edges) return edges;
  const need = { w: COMPACT.w, h: COMPACT.h + extra };
  return gridSlots(n, W, H, gap, true, need, false) || gridSlots(n, W, H, gap, true, need, true);
}

// A personal phone: its own panel first and biggest (the top part, or the left part of a
// wide screen), the others in a grid; a grid too small for a whole panel scrolls.
const OWN_LIFE = 80;
function phoneSlots(n, W, H, gap, extra, own, rows, heads) {
  const need = { w: FULL.w, h: FULL.h + extra, full: true, cmds: rows.cmds, chips: rows.chips };
  if (own === null || n < 2) {
    return gridSlots(n, W, H, gap, false, need, false) || gridSlots(n, W, H, gap, false, need, true);
  }
  const wide = W > H * 1.2;
  const own0 = (x, y, w, h) => ({ x: x + gap / 2, y: y + gap / 2, w: w - gap, h: h - gap, rot: 0 });
  // The own panel's total is the biggest number on the screen: its life row gets OWN_LIFE
  // more than a whole panel needs.
  const mine = Object.assign({}, need, { h: need.h + OWN_LIFE });
  // The own panel takes the largest share that leaves the others whole panels, else (up to
  // eight players) compact ones.
  const small = { w: COMPACT.w, h: COMPACT.h + heads };
  // Commander rows stay on every panel of a personal phone (it scrolls rather than hide them).
  // (Everyone on one screen first: the own life row's bonus gives way before that.)
  const tries = [];
  for (const own of [mine, need]) for (const others of n <= 8 && !rows.cmds ? [need, small] : [need]) tries.push([own, others]);
  for (const [own, others] of tries) {
    for (const share of n === 2 ? [0.5] : n <= 4 ? [0.45, 0.4, 0.35, 0.3] : n <= 6 ? [0.4, 0.35, 0.3] : [0.3]) {
      if (wide) {
        const ow = Math.round(W * share);
        const rest = ow - gap >= need.w && H - gap >= heightFor(own, ow - gap) && gridSlots(n - 1, W - ow, H, gap, false, others, false);
        if (rest) return [own0(0, 0, ow, H), ...rest.map((s) => Object.assign(s, { x: s.x + ow }))];
      } else {
        const oh = Math.round(H * share);
        const rest = oh - gap >= heightFor(own, W - gap) && W - gap >= need.w && gridSlots(n - 1, W, H - oh, gap, false, others, false);
        if (rest) return [own0(0, 0, W, oh), ...rest.map((s) => Object.assign(s, { y: s.y + oh }))];
      }
    }
  }
  if (!wide && W - gap >= need.w) {
    // Too many for one screen: the own panel on top, the others below, scrolled to.
    const oh = Math.max(heightFor(mine, W - gap) + gap, Math.round(H * 0.38));
    const below = gridSlots(n - 1, W, H - oh, gap, false, need, true);
    if (below) return [own0(0, 0, W, oh), ...below.map((s) => Object.assign(s, { y: s.y + oh }))];
  }
  return gridSlots(n, W, H, gap, false, need, true);
}

// The classes placePanels gives a panel, which it sets again each time it lays them out (a
// render keeps them on a panel it updates in place: render.js).
export const PLACED = ["compact", "wide", "cmd-inline"];

// Put the panels of #panels in their slots: each is sized before turning and centred on its
// slot, then turned; a panel smaller than a whole one is compact.
export function placePanels(box, table, ownIndex, bonus) {
  const panels = [...box.children].filter((el) => el.classList.contains("panel"));
  for (const el of panels) el.classList.remove(...PLACED);
  const n = panels.length;
  if (!n) return;
  const gap = 6;
  const W = box.clientWidth - gap;
  const H = box.clientHeight - gap;
  if (W <= 0 || H <= 0) return;
  // The rows a whole panel adds (panel.js): a team's heads, a row of commanders per head, and
  // pinned counters beside poison.
  const rowsOf = (p) => Math.max(0, p.querySelectorAll(".parts .ctr").length - 1) * 24;
  const cmdsOf = (p) => p.querySelectorAll(".cmds").length;
  const chipsOf = (p) => Math.max(0, ...[...p.querySelectorAll(".cmds")].map((r) => r.querySelectorAll(".cmd").length));
  const rows = { cmds: Math.max(0, ...panels.map(cmdsOf)), chips: Math.max(0, ...panels.map(chipsOf)) };
  const extraOf = (p) => (p.querySelector(".heads") ? TEAM_EXTRA : 0) + rowsOf(p);
  const extra = Math.max(0, ...panels.map(extraOf)) + (bonus || 0);
  const heads = panels.some((p) => p.querySelector(".heads")) ? TEAM_EXTRA : 0;
  const slots = table ? tableSlots(n, W, H, gap, heads) : phoneSlots(n, W, H, gap, extra, ownIndex, rows, heads);
  if (!slots) return;
  let bottom = 0;
  slots.forEach((s, i) => {
    const el = panels[i];
    const u = upright(s);
    el.style.width = `${u.w}px`;
    el.style.height = `${u.h}px`;
    el.style.left = `${gap / 2 + s.x + (s.w - u.w) / 2}px`;
    el.style.top = `${gap / 2 + s.y + (s.h - u.h) / 2}px`;
    const rot = (s.rot + (el.classList.contains("turned") ? 180 : 0)) % 360;
    el.style.transform = rot ? `rotate(${rot}deg)` : "";
    el.dataset.facing = String(rot);
    el.classList.toggle("compact", !roomFor(s, { w: FULL.w, h: FULL.h + extraOf(el), full: true, cmds: cmdsOf(el), chips: chipsOf(el) }));
    // A long, low compact panel keeps its name and buttons beside the total, not above it.
    el.classList.toggle("wide", u.w >= 2.4 * u.h);
    bottom = Math.max(bottom, s.y + s.h + gap);
  });
  let filler = box.querySelector(".filler");
  if (bottom > H + gap + 1) {
    if (!filler) { filler = document.createElement("div"); filler.className = "filler"; box.append(filler); }
    filler.style.top = `${bottom}px`;
  } else if (filler) filler.remove();
  box.classList.toggle("scrolls", bottom > H + gap + 1);
  box.classList.add("placed");
  box.dataset.placed = `${box.clientWidth}x${box.clientHeight}`; // the size laid out for
  // A whole panel whose controls don't fit after all (commander rows that wrap, pinned
  // counters: panel.js): a personal phone lays the panels out again that much taller (it
  // may scroll); the table device makes it compact (what it leaves out is in ⋯).
  const over = Math.max(0, ...panels.filter((el) => !el.classList.contains("compact")).map((el) => el.scrollHeight - el.clientHeight));
  if (!table && over > 1 && !bonus) { placePanels(box, table, ownIndex, over + 4); return; }
  for (const el of panels) {
    if (!el.classList.contains("compact") && el.scrollHeight > el.clientHeight + 1) el.classList.add("compact");
  }
  // The table device: a compact panel's commander chips beside its name (issue 25 item 3).
  if (table) for (const el of panels) el.classList.toggle("cmd-inline", el.classList.contains("compact") && n <= CMD_INLINE_MAX);
  watchTotals(box);
  watchShared();
  const sizes = fitTotals(box, table, ownIndex);
  // The table device: a whole panel whose total is much smaller than the others' (its
  // controls take the room) is made compact, to keep the totals even (what it leaves is in ⋯).
  if (table) {
    const most = Math.max(...sizes);
    const small = panels.filter((el, i) => !el.classList.contains("compact") && sizes[i] < EVEN * most);
    if (small.length && small.length < panels.length) {
      small.forEach((el) => el.classList.add("compact"));
      small.forEach((el) => el.classList.toggle("cmd-inline", n <= CMD_INLINE_MAX));
      fitTotals(box, table, ownIndex);
    }
    foldCommanders(box, panels, table, ownIndex);
  }
}

// Up to six players every compact panel of the table device shows its commander chips (one
// tap: 1 combat damage from that commander, panel.js); a panel where they would overflow it or
// leave its total under CMD_LEAST px folds them into its ⚔ (two taps), and so do all panels
// beyond six players.
const CMD_INLINE_MAX = 6;
const CMD_LEAST = 44;
function foldCommanders(box, panels, table, ownIndex) {
  const inline = panels.filter((el) => el.classList.contains("cmd-inline"));
  if (!inline.length) return;
  const cramped = (el) => {
    const life = el.querySelector(".life");
    return el.scrollHeight > el.clientHeight + 1 || !el.querySelector(".cmd-top")
      || (life && parseFloat(life.style.fontSize || "0") < CMD_LEAST);
  };
  const folded = inline.filter(cramped);
  if (!folded.length) return;
  folded.forEach((el) => el.classList.remove("cmd-inline"));
  fitTotals(box, table, ownIndex);
}

// ---------------------------------------------------------------- the totals

// Each life total as large as its place allows, and set apart from the − and + (issue 17):
// the signs are small, light and at the panel's edges, at least GAP of the total's size from
// its digits. On the table device no total is less than EVEN of the biggest (a panel whose
// total would be is made compact); on a personal phone the own total is the biggest.
const GAP = 0.22;
const EVEN = 0.62;
const OWN_BIGGEST = 0.86; // the others' totals at most this much of the own one
function signSize(size) { return Math.round(Math.min(36, Math.max(18, size * 0.3))); }
// The width of ``text`` in ``el``'s face at ``px``. Its weight and family are read once per
// element and class list (a style read forces the page's layout: a tap measures a total).
let measurer = null;
const faces = new WeakMap();
export function textWidth(el, text, px) {
  measurer = measurer || document.createElement("canvas").getContext("2d");
  let face = faces.get(el);
  if (!face || face.cls !== el.className) {
    const st = getComputedStyle(el);
    face = { cls: el.className, weight: st.fontWeight, family: st.fontFamily };
    faces.set(el, face);
  }
  measurer.font = `${face.weight} ${px}px ${face.family}`;
  return measurer.measureText(text).width;
}
function fitTotal(life) {
  const row = life.parentElement;
  const w = row.clientWidth;
  const hgt = row.clientHeight;
  if (!w || !hgt) return 0;
  const text = life.textContent.trim() || "0";
  // The width of the digits per px of font size (two digits at least: 9 → 10 keeps its size);
  // a negative total's box adds its padding.
  let per = Math.max(textWidth(life, text, 100), textWidth(life, "00", 100)) / 100;
  if (life.classList.contains("negative")) per += 0.36;
  const tap = row.querySelector(".tap");
  const pad = tap ? parseFloat(getComputedStyle(tap).paddingLeft) || 0 : 8;
  const span = tap && tap.querySelector("span");
  let size = hgt * 0.86;
  for (let i = 0; i < 3; i++) {
    const sign = span ? textWidth(span, "+", signSize(size)) : 0;
    const side = pad + sign + Math.max(8, size * GAP) + 2;
    size = Math.min(hgt * 0.86, (w - 2 * side) / per);
  }
  return Math.max(16, Math.floor(size));
}
let lastFit = { table: false, own: null };
function fitTotals(box, table, ownIndex) {
  if (table === undefined) ({ table, own: ownIndex } = lastFit);
  lastFit = { table, own: ownIndex };
  const lives = [...box.querySelectorAll(".panel .life")];
  lives.forEach((life) => { dressTotal(life); life.dataset.chars = String(life.textContent.length); });
  let sizes = lives.map(fitTotal);
  const shown = sizes.filter(Boolean);
  if (table && shown.length > 1) {
    const least = Math.min(...shown);
    sizes = sizes.map((z) => Math.min(z, Math.floor(least / EVEN)));
  }
  const own = ownIndex === null || ownIndex === undefined ? -1 : ownIndex;
  if (own >= 0 && sizes[own]) sizes = sizes.map((z, i) => (i === own ? z : Math.min(z, Math.floor(sizes[own] * OWN_BIGGEST))));
  lives.forEach((life, i) => {
    if (!sizes[i]) return;
    life.style.fontSize = `${sizes[i]}px`;
    life.parentElement.style.setProperty("--sign", `${signSize(sizes[i])}px`);
  });
  return sizes;
}

// A total as it is read (issue 17): a negative total keeps its minus against its digits, in a
// box, so it can't be taken for the panel's − (a real −4 and "− 4" look different); its label
// names the player ("Ana: −4 life").
function dressTotal(life) {
  const raw = life.textContent.trim();
  const negative = /^[-\u2212]\d/.test(raw);
  const text = negative ? "\u2212" + raw.slice(1) : raw;
  if (text !== raw) life.textContent = text;
  life.classList.toggle("negative", negative);
  const panel = life.closest(".panel");
  const name = panel ? (panel.querySelector(".pname") || {}).textContent || "" : "";
  life.setAttribute("role", "img");
  const n = text.replace("\u2212", "-");
  const said = tn("{n} life", "{n} life", /^-?\d+$/.test(n) ? n : 2, { n: text });
  life.setAttribute("aria-label", name ? t("{name}: {life}", { name, life: said }) : said);
}

// Every total dressed (a render that laid no panel out again: render.js).
export function dressTotals(box) {
  for (const life of box.querySelectorAll(".panel .life")) dressTotal(life);
}

// Totals changed in place (an instant tap, taps.js) are dressed and fitted again at once.
let totalsWatch = null;
function watchTotals(box) {
  if (totalsWatch) return;
  totalsWatch = new MutationObserver((records) => {
    let refit = false;
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const life = el && el.closest ? el.closest(".life") : null;
      if (!life) continue;
      const before = life.textContent.length;
      dressTotal(life);
      if (life.dataset.chars !== String(before)) refit = true;
      life.dataset.chars = String(life.textContent.length);
    }
    if (refit) fitTotals(box);
  });
  totalsWatch.observe(box, { childList: true, characterData: true, subtree: true });
}

// ---------------------------------------------------------------- overlays

// On the table device an overlay for one player (the ⋯ sheet, the commander-amount sheet, a
// toast, a choice, the game-over banner) is drawn for the edge that player sits at: turned
// as their panel is (style.css, [data-facing]). Elsewhere, and for nobody, it is upright.
export function facingOf(pid) {
  if (!pid || !document.body.querySelector("#panels.table-mode")) return 0;
  for (const p of document.querySelectorAll("#panels .panel")) {
    const ids = [p.dataset.unit, ...(p.dataset.heads || "").split(" ")];
    if (ids.includes(pid)) return Number(p.dataset.facing || 0);
  }
  return 0;
}
export function faceOverlay(el, pid) {
  if (!el) return;
  const deg = facingOf(pid);
  if (deg) el.dataset.facing = String(deg); else delete el.dataset.facing;
}

// ---------------------------------------------------------------- shared overlays

// What is for everyone reads from every seat (issue 25 item 6): on the table device the
// game-over banner and a loss's toast face the player they are for (faceOverlay), and a copy
// of their words faces the opposite edge (#banner-mirror, #toast-mirror: words only, hidden
// from screen readers, taps go through). A banner for nobody in particular lies at the bottom
// edge, its copy at the top: in a two-player game both players read the result.
let sharedWatch = null;
function watchShared() {
  if (sharedWatch) return;
  const banner = document.getElementById("banner");
  const toastEl = document.getElementById("toast");
  if (!banner || !toastEl) return;
  // Never two at one edge: once the game is over the banner and its copy take both edges (a
  // loss's toast, which says the result too, is not copied, and the banner's copy waits for
  // a toast at its edge to go).
  sharedWatch = new MutationObserver(() => {
    const over = !banner.classList.contains("hidden");
    const toastAt = toastEl.classList.contains("hidden") ? null : Number(toastEl.dataset.facing || 0);
    mirrorOverlay(toastEl, "toast-mirror", "toast loss mirror", null, toastEl.classList.contains("loss") && !over);
    const copyAt = (Number(banner.dataset.facing || 0) + 180) % 360;
    mirrorOverlay(banner, "banner-mirror", "banner mirror", ".over-text, .match", toastAt !== copyAt);
  });
  const what = { attributes: true, attributeFilter: ["class", "data-facing"], childList: true, subtree: true, characterData: true };
  sharedWatch.observe(banner, what);
  sharedWatch.observe(toastEl, what);
}
function mirrorOverlay(el, id, cls, parts, forAll) {
  let copy = document.getElementById(id);
  const shown = forAll && MODE === "play" && S.device === "table" && !el.classList.contains("hidden");
  if (!shown) { if (copy) copy.classList.add("hidden"); return; }
  if (el.id === "banner" && !el.dataset.facing) el.dataset.facing = "0"; // at the bottom edge
  if (!copy) {
    copy = h("div", { id, class: cls, "aria-hidden": "true" });
    el.after(copy);
  }
  const words = parts ? [...el.querySelectorAll(parts)].map((x) => x.cloneNode(true)) : [el.textContent];
  copy.replaceChildren(...words);
  copy.dataset.facing = String((Number(el.dataset.facing || 0) + 180) % 360);
  copy.classList.remove("hidden");
}
