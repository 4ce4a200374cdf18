// The service worker (served at /sw.js, so its scope is the whole site: /, /t/, /w/, /replay).
// It keeps the app shell — the pages, scripts, style, icons and manifest — in a cache named by
// the build, and serves the shell from it, so the app opens with no network. The server writes
// BUILD (a digest of every static file) and SHELL (their URLs) into this file as it serves it:
// a new build is a new service worker, which caches the new shell and, once active, deletes
// every older build's cache. The API (/api/) and the WebSocket (/ws/) are never cached.
// The languages' catalogues (/i18n/<lang>.json, i18n.js) are asked of the network first (a
// new translation reaches the page without a new build) and kept in the cache for offline use:
// each language's at install, and every one the page fetches since.
"use strict";

const BUILD = "__BUILD__";
const SHELL = __SHELL__;
const CACHE = "lifeledger-" + BUILD;
const TABLE_PAGE = "/static/table.html";
const INDEX_PAGE = "/static/index.html";
// The catalogues of the languages other than English (i18n.js's LANGUAGES; English needs none).
const CATALOGUES = ["/i18n/it.json"];

self.addEventListener("install", (event) => {
  // Fetched anew ("reload": not from the HTTP cache), so the cache holds this build's files.
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" })))
        // Best effort: a catalogue that can't be fetched now is kept when the page fetches it.
        .then(() => Promise.all(CATALOGUES.map((url) => cache.add(new Request(url, { cache: "reload" })).catch(() => null)))))
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

// The cached file a request is answered with, or null (the network answers it, uncached).
function shellFile(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  const path = url.pathname;
  if (path.startsWith("/api/") || path.startsWith("/ws/") || path === "/sw.js") return null;
  if (request.mode === "navigate") {
    if (path === "/") return INDEX_PAGE;
    if (path === "/replay" || /^\/[tw]\/[^/]+$/.test(path)) return TABLE_PAGE;
  }
  return SHELL.includes(path) ? path : null;
}

// A language's catalogue: the network's when it answers (and kept), else the one kept.
function isCatalogue(request) {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  return url.origin === self.location.origin && /^\/i18n\/[A-Za-z_-]+\.json$/.test(url.pathname);
}

async function catalogue(request) {
  const key = new URL(request.url).pathname;
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
