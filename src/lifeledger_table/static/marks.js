// Designations on the panels (record version 2): the monarch (725), the initiative (726) and the
// city's blessing (702.131c), shown on the panel of the player who holds them (under
// Two-Headed Giant, on that head: a designation is a player's, not a team's), and given from a
// player's ⋯ sheet. And the controller that combat damage names (725.2, 726.2: combat damage to
// the monarch, or to the player with the initiative, passes it to the creature's controller).
// Loaded after common.js and before table.js; it uses table.js's globals (S, MODE, act,
// header, playerState, teamOf...) only when its functions are called.
//
// The page decides no rule: what a panel shows is the engine's state (designations), and each
// button sends a record action (become_monarch, take_initiative, city_blessing).

import { t } from "./i18n.js";
import { h } from "./common.js";
import { buildCmdSheet } from "./panel.js";
import { header, MODE, playerState, S, teamOf } from "./state.js";
import { act } from "./connection.js";

// Each designation a player can hold: its state member, its mark, and its rule.
const MARKS = [
  {
    key: "monarch", icon: "♛", text: () => t("Monarch"), rule: "725",
    holds: (n) => t("{name} is the monarch", { name: n }),
    short: () => t("the monarch"),
    title: () => t("The monarch (725): draws a card at the beginning of their end step; combat damage to them makes the creature's controller the monarch (725.2)"),
  },
  {
    key: "initiative", icon: "⚔", text: () => t("Initiative"), rule: "726",
    holds: (n) => t("{name} has the initiative", { name: n }),
    short: () => t("the initiative"),
    title: () => t("The initiative (726): ventures into Undercity; combat damage to them passes it to the creatures' controller (726.2)"),
  },
  {
    key: "city_blessing", icon: "♜", text: () => t("City's blessing"), rule: "702.131c",
    holds: (n) => t("{name} has the city's blessing", { name: n }),
    short: () => t("the city's blessing"),
    title: () => t("The city's blessing (702.131c): for the rest of the game; any number of players may have it"),
  },
];

// The game's designations, as the engine's state has them (a version-1 table has none: null).
function designations() {
  const d = S.state && S.state.designations;
  return d && typeof d === "object" ? d : null;
}

// The designations player ``pid`` holds, in MARKS's order.
function marksOf(pid) {
  const d = designations();
  if (!d) return [];
  return MARKS.filter((m) => (m.key === "city_blessing" ? (d.city_blessing || []).includes(pid) : d[m.key] === pid));
}

// One mark: its sign and word (the word gives way on a narrow or compact panel), said whole to
// screen readers with its rule.
function markEl(pid, m, onHead) {
  const label = onHead ? `${m.short()} (${m.rule})` : `${m.holds(S.names.of(pid))} (${m.rule})`;
  return h("span", { class: `mark ${m.key.replace("_", "-")}`, "data-mark": m.key, role: "img", "aria-label": label, title: m.title() },
    h("span", { class: "mark-icon", "aria-hidden": "true" }, m.icon),
    h("span", { class: "mark-text", "aria-hidden": "true" }, m.text()));
}

// The marks on a player's panel (its top line, beside the name), or null. A team's panel shows
// its heads' marks on the heads (headMarks).
export function panelMarks(u) {
  if (u.kind === "team") return null;
  const list = marksOf(u.id);
  if (!list.length) return null;
  return h("span", { class: "marks", "data-marks": u.id }, ...list.map((m) => markEl(u.id, m, false)));
}

// The marks on a head's button (Two-Headed Giant): the designation is the head's (725.1: a
// player). Empty when the head holds none.
export function headMarks(hid) {
  const list = marksOf(hid);
  return list.length ? [h("span", { class: "marks", "data-marks": hid }, ...list.map((m) => markEl(hid, m, true)))] : [];
}

// ---------------------------------------------------------------- the ⋯ sheet

