// eslint's flat config (make lint: eslint .): the table app's scripts and the tests' page
// audits, with eslint's recommended rules.
// The pages' scripts are ES modules in a browser; sw.js is a classic service worker script (the
// server writes its build and shell into __BUILD__ and __SHELL__); engine-worker.js is a module
// worker; the tests' page audits (tests/table/*_audit.js) are functions run in a page.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Not ours: the virtual environment's packages, Pyodide's files make copies in, and the
  // pages' bundles esbuild makes of the modules checked here.
  { ignores: [".venv/", "src/lifeledger_table/pyodide/", "src/lifeledger_table/bundles/"] },
  js.configs.recommended,
  {
    files: ["src/lifeledger_table/static/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["src/lifeledger_table/static/sw.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.serviceworker, __SHELL__: "readonly" },
    },
  },
  {
    files: ["src/lifeledger_table/static/engine-worker.js"],
    languageOptions: { sourceType: "module", globals: globals.worker },
  },
  {
    files: ["tests/table/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "script",
      // lifeledger: the page's inspection surface (docs/table.md, "The page's scripts").
      globals: { ...globals.browser, lifeledger: "readonly" },
    },
  },
];
