// Checks the browser tests run in the page (page.evaluate): each takes one argument and
// returns what it found. test_page_layouts.py and test_page_access.py read this file.
({
  contrast: () => {
  const parse = (s) => {
    const m = s.match(/rgba?\(([^)]+)\)/);
    if (!m) return { r: 0, g: 0, b: 0, a: 0 };
    const [r, g, b, a] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a: a === undefined ? 1 : a };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let base = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) base = over(c, base);
    return base;
  };
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const out = [];
  const seen = new Set();
  const check = (el, colour, what) => {
    const st = getComputedStyle(el);
    const bg = background(el);
    const fg = over(parse(colour), bg);
    const size = parseFloat(st.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    const r = ratio(fg, bg);
    if (r < need) out.push(`${what} "${(el.getAttribute("aria-label") || el.textContent).trim().slice(0, 24)}": ${r.toFixed(2)} < ${need}`);
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || seen.has(el) || !shown(el)) continue;
    seen.add(el);
    if (el.closest(":disabled, .panel.out, .toast, option, script, style")) continue;
    check(el, getComputedStyle(el).color, el.tagName.toLowerCase());
  }
  for (const el of document.querySelectorAll("input:not([type=checkbox]):not([type=file]), select")) {
    if (!shown(el) || el.disabled) continue;
    check(el, getComputedStyle(el).color, el.tagName.toLowerCase());
    if (el.placeholder) check(el, getComputedStyle(el, "::placeholder").color, "placeholder of " + el.tagName.toLowerCase());
  }
  return out;
},
  targets: () => {
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const out = [];
  for (const el of document.querySelectorAll("button, a.button, .bar a, select, input, label.check")) {
    if (!shown(el) || (el.type === "checkbox" && el.closest("label"))) continue;
    if (el.offsetWidth < 44 || el.offsetHeight < 44) {
      out.push(`${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") || el.textContent).trim().slice(0, 24)}" is ${el.offsetWidth}x${el.offsetHeight}`);
    }
  }
  return out;
},
  names: () => {
  const shown = (el) => el.getClientRects().length > 0;
  const out = [];
  for (const el of document.querySelectorAll("button, a, select, input, [role=button]")) {
    if (!shown(el)) continue;
    let name = el.getAttribute("aria-label") || "";
    const by = el.getAttribute("aria-labelledby");
    if (!name && by) name = by.split(" ").map((id) => (document.getElementById(id) || {}).textContent || "").join(" ");
    if (!name && el.labels && el.labels.length) name = [...el.labels].map((l) => l.textContent).join(" ");
    if (!name && el.tagName !== "INPUT" && el.tagName !== "SELECT") name = el.textContent;
    if (!name && el.tagName === "IMG") name = el.alt;
    if (!/[\p{L}\p{N}]/u.test(name || "")) out.push(el.outerHTML.slice(0, 100));
  }
  for (const img of document.querySelectorAll("img")) if (shown(img) && !img.alt) out.push(img.outerHTML.slice(0, 100));
  return out;
},
  layout: (scrolls) => {
  const W = innerWidth, H = innerHeight;
  const what = (el) => {
    if (!el) return "nothing";
    const panel = el.closest && el.closest(".panel");
    const label = el.getAttribute("aria-label") || el.getAttribute("data-act")
      || el.textContent.trim().slice(0, 20);
    const where = panel ? " of " + panel.getAttribute("data-unit") : "";
    return `${el.tagName.toLowerCase()} "${label}"${where}`;
  };
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== "hidden";
  const out = [];
  const controls = [...document.querySelectorAll("button, a.button, .bar a, select, input")]
    .filter(shown);
  for (const el of controls) {
    if (scrolls && el.closest(".panels")) el.scrollIntoView({ block: "nearest" });
    const r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
      const box = [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
      out.push(`${what(el)} lies outside the viewport (${box})`);
      continue;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) out.push(`${what(el)} is under ${what(hit)}`);
    if (el.offsetWidth < 44 || el.offsetHeight < 44) {
      out.push(`${what(el)} is ${el.offsetWidth}x${el.offsetHeight} px`);
    }
  }
  const panels = [...document.querySelectorAll("#panels .panel")]
    .map((p) => [p.getAttribute("data-unit"), p.getBoundingClientRect()]);
  for (let i = 0; i < panels.length; i++) {
    for (let j = i + 1; j < panels.length; j++) {
      const [a, r] = panels[i], [b, s] = panels[j];
      const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      if (x > 1 && y > 1) out.push(`panels ${a} and ${b} overlap`);
    }
  }
  for (const p of document.querySelectorAll("#panels .panel")) {
    if (p.scrollHeight > p.clientHeight + 1 && p.querySelector(".steps button, .heads button")) {
      for (const b of [...p.querySelectorAll("button")].filter(shown)) {
        const r = b.getBoundingClientRect(), q = p.getBoundingClientRect();
        const out1 = r.left < q.left - 1 || r.top < q.top - 1;
        if (out1 || r.right > q.right + 1 || r.bottom > q.bottom + 1) {
          out.push(`${what(b)} is cut off by its panel`);
        }
      }
    }
  }
  return out;
},
  totals: () => ({
  smallest: Math.min(...[...document.querySelectorAll("#panels .life")]
    .map((l) => parseFloat(getComputedStyle(l).fontSize))),
  scrolls: document.getElementById("panels").classList.contains("scrolls"),
  facing: [...document.querySelectorAll("#panels .panel")].map((p) => p.dataset.facing),
}),
})
