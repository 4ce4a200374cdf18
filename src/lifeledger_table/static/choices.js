// Choices the rules give a player, asked of the right phone: the target and the order of their
// triggered abilities (603.3d, 603.3b), and the order of the replacement effects on an event
// that affects them (616.1: Tainted Remedy and a life doubler on a gain of life; which Lich's
// Mirror replaces a loss of the game). The server says
// which choices are open (S.choices.open: the engine's Game.open_choices) and what each card
// that targets would target now (S.choices.targets: {id: {target, options}}), in the view and
// in a change's message when they changed. On each device holding the seat of a player with
// an open choice (their own phone, or the table device holding that seat) a prompt asks it;
// the answer is a `choose` sent as that seat. Other devices say whom the table waits for. A
// card's badge shows its standing target ("Sanguine Bond → Bo"), and its controller may tap it
// to choose again. A change the server turned down "choice-needed" stays pending (taps.js,
// keepForChoice) and is sent again, with its id, once that choice is no longer open.
// Loaded before table.js; uses its globals (S, MODE, act, h, ...) only when called.

import { listOf, t } from "./i18n.js";
import { h } from "./common.js";
import { faceOverlay } from "./layout.js";
import { resendAfterChoice } from "./taps.js";
import { activeCards, MODE, S } from "./state.js";
import { act } from "./connection.js";

export const CHOICES = {
  order: new Map(), // an order being tapped: orderKey(choice) -> [ids so far]
  changing: null, // the card whose target its controller is choosing again (a badge's tap)
  version: 0, // how many times the open choices changed (a waiting change waits for a change)
};

function noChoices() { return { open: [], targets: {} }; }

// The choices a welcome or a change's message carries (only when they changed).
export function takeChoices(msg) {
  if (!("choices" in msg)) return;
  S.choices = msg.choices || noChoices();
  CHOICES.version += 1;
  for (const [key, ids] of CHOICES.order) {
    const open = S.choices.open.find((c) => orderKey(c) === key);
    if (!open || ids.some((id) => !open.options.includes(id))) CHOICES.order.delete(key);
  }
}

// Whether this device holds ``player``'s seat (a personal phone's own, or one of the table
// device's): only there is the player's choice asked (603.3b, 603.3d: the controller chooses).
function holdsSeat(player) {
  if (MODE !== "play") return false;
  return S.seat === player || (S.seats || []).includes(player);
}

function sameChoice(a, b) {
  return a.player === b.player && a.choice === b.choice && a.ids.join(" ") === b.ids.join(" ");
}

export function choiceOpen(choice) {
  return ((S.choices || noChoices()).open || []).some((c) => sameChoice(c, choice));
}

function cardName(id) { return S.names.of(id); }

// The key of an order being tapped: a player may have several orders open at once.
function orderKey(c) { return `${c.player} ${c.choice} ${c.ids.join(" ")}`; }

// Whether a "replacements" choice is which Lich's Mirror replaces a loss of the game (614.1a),
// rather than the order of the replacements on a gain of life.
function replacesLoss(c) {
  return c.ids.every((id) => (S.effects || []).some((e) => e.id === id && e.kind === "losing_replaced"));
}

// "the target of Sanguine Bond", "the order of Sanguine Bond and Exquisite Blood", "the order
// in which Rhox Faithmender and Tainted Remedy apply to Ana's gains of life".
function choiceWhat(c) {
  const cards = listOf(c.ids.map(cardName));
  if (c.choice === "targets") return t("the target of {card}", { card: cardName(c.ids[0]) });
  if (c.choice === "replacements" && replacesLoss(c)) return t("which of {cards} replaces a loss of the game", { cards });
  if (c.choice === "replacements") return t("the order in which {cards} apply to {name}'s gains of life", { cards, name: S.names.of(c.player) });
  return t("the order of {cards}", { cards });
}

function chooseTarget(player, id, target) {
  CHOICES.changing = null;
  act({ do: "choose", player, targets: { [id]: target } });
}

// ``c.choice`` is the member of `choose` that states the order: "order" or "replacements".
function sendOrder(c, ids) {
  CHOICES.order.delete(orderKey(c));
  act({ do: "choose", player: c.player, [c.choice]: ids });
}

// What a player taps their cards in the order of.
function orderQuestion(c, who) {
  if (c.choice === "replacements" && replacesLoss(c)) {
    // A team that shares its life total loses as one (810.8a): its first head chooses.
    const team = (S.state.teams || []).find((t) => t.life !== null && t.players.includes(c.player));
    const loser = team ? S.names.of(team.id) : who;
    return t("If {name} would lose the game, {cards} could each replace it: tap the one that does (616.1)", { name: loser, cards: listOf(c.ids.map(cardName)) });
  }
  if (c.choice === "replacements") {
    return t("When {name} gains life, {cards} all apply: tap them in the order they apply — a life doubler applied before the gain becomes a loss doubles the loss (616.1)", { name: who, cards: listOf(c.ids.map(cardName)) });
  }
  return t("{name}'s triggered abilities at once: tap them in the order they go on the stack — the last resolves first (603.3b)", { name: who });
}

