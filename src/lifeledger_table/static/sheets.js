// The table page's sheets: a panel's action sheet (⋯), the seat picker, a seat asked for,
// and the menu.

import { languagePicker, t, tn } from "./i18n.js";
import {
  claimSeat, counterKind, counterWords, formatCode, h, newId, onlyHereNote, parseWhole,
} from "./common.js";
import { saveSeats } from "./seating.js";
import { faceOverlay } from "./layout.js";
import { showStats } from "./graph.js";
import { INSTALL, installApp } from "./install.js";
import { awakeText } from "./awake.js";
import { pinSection } from "./panel.js";
import { commanderController, controllerSelect, designationSection, sheetController } from "./marks.js";
import {
  activeCards, counted, COUNTER_KINDS, header, KEY, MODE, ON_DEVICE, playerState, S,
} from "./state.js";
import { $, close, open, toast } from "./toasts.js";
import { act, becomePersonalPhone, becomeTableDevice, hello, send, takeFreeSeats } from "./connection.js";
import { nameSection, recordLink, startOverItems } from "./history.js";
import { shareTable } from "./share.js";

// ---------------------------------------------------------------- the action sheet

export function openSheet(pid) { S.sheetFor = pid; S.sheetShown = null; renderSheet(pid); faceOverlay($("sheet"), pid); open("sheet"); }

// Number fields are text fields: their text is read exactly (a total may be huge, 107.1).
function numberInput(id, value, label, signed) {
  return h("input", { id, type: "text", value, inputmode: signed ? null : "numeric", autocomplete: "off", "aria-label": label, class: "num" });
}
// The whole number in field ``id``; throws an Error naming the field (its label).
function num(id, min) { const el = $(id); return parseWhole(el.value, el.getAttribute("aria-label"), min === undefined ? 0 : min); }
// Send the action built by ``build``, unless a field is wrong: then say which, and send nothing.
function actFrom(build) {
  return () => {
    let action;
    try { action = build(); } catch (ex) { toast(ex.message, "bad"); return; }
    act(action);
  };
}

