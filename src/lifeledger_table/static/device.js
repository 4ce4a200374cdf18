// Tables that live on this device (docs/table.md, "Device tables"): decided here, by the same
// Python a server runs (lifeledger_table.device in the engine worker, engine-worker.js), and
// kept in this browser's IndexedDB before anything is shown as done. The page talks to a device
// table through DeviceSocket, which answers as a server's socket does: no screen knows where a
// table lives. A device table's id begins with "d-".

import { said, t } from "./i18n.js";
import { parseJSON, toJSON } from "./common.js";

const DEVICE_PREFIX = "d-";
export function isDeviceTable(id) { return typeof id === "string" && id.startsWith(DEVICE_PREFIX); }
// A table's page: a served table's /t/ID; a device table's table.html?t=ID, which a static
// host serves too (relative to the page's base).
export function tableHref(id) {
  return isDeviceTable(id) ? new URL("table.html?t=" + encodeURIComponent(id), document.baseURI).href : `/t/${id}`;
}

// The engine worker sits beside this module (the server's /static/ or a static folder's static/).
const ENGINE_WORKER = new URL("engine-worker.js", import.meta.url).href;

// The engine: one worker a page, started on first use. call() runs a function of
// lifeledger_table.device with string arguments and resolves to its string answer; calls made
// before the engine is ready wait in the worker and run in order.
export const Engine = {
  worker: null, calls: new Map(), next: 1, readyMs: null, readyHow: null, failed: null,
  start() {
    if (this.worker) return;
    this.started = performance.now();
    this.worker = new Worker(ENGINE_WORKER, { type: "module" }); // Pyodide runs in module workers
    this.worker.addEventListener("message", (e) => this.answer(e.data));
    this.worker.addEventListener("error", (e) => this.fail(e.message || "the engine could not start"));
  },
  answer(msg) {
    // readyHow: "kept" (from the start the worker kept) or "full" (engine-worker.js).
    if (msg.type === "ready") { this.readyMs = performance.now() - this.started; this.readyHow = msg.start; return; }
    if (msg.type === "failed") { this.fail(msg.error); return; }
    const call = this.calls.get(msg.id);
    if (!call) return;
    this.calls.delete(msg.id);
    if ("error" in msg) call.reject(new Error(msg.error)); else call.resolve(msg.result);
  },
  fail(why) {
    this.failed = why;
    for (const call of this.calls.values()) call.reject(new Error(why));
    this.calls.clear();
  },
  call(name, ...args) { return this.callIn("host", name, ...args); },
  // The same for a function of another module of lifeledger_table.device (foresee.js calls
  // foresee:foresee).
  callIn(module, name, ...args) {
    this.start();
    if (this.failed) return Promise.reject(new Error(this.failed));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, call: `lifeledger_table.device.${module}:${name}`, args: args.map(String) });
    });
  },
};

