// The page in the player's language (issue 20). Every string a person reads goes through
// t("English {name}", {name: ...}) or tn("1 {n} thing", "{n} things", n, {n}), always with
// string literals as first arguments: `make catalogues` finds them there (keywords t and tn)
// and the catalogues (src/lifeledger_table/locale/<lang>/LC_MESSAGES/page.po, with the
// server's and the engine's domains) hold their translations. The server serves a language's
// catalogue as /i18n/<lang>.json: {"lang", "plural" (gettext's Plural-Forms expression),
// "messages": {msgid: text, singular msgid: [form 0, form 1, ...]}}; a message missing there
// is shown in English (its msgid). This script is loaded first by every page.

import { h } from "./common.js";

// The languages the page speaks, each in its own name (the language switch shows these).
const LANGUAGES = { en: "English", it: "Italiano" };
const LANG_KEY = "lifeledger-lang"; // the language chosen on this device (localStorage)
const CATALOGUE_KEY = "lifeledger-i18n-"; // + lang: the last catalogue fetched, for offline use
const CATALOGUE_WAIT = 4000; // a first load waits this long for a catalogue, then goes on in English

export const I18N = { lang: "en", messages: {}, plural: null, ready: null, listeners: [] };

// The language for this device: the one chosen here, else the first of the browser's
// languages the page speaks, else English.
function pickLang() {
  try {
    const kept = localStorage.getItem(LANG_KEY);
    if (kept && Object.prototype.hasOwnProperty.call(LANGUAGES, kept)) return kept;
  } catch { /* no storage: the browser's languages decide */ }
  const wanted = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"]);
  for (const tag of wanted) {
    const base = String(tag || "").toLowerCase().split(/[-_]/)[0];
    if (Object.prototype.hasOwnProperty.call(LANGUAGES, base)) return base;
  }
  return "en";
}

export function lang() { return I18N.lang; }

// ---------------------------------------------------------------- plural expressions

// gettext's Plural-Forms expression ("(n != 1)", "n==1 ? 0 : n%10>=2 && ... ? 1 : 2") as a
// function of n, parsed here (the page's CSP allows no eval): n, integers, ! and the C
// operators * / % + - < > <= >= == != && || ?: and parentheses.
export function compilePlural(text) {
  const tokens = String(text).match(/\s*(\d+|n|==|!=|<=|>=|&&|\|\||[!<>?:()%*/+-])\s*/g);
  if (!tokens || tokens.join("").replace(/\s+/g, "") !== String(text).replace(/\s+/g, "")) throw new Error("bad plural expression");
  const toks = tokens.map((x) => x.trim());
  let i = 0;
  const peek = () => toks[i];
  const take = (want) => {
    if (want !== undefined && toks[i] !== want) throw new Error(`plural expression: expected ${want}`);
    return toks[i++];
  };
  // Each parser returns a function of n.
  const BINARY = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["*", "/", "%"]];
  const OPS = {
    "||": (a, b) => (a || b ? 1 : 0), "&&": (a, b) => (a && b ? 1 : 0), "==": (a, b) => (a === b ? 1 : 0),
    "!=": (a, b) => (a !== b ? 1 : 0), "<": (a, b) => (a < b ? 1 : 0), ">": (a, b) => (a > b ? 1 : 0),
    "<=": (a, b) => (a <= b ? 1 : 0), ">=": (a, b) => (a >= b ? 1 : 0), "+": (a, b) => a + b, "-": (a, b) => a - b,
    "*": (a, b) => a * b, "/": (a, b) => (b ? Math.trunc(a / b) : 0), "%": (a, b) => (b ? a % b : 0),
  };
  const ternary = () => {
    const cond = binary(0);
    if (peek() !== "?") return cond;
    take("?");
    const yes = ternary();
    take(":");
    const no = ternary();
    return (n) => (cond(n) ? yes(n) : no(n));
  };
  const binary = (level) => {
    if (level === BINARY.length) return unary();
    let left = binary(level + 1);
    while (BINARY[level].includes(peek())) {
      const op = OPS[take()];
      const l = left, r = binary(level + 1);
      left = (n) => op(l(n), r(n));
    }
    return left;
  };
  const unary = () => {
    const tok = take();
    if (tok === "!") { const x = unary(); return (n) => (x(n) ? 0 : 1); }
    if (tok === "(") { const x = ternary(); take(")"); return x; }
    if (tok === "n") return (n) => n;
    if (/^\d+$/.test(tok || "")) { const v = Number(tok); return () => v; }
    throw new Error("plural expression: unexpected " + tok);
  };
  const fn = ternary();
  if (i !== toks.length) throw new Error("plural expression: trailing " + toks[i]);
  return fn;
}

// A count as the plural expression reads it: a huge one (a BigInt, or a decimal string beyond
// 2^53) keeps its last six digits, and stays above a million (its form is a big number's).
function pluralCount(count) {
  const s = String(count).replace(/^-/, "");
  if (!/^\d+$/.test(s)) return Number(count) || 0;
  return s.length <= 15 ? Number(s) : 1000000 + Number(s.slice(-6));
}