export function renderSheet(pid) {
  // Drawn again as events arrive: what was typed (and the field being typed in) stays.
  const old = S.sheetShown === pid ? [...$("sheet-body").querySelectorAll("input[id], select[id]")] : [];
  const kept = old.map((el) => [el.id, el.type === "checkbox" ? el.checked : el.value]);
  const focused = old.includes(document.activeElement) ? document.activeElement.id : null;
  const p = playerState(pid);
  if (!p) return;
  const others = header().players.filter((x) => x.id !== pid);
  $("sheet-title").textContent = t("{name} — {life}", { name: S.names.of(pid), life: tn("{n} life", "{n} life", p.life, { n: p.life }) });
  const body = $("sheet-body");
  const amount = (min) => num("sh-amount", min);
  const sections = [];
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Life")),
    h("div", { class: "row" }, numberInput("sh-amount", 1, t("Amount"), true),
      h("button", { "data-sheet": "lose", onclick: actFrom(() => ({ do: "lose_life", player: pid, amount: amount() })) }, t("Lose")),
      h("button", { "data-sheet": "gain", onclick: actFrom(() => ({ do: "gain_life", player: pid, amount: amount() })) }, t("Gain")),
      h("button", { "data-sheet": "pay", onclick: actFrom(() => ({ do: "pay_life", player: pid, amount: amount() })) }, t("Pay")),
      // A life total may become negative (107.1b): "Set to" takes any whole number.
      h("button", { "data-sheet": "set", onclick: actFrom(() => ({ do: "set_life", player: pid, to: amount(null) })) }, t("Set to"))),
  ));
  const dmgSource = h("input", { id: "sh-source", placeholder: t("Source (a card's name)"), value: "", "aria-label": t("Damage source"), maxlength: 60 });
  const combat = h("input", { type: "checkbox", id: "sh-combat" });
  const infect = h("input", { type: "checkbox", id: "sh-infect" });
  const lifelink = h("input", { type: "checkbox", id: "sh-lifelink" });
  const controller = controllerSelect(pid); // combat damage and lifelink name it (marks.js)
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Damage")),
    h("div", { class: "row" }, numberInput("sh-damage", 1, t("Damage")), dmgSource),
    h("div", { class: "row" },
      h("label", { class: "check" }, combat, t("combat")),
      h("label", { class: "check" }, infect, t("infect")),
      h("label", { class: "check" }, lifelink, t("lifelink")), controller),
    h("div", { class: "row" }, h("button", {
      "data-sheet": "damage",
      onclick: actFrom(() => {
        const a = { do: "damage", to: pid, amount: num("sh-damage"), source: dmgSource.value.trim() || "damage" };
        const by = sheetController(controller, combat.checked, lifelink.checked);
        if (combat.checked) a.combat = true;
        if (infect.checked) a.infect = true;
        if (lifelink.checked) a.lifelink = true;
        if (by) a.controller = by;
        return a;
      }),
    }, t("Deal damage"))),
  ));
  const commanders = header().players.flatMap((o) => (o.commanders || []).map((c) => ({ c, owner: o.id }))).filter((x) => x.owner !== pid);
  if (commanders.length) {
    sections.push(h("div", { class: "sec" },
      h("h3", {}, t("Commander damage (combat)")),
      ...commanders.map(({ c, owner }) => h("div", { class: "row cmdrow", "data-commander": c },
        h("span", { class: "grow" }, `${S.names.of(c)} (${S.names.of(owner)})`),
        h("strong", { class: "cmd-total" }, String((p.commander_damage || {})[c] || 0)),
        ...[1, 5, 10].map((n) => h("button", {
          "data-cmd": n,
          onclick: actFrom(() => ({ do: "damage", source: c, to: pid, amount: n, combat: true, controller: commanderController(owner, pid) || sheetController(controller, true, false) })),
        }, `+${n}`)),
      )),
    ));
  }
  const kind = h("select", { id: "sh-kind", "aria-label": t("Counter kind") }, ...COUNTER_KINDS.map((k) => h("option", { value: k }, counterKind(k))));
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Counters")),
    h("div", { class: "row" }, kind, numberInput("sh-counters", 1, t("Counters")),
      h("button", { "data-sheet": "add-counters", onclick: actFrom(() => ({ do: "add_counters", player: pid, kind: kind.value, amount: num("sh-counters") })) }, t("Add")),
      h("button", { "data-sheet": "remove-counters", onclick: actFrom(() => ({ do: "remove_counters", player: pid, kind: kind.value, amount: num("sh-counters") })) }, t("Remove"))),
    h("p", { class: "muted", id: "sh-counts" }, [counterWords(p.poison, "poison"), ...Object.entries(p.counters || {}).map(([k, n]) => counterWords(n, k))].join(" · ")),
  ));
  if (MODE === "play") sections.push(pinSection(pid));
  if (MODE === "play" && (S.seat || S.seats.length)) sections.push(nameSection(pid));
  const marks = designationSection(pid); // marks.js
  if (marks) sections.push(marks);
  const other = h("select", { id: "sh-other", "aria-label": t("Exchange with") }, ...others.map((o) => h("option", { value: o.id }, S.names.of(o.id))));
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Exchange life totals")),
    h("div", { class: "row" }, other, h("button", { "data-sheet": "exchange", onclick: () => act({ do: "exchange_life", players: [pid, other.value] }) }, t("Exchange"))),
  ));
  const cardSel = h("select", { id: "sh-card", "aria-label": t("Card") }, ...S.info.catalogue.cards.map((c) => h("option", { value: c }, c)));
  const mine = activeCards().filter((c) => c.controller === pid);
  sections.push(h("div", { class: "sec" },
    h("h3", {}, t("Cards on the battlefield")),
    h("div", { class: "row" }, cardSel, h("button", {
      "data-sheet": "card",
      onclick: () => {
        const id = cardSel.value.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") + "-" + newId().slice(0, 6);
        act({ do: "card", id, name: cardSel.value, controller: pid });
      },
    }, t("Enters"))),
    ...mine.map((c) => h("div", { class: "row" }, h("span", { class: "grow" }, c.name),
      h("button", { "data-end": c.id, onclick: () => act({ do: "end", id: c.id }) }, t("Leaves")))),
  ));
  const upkeep = h("button", { "data-sheet": "upkeep", onclick: () => act({ do: "upkeep", player: pid }) }, t("Upkeep begins"));
  sections.push(counted(pid)
    ? h("div", { class: "sec" },
      h("h3", {}, t("Library")),
      h("div", { class: "row" }, numberInput("sh-draw", 1, t("Cards to draw")),
        h("button", { "data-sheet": "draw", onclick: actFrom(() => ({ do: "draw", player: pid, count: num("sh-draw") })) }, t("Draw")), upkeep),
      h("p", { class: "muted" }, String(p.library) === "0"
        ? t("0 cards in library — drawing now draws from an empty library (704.5b).")
        : tn("{n} card in library.", "{n} cards in library.", p.library, { n: p.library })))
    : h("div", { class: "sec" },
      h("h3", {}, t("Library")),
      h("div", { class: "row" },
        // 121.4, 704.5b: record 2 states the library empty, then the draw, as one event.
        h("button", { "data-sheet": "draw", onclick: () => act(header().record === 2 ? { do: "together", actions: [{ do: "set_library", player: pid, count: 0 }, { do: "draw", player: pid, count: 1 }] } : { do: "draw", player: pid, count: 1 }) }, t("Draws from an empty library")),
        header().record === 2 ? h("button", { "data-sheet": "library-empty", onclick: () => act({ do: "set_library", player: pid, count: 0 }) }, t("Library is empty now")) : null, upkeep),
      h("p", { class: "muted" }, header().record === 2
        ? t("The table doesn't count this library: record here an attempt to draw from an empty library (704.5b), or that it is empty now (the next draw, the draw step's, is from an empty library).")
        : t("The table doesn't count this library: record here an attempt to draw from an empty library (704.5b).")))
  );
  if (pid === S.seat || (S.device === "table" && S.seats.includes(pid))) {
    const concede = h("button", {
      class: "danger", "data-sheet": "concede",
      onclick: () => {
        if (concede.dataset.armed) { act({ do: "concede", player: pid }); close("sheet"); return; }
        concede.dataset.armed = "1";
        concede.textContent = t("Tap again: {name} concedes. Final — it can't be undone.", { name: S.names.of(pid) });
      },
    }, t("Concede…"));
    sections.push(h("div", { class: "sec" }, h("h3", {}, t("Leave the game")), concede));
  } else {
    sections.push(h("div", { class: "sec" }, h("h3", {}, t("Leave the game")),
      h("p", { class: "muted" }, t("Only {name} can concede, from their own phone (104.3a).", { name: S.names.of(pid) }))));
  }
  body.replaceChildren(...sections);
  for (const [id, value] of kept) {
    const el = $(id);
    if (!el || !body.contains(el)) continue;
    if (el.type === "checkbox") el.checked = value; else el.value = value;
  }
  if (focused && $(focused)) $(focused).focus();
  S.sheetShown = pid;
}

