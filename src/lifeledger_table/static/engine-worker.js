// The engine worker: the table's own Python (lifeledger, the table's decisions and store,
// lifeledger_table.device) running in Pyodide, off the page's thread. Its paths are relative
// to its own URL, so it works at the server's /static/ and in a static folder's static/ alike;
// nothing is fetched from anywhere else (Pyodide is the app's own copy, kept by the service
// worker for offline use).
//
// It posts {type: "ready", ms, start, phases} once the engine is imported (ms: from the
// worker's start; start: "kept" or "full", below; phases: when each step ended, in ms from the
// worker's start), or {type: "failed", error}. The page posts {id, call:
// "lifeledger_table.device.MODULE:FUNCTION", args: [strings]}; the worker calls that function
// with the strings and posts back {id, result: <the string it returned>} or {id, error: <text>}.
// Calls that come before the engine is ready wait, and all calls run one at a time in the
// order they came.
//
// The kept start (docs/table.md, "Device tables"). A full start — WebAssembly instantiated,
// Python initialised, the engine unpacked and its modules imported and run once — costs
// seconds on a phone. So the first one keeps Pyodide's memory as it is then (its memory
// snapshot: loadPyodide's _makeSnapshot and makeMemorySnapshot) in IndexedDB
// (lifeledger-engine, store "starts"), under a key that names exactly what made it: the
// digest of the engine (engine/engine.zip), of this file and of Pyodide's version. Later opens
// whose key is the same start from it (_loadSnapshot): Python's memory is put back as it was,
// with every module imported; only the file system (the standard library and the engine's
// files, which are not in that memory) is filled again. A new build's engine or worker has
// another key: the old start is not used, and is replaced. A kept start is checked before it
// is used (its bytes' digest, kept beside it; then the key Python itself holds): one that fails
// to load or to check is deleted and the engine starts in full, and keeps a new one. Never a
// wrong engine: a start is used only for the very files it was made from.
"use strict";

const STARTED = performance.now();
const PYODIDE_URL = new URL("../pyodide/", self.location).href;
const ENGINE_URL = new URL("../engine/engine.zip", self.location).href;
// Where the engine's files are unpacked in Pyodide's file system (put first on sys.path).
const ENGINE_DIR = "/engine";
// Where the kept start is: one record, the newest.
const KEPT_DB = "lifeledger-engine";
const KEPT_STORE = "starts";
const KEPT_RECORD = "start";

// The Python side of a call: only functions of modules under lifeledger_table.device, given
// strings, returning a string. Answers [true, result] or [false, error text]: the text a
// person reads is the exception's own (its class name when it has none), never a traceback.
const DISPATCH = `
import importlib

def _lifeledger_call(target, args):
    try:
        module, sep, name = target.partition(":")
        if not sep or not name or not (module == "lifeledger_table.device"
                                       or module.startswith("lifeledger_table.device.")):
            raise ValueError(f"{target!r}: only functions of lifeledger_table.device's modules may be called")
        function = getattr(importlib.import_module(module), name, None)
        if not callable(function) or name.startswith("_"):
            raise ValueError(f"{target!r}: no such function")
        if not all(isinstance(a, str) for a in args):
            raise TypeError(f"{target!r}: every argument is a string")
        result = function(*args)
        if not isinstance(result, str):
            raise TypeError(f"{target!r} returned {type(result).__name__}, not a string")
        return (True, result)
    except Exception as exc:
        return (False, str(exc) or type(exc).__name__)
`;

// What a started engine runs once its memory is back from a kept start: the random numbers'
// state is this start's own (random seeded it at import, and the kept start is every open's);
// and the key the memory was kept under, which must be this one.
const RESTORED = `
import random as _random
_random.seed()
del _random
_lifeledger_start
`;

// Every module of the engine imported (its __main__ aside, which would run the command line),
// so that a kept start needs none of the engine's .py files again: answers the modules that
// could not be imported (then a kept start unpacks every file, as a full start does).
const EVERY = `
def _lifeledger_import_every(top):
    import importlib, os
    failed = []
    for folder, _, names in sorted(os.walk(top)):
        for file in sorted(names):
            if not file.endswith(".py"):
                continue
            name = os.path.relpath(os.path.join(folder, file), top)[:-3].replace(os.sep, ".")
            name = name.removesuffix(".__init__")
            if name.endswith("__main__"):
                continue
            try:
                importlib.import_module(name)
            except Exception as exc:
                failed.append(f"{name}: {exc}")
    return failed
`;