// ---------------------------------------------------------------- numbers

// A whole number for the locale: "1.234.567" in Italian. A number beyond 2^53 (a BigInt, or
// a decimal string) is grouped here digit by digit with the locale's own separator.
// One formatter a language, made once. Making the page's first one costs some 80 ms on a
// phone (4x: the locale's data loaded), so a table's first draw makes none: a whole number
// under 1,000 is written as Intl writes it in the page's languages (LANGUAGES: ASCII digits, a
// hyphen-minus, no group separator), test_page_numbers checking the two agree.
const FORMATS = new Map();
const PLAIN_DIGITS = new Set(["en", "it"]);
function numberFormat() {
  if (!FORMATS.has(I18N.lang)) FORMATS.set(I18N.lang, new Intl.NumberFormat(I18N.lang));
  return FORMATS.get(I18N.lang);
}
export function formatNumber(value) {
  const text = String(value);
  if (typeof value === "number" && !Number.isInteger(value)) return numberFormat().format(value);
  const m = /^(-?)(\d+)$/.exec(text);
  if (!m) return text;
  const n = Number(text);
  if (Math.abs(n) < 1000 && !Object.is(n, -0) && PLAIN_DIGITS.has(I18N.lang)) return String(n);
  if (Number.isSafeInteger(n)) return numberFormat().format(n);
  const parts = numberFormat().formatToParts(-1234567);
  const group = (parts.find((p) => p.type === "group") || { value: "," }).value;
  const minus = (parts.find((p) => p.type === "minusSign") || { value: "-" }).value;
  const digits = m[2].replace(/^0+(?=\d)/, "");
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return (m[1] ? minus : "") + grouped;
}

// ---------------------------------------------------------------- translating

// ``{name}`` replaced by args.name: numbers (Numbers, BigInts) formatted for the locale,
// strings as they are (a card's name, a rule number). A placeholder with no arg stays.
function fillArgs(text, args) {
  if (!args) return text;
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key) => {
    if (!Object.prototype.hasOwnProperty.call(args, key)) return whole;
    const v = args[key];
    if (v === null || v === undefined) return "";
    return typeof v === "number" || typeof v === "bigint" ? formatNumber(v) : String(v);
  });
}

// The translation of ``msgid`` with its placeholders filled.
export function t(msgid, args) {
  const hit = I18N.messages[msgid];
  const text = typeof hit === "string" && hit ? hit : Array.isArray(hit) && hit[0] ? hit[0] : msgid;
  return fillArgs(text, args);
}

// The translation of ``msgid`` in ``context`` (one English string, two meanings).
export function tc(context, msgid, args) {
  const hit = I18N.messages[context + "\u0004" + msgid];
  return fillArgs(typeof hit === "string" && hit ? hit : msgid, args);
}

// The plural form for ``count``: the catalogue's, chosen by its Plural-Forms expression; in
// English (or with no translation) ``singular`` for 1 and ``plural`` otherwise. ``count`` is
// not put in the text by itself: pass it in ``args`` ({n: count}).
export function tn(singular, plural, count, args) {
  const forms = I18N.messages[singular];
  const n = pluralCount(count);
  if (Array.isArray(forms) && forms.length && I18N.plural) {
    let k;
    try { k = Number(I18N.plural(n)); } catch { k = n === 1 ? 0 : 1; }
    const form = forms[Math.min(Math.max(k, 0), forms.length - 1)];
    if (form) return fillArgs(form, args);
  }
  return fillArgs(n === 1 ? singular : plural, args);
}

// Several things as one: "Ana, Bo e Cy" (``sep`` ",": "Ana, Bo", a list of events).
export function listOf(items, sep) {
  const texts = items.map(String);
  if (sep === ",") return texts.join(", ");
  try { return new Intl.ListFormat(I18N.lang, { type: "conjunction" }).format(texts); } catch { return texts.join(", "); }
}

// A structured sentence from the server or the engine, in this page's language:
// {"msg": English template, "args": {...}, "plural"?: English plural, "count"?: arg name}. An
// arg is a literal string (a card's name, a rule number), {"id"} (a player, team or card:
// named by ``names``), {"n": "123"} (a whole number, maybe huge), a nested sentence, or
// {"list": [...]}. A plain string (an older server or record) is read by Names.text.
export function sentence(obj, names) {
  if (obj === null || obj === undefined) return "";
  if (typeof obj === "string") return names && names.text ? names.text(obj) : obj;
  if (typeof obj !== "object" || typeof obj.msg !== "string") return String(obj.text || "");
  const args = {};
  for (const [key, value] of Object.entries(obj.args || {})) args[key] = sentenceArg(value, names);
  if (obj.plural && obj.count && obj.args && obj.count in obj.args) {
    const raw = obj.args[obj.count];
    const count = raw && typeof raw === "object" && "n" in raw ? raw.n : raw;
    return tn(obj.msg, obj.plural, count, args);
  }
  return t(obj.msg, args);
}