// ---------------------------------------------------------------- seats, menu

export async function showPicker() {
  if (MODE !== "play" || S.claiming) return;
  // The table device has no seat of its own to pick: it takes the free ones.
  if (S.device === "table") { if (!S.seats.length) takeFreeSeats(true); return; }
  const box = $("picker-seats");
  const note = $("picker-note");
  note.textContent = t("Take your seat. It stays yours on this phone, even after a reload.");
  const taken = new Set(S.info.taken || []);
  box.replaceChildren(
    ...header().players.map((p) => {
      const name = S.names.of(p.id);
      const isTaken = taken.has(p.id);
      const btn = h("button", {
        class: "seat" + (isTaken ? " taken" : ""), "data-seat": p.id,
        onclick: async () => {
          if (S.claiming) return;
          // A taken seat is asked for: the phone or table device holding it (or the phone that
          // opened the table) allows it. It is first asked for plainly (it may have come free),
          // and the refusal (409) says who holds it and offers to ask.
          const ask = (isTaken && !!S.host) || !!btn.dataset.ask;
          if (ask && !btn.dataset.armed) {
            btn.dataset.armed = "1";
            btn.textContent = S.host ? t("Take {name}'s seat (this phone opened the table)", { name }) : t("Ask to take {name}'s seat", { name });
            return;
          }
          S.claiming = true;
          try {
            const res = await claimSeat(KEY, p.id, ask, {
              waiting: () => {
                note.textContent = btn.dataset.holder === "device" ? t("Waiting for the table device to allow it…") : t("Waiting for {name}'s phone to allow it…", { name });
                btn.disabled = true;
              },
            });
            S.token = res.token; S.seat = res.seat;
            S.tokens = { [res.seat]: res.token }; saveSeats(KEY, S.tokens);
            S.claiming = false;
            close("picker");
            send(hello());
          } catch (ex) {
            S.claiming = false;
            btn.disabled = false;
            if (ex.code === "seat-taken") {
              btn.dataset.ask = "1"; btn.dataset.armed = "1";
              btn.dataset.holder = ex.device ? "device" : "phone";
              btn.classList.add("taken");
              btn.textContent = t("Ask to take {name}'s seat", { name });
              note.textContent = ex.device
                ? t("{name}'s seat is on the table device. Ask to take it? One tap on the table device allows it.", { name })
                : ex.connected ? t("{name}'s seat is taken by a phone that is here. Ask to take it?", { name })
                  : t("{name}'s seat is taken. Ask to take it?", { name });
            } else {
              note.textContent = ex.code === "refused" ? t("{name}'s phone refused to give the seat.", { name }) : ex.message;
            }
          }
        },
      }, name, isTaken ? " " + t("(taken)") : "");
      return btn;
    }),
    h("button", { class: "seat device", "data-seat": "table", onclick: becomeTableDevice }, t("Use as the table device (one device for everyone)")),
    h("button", { class: "seat watch", "data-seat": "", onclick: () => { S.pickerDismissed = true; close("picker"); } }, t("Just watch")),
  );
  open("picker");
}

