// The service worker (served at /sw.js, so its scope is the whole site: /, /t/, /w/, /replay).
// It keeps the app shell — the pages, scripts, style, icons and manifest — in a cache named by
// the build, and serves the shell from it, so the app opens with no network. The server writes
// BUILD (a digest of every static file) and SHELL (their URLs) into this file as it serves it:
// a new build is a new service worker, which caches the new shell and, once active, deletes
// every older build's cache. The API (/api/) and the WebSocket (/ws/) are never cached.
"use strict";

const BUILD = "__BUILD__";
const SHELL = __SHELL__;
const CACHE = "lifeledger-" + BUILD;
const TABLE_PAGE = "/static/table.html";
const INDEX_PAGE = "/static/index.html";

self.addEventListener("install", (event) => {
  // Fetched anew ("reload": not from the HTTP cache), so the cache holds this build's files.
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
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

self.addEventListener("fetch", (event) => {
  const file = shellFile(event.request);
  if (!file) return;
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(file))
      .then((hit) => hit || fetch(event.request)),
  );
});
