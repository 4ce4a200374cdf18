// The table page's history drawer and its Undo: the records' links, the timeline, what Undo
// takes back and the cards that ask or confirm it.

import { formatNumber, lang, said, sentence, t, tn } from "./i18n.js";
import { counterKind, describe, describeChange, h, showAmount } from "./common.js";
import { DeviceTables } from "./device.js";
import { colourName, PALETTE } from "./seating.js";
import { facingOf } from "./layout.js";
import { TAPS } from "./taps.js";
import { heldSeats, shortName } from "./panel.js";
import { KEY, MODE, ON_DEVICE, S, undoneSeqs } from "./state.js";
import { $, close, toast } from "./toasts.js";
import { request, send } from "./connection.js";
import { renderMenu } from "./sheets.js";

function recordUrl(n) {
  return MODE === "play" ? `/api/tables/${KEY}/games/${n}/record` : `/api/watch/${KEY}/games/${n}/record`;
}

// A link that downloads game n's record: the server's, or the one the device's engine writes.
export function recordLink(n, label) {
  if (!ON_DEVICE) return h("a", { class: "button", href: recordUrl(n), download: "" }, label);
  return h("a", { class: "button", href: "#", onclick: async (e) => {
    e.preventDefault();
    try {
      const url = URL.createObjectURL(new Blob([await DeviceTables.record(KEY, n)], { type: "application/json" }));
      const a = h("a", { href: url, download: `lifeledger-game-${n}.json` });
      document.body.append(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (ex) { toast(said(ex.data, S.names) || ex.message, "bad"); }
  } }, label);
}

// ---------------------------------------------------------------- history

function seatName(seat) { return seat ? t("by {name}", { name: S.names.of(seat) }) : "—"; } // the seat that sent it, on any device

// What sent a change (issue 17 item 11): the table device ("the table"), else the seat's phone.
function byWhom(e) { return e.device === "table" ? t("the table") : e.seat ? S.names.of(e.seat) : t("nobody"); }
// "Cy loses 7 life, by Ana"; the table device's its own sentence (issue 25 item 14: Italian
// says "dal tavolo", not "da il tavolo", so "by the table" is never "by" + "the table").
export function actionBy(e, action) {
  return e.device === "table" ? t("{action}, by the table", { action }) : t("{action}, by {who}", { action, who: byWhom(e) });
}
function sentBy(e) { return e.device === "table" ? t("by the table") : seatName(e.seat); }
// An undo of another seat's change says who allowed it.
export function allowedBy(e) {
  if (!e.allowed) return "";
  return " " + (e.allowed === "host" ? t("(allowed by the host)") : t("(allowed by {name})", { name: S.names.of(e.allowed) }));
}

// ---------------------------------------------------------------- undo, named

// A change as the Undo button says it: "Cy −7", "Bo +1 poison"; else the history's sentence.
function shortAction(a) {
  if (!a) return "";
  const n = (id) => S.names.of(id);
  const amt = (x) => showAmount(x, S.names);
  switch (a.do) {
    case "lose_life": return `${n(a.player)} \u2212${amt(a.amount)}`;
    case "gain_life": return `${n(a.player)} +${amt(a.amount)}`;
    case "pay_life": return a.payments ? describe(a, S.names) : t("{name} pays {amount}", { name: n(a.player), amount: amt(a.amount) });
    case "damage": return `${n(a.to)} \u2212${amt(a.amount)}${a.source ? ` (${shortName(n(a.source))})` : ""}`;
    case "add_counters": return `${n(a.player)} +${amt(a.amount)} ${counterKind(a.kind)}`;
    case "remove_counters": return `${n(a.player)} \u2212${amt(a.amount)} ${counterKind(a.kind)}`;
    default: return describe(a, S.names);
  }
}

// Starting over (issue 17 item 3): a reset or a new game, as the Undo button and the history
// say it. The game left unfinished is not scored; the new one is the entry's game.
export function startOverName(e) { return e.kind === "reset" ? t("Reset") : t("New game"); }
function startOverText(e) {
  return e.kind === "reset"
    ? t("↺ Reset: the game starts over (game {game}; game {before} left unfinished, not scored)", { game: e.game, before: e.game - 1 })
    : t("New game: game {before} left unfinished (not scored), game {game} begins", { game: e.game, before: e.game - 1 });
}

// A change of a player's name or colour (issue 17 item 2), as the history says it.
function setupText(e) {
  const c = e.setup || {};
  const parts = [];
  if (c.name) parts.push(t("{old} is now {name}", { old: c.name.from, name: c.name.to }));
  if (c.colour) parts.push(t("{name}'s colour changed", { name: c.name ? c.name.to : S.names.of(c.player) }));
  return parts.join("; ") || t("Names and colours");
}

// The ⋯ sheet's "Name and colour" (issue 17 item 2): a quick game's "Player 1" becomes Ana.
// Each is sent as a "setup" change, checked by the server (a refusal names the field).
export function nameSection(pid) {
  const name = h("input", { id: "sh-name", type: "text", value: S.names.of(pid), maxlength: 40, autocomplete: "off", "aria-label": t("Name") });
  const save = h("button", {
    "data-sheet": "rename",
    onclick: () => {
      const value = name.value.trim();
      if (!value) { toast(t("Name: type a name."), "bad"); return; }
      if (value.length > 40) { toast(t("Name: at most 40 characters."), "bad"); return; }
      if (/[<>]/.test(value)) { toast(t("Name: no < or >."), "bad"); return; }
      if (value === S.names.of(pid)) { toast(t("{name} is the name already.", { name: value }), "bad"); return; }
      request("setup", null, { player: pid, name: value });
    },
  }, t("Rename"));
  const mine = S.colours ? S.colours[pid] : undefined;
  const swatches = PALETTE.map((colour, i) => {
    const owner = Object.keys(S.colours || {}).find((id) => id !== pid && S.colours[id] === i);
    const b = h("button", {
      class: "swatch", "data-swatch": i, "aria-pressed": String(mine === i),
      "aria-label": owner ? t("{colour}: {name}'s", { colour: colourName(colour), name: S.names.of(owner) }) : colourName(colour),
      disabled: owner || mine === i ? true : null,
      onclick: () => request("setup", null, { player: pid, colour: i }),
    }, mine === i ? "✓" : "");
    Object.assign(b.style, { background: colour.bg, color: "#fff", minWidth: "44px", minHeight: "44px", padding: "0", opacity: owner ? "0.35" : "1" });
    return b;
  });
  return h("div", { class: "sec" },
    h("h3", {}, t("Name and colour")),
    h("div", { class: "row" }, name, save),
    h("div", { class: "row", role: "group", "aria-label": t("{name}'s colour", { name: S.names.of(pid) }) }, ...swatches));
}

// The menu's "Reset game" and "New game": one more tap confirms (S.startOver: the one asked).
export function startOverItems() {
  if (MODE !== "play" || !(S.seat || S.seats.length) || !S.state || S.state.over) return [];
  const items = [h("h3", {}, t("This game"))];
  const asked = S.startOver;
  if (!asked) {
    items.push(h("button", { "data-menu": "reset", onclick: () => { S.startOver = "reset"; renderMenu(); } }, t("Reset game…")));
    items.push(h("button", { "data-menu": "new-game", onclick: () => { S.startOver = "new_game"; renderMenu(); } }, t("New game…")));
    return items;
  }
  const question = asked === "reset"
    ? t("Start this game over from its beginning, with the same players? Every total goes back to its start. The game so far is not scored; Undo brings it back.")
    : t("End this game unfinished and begin the next, with the same players? The game so far is not scored; Undo brings it back.");
  items.push(h("p", { id: "start-over-text", role: "alert" }, question));
  items.push(h("div", { class: "row" },
    h("button", { class: "primary", "data-confirm": asked, onclick: () => { S.startOver = null; close("menu"); request(asked); } }, asked === "reset" ? t("Reset the game") : t("Begin a new game")),
    h("button", { "data-menu": "keep-playing", onclick: () => { S.startOver = null; renderMenu(); } }, t("Keep playing"))));
  return items;
}

// The Undo button names what it takes back (issue 17 item 10): "Undo: Cy −7, by Ana". Another
// seat's change is asked of them (or the host): the button says whose it is.
export function renderUndo() {
  const btn = $("undo-btn");
  if (!btn || MODE !== "play") return;
  const canAct = !!S.seat || S.seats.length > 0;
  const aim = undoAim();
  btn.disabled = !(canAct && (S.canUndo || aim.own || !!TAPS.run));
  let text = t("Undo");
  let title = t("Nothing to undo");
  if (TAPS.run && TAPS.run.net) {
    text = t("Undo: {what}", { what: `${S.names.of(TAPS.run.player)} ${TAPS.run.net < 0 ? "\u2212" : "+"}${formatNumber(Math.abs(TAPS.run.net))}` });
    title = t("{undo} (not sent yet)", { undo: text });
  } else if (aim.own && aim.target !== S.undoTarget) {
    // This seat's own last change, under later ones: those are made again after it.
    const e = S.entries.find((x) => x.seq === aim.target);
    text = e ? t("Undo: {what}", { what: shortAction(e.action) }) : t("Undo event {n}", { n: String(aim.target) });
    title = t("{undo}: the changes made after it are made again", { undo: text });
  } else if (S.canUndo) {
    const e = S.entries.find((x) => x.seq === S.undoTarget);
    const what = e ? (e.action ? shortAction(e.action) : startOverName(e)) : "";
    if (!e) title = t("Undo event {n}", { n: String(S.undoTarget) });
    else if (e.seat && heldSeats().has(e.seat)) { text = t("Undo: {what}", { what }); title = `${text} (${sentBy(e)})`; }
    else if (e.device === "table") { text = t("Undo: {what}, by the table", { what }); title = t("{undo}: asks the table (or the host) to allow it", { undo: text }); }
    else { text = t("Undo: {what}, by {who}", { what, who: byWhom(e) }); title = t("{undo}: asks {who} (or the host) to allow it", { undo: text, who: byWhom(e) }); }
  }
  if (btn.dataset.text !== text) {
    btn.dataset.text = text;
    btn.textContent = `\u21b6 ${text}`;
  }
  btn.title = title;
  btn.setAttribute("aria-label", title);
}

// Another seat asks to take back this seat's change (or, on the host's phone, anyone's): one
// question at a time, while it is still the change Undo would take back. Issue 25 item 5: a
// card, not a dialog: play goes on around it (no backdrop, the panels and the bar stay
// tappable), it sits under the bars (toasts are at the bottom), above anything a toast could
// put over it, and on a table device it is turned to the seat asked, as its panel is.
const UNDO_ASK_Z = "52"; // above the toasts' 50 (style.css): a toast never covers Allow or Keep
function undoAskEl() {
  let el = $("undo-ask");
  if (el) return el;
  el = h("div", { id: "undo-ask", class: "undo-ask hidden", role: "dialog", "aria-modal": "false", "aria-labelledby": "undo-ask-title", "aria-describedby": "undo-ask-text" },
    h("strong", { id: "undo-ask-title" }, t("Undo is asked for")),
    h("p", { id: "undo-ask-text", class: "ask-text" }),
    h("div", { id: "undo-ask-buttons", class: "row ask-buttons" }));
  Object.assign(el.style, {
    position: "fixed", zIndex: UNDO_ASK_Z, width: "min(480px, 94vw)", maxHeight: "40vh", overflow: "auto",
    boxSizing: "border-box", padding: "10px 0", background: "var(--card)", border: "1px solid var(--warn)",
    borderRadius: "12px", boxShadow: "0 6px 24px rgba(0,0,0,.6)",
  });
  el.firstChild.style.padding = "0 14px";
  document.body.append(el);
  return el;
}

// Where the card goes: on a table device, over the asked seat's own panel and turned as it is
// (facingOf, layout.js), so that every other panel stays free; else under the header's bars.
function placeUndoAsk(el, pid) {
  const deg = facingOf(pid);
  const panel = [...document.querySelectorAll("#panels.table-mode .panel")]
    .find((p) => [p.dataset.unit, ...(p.dataset.heads || "").split(" ")].includes(pid));
  if (panel) {
    el.dataset.facing = String(deg);
    const r = panel.getBoundingClientRect();
    const across = deg === 90 || deg === 270;
    Object.assign(el.style, {
      left: `${Math.round(r.left + r.width / 2)}px`, top: `${Math.round(r.top + r.height / 2)}px`,
      width: `${Math.round(Math.min(480, (across ? r.height : r.width) - 12))}px`,
      maxHeight: `${Math.round((across ? r.width : r.height) - 12)}px`,
      transform: `translate(-50%, -50%) rotate(${deg}deg)`,
    });
    return;
  }
  delete el.dataset.facing;
  const bars = ["bar", "turn-bar", "tools-strip"].map((id) => $(id)).filter((x) => x && !x.classList.contains("hidden"));
  const below = Math.max(0, ...bars.map((x) => x.getBoundingClientRect().bottom));
  Object.assign(el.style, { left: "50%", top: `${Math.round(below) + 6}px`, width: "min(480px, 94vw)", maxHeight: "40vh", transform: "translateX(-50%)" });
}

// What this device's Undo takes back (issue 25 item 4): on a personal phone, its seat's own
// last change in effect, even under other seats' later changes (the server takes it back and
// makes the later ones again); on a table device, or with no change of its own in effect, the
// table's last change, as before (another seat's is asked of them). A table device holds
// every seat, so "its own" would be whichever seat it last tapped for: the table's last
// change is what everyone at the table saw last.
export function undoAim() {
  const own = S.device !== "table" && S.seat && S.undoOwn ? S.undoOwn[S.seat] : undefined;
  if (typeof own === "number") return { target: own, own: true };
  return { target: S.undoTarget, own: false };
}

// The server's answer to an undo that would change what later changes did ("undo-changes-
// later", naming each and how): said on a card (as the undo question is, never blocking
// play), with "Undo anyway" (the same undo, "confirm": true) and "Keep it".
export function showUndoConfirm(target, msg) {
  let el = $("undo-confirm");
  if (!el) {
    el = undoAskEl().cloneNode(false);
    el.id = "undo-confirm";
    el.setAttribute("aria-labelledby", "undo-confirm-text");
    el.removeAttribute("aria-describedby");
    el.append(h("p", { id: "undo-confirm-text", class: "ask-text" }), h("ul", { id: "undo-confirm-list", class: "ask-text" }),
      h("div", { id: "undo-confirm-buttons", class: "row ask-buttons" }));
    document.body.append(el);
  }
  S.undoConfirm = { target };
  // Each later change, named, with what it did and what it would do now (the server's
  // "preview"; its sentence says the same where a page has no preview to show).
  const preview = Array.isArray(msg.preview) ? msg.preview : [];
  const mine = S.entries.find((x) => x.seq === target);
  const what = mine && mine.action ? shortAction(mine.action) : t("event {n}", { n: String(target) });
  const did = (list) => (list.length ? list.map((c) => describeChange(c, S.names)).join(", ") : t("nothing"));
  $("undo-confirm-text").textContent = preview.length
    ? t("Taking back {what} changes what later changes did:", { what })
    : said(msg, S.names);
  $("undo-confirm-list").replaceChildren(...preview.map((p) => h("li", { "data-seq": String(p.seq) },
    t("{change} (event {n}): {was}; now {now}", { change: actionBy(p, describe(p.action, S.names)), n: String(p.seq), was: did(p.was), now: did(p.now) }))));
  $("undo-confirm-buttons").replaceChildren(
    h("button", { class: "primary", "data-undo-confirm": "yes", onclick: () => { hideUndoConfirm(); request("undo", null, { target, confirm: true }); } }, t("Undo anyway")),
    h("button", { "data-undo-confirm": "no", onclick: hideUndoConfirm }, t("Keep it")),
  );
  el.classList.remove("hidden");
  placeUndoAsk(el, null);
}

export function hideUndoConfirm() {
  S.undoConfirm = null;
  const el = $("undo-confirm");
  if (el) el.classList.add("hidden");
}

export function showUndoAsk() {
  const el = undoAskEl();
  const ask = [...S.undoAsks.values()].find((a) => a.target === S.undoTarget);
  if (!ask) { el.classList.add("hidden"); return; }
  const mine = heldSeats().has(ask.owner);
  const opened = ask.action ? null : S.entries.find((x) => x.seq === ask.target && (x.kind === "reset" || x.kind === "new_game"));
  const what = ask.action ? shortAction(ask.action) : opened ? startOverName(opened) : t("event {n}", { n: String(ask.target) });
  $("undo-ask-title").textContent = t("Undo is asked for");
  $("undo-ask-text").textContent = mine
    ? t("{name} asks to take back your change: {what}.", { name: S.names.of(ask.seat), what })
    : t("{name} asks to take back {owner}'s change: {what}. (You opened the table.)", { name: S.names.of(ask.seat), owner: said(ask, S.names, "by"), what });
  const answer = (allow) => () => {
    S.undoAsks.delete(ask.request);
    send({ type: "undo_answer", request: ask.request, allow });
    showUndoAsk();
  };
  $("undo-ask-buttons").replaceChildren(
    h("button", { class: "primary", "data-undo-answer": "allow", onclick: answer(true) }, t("Allow undo")),
    h("button", { "data-undo-answer": "refuse", onclick: answer(false) }, t("Keep it")),
  );
  el.classList.remove("hidden");
  placeUndoAsk(el, mine ? ask.owner : null);
}

function groupEntries(undone) {
  const groups = [];
  for (const e of S.entries) {
    const last = groups[groups.length - 1];
    const a = e.action;
    const tappable = e.kind === "action" && (a.do === "gain_life" || a.do === "lose_life") && typeof a.amount === "number" && !undone.has(e.seq);
    if (tappable && last && last.tappable && last.seat === e.seat && last.do === a.do && last.player === a.player &&
        last.game === e.game && e.time - last.time < 4) {
      last.items.push(e); last.time = e.time; last.amount += a.amount;
      continue;
    }
    groups.push({ tappable, seat: e.seat, do: a && a.do, player: a && a.player, game: e.game, time: e.time, amount: a ? a.amount : 0, items: [e] });
  }
  return groups;
}

// An engine's note (or a refusal) in the page's language: its structured sentence when the
// server sends one ("sentence"), else its English text.
export function noteText(n) {
  if (!n) return "";
  if (n.sentence && typeof n.sentence === "object") return sentence(n.sentence, S.names);
  if (n.text && typeof n.text === "object") return sentence(n.text, S.names);
  if (n.message && typeof n.message === "object") return sentence(n.message, S.names);
  return S.names.text(n.text !== undefined ? n.text : n.message || "");
}

function mergeChanges(items) {
  const merged = new Map();
  for (const e of items) {
    for (const c of e.changes) {
      const key = [c.team, c.player, c.what, c.key].join("|");
      if (merged.has(key) && "from" in c) merged.get(key).to = c.to;
      else merged.set(key, Object.assign({}, c));
    }
  }
  return [...merged.values()];
}

export function renderHistory() {
  const undone = undoneSeqs();
  // A seat's own change taken back under later ones (issue 25 item 4): the later ones were
  // taken back and made again; the history shows the undo once and says which were made again.
  const again = new Set(S.entries.filter((x) => x.kind === "undo" && x.replay).map((x) => x.target));
  const list = $("history-list");
  const rows = [];
  for (const g of groupEntries(undone)) {
    const e = g.items[0];
    if (e.kind === "undo" && e.replay) continue; // part of the undo of the change it names
    const when = new Date(g.time * 1000).toLocaleTimeString(lang());
    let text;
    if (e.kind === "next_game") text = t("Game {n} begins", { n: e.game });
    else if (e.kind === "reset" || e.kind === "new_game") text = startOverText(e);
    else if (e.kind === "setup") text = setupText(e);
    else if (e.kind === "undo") {
      const was = S.entries.find((x) => x.seq === e.target);
      const what = was ? actionBy(was, was.action ? describe(was.action, S.names) : startOverText(was)) : "#" + e.target;
      text = t("↶ Undo: {what}", { what }) + allowedBy(e);
    } else if (g.items.length > 1) {
      // A run of taps is one change (taps.js): the changes' amounts, not a count of taps.
      const args = { name: S.names.of(g.player), amount: g.amount, parts: g.items.map((x) => formatNumber(x.action.amount)).join(" + ") };
      text = g.do === "gain_life"
        ? tn("{name} gains {amount} life ({parts})", "{name} gains {amount} life ({parts})", g.amount, args)
        : tn("{name} loses {amount} life ({parts})", "{name} loses {amount} life ({parts})", g.amount, args);
    } else text = describe(e.action, S.names);
    const changes = mergeChanges(g.items).map((c) => describeChange(c, S.names));
    rows.push(h("li", { class: (g.items.every((x) => undone.has(x.seq)) ? "undone " : "") + e.kind, "data-seq": e.seq },
      h("div", { class: "what" }, text,
        again.has(e.seq) ? h("span", { class: "muted" }, " " + t("(made again, after an earlier change was undone)"))
          : undone.has(e.seq) ? h("span", { class: "muted" }, " " + t("(undone)"))
            : e.replay ? h("span", { class: "muted" }, " " + t("(made again: event {n})", { n: String(e.replay) })) : null),
      h("div", { class: "meta" }, `#${e.seq} · ${when} · ${sentBy(e)} · ${t("game {n}", { n: e.game })}`),
      changes.length ? h("div", { class: "changes" }, changes.join(" · ")) : null,
      ...g.items.flatMap((x) => x.notes || []).map((n) => h("div", { class: "note" }, `${noteText(n)} (${n.rule})`)),
    ));
  }
  rows.reverse();
  if (!rows.length && !S.more) rows.push(h("li", { class: "muted" }, t("Nothing yet.")));
  // The page holds the last entries only: older ones come a page at a time.
  if (S.more) {
    const oldest = S.entries.length ? S.entries[0].seq : S.lastSeq + 1;
    rows.push(h("li", { class: "earlier" }, h("button", {
      id: "load-earlier", disabled: !S.connected || !!S.loadingEarlier,
      onclick: () => { S.loadingEarlier = true; send({ type: "history", before: oldest, limit: 200 }); renderHistory(); },
    }, S.loadingEarlier ? t("Loading…") : t("Load earlier"))));
  }
  list.replaceChildren(...rows);
}