let call = null; // the Python dispatcher once ready
let failed = null; // the error text if the engine could not start
const waiting = []; // calls made before the engine was ready, in order
const phases = {}; // when each step of the start ended (ms from the worker's start)
function mark(step) { phases[step] = Math.round(performance.now() - STARTED); }

async function fetched(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The key of a start: the digest of the engine, this file and Pyodide's version.
async function startKey(engine, worker, version) {
  const label = new TextEncoder().encode(`\0${version}\0`);
  const all = new Uint8Array(engine.length + label.length + worker.length);
  all.set(engine, 0);
  all.set(label, engine.length);
  all.set(worker, engine.length + label.length);
  return hex(await crypto.subtle.digest("SHA-256", all));
}

// The engine's files that ``wanted`` takes (by name) written into Pyodide's file system under
// dir, from the zip's central directory, each stored or deflated (DecompressionStream).
async function unzipInto(FS, zip, dir, wanted) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("the engine is not a zip");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const names = new TextDecoder();
  const files = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("the engine's zip is damaged");
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const length = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = names.decode(zip.subarray(at + 46, at + 46 + length));
    at += 46 + length + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith("/") || !wanted(name)) continue;
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(`the engine's zip names ${name}`);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compressed with method ${method}`);
    const from = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(from, from + packed);
    const inflated = method === 0 ? Promise.resolve(data)
      : new Response(new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer();
    files.push({ name, size, inflated });
  }
  for (const file of files) {
    const bytes = new Uint8Array(await file.inflated);
    if (bytes.length !== file.size) throw new Error(`${file.name}: ${bytes.length} bytes, not ${file.size}`);
    const path = `${dir}/${file.name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, bytes);
  }
}

// -- the kept start, in IndexedDB ----------------------------------------------------------

function keptDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(KEPT_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(KEPT_STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function keptRequest(mode, act) {
  return keptDb().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(KEPT_STORE, mode);
    const req = act(tx.objectStore(KEPT_STORE));
    let value;
    req.onsuccess = () => { value = req.result; };
    tx.oncomplete = () => { db.close(); resolve(value); };
    tx.onerror = tx.onabort = () => { db.close(); reject(tx.error || req.error); };
  }));
}

// The kept start ({key, digest, bytes: Blob}) or null; never an error (none kept is a full start).
function readKept() {
  if (typeof indexedDB === "undefined") return Promise.resolve(null);
  return keptRequest("readonly", (store) => store.get(KEPT_RECORD)).catch(() => null);
}

function forgetKept() {
  return keptRequest("readwrite", (store) => store.delete(KEPT_RECORD)).catch(() => undefined);
}

// files: "data" when every module was imported (a kept start then writes only the engine's
// other files, its catalogues), else "all".
async function keep(key, bytes, files) {
  if (typeof indexedDB === "undefined") return;
  const digest = hex(await crypto.subtle.digest("SHA-256", bytes));
  const record = { key, digest, files, bytes: new Blob([bytes]) };
  await keptRequest("readwrite", (store) => store.put(record, KEPT_RECORD));
}

// The kept start's bytes, if they are those it was kept with.
async function keptBytes(kept) {
  if (!(kept.bytes instanceof Blob) || typeof kept.digest !== "string") throw new Error("not a kept start");
  const bytes = new Uint8Array(await kept.bytes.arrayBuffer());
  if (hex(await crypto.subtle.digest("SHA-256", bytes)) !== kept.digest) throw new Error("the kept start is damaged");
  return bytes;
}

// -- starting ------------------------------------------------------------------------------

