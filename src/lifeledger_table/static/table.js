// The table page's entry module: play (/t/ID), watch (/w/WATCH) and replay (/replay). It
// imports the page's modules, translates the page and starts it. The page loads it bundled
// with them (make, esbuild: docs/table.md, "The page's scripts"), where the modules run in
// the order of their imports: boot.js first, so a device table's engine starts before the
// rest of the page's modules run.

import "./boot.js"; // first: a device table's engine worker started, its log read
import {
  compilePlural, formatNumber, I18N, i18nReady, onLangChange, said, sentence, t, tn, translateStatic,
} from "./i18n.js";
import { api, applyChanges, h, loadHost, loadSeat, Names, parseJSON, toJSON } from "./common.js";
import { DeviceStore, DeviceTables, Engine } from "./device.js";
import { loadDevice, loadSeats, PALETTE, seatColours } from "./seating.js";
import { placePanels } from "./layout.js";
import { showGraph } from "./graph.js";
import { cancelRun, dropBubble, restoreOffline, TAPS } from "./taps.js";
import { activeForesight, FORESEE, foreseenQueue, isForeseen, loadKeptGame } from "./foresee.js";
import { AWAKE, keepAwake } from "./awake.js";
import { renderStrip, renderToolsSheet, setupTools, T, toolSend, toolsReceive } from "./tools.js";
import { buildCmdSheet, closeCmdSheet, commandersAgainst, openCmdSheet } from "./panel.js";
import { closeTurnSheet, openTurnSheet, renderTurns, renderTurnSheet, setupTurns } from "./turns.js";
import { header, HEARTBEAT_EVERY, KEY, MODE, ON_DEVICE, playerState, S, takeEffects } from "./state.js";
import { $, close, open, toast } from "./toasts.js";
import { act, connect, ping, request } from "./connection.js";
import { render, renderConn } from "./render.js";
import { hideUndoConfirm, renderHistory, showUndoAsk, undoAim } from "./history.js";
import { openSheet, renderMenu, showAsk, showPicker } from "./sheets.js";
import { setupReplay } from "./replay.js";
import { takeHandover } from "./share.js";

// ---------------------------------------------------------------- start

// The page's own words (its HTML is in English) in the page's language.
function translatePage() {
  document.title = t("lifeledger — table");
  translateStatic([
    [".home", t("Home"), "aria-label"],
    ["#undo-btn", "↶ " + t("Undo")],
    ["#history-btn", t("History")],
    ["#menu-btn", t("Menu"), "aria-label"],
    ["#conn", t("connection"), "title"],
    ["#conn", t("connection"), "aria-label"],
    ["#replay-file-label", t("Open a record")],
    ["#rp-first", t("First"), "aria-label"],
    ["#rp-prev", t("Previous"), "aria-label"],
    ["#rp-play", t("Play"), "aria-label"],
    ["#rp-play", "▶ " + t("Play")],
    ["#rp-next", t("Next"), "aria-label"],
    ["#rp-slider", t("Position"), "aria-label"],
    ["#history", t("History"), "aria-label"],
    ["#history-title", t("History")],
    ["#menu", t("Menu"), "aria-label"],
    ["#menu-title", t("Table")],
    ["[data-close]", t("Close"), "aria-label"],
    ["#picker-title", t("Who are you?")],
    ["#picker-note", t("Take your seat. It stays yours on this phone, even after a reload.")],
    ["#ask-title", t("A seat is asked for")],
  ]);
}

// Another language chosen (the menu): the table again, in it. Everything the page draws is
// drawn anew; what the server said (the history's sentences) is rendered again from its parts.
function languageChanged() {
  translatePage();
  if (!S.state) return;
  $("undo-btn").dataset.text = "";
  render();
  if (!$("menu").classList.contains("hidden")) renderMenu();
  if (!$("history").classList.contains("hidden")) renderHistory();
  renderTurns();
  if (!$("history").classList.contains("hidden")) showGraph();
  // Whatever else is open is drawn again in the new language.
  const shown = (id) => $(id) && !$(id).classList.contains("hidden");
  if (shown("picker") && !S.claiming) showPicker();
  if (S.asks.size) showAsk();
  if (S.undoAsks.size) showUndoAsk();
  if ($("tools-strip")) { T.shape = ""; renderStrip(); }
  if (shown("tools-sheet")) renderToolsSheet();
  if (shown("turn-sheet")) renderTurnSheet();
  if (shown("cmd-sheet") && S.cmdSheet) buildCmdSheet();
  translateStatic([
    ["#turn-bar", t("Turn"), "aria-label"],
    ["#turn-close", t("Close"), "aria-label"],
    ["#tools-title", t("Dice, clocks and who starts")],
    ["#tools-btn", t("Dice, clocks and who starts"), "aria-label"],
    ["#tools-btn", t("Dice, clocks and who starts"), "title"],
    ["#tools-strip", t("Clocks"), "aria-label"],
  ]);
}