// The device's storage: every device table's setup, seats and tools ("tables") and its log
// ("events", one row a change, as JSON text so that no total loses a digit).
export const DeviceStore = {
  db: null,
  open() {
    if (!this.db) {
      this.db = new Promise((resolve, reject) => {
        const req = indexedDB.open("lifeledger-device", 1);
        req.onupgradeneeded = () => {
          const db = req.result;
          db.createObjectStore("tables", { keyPath: "id" });
          db.createObjectStore("events", { keyPath: ["table", "seq"] });
        };
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    }
    return this.db;
  },
  // Keep what a call of the engine says to keep, in one transaction; resolves once it is on disk.
  async save(id, save) {
    if (!save || (!save.table && !(save.events || []).length && !save.tools)) return;
    const db = await this.open();
    await new Promise((resolve, reject) => {
      const tx = db.transaction(["tables", "events"], "readwrite", { durability: "strict" });
      const tables = tx.objectStore("tables");
      if (save.table) tables.put({ id, table: save.table, seats: save.seats || {}, tools: save.tools || null, changed: Date.now() });
      // add, not put: a change is never written over another kept under its number (a page
      // whose engine's copy is behind the log fails here: DeviceSocket, "one page at a time").
      for (const row of save.events || []) tx.objectStore("events").add({ table: id, seq: parseJSON(row).seq, row });
      if (save.tools || (save.events || []).length) {
        const got = tables.get(id);
        got.onsuccess = () => {
          const kept = got.result;
          if (!kept) return;
          if (save.tools) kept.tools = save.tools;
          kept.changed = Date.now();
          tables.put(kept);
        };
      }
      tx.oncomplete = () => resolve();
      // (The failed request's own error, a ConstraintError say: the transaction's is set
      // only once it has aborted.)
      tx.onerror = (e) => reject((e.target && e.target.error) || tx.error || new Error("IndexedDB"));
      tx.onabort = () => reject(tx.error || new Error("IndexedDB"));
    });
  },
  // A table as the engine opens it again (host.open_table), or null if this device has none.
  async load(id) {
    const db = await this.open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(["tables", "events"], "readonly");
      const got = tx.objectStore("tables").get(id);
      const rows = tx.objectStore("events").getAll(IDBKeyRange.bound([id, 0], [id, Infinity]));
      tx.oncomplete = () => {
        const kept = got.result;
        if (!kept) { resolve(null); return; }
        resolve(`{"table": ${toJSON(kept.table)}, "seats": ${toJSON(kept.seats)}, "tools": ${toJSON(kept.tools)}, "events": [${rows.result.map((r) => r.row).join(", ")}]}`);
      };
      tx.onerror = () => reject(tx.error);
    });
  },
  async remove(id) {
    const db = await this.open();
    await new Promise((resolve, reject) => {
      const tx = db.transaction(["tables", "events"], "readwrite");
      tx.objectStore("tables").delete(id);
      tx.objectStore("events").delete(IDBKeyRange.bound([id, 0], [id, Infinity]));
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
  },
};

// An engine's answer that is an error ({"error": {...}}) as a thrown error with its data, as
// api() throws a server's.
export function engineAnswer(text) {
  const data = parseJSON(text);
  if (data && data.error && typeof data.error === "object") {
    const err = new Error(said(data.error, null) || data.error.message);
    err.data = data.error; err.status = 400;
    throw err;
  }
  return data;
}

export const DeviceTables = {
  opened: new Map(),
  // A new device table from the setup form: its id, host token and seat tokens, kept first.
  async create(form) {
    const res = engineAnswer(await Engine.call("create", toJSON(form)));
    await DeviceStore.save(res.id, res.save);
    return res;
  },
  // The table in the engine, from this device's storage (once a page).
  open(id) {
    if (!this.opened.has(id)) {
      const opening = DeviceStore.load(id).then(async (kept) => {
        if (kept === null) {
          const err = new Error(t("This table is not kept on this device."));
          err.data = { error: "unknown-table" }; err.status = 404;
          throw err;
        }
        engineAnswer(await Engine.call("open_table", kept));
      });
      opening.catch(() => this.opened.delete(id));
      this.opened.set(id, opening);
    }
    return this.opened.get(id);
  },
  // What GET /api/tables/{id} answers for a served table.
  async info(id) {
    await this.open(id);
    return engineAnswer(await Engine.call("info", id));
  },
  // What sharing the table with a server sends (host.shared), without the device's tokens.
  async shared(id) {
    await this.open(id);
    return engineAnswer(await Engine.call("shared", id));
  },
  // The table was shared: it lives on the server now; the device keeps no copy of it.
  async forget(id) {
    await DeviceStore.remove(id);
    try { localStorage.removeItem(`lifeledger-offline-play-${id}`); localStorage.removeItem(`lifeledger-pending-${id}`); } catch { /* storage refused */ }
    await this.reopen(id);
  },
  // A page's changes not yet decided, to the page of this device that took the table from it.
  handOver(id, changes) { if (PAGES && changes.length) PAGES.postMessage({ table: id, changes }); },
  // The engine's copy of the table is dropped: the next open reads it from storage again.
  async reopen(id) {
    if (this.opened.has(id)) await Engine.call("forget", id);
    this.opened.delete(id);
  },
  // Game n's record as JSON text (what a server's record download holds).
  async record(id, n) {
    await this.open(id);
    const text = await Engine.call("record", id, n);
    engineAnswer(text); // an error is thrown
    return text;
  },
};

// One page at a time decides a device table. Two pages of this device (tabs, windows, the
// installed app beside the browser) each deciding it with an engine of its own would each
// write the next change of its log. A page that opens the table says so to the device's other
// pages (a BroadcastChannel), and one that had it open gives it up: its socket says where the
// table went and closes (render.js offers to take it back: "Use it here" opens it there
// again). The later opening wins, so two pages opened at once agree. And no change is written
// over another kept under its number (DeviceStore.save): a page whose copy fell behind the log
// meanwhile reads the table again and decides its change anew, nothing lost.
const PAGES = typeof BroadcastChannel === "function" ? new BroadcastChannel("lifeledger-device-tables") : null;

// A device table's connection: what the page would have of a server's WebSocket (readyState,
// send, close, the open/message/close events). Each message is decided by the engine, what it
// says to keep is written to IndexedDB, and only then are the answers delivered, in order.
export class DeviceSocket {
  constructor(id) {
    this.id = id;
    this.readyState = DeviceSocket.CONNECTING;
    this.listeners = { open: [], message: [], close: [] };
    // When it opened, across the device's pages (ms since the epoch; a random tie-break).
    this.openedAt = performance.timeOrigin + performance.now() + Math.random() / 1000;
    this.onPage = (e) => {
      const news = e.data;
      if (!news || news.table !== id) return;
      if (Array.isArray(news.changes)) this.emit("message", { data: toJSON({ type: "handed", changes: news.changes }) });
      else if (news.at > this.openedAt) this.elsewhere();
    };
    if (PAGES) {
      PAGES.addEventListener("message", this.onPage);
      PAGES.postMessage({ table: id, at: this.openedAt });
    }
    this.chain = DeviceTables.open(id).then(
      () => { if (this.readyState === DeviceSocket.CONNECTING) { this.readyState = DeviceSocket.OPEN; this.emit("open", {}); } },
      (err) => this.fail(err),
    );
  }
  addEventListener(type, fn) { (this.listeners[type] || []).push(fn); }
  emit(type, event) { for (const fn of this.listeners[type]) fn(event); }
  send(text) {
    if (this.readyState !== DeviceSocket.OPEN) throw new Error("the device table is not open");
    this.chain = this.chain
      .then(() => Engine.call("message", this.id, text))
      .then(async (answer) => {
        const out = parseJSON(answer);
        try {
          await DeviceStore.save(this.id, out.save);
        } catch (err) {
          if (!err || err.name !== "ConstraintError") throw err;
          // The log moved on without this page's engine (another page decided a change here):
          // its copy is read again, and the page, connecting again, sends its change again.
          await DeviceTables.reopen(this.id);
          this.close();
          return;
        }
        if (this.readyState !== DeviceSocket.OPEN) return;
        for (const msg of out.send) this.emit("message", { data: msg });
      })
      .catch((err) => this.fail(err));
  }
  // Another page of this device opened the table since: it decides it now.
  elsewhere() {
    if (this.readyState === DeviceSocket.CLOSED) return;
    const why = t("This table is open in another tab or window of this device, which decides it now.");
    this.emit("message", { data: toJSON({ type: "error", id: null, error: "table-unavailable", elsewhere: true, message: why }) });
    this.close();
  }
  // The engine or the storage failed: the table can't be decided here now. Said as a server
  // says a table it can't load, and closed.
  fail(err) {
    if (this.readyState === DeviceSocket.CLOSED) return;
    const why = err && err.status === 404 ? err.message : t("This device can't decide the table now: {why}", { why: (err && err.message) || "?" });
    this.emit("message", { data: toJSON({ type: "error", id: null, error: "table-unavailable", message: why }) });
    this.close();
  }
  close() {
    if (this.readyState === DeviceSocket.CLOSED) return;
    this.readyState = DeviceSocket.CLOSED;
    if (PAGES) PAGES.removeEventListener("message", this.onPage);
    this.emit("close", {});
  }
}
DeviceSocket.CONNECTING = 0;
DeviceSocket.OPEN = 1;
DeviceSocket.CLOSED = 3;