// Pyodide with the engine: from kept bytes (a kept start: a promise of them) or in full (then
// able to keep one).
async function start(loadPyodide, engine, key, kept, files) {
  // packageBaseUrl: the engine loads no package, and if one were asked for it would come from
  // the app's own folder, never from elsewhere.
  const options = { indexURL: PYODIDE_URL, packageBaseUrl: PYODIDE_URL };
  if (kept) options._loadSnapshot = kept;
  else options._makeSnapshot = true;
  const pyodide = await loadPyodide(options);
  mark("python");
  // The engine's files: its catalogues are read from them, and a module not yet imported too
  // (a kept start with every module imported writes only the others).
  if (kept && files === "data") await unzipInto(pyodide.FS, engine, ENGINE_DIR, (name) => !name.endsWith(".py"));
  else pyodide.unpackArchive(engine, "zip", { extractDir: ENGINE_DIR });
  mark("unpacked");
  if (kept) {
    const held = pyodide.runPython(RESTORED);
    if (held !== key) throw new Error("the kept start is another engine's");
    mark("checked");
    return { pyodide, files };
  }
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(ENGINE_DIR)})\n` + DISPATCH);
  pyodide.pyimport("lifeledger_table.device.host");
  pyodide.pyimport("lifeledger_table.device.foresee");
  mark("imported");
  // One table's first moves, on a scratch device: every module and cache they need, ready.
  const life = pyodide.runPython("import lifeledger_table.device.host as _h\n_h.warm()");
  if (life !== "17") throw new Error(`the engine's first change gave ${life}, not 17`);
  pyodide.runPython(`del _h\n_lifeledger_start = ${JSON.stringify(key)}`);
  mark("warmed");
  pyodide.runPython(EVERY);
  const importEvery = pyodide.globals.get("_lifeledger_import_every");
  const failed = importEvery(ENGINE_DIR);
  const every = failed.length === 0;
  failed.destroy();
  importEvery.destroy();
  mark("every");
  return { pyodide, files: every ? "data" : "all" };
}

// Pyodide (since 0.28) runs in module workers only: its runtime is an ES module, loaded with
// import(), and it refuses a classic worker by trying importScripts. The page may start this
// file either way ({type: "module"} is the one Pyodide asks for); started as a classic worker,
// which has import() too (Chromium 80, Safari 15, Firefox 114), importScripts is hidden, so
// that Pyodide loads as in a module worker.
async function boot() {
  try { self.importScripts("data:text/javascript,"); self.importScripts = undefined; } catch { /* a module worker */ }
  const found = readKept();
  const engineBytes = fetched(ENGINE_URL);
  const workerBytes = fetched(self.location.href);
  const { loadPyodide, version } = await import(PYODIDE_URL + "pyodide.mjs");
  const key = await startKey(await engineBytes, await workerBytes, version);
  const kept = await found;
  mark("looked");
  let refused = null; // why a kept start was not used
  if (kept && kept.key === key) {
    try {
      // Read and checked while Pyodide's runtime loads (loadPyodide takes a promise of it).
      const bytes = keptBytes(kept).then((read) => { mark("read"); return read; });
      const { pyodide } = await start(loadPyodide, await engineBytes, key, bytes, kept.files);
      return { pyodide, how: "kept", refused };
    } catch (e) {
      refused = String(e && e.message || e);
      await forgetKept();
    }
  } else if (kept) {
    refused = "the kept start is another build's";
  }
  const { pyodide, files } = await start(loadPyodide, await engineBytes, key, null, "all");
  // Taken now, before any table is open: the start every later open begins from.
  const snapshot = pyodide.makeMemorySnapshot();
  mark("snapshot");
  return { pyodide, how: "full", refused, key, snapshot, files };
}

function answer(message) {
  const { id } = message;
  if (failed !== null) { self.postMessage({ id, error: failed }); return; }
  if (typeof message.call !== "string" || !Array.isArray(message.args)) {
    self.postMessage({ id, error: "a call is {id, call: \"module:function\", args: [strings]}" });
    return;
  }
  let out = null;
  try {
    out = call(message.call, message.args);
    const [ok, text] = out.toJs();
    self.postMessage(ok ? { id, result: text } : { id, error: text });
  } catch (e) {
    self.postMessage({ id, error: String(e && e.message || e) });
  } finally {
    if (out && out.destroy) out.destroy();
  }
}

self.onmessage = (event) => {
  if (call === null && failed === null) waiting.push(event.data);
  else answer(event.data);
};

// Ready or failed, the calls that waited are answered at once, before any later one (nothing
// else runs in between: this is one task).
function settle() { while (waiting.length) answer(waiting.shift()); }

boot().then(
  (started) => {
    call = started.pyodide.globals.get("_lifeledger_call");
    const ms = Math.round(performance.now() - STARTED);
    self.postMessage({ type: "ready", ms, start: started.how, refused: started.refused, phases });
    settle();
    // The start is kept after the waiting calls are answered: they never wait on the writing.
    if (started.snapshot) {
      keep(started.key, started.snapshot, started.files).then(
        () => { mark("kept"); self.postMessage({ type: "kept", ms: phases.kept, bytes: started.snapshot.length }); },
        (e) => self.postMessage({ type: "kept", error: String(e && e.message || e) }),
      );
    }
  },
  (e) => {
    failed = `the engine could not start: ${String(e && e.message || e)}`;
    self.postMessage({ type: "failed", error: failed });
    settle();
  },
);