async function main() {
  await i18nReady();
  translatePage();
  // A table shared from the app at another address: its tokens, from the address (share.js).
  if (MODE === "play" && !ON_DEVICE) takeHandover();
  onLangChange(languageChanged);
  $("history-btn").addEventListener("click", () => { renderHistory(); open("history"); showGraph(); });
  $("menu-btn").addEventListener("click", () => { S.startOver = null; renderMenu(); open("menu"); });
  // Undo names the action it takes back: two phones pressing at once undo it once.
  $("undo-btn").addEventListener("click", () => {
    if (cancelRun()) return;
    const aim = undoAim();
    hideUndoConfirm();
    request("undo", null, aim.target === undefined ? null : { target: aim.target });
  });
  // The tools' and the turns' parts of the page (the clocks' strip, the dice's and the turn's
  // sheets, their buttons), the tools' first (after the menu's own handler, above): before the
  // page is first drawn, so that a table kept for offline is drawn at once with its turn bar,
  // and the engine's welcome moves no panel (the engine's line meanwhile floats over them,
  // render.js): a tap aimed at a total as the engine becomes ready lands where it was aimed.
  setupTools();
  setupTurns();
  if (MODE === "replay") { setupReplay(); return; }
  try {
    // A device table opens from the copy the page kept, drawn at once: the engine decides the
    // taps made meanwhile, in order, once it has started (its welcome).
    if (ON_DEVICE && restoreOffline()) Engine.start();
    else {
      const data = ON_DEVICE ? await DeviceTables.info(KEY) : await api("GET", MODE === "play" ? `/api/tables/${KEY}` : `/api/watch/${KEY}`);
      S.info = data.table;
      S.links = data.links;
    }
  } catch (ex) {
    // No network (no answer at all): the table as this phone last saw it, if it did (taps.js).
    if (ex.status || !restoreOffline()) {
      $("panels").replaceChildren(h("p", { class: "card error" }, said(ex.data, null) || ex.message || t("There is no such table.")));
      return;
    }
    S.fromKept = true; // the server can't be reached: offline, whatever navigator.onLine says
  }
  S.names = new Names(S.info.header, S.info.labels);
  const saved = MODE === "play" ? loadSeat(KEY) : null;
  if (saved) { S.token = saved.token; S.seat = saved.seat; }
  if (MODE === "play") {
    S.device = loadDevice(KEY);
    S.tokens = loadSeats(KEY);
    if (S.device === "table") { S.seat = null; S.token = null; }
    // Until the server's welcome says which seats this socket holds, the page plays as the
    // seats it kept (issue 25 item 1: a table device reloaded offline kept every panel
    // playable, its taps queued); the welcome then corrects them (keepHeld).
    S.seats = S.device === "table" ? Object.keys(S.tokens) : S.seat ? [S.seat] : [];
    if (S.device === "table") S.seat = S.seats[0] || null;
  }
  // The panels are laid out again when their space changes (turning the phone, a banner): not
  // for the size they were just laid out for (render's placePanels), as when the page is first
  // drawn (an observer's first notice), which would lay them out twice as the page opens.
  if ("ResizeObserver" in window) {
    const box = $("panels");
    new ResizeObserver(() => {
      if (S.layout && box.dataset.placed !== `${box.clientWidth}x${box.clientHeight}`) placePanels(box, S.layout.table, S.layout.own);
    }).observe(box);
  }
  if (MODE === "play") S.host = loadHost(KEY);
  loadKeptGame(); // for foresight with no connection (foresee.js)
  keepAwake();
  connect();
  setInterval(ping, HEARTBEAT_EVERY);
  setInterval(() => { if (S.pending.size) renderConn(); }, 1000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") ping(); });
  renderConn();
  render(); // a table kept for offline shows at once (otherwise: nothing until the welcome)
}

// The page's inspection surface, and its only global (docs/table.md, "The page's scripts"):
// what the browser tests read and call in the page (lifeledger.S, lifeledger.act(...)), in
// one named object. No module of the page reads it.
window.lifeledger = Object.freeze({
  act, activeForesight, applyChanges, AWAKE, close, closeCmdSheet, closeTurnSheet,
  commandersAgainst, compilePlural, DeviceStore, dropBubble, Engine, FORESEE, foreseenQueue, formatNumber, header,
  I18N, isForeseen, KEY, loadSeats, openCmdSheet, openSheet, openTurnSheet, PALETTE, parseJSON,
  playerState, render, request, S, seatColours, sentence, T, takeEffects, TAPS, tn, toast, toJSON,
  toolSend, toolsReceive,
});

main();