// The prompt for one choice, on a device holding the chooser's seat.
function choicePrompt(c) {
  const who = S.names.of(c.player);
  if (c.choice === "targets") {
    const id = c.ids[0];
    return h("div", { class: "choice-ask", "data-choice": "targets", "data-player": c.player, "data-id": id },
      h("p", {}, t("{card} ({name}'s): when {name} gains life, which opponent loses that much?", { card: cardName(id), name: who })),
      h("div", { class: "row" },
        ...c.options.map((pid) => h("button", { class: "primary", "data-target": pid, onclick: () => chooseTarget(c.player, id, pid) }, S.names.of(pid))),
        h("span", { class: "rule" }, "(603.3d)"),
        CHOICES.changing === id ? h("button", { "data-act": "keep", onclick: () => { CHOICES.changing = null; renderChoices(); } }, t("Keep")) : null));
  }
  const key = orderKey(c);
  const picked = CHOICES.order.get(key) || [];
  const left = c.options.filter((id) => !picked.includes(id));
  const loss = c.choice === "replacements" && replacesLoss(c); // one replaces it: one tap
  const label = (id) => {
    if (!loss) return cardName(id);
    const owner = (activeCards().find((x) => x.id === id) || {}).controller;
    return owner ? t("{card} ({name}'s)", { card: cardName(id), name: S.names.of(owner) }) : cardName(id);
  };
  const tap = (id) => {
    const next = [...picked, id];
    const rest = c.options.filter((x) => !next.includes(x));
    if (rest.length <= 1 || loss) { sendOrder(c, [...next, ...rest]); return; }
    CHOICES.order.set(key, next);
    renderChoices();
  };
  return h("div", { class: "choice-ask", "data-choice": c.choice, "data-player": c.player },
    h("p", {}, orderQuestion(c, who)),
    picked.length ? h("p", { class: "muted order-so-far" }, picked.map((id, i) => `${i + 1}. ${cardName(id)}`).join(" · ")) : null,
    h("div", { class: "row" },
      ...left.map((id) => h("button", { class: "primary", "data-order": id, onclick: () => tap(id) }, label(id))),
      picked.length ? h("button", { "data-act": "order-again", onclick: () => { CHOICES.order.delete(key); renderChoices(); } }, t("Start again")) : null));
}

// The open choices: asked here of the seats this device holds, waited for elsewhere. Also
// sends again the changes that waited for a choice no longer open.
export function renderChoices() {
  const box = document.getElementById("choices");
  if (!box || !S.state) return;
  const ch = S.choices || noChoices();
  const open = MODE === "replay" || S.state.over ? [] : ch.open || [];
  const items = [];
  for (const c of open) {
    if (holdsSeat(c.player)) items.push(choicePrompt(c));
    else items.push(h("p", { class: "choice-wait", "data-player": c.player }, t("Waiting for {name} to choose {what} ({rule})", { name: S.names.of(c.player), what: choiceWhat(c), rule: c.rule })));
  }
  // A badge's tap: its controller chooses the target again among the legal ones now.
  const again = CHOICES.changing && ch.targets[CHOICES.changing];
  const owner = again && (activeCards().find((x) => x.id === CHOICES.changing) || {}).controller;
  if (again && owner && holdsSeat(owner) && !open.some((c) => c.choice === "targets" && c.ids[0] === CHOICES.changing)) {
    items.push(choicePrompt({ player: owner, choice: "targets", ids: [CHOICES.changing], options: again.options }));
  } else if (!again) CHOICES.changing = null;
  box.replaceChildren(...items);
  box.classList.toggle("hidden", !items.length);
  // On the table device the prompt faces the player who chooses (layout.js).
  const asked = items.find((el) => el.classList.contains("choice-ask"));
  faceOverlay(box, asked ? asked.dataset.player : null);
  resendAfterChoice(); // taps.js
}

// A card's badge: its name, and where it targets, its standing target ("Sanguine Bond → Bo");
// its controller (on a device holding their seat) taps it to choose again.
export function cardBadge(c) {
  const aim = (S.choices || noChoices()).targets[c.id];
  if (!aim) return h("span", { class: "badge card" }, c.name);
  const text = `${c.name} → ${aim.target ? S.names.of(aim.target) : "?"}`;
  if (!holdsSeat(c.controller) || aim.options.length < 2) return h("span", { class: "badge card", "data-card": c.id }, text);
  return h("button", {
    class: "badge card target", "data-card": c.id, title: t("Choose {card}'s target again (603.3d)", { card: cardName(c.id) }),
    onclick: () => { CHOICES.changing = c.id; renderChoices(); },
  }, text);
}
