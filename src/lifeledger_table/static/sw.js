// The service worker, at the app's root: the server's /sw.js (its scope the whole site: /, /t/,
// /w/, /replay), or a static folder's sw.js (lifeledger app; its scope that folder). Every URL
// here is relative to its own directory, so it works in both homes.
// It keeps the app shell — the pages, scripts, style, icons, manifest, and the engine the
// engine worker runs (engine/engine.zip and Pyodide's files) — in a cache named by the build,
// and serves the shell from it, so the app, and its engine, open with no network. The server
// writes BUILD (a digest of every static file, the engine and Pyodide) and SHELL (their URLs)
// into this file as it serves it: a new build is a new service worker, which caches the new
// shell and, once active, deletes every older build's cache. The API (api/) and the WebSocket
// (ws/) are never cached.
// The languages' catalogues (i18n/<lang>.json, i18n.js) are asked of the network first (a
// new translation reaches the page without a new build) and kept in the cache for offline use:
// each language's at install, and every one the page fetches since.
"use strict";

const BUILD = "__BUILD__";
const SHELL = __SHELL__;
const CACHE = "lifeledger-" + BUILD;
// The app's root: this worker's own directory. Every URL of the shell is relative to it.
const ROOT = new URL("./", self.location);
const at = (path) => new URL(path, ROOT).href;
const SHELL_URLS = new Set(SHELL.map(at));
const TABLE_PAGE = at("table.html");
const INDEX_PAGE = at("index.html");
// The catalogues of the languages other than English (i18n.js's LANGUAGES; English needs none).
const CATALOGUES = ["i18n/it.json"].map(at);

self.addEventListener("install", (event) => {
  // Each file asked of the server again ("no-cache": a copy in the HTTP cache is used only once
  // the server says, with its validators, that it is still the file it serves: a 304 with no
  // body), so the cache holds this build's files, and a first visit doesn't download again
  // what the page and its engine worker have just fetched (Pyodide's 12 MB above all).
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll([...SHELL_URLS].map((url) => new Request(url, { cache: "no-cache" })))
        // Best effort: a catalogue that can't be fetched now is kept when the page fetches it.
        .then(() => Promise.all(CATALOGUES.map((url) => cache.add(new Request(url, { cache: "no-cache" })).catch(() => null)))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("lifeledger-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// The path of a request of this origin under the app's root, relative to it ("" for the root
// itself), or null for any other request.
function rootPath(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== ROOT.origin || !url.pathname.startsWith(ROOT.pathname)) return null;
  return url.pathname.slice(ROOT.pathname.length);
}

// The cached file a request is answered with (its URL), or null (the network answers it,
// uncached).
function shellFile(request) {
  const path = rootPath(request);
  if (path === null) return null;
  if (path.startsWith("api/") || path.startsWith("ws/") || path === "sw.js") return null;
  if (request.mode === "navigate") {
    if (path === "" || path === "index.html") return INDEX_PAGE;
    if (path === "table.html" || path === "replay" || /^[tw]\/[^/]+$/.test(path)) return TABLE_PAGE;
  }
  const file = at(path);
  return SHELL_URLS.has(file) ? file : null;
}

// A language's catalogue: the network's when it answers (and kept), else the one kept.
function isCatalogue(request) {
  const path = rootPath(request);
  return path !== null && /^i18n\/[A-Za-z_-]+\.json$/.test(path);
}

async function catalogue(request) {
  const key = at(rootPath(request));
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (res.ok) await cache.put(key, res.clone());
    return res;
  } catch (e) {
    const hit = await cache.match(key);
    if (hit) return hit;
    throw e;
  }
}

self.addEventListener("fetch", (event) => {
  if (isCatalogue(event.request)) { event.respondWith(catalogue(event.request)); return; }
  const file = shellFile(event.request);
  if (!file) return;
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(file))
      .then((hit) => hit || fetch(event.request)),
  );
});
