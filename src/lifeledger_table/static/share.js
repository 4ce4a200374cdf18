// "Share this table": a device table's game goes to a server, which continues it for
// everyone's own phone (docs/table.md, "Device tables"). From a page a lifeledger server
// served, to that server; from the app as static files (lifeledger app: no server of its own),
// to the server whose address the player types, across sites (POST /api/tables/shared answers
// CORS: web/middleware.py). And, on the served table's page, the host and seat tokens such a
// share hands over in the address's fragment.

import { said, t } from "./i18n.js";
import { api, h, loadHost, parseJSON, saveHost, toJSON } from "./common.js";
import { DeviceTables, tableHref } from "./device.js";
import { keepElsewhere, saveDevice, saveSeats } from "./seating.js";
import { KEY, S } from "./state.js";
import { keepNoMore } from "./taps.js";
import { $, close, open, toast } from "./toasts.js";

// The server last shared with from this app (localStorage), offered the next time.
const SERVER_KEY = "lifeledger-share-server";
// The address's fragment that hands the tokens over: #share=<JSON {host, tokens}>.
const HANDOVER = "share";
// What an address looks like, in the field and in the messages.
const EXAMPLE = "http://192.168.1.20:8000";

// Whether a lifeledger server serves this page: not in the folder lifeledger app writes,
// whose pages say so (web/staticapp.py, NO_SERVER).
export function hasServer() {
  const meta = document.querySelector('meta[name="lifeledger-server"]');
  return !meta || meta.getAttribute("content") !== "none";
}

function loadServer() { try { return localStorage.getItem(SERVER_KEY) || ""; } catch { return ""; } }
function saveServer(origin) { try { localStorage.setItem(SERVER_KEY, origin); } catch { /* not remembered */ } }

// A server's address as typed ("192.168.1.20:8000", "https://table.example/") as its origin
// ("http://192.168.1.20:8000"), or null when it is no http(s) address of a server: another
// scheme, a path, a query, a name and password.
export function serverOrigin(text) {
  let typed = String(text).trim();
  if (!typed) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) typed = "http://" + typed;
  let url;
  try { url = new URL(typed); } catch { return null; }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== "/") return null;
  return url.origin;
}

// The menu's "Share this table". Only once every tap is decided here: none is left behind.
export function shareTable() {
  if (S.pending.size) { toast(t("Wait until every change is decided here, then share."), "bad"); return; }
  if (hasServer()) shareWith("");
  else askServer();
}

// The static app asks where to share: the address, remembered for the next time.
function askServer() {
  S.sheetFor = null;
  $("sheet-title").textContent = t("Share this table");
  const field = h("input", {
    id: "share-server", type: "url", inputmode: "url", autocomplete: "url", spellcheck: "false",
    autocapitalize: "off", value: loadServer(), placeholder: EXAMPLE, maxlength: 200,
    "aria-describedby": "share-note",
  });
  const form = h("form", { id: "share-form", class: "sec", onsubmit: (e) => { e.preventDefault(); shareTo(field.value); } },
    h("label", { for: "share-server" }, t("The server's address")),
    h("div", { class: "row" }, h("span", { class: "grow" }, field),
      h("button", { id: "share-go", type: "submit", class: "primary" }, t("Share"))),
    h("p", { id: "share-note", class: "muted" },
      t("This app has no server of its own: the game goes on at a lifeledger server (lifeledger serve), where the other phones join it.")));
  $("sheet-body").replaceChildren(form);
  open("sheet");
  field.focus();
}

function shareTo(typed) {
  const origin = serverOrigin(typed);
  const stays = t("The table stays on this device.");
  if (!origin) {
    const address = String(typed).trim().slice(0, 80);
    toast(t("Not shared: “{address}” is not a server's address (like {example}). {stays}", { address, example: EXAMPLE, stays }), "bad");
    return;
  }
  if (location.protocol === "https:" && origin.startsWith("http:")) {
    // The browser would block it (mixed content) without saying why.
    toast(t("Not shared: a page on https may not reach {server} (http). Give the server's https address. {stays}", { server: origin, stays }), "bad");
    return;
  }
  saveServer(origin);
  shareWith(origin);
}

// While the table goes to the server, a sheet says so and covers the table, with no way to
// close it: a tap made meanwhile would be decided on the device after its log was sent, and lost
// with the device's copy. A share that fails gives the table back (and the static app's
// address, to try again).
function showSharing() {
  S.sheetFor = null;
  $("sheet-title").textContent = t("Share this table");
  $("sheet-body").replaceChildren(h("p", { id: "sharing", class: "muted", role: "status" }, t("Sharing this table…")));
  $("sheet").querySelector("[data-close]").classList.add("hidden");
  open("sheet");
}
function sharingFailed(origin) {
  $("sheet").querySelector("[data-close]").classList.remove("hidden");
  if (origin) askServer();
  else close("sheet");
}

// The device's table to a server: this page's own ("") or another (its origin). The server
// decides the whole log again; this device keeps its host and seat tokens there, goes on as the
// served table's table device, and keeps no copy of the device table (device.js).
async function shareWith(origin) {
  let body, res;
  showSharing();
  try {
    body = await DeviceTables.shared(KEY);
    body.host = loadHost(KEY);
    body.tokens = S.tokens;
    res = await api("POST", origin ? `${origin}/api/tables/shared` : "api/tables/shared", body);
  } catch (ex) {
    sharingFailed(origin);
    const stays = t("The table stays on this device.");
    if (ex.status || !body) toast(t("Not shared: {why}", { why: said(ex.data, S.names) || ex.message }), "bad");
    else if (origin) toast(t("Not shared: {server} can't be reached. {stays}", { server: origin, stays }), "bad");
    else toast(t("Not shared: the server can't be reached. The table stays on this device."), "bad");
    return;
  }
  keepNoMore();
  if (origin) {
    // The served table is at another origin, whose storage this page can't write: the tokens
    // go in the address's fragment, which the browser never sends to any server. This app's
    // start page lists the table there (seating.js).
    const handover = encodeURIComponent(toJSON({ host: body.host, tokens: body.tokens }));
    const served = `${origin}/t/${encodeURIComponent(res.id)}`;
    await DeviceTables.forget(KEY);
    keepElsewhere(res.id, served, S.info.header);
    location.href = `${served}#${HANDOVER}=${handover}`;
    return;
  }
  saveHost(res.id, body.host);
  saveDevice(res.id, "table");
  saveSeats(res.id, body.tokens);
  await DeviceTables.forget(KEY);
  location.href = tableHref(res.id);
}

// The served table's page, at its load: tokens a share from another address handed over (its
// fragment), kept as a share from this page's own origin keeps them (the table device's host
// and seats), and taken out of the address, once. Before anything reads the kept seats.
export function takeHandover() {
  const raw = new URLSearchParams(location.hash.slice(1)).get(HANDOVER);
  if (raw === null) return;
  history.replaceState(history.state, "", location.pathname + location.search);
  let given;
  try { given = parseJSON(raw); } catch { given = null; }
  const tokens = given && typeof given === "object" ? given.tokens : null;
  const valid = tokens && typeof tokens === "object" && !Array.isArray(tokens)
    && Object.values(tokens).every((v) => typeof v === "string")
    && (given.host === null || typeof given.host === "string");
  if (!valid) {
    toast(t("The seats this link brought could not be read: take a seat as any phone does."), "bad");
    return;
  }
  saveHost(KEY, given.host);
  saveDevice(KEY, "table");
  saveSeats(KEY, tokens);
}
