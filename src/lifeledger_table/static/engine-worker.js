// The engine worker: the table's own Python (lifeledger, the table's decisions and store,
// lifeledger_table.device) running in Pyodide, off the page's thread. Its paths are relative
// to its own URL, so it works at the server's /static/ and in a static folder's static/ alike;
// nothing is fetched from anywhere else (Pyodide is the app's own copy, kept by the service
// worker for offline use).
//
// It posts {type: "ready", ms} once the engine is imported (ms: from the worker's start), or
// {type: "failed", error}. The page posts {id, call: "lifeledger_table.device.MODULE:FUNCTION",
// args: [strings]}; the worker calls that function with the strings and posts back
// {id, result: <the string it returned>} or {id, error: <text>}. Calls that come before the
// engine is ready wait, and all calls run one at a time in the order they came.
"use strict";

const STARTED = performance.now();
const PYODIDE_URL = new URL("../pyodide/", self.location).href;
const ENGINE_URL = new URL("../engine/engine.zip", self.location).href;
// Where the engine's files are unpacked in Pyodide's file system (put first on sys.path).
const ENGINE_DIR = "/engine";

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

let call = null; // the Python dispatcher once ready
let failed = null; // the error text if the engine could not start
const waiting = []; // calls made before the engine was ready, in order

// Pyodide (since 0.28) runs in module workers only: its runtime is an ES module, loaded with
// import(), and it refuses a classic worker by trying importScripts. The page may start this
// file either way ({type: "module"} is the one Pyodide asks for); started as a classic worker,
// which has import() too (Chromium 80, Safari 15, Firefox 114), importScripts is hidden, so
// that Pyodide loads as in a module worker.
async function boot() {
  try { self.importScripts("data:text/javascript,"); self.importScripts = undefined; } catch { /* a module worker */ }
  const { loadPyodide } = await import(PYODIDE_URL + "pyodide.mjs");
  // packageBaseUrl: the engine loads no package, and if one were asked for it would come from
  // the app's own folder, never from elsewhere.
  const pyodide = await loadPyodide({ indexURL: PYODIDE_URL, packageBaseUrl: PYODIDE_URL });
  const res = await fetch(ENGINE_URL);
  if (!res.ok) throw new Error(`${ENGINE_URL}: HTTP ${res.status}`);
  pyodide.unpackArchive(await res.arrayBuffer(), "zip", { extractDir: ENGINE_DIR });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(ENGINE_DIR)})\n` + DISPATCH);
  pyodide.pyimport("lifeledger_table.device");
  return pyodide.globals.get("_lifeledger_call");
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
  (dispatch) => {
    call = dispatch;
    self.postMessage({ type: "ready", ms: Math.round(performance.now() - STARTED) });
    settle();
  },
  (e) => {
    failed = `the engine could not start: ${String(e && e.message || e)}`;
    self.postMessage({ type: "failed", error: failed });
    settle();
  },
);