// Another phone asks for a seat this phone holds (or, on the host's phone, any seat).
export function showAsk() {
  const [rid, ask] = S.asks.entries().next().value || [];
  if (!rid) { close("ask"); return; }
  const name = S.names.of(ask.seat);
  // On the table device, the seat is one of the players' it holds: allowing gives it to
  // the asking phone (the player's own, if they came with one).
  $("ask-text").textContent = S.device === "table" && S.seats.includes(ask.seat)
    ? t("A phone asks for {name}'s seat. Allow it if it is {name}'s own phone.", { name })
    : ask.seat === S.seat
      ? t("Someone wants to take your seat ({name}).", { name })
      : t("Someone wants to take {name}'s seat.", { name });
  const answer = (allow) => () => {
    S.asks.delete(rid);
    send({ type: "takeover_answer", request: rid, allow });
    showAsk();
  };
  $("ask-buttons").replaceChildren(
    h("button", { class: "primary", "data-answer": "allow", onclick: answer(true) }, t("Allow")),
    h("button", { "data-answer": "refuse", onclick: answer(false) }, t("Refuse")),
  );
  open("ask");
}

export function renderMenu() {
  const body = $("menu-body");
  const items = [];
  if (ON_DEVICE) {
    items.push(h("p", { class: "muted", "data-menu": "on-device" }, t("This table lives on this device: it needs no server and no connection, and it is kept here.")));
    items.push(h("button", { "data-menu": "share", onclick: () => { close("menu"); shareTable(); } }, t("Share this table")));
    items.push(h("p", { class: "muted small" }, t("The game moves to the server this page came from: everyone joins from their own phone with its code or QR code, and this device goes on as the table device.")));
  } else if (MODE === "play") {
    items.push(h("p", {}, t("Code:") + " ", h("strong", { class: "code" }, formatCode(S.info.code))));
    items.push(h("img", { class: "qr", src: `/api/tables/${KEY}/qr.svg`, alt: t("QR code of this table's link") }));
    // The server's links: the ones the other phones reach it by (its LAN address, not localhost).
    const links = S.links || { play: `${location.origin}/t/${KEY}`, watch: `${location.origin}/w/${S.info.watch}` };
    items.push(h("p", { class: "link-row" }, t("Players:") + " ", h("a", { href: `/t/${KEY}` }, links.play)));
    items.push(h("p", { class: "link-row" }, t("Spectators:") + " ", h("a", { href: `/w/${S.info.watch}` }, links.watch)));
    const onlyHere = onlyHereNote(links.play);
    if (onlyHere) items.push(onlyHere);
    if (S.device === "table") {
      items.push(h("p", { class: "muted" }, t("This is the table device: every panel is controlled here.")));
      items.push(h("button", { "data-menu": "take-seats", onclick: () => { close("menu"); takeFreeSeats(true); } }, t("Take the free seats")));
      items.push(h("button", { "data-menu": "personal", onclick: () => { close("menu"); becomePersonalPhone(); } }, t("Use as my own phone")));
    } else {
      items.push(h("button", { onclick: () => { close("menu"); S.pickerDismissed = false; showPicker(); } }, S.seat ? t("Change seat") : t("Take a seat")));
      items.push(h("button", { "data-menu": "table-device", onclick: () => { close("menu"); becomeTableDevice(); } }, t("Use as the table device")));
    }
  }
  items.push(...startOverItems());
  const games = S.score ? S.score.game : 1;
  items.push(h("button", { "data-act": "stats", onclick: () => { close("menu"); showStats(); } }, t("Statistics")));
  items.push(h("h3", {}, t("Game records")));
  for (let n = 1; n <= games; n++) items.push(recordLink(n, t("Download game {n}", { n })));
  items.push(h("p", {}, h("a", { href: "/replay" }, t("Watch a record replay"))));
  items.push(h("p", { class: "muted", id: "awake-note" }, awakeText()));
  if (INSTALL.prompt) items.push(h("button", { id: "install-btn", onclick: () => { close("menu"); installApp(); } }, t("Install the app")));
  items.push(h("h3", {}, t("Language")), languagePicker("menu-lang"));
  body.replaceChildren(...items);
}