function sentenceArg(value, names) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return formatNumber(value);
  if (Array.isArray(value)) return listOf(value.map((v) => sentenceArg(v, names)));
  if (typeof value === "object") {
    if ("id" in value) return names && names.of ? names.of(value.id) : String(value.id);
    if ("n" in value) return formatNumber(value.n);
    if ("msg" in value) return sentence(value, names);
    if ("list" in value) return listOf((value.list || []).map((v) => sentenceArg(v, names)), value.sep);
  }
  return String(value);
}

// What a server's message says: its structured sentence when it sends one (``sentence``, or a
// ``message`` that is one), else its English text read by Names.text.
export function said(msg, names, key) {
  if (!msg) return "";
  const field = key || "message";
  const value = msg[field];
  if (value && typeof value === "object") return sentence(value, names);
  if (msg.sentence && typeof msg.sentence === "object") return sentence(msg.sentence, names);
  return sentence(value === undefined || value === null ? "" : String(value), names);
}

// ---------------------------------------------------------------- loading a catalogue

function takeCatalogue(code, data) {
  if (!data || typeof data !== "object" || !data.messages || typeof data.messages !== "object") return false;
  let plural;
  try { plural = compilePlural(data.plural || "(n != 1)"); } catch { plural = (n) => (n === 1 ? 0 : 1); }
  I18N.lang = code;
  I18N.messages = data.messages;
  I18N.plural = plural;
  return true;
}

function keptCatalogue(code) {
  try { return JSON.parse(localStorage.getItem(CATALOGUE_KEY + code) || "null"); } catch { return null; }
}

// Fetch ``code``'s catalogue (the service worker answers offline; this page keeps a copy in
// localStorage too, for a plain-HTTP table where no service worker runs). Resolves to the
// catalogue, or null.
async function fetchCatalogue(code) {
  try {
    const res = await fetch(`i18n/${code}.json`, { cache: "no-cache" });
    if (!res.ok) return null;
    const text = await res.text();
    const data = JSON.parse(text);
    try { localStorage.setItem(CATALOGUE_KEY + code, text); } catch { /* storage full: fetched each time */ }
    return data;
  } catch { return null; }
}

// The language set: <html lang>, the messages. A catalogue kept on this device is used at
// once (the page renders in its language with no wait), a fresh one replaces it when it
// differs (and the page renders again). With none kept, ready waits for the fetch (at most
// CATALOGUE_WAIT).
function useLang(code) {
  I18N.lang = code;
  I18N.messages = {};
  I18N.plural = null;
  document.documentElement.lang = code;
  // The installed app's name and description in this language (the manifest's words).
  const manifest = document.querySelector('link[rel="manifest"]');
  if (manifest) manifest.setAttribute("href", code === "en" ? "manifest.webmanifest" : `manifest.webmanifest?lang=${code}`);
  if (code === "en") { I18N.ready = Promise.resolve(); return I18N.ready; }
  const kept = keptCatalogue(code);
  const had = kept && takeCatalogue(code, kept);
  let rendered = had; // the page may render now (with the kept catalogue, or after the wait)
  const fresh = fetchCatalogue(code).then((data) => {
    if (!data || I18N.lang !== code) return;
    const same = had && JSON.stringify(data) === JSON.stringify(kept);
    if (same) return;
    takeCatalogue(code, data);
    if (rendered) langChanged(); // drawn already (with the kept one, or in English): again
  });
  const waited = new Promise((r) => setTimeout(r, CATALOGUE_WAIT));
  I18N.ready = had ? Promise.resolve() : Promise.race([fresh, waited]).then(() => { rendered = true; });
  return I18N.ready;
}

// Resolves when the page's language is ready to render.
export function i18nReady() { return I18N.ready || Promise.resolve(); }

// Render again when the language (or its catalogue) changes: ``fn`` is called then.
export function onLangChange(fn) { I18N.listeners.push(fn); }
function langChanged() { for (const fn of I18N.listeners) { try { fn(I18N.lang); } catch { /* the others still run */ } } }

// Choose a language on this device (remembered): the page renders again in it.
async function setLang(code) {
  if (!Object.prototype.hasOwnProperty.call(LANGUAGES, code)) return;
  try { localStorage.setItem(LANG_KEY, code); } catch { /* not remembered */ }
  await useLang(code);
  langChanged();
}

// The language switch: a select of the languages, each in its own name.
export function languagePicker(id) {
  const sel = h("select", { id, class: "lang-select", "data-lang-select": "", "aria-label": t("Language") },
    ...Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, lang: code }, name)));
  sel.value = I18N.lang;
  sel.addEventListener("change", () => setLang(sel.value));
  return h("label", { class: "lang-pick" }, h("span", { class: "lang-label" }, t("Language")), " ", sel);
}

// The page's static words (in its HTML, English) in the language: [selector, text] sets an
// element's text, [selector, text, attribute] one of its attributes.
export function translateStatic(pairs) {
  for (const [selector, text, attr] of pairs) {
    for (const el of document.querySelectorAll(selector)) {
      if (attr) el.setAttribute(attr, text);
      else el.textContent = text;
    }
  }
}

useLang(pickLang());