// The ⋯ sheet's designations for ``pid`` (a version-2 table only): what they hold, and the
// actions an effect takes on them. Any seat may record them (an effect instructs the player,
// 725.1, 726.1; ascend is no choice, 702.131a-b): docs/table.md, "Who may do what".
export function designationSection(pid) {
  const d = designations();
  const p = playerState(pid);
  if (!d || MODE !== "play" || !p || p.status !== "playing") return null;
  const who = S.names.of(pid);
  const button = (key, icon, text, action) => h("button", { "data-sheet": key, onclick: () => act(action) },
    h("span", { "aria-hidden": "true" }, icon + " "), text);
  const buttons = [];
  // 725.3: becoming the monarch again changes nothing; 726.5: taking the initiative again
  // triggers again (it ventures), so it stays offered.
  if (d.monarch !== pid) buttons.push(button("monarch", "♛", t("Becomes the monarch"), { do: "become_monarch", player: pid }));
  buttons.push(button("initiative", "⚔", d.initiative === pid ? t("Takes the initiative again") : t("Takes the initiative"), { do: "take_initiative", player: pid }));
  // 702.131a-b: "if you don't have the city's blessing": once they have it, it isn't offered.
  if (!(d.city_blessing || []).includes(pid)) buttons.push(button("blessing", "♜", t("Gets the city's blessing"), { do: "city_blessing", player: pid }));
  const held = marksOf(pid);
  return h("div", { class: "sec designations" },
    h("h3", {}, t("Designations")),
    h("p", { class: "muted", "data-holds": pid }, held.length ? held.map((m) => `${m.holds(who)} (${m.rule}).`).join(" ") : t("{name} has no designation.", { name: who })),
    h("div", { class: "row" }, ...buttons),
    h("p", { class: "muted" }, t("Combat damage to the monarch or the player with the initiative passes it to the creature's controller (725.2, 726.2); when its holder leaves the game, the active player gets it (725.4, 726.4).")));
}

// ---------------------------------------------------------------- who controls the damage

// The active players, once the record takes turns (102.1; 805.4: a team's turn), else none.
function activePlayers() {
  const t = S.state && S.state.turn;
  return t && Array.isArray(t.active) ? t.active : [];
}

// Whether ``a`` is an opponent of ``b`` (another player, on no team with them).
function opposes(a, b) {
  if (a === b) return false;
  const ta = teamOf(a);
  return !(ta && ta === teamOf(b));
}

// Whose creature deals combat damage to ``to`` when the page has nothing better to go on: the
// active player (506.2: the attacking player is the active player), if an opponent of ``to``;
// null when no turn is being taken (then the page asks).
function defaultController(to) {
  return activePlayers().find((p) => opposes(p, to)) || null;
}

// The controller commander ``c`` (``owner``'s) deals combat damage as: its owner, who is an
// opponent of ``to``; a player's own or a teammate's commander has changed control (a creature
// deals no combat damage to its controller or their team), so then the active player; null if
// there is no way to know.
export function commanderController(owner, to) {
  return opposes(owner, to) ? owner : defaultController(to);
}

// The ⋯ sheet's "controlled by" field: every other player, the active player chosen when the
// record takes turns, else nobody yet (the page asks before combat damage is sent).
export function controllerSelect(pid) {
  const def = defaultController(pid);
  return h("select", { id: "sh-controller", "aria-label": t("Controlled by") },
    h("option", { value: "" }, t("controlled by…")),
    ...header().players.filter((o) => o.id !== pid).map((o) => h("option", { value: o.id, selected: o.id === def || null }, S.names.of(o.id))));
}

// The controller the ⋯ sheet's damage names, or null; throws an Error naming the field when
// combat damage or lifelink needs one and none is chosen.
export function sheetController(select, combat, lifelink) {
  const value = select.value;
  if (value || !(combat || lifelink)) return value || null;
  throw new Error(combat
    ? t("Controlled by: whose creature dealt the combat damage? (725.2, 726.2: the monarch and the initiative pass to its controller)")
    : t("Controlled by: who controls the source with lifelink? (702.15b)"));
}

// The commander-damage sheet's question (panel.js), when the commander's controller can't be
// known (commanderController is null): a pick of each opponent of ``to``. S.cmdSheet.controller
// holds the answer.
export function cmdControllerPicks(to, owner) {
  if (commanderController(owner, to)) return null;
  const chosen = S.cmdSheet && S.cmdSheet.controller;
  return h("div", { class: "picks ctl-picks", role: "group", "aria-label": t("Controlled by") },
    h("p", { class: "muted" }, t("Whose creature is it now? Combat damage names its controller (725.2, 726.2).")),
    ...header().players.filter((o) => opposes(o.id, to)).map((o) => h("button", {
      class: "pick", "data-controller": o.id, "aria-pressed": String(o.id === chosen),
      onclick: () => { S.cmdSheet.controller = o.id; buildCmdSheet(); },
    }, t("Controlled by {name}", { name: S.names.of(o.id) }))));
}

// The controller the commander-damage sheet sends, or throws an Error naming the question.
export function cmdSheetController(to, owner) {
  const known = commanderController(owner, to) || (S.cmdSheet && S.cmdSheet.controller);
  if (!known) throw new Error(t("Controlled by: pick whose creature dealt the combat damage (725.2, 726.2)."));
  return known;
}
