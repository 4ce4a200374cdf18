// The layout grid's checks (test_page_grid.py), run in the page: real element boxes
// (getBoundingClientRect, turned panels included). Takes {device, players} and returns
// {problems: [...], sizes: {unit: px}, facing: {unit: deg}, oneTap: [...]} (oneTap: the
// commanders whose damage a panel's player may take with no chip one tap away).
(({ device }) => {
  const W = innerWidth, H = innerHeight;
  const out = [];
  const scrolls = document.getElementById("panels").classList.contains("scrolls");
  if (scrolls && device === "table") out.push("the table device's panels scroll");
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const name = (el) => {
    const panel = el.closest(".panel");
    const label = el.getAttribute("aria-label") || el.getAttribute("data-act") || el.textContent.trim().slice(0, 20);
    return `${el.tagName.toLowerCase()} "${label}"${panel ? " of " + panel.dataset.unit : ""}`;
  };
  const inside = (r, q, slack) => r.left >= q.left - slack && r.top >= q.top - slack && r.right <= q.right + slack && r.bottom <= q.bottom + slack;
  const viewport = { left: 0, top: 0, right: W, bottom: H };
  // Controls: in the viewport, not under another element, not cut off by their panel or the bar.
  for (const el of document.querySelectorAll("button, a.button, .bar a, select, input")) {
    if (!shown(el) || el.closest(".sheet, .drawer")) continue;
    // A personal phone's panels may scroll (its own panel first): a control scrolled to.
    if (scrolls && el.closest(".panels")) el.scrollIntoView({ block: "nearest" });
    const r = el.getBoundingClientRect();
    if (!inside(r, viewport, 0.5)) { out.push(`${name(el)} is off-screen`); continue; }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) out.push(`${name(el)} is covered`);
    if (el.offsetWidth < 44 || el.offsetHeight < 44) out.push(`${name(el)} is ${el.offsetWidth}x${el.offsetHeight}`);
    const panel = el.closest(".panel");
    if (panel && !inside(r, panel.getBoundingClientRect(), 1)) out.push(`${name(el)} is clipped by its panel`);
    const cut = getComputedStyle(el).textOverflow === "ellipsis"; // cut short on purpose, with "…"
    if (!cut && el.scrollWidth > el.clientWidth + 1) out.push(`${name(el)}'s label overflows`);
  }
  const bar = document.getElementById("bar");
  if (bar.scrollWidth > bar.clientWidth + 1) out.push("the header overflows");
  // Issue 25 item 7: no label of the top bar (the header and the turn bar) cut, on purpose
  // ("…") or not: every label as wide as its box at most, its wrapped words within a box
  // that hides what overflows (a button's words out of it count too).
  const cutLabels = (root, what) => {
    for (const el of root.querySelectorAll("*")) {
      if (!shown(el) || !el.textContent.trim()) continue;
      const st = getComputedStyle(el);
      const clips = st.overflowX !== "visible" || st.overflowY !== "visible" || el.tagName === "BUTTON";
      const label = `${what}'s ${el.id || el.className || el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 30)}"`;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${label} is cut (${el.scrollWidth} px in ${el.clientWidth})`);
      else if (clips && el.scrollHeight > el.clientHeight + 1) out.push(`${label} is cut (${el.scrollHeight} px high in ${el.clientHeight})`);
    }
  };
  cutLabels(bar, "the header");
  const turnBar = document.getElementById("turn-bar");
  if (turnBar) cutLabels(turnBar, "the turn bar");
  document.getElementById("panels").scrollTop = 0;
  const box = document.getElementById("panels").getBoundingClientRect();
  const sizes = {}, facing = {}, oneTap = [];
  const panels = [...document.querySelectorAll("#panels .panel")];
  for (const p of panels) {
    const unit = p.dataset.unit;
    const life = p.querySelector(".life");
    const size = parseFloat(getComputedStyle(life).fontSize);
    sizes[unit] = size;
    facing[unit] = Number(p.dataset.facing || 0);
    // The digits whole, and apart from the − and + (at least a fifth of their size).
    const range = document.createRange();
    range.selectNodeContents(life);
    const digits = range.getBoundingClientRect();
    if (!inside(digits, p.getBoundingClientRect(), 1)) out.push(`${unit}'s total is clipped`);
    for (const sign of p.querySelectorAll(".life-row .tap span")) {
      const s = sign.getBoundingClientRect();
      const gap = Math.max(s.left - digits.right, digits.left - s.right, s.top - digits.bottom, digits.top - s.bottom);
      if (gap < Math.max(8, size * 0.2)) out.push(`${unit}'s ${sign.textContent} is ${Math.round(gap)} px from the total (${size} px)`);
    }
    // Commander damage one tap from a panel that shows a total.
    const cmd = [...p.querySelectorAll(".cmd, [data-act=cmd-open]")].filter(shown);
    if (document.querySelector("#panels .cmds, #panels [data-act=cmd-open]") && !cmd.length) out.push(`${unit} has no commander damage in one tap`);
    // Issue 25 item 3: a chip on the panel for every commander whose damage its player may
    // take (one tap: 1 combat damage from it), in the viewport and not covered.
    for (const pid of (p.dataset.heads || unit).split(" ").filter((x) => x !== p.dataset.team)) {
      if (typeof commandersAgainst !== "function") break;
      for (const { c } of lifeledger.commandersAgainst(pid)) {
        const chip = [...p.querySelectorAll(".cmd")].find((el) => el.dataset.from === c && el.dataset.to === pid && shown(el));
        if (chip && scrolls) chip.scrollIntoView({ block: "nearest" }); // a personal phone scrolls
        const r = chip && chip.getBoundingClientRect();
        const hit = r && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!chip || !inside(r, viewport, 0.5) || !hit || !chip.contains(hit)) oneTap.push(`${pid} has no chip of ${c} in one tap`);
      }
    }
    // Facing its own seat: the panel's foot lies on the edge of the table it faces.
    if (device === "table") {
      const r = p.getBoundingClientRect();
      const slack = 16;
      const foot = { 0: box.bottom - r.bottom, 90: r.left - box.left, 180: r.top - box.top, 270: box.right - r.right }[facing[unit]];
      if (panels.length <= 8 && !(foot <= slack)) out.push(`${unit} faces ${facing[unit]}° but sits ${Math.round(foot)} px from that edge`);
      const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
      const near = { 0: cy >= (box.top + box.bottom) / 2 - 1, 180: cy <= (box.top + box.bottom) / 2 + 1,
        90: cx <= (box.left + box.right) / 2 + 1, 270: cx >= (box.left + box.right) / 2 - 1 }[facing[unit]];
      if (!near) out.push(`${unit} faces ${facing[unit]}°, away from the nearer edge`);
    } else if (facing[unit]) out.push(`${unit} is turned on a personal phone`);
  }
  // Issue 25 item 3: every control of the ⋯ sheet and of the commander-amount sheet, opened
  // for one player at each edge (turned to face them), lies on the screen: the amount sheet's
  // without scrolling, the ⋯ sheet's once scrolled to inside the sheet; no sheet label cut.
  if (typeof openCmdSheet === "function" && typeof openSheet === "function") {
    const seen = new Set();
    for (const p of panels) {
      const deg = facing[p.dataset.unit];
      if (seen.has(deg) || p.dataset.team) continue;
      seen.add(deg);
      const pid = p.dataset.unit;
      const sheets = [];
      const against = typeof lifeledger.commandersAgainst === "function" ? lifeledger.commandersAgainst(pid) : [];
      if (against.length && document.querySelector("#panels .cmds, #panels [data-act=cmd-open]")) {
        lifeledger.openCmdSheet(pid, against[0].c);
        sheets.push(["cmd-sheet", false, () => lifeledger.closeCmdSheet()]);
      }
      for (const [id, scrolls, shut] of sheets.concat([["sheet", true, () => lifeledger.close("sheet")]])) {
        if (id === "sheet") lifeledger.openSheet(pid);
        const inner = document.querySelector(`#${id} .sheet-inner`);
        const box2 = inner.getBoundingClientRect();
        if (!inside(box2, viewport, 1)) out.push(`#${id} for ${pid} (${deg}°) is ${Math.round(box2.left)},${Math.round(box2.top)}–${Math.round(box2.right)},${Math.round(box2.bottom)}, off-screen`);
        for (const el of inner.querySelectorAll("button, select, input")) {
          if (!shown(el)) continue;
          if (scrolls) el.scrollIntoView({ block: "nearest", inline: "nearest" });
          const r = el.getBoundingClientRect();
          if (!inside(r, viewport, 0.5) || !inside(r, inner.getBoundingClientRect(), 1)) {
            out.push(`#${id} for ${pid} (${deg}°): ${name(el)} is off-screen (${Math.round(r.left)},${Math.round(r.top)})`);
          }
          if (el.scrollWidth > el.clientWidth + 1) out.push(`#${id} for ${pid}: ${name(el)}'s label is cut`);
        }
        cutLabels(inner, `#${id} for ${pid}`);
        inner.scrollTop = 0;
        shut();
      }
    }
  }
  // The turn sheet (⋯ of the turn bar): no label cut either.
  const turnSheet = document.getElementById("turn-sheet");
  if (turnSheet && typeof openTurnSheet === "function" && turnBar && !turnBar.classList.contains("hidden")) {
    lifeledger.openTurnSheet();
    cutLabels(turnSheet.querySelector(".sheet-inner"), "#turn-sheet");
    lifeledger.closeTurnSheet();
  }
  return { problems: out, sizes, facing, oneTap };
})
