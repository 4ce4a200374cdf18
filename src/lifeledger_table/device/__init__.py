"""Tables that live on the device: the table's decisions run in the browser (Pyodide), with
no server (docs/table.md, "Device tables").

The page's engine worker (``static/engine-worker.js``) imports this package and calls its
functions with JSON text, getting JSON text back. It sits beside :mod:`..live` above the
decisions and the store, and like the decisions it uses no event loop, network or thread:
everything a device table decides is decided at once, in order, as the worker's calls come.
"""
