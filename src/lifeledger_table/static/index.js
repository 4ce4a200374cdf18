// The "open a table" and "join a table" page.
"use strict";

let CATALOGUE = null;

const PRESETS = {
  "Two players": { variant: "two-player", format: "normal", players: [{ name: "Ana" }, { name: "Bo" }] },
  "Commander ×4": {
    variant: "free-for-all", format: "commander",
    players: [
      { name: "Ana", commanders: ["Atraxa"] }, { name: "Bo", commanders: ["Thrasios", "Tymna"] },
      { name: "Cy", commanders: ["Edgar"] }, { name: "Di", commanders: ["Krenko"] },
    ],
  },
  "Two-Headed Giant": {
    variant: "two-headed-giant", format: "normal",
    players: [
      { name: "Ana", team: "North" }, { name: "Bo", team: "North" },
      { name: "Cy", team: "South" }, { name: "Di", team: "South" },
    ],
  },
  "Free-for-all ×3": {
    variant: "free-for-all", format: "normal", players: [{ name: "Ana" }, { name: "Bo" }, { name: "Cy" }],
  },
};

// A colour for a new player: the first no other row has.
function freeColour() {
  const used = new Set([...document.querySelectorAll(".p-colour")].map((s) => Number(s.value)));
  for (let i = 0; i < PALETTE.length; i++) if (!used.has(i)) return i;
  return used.size % PALETTE.length;
}

function colourSelect(value) {
  const sel = h("select", { class: "p-colour", "aria-label": "Colour" },
    ...PALETTE.map((c, i) => h("option", { value: i }, c.name)));
  sel.value = String(value);
  const paint = () => { sel.style.backgroundColor = PALETTE[Number(sel.value)].bg; };
  sel.addEventListener("change", paint);
  paint();
  return sel;
}

function playerRow(p) {
  p = p || {};
  const cmd = p.commanders || [];
  const colour = Number.isInteger(p.colour) && p.colour >= 0 && p.colour < PALETTE.length ? p.colour : freeColour();
  const row = h("div", { class: "player-row" },
    h("input", { class: "p-name", placeholder: "Name", value: p.name || "", "aria-label": "Name", maxlength: 40 }),
    colourSelect(colour),
    h("input", { class: "p-team opt-team", placeholder: "Team", value: p.team || "", "aria-label": "Team", maxlength: 40 }),
    h("input", { class: "p-cmd opt-cmd", placeholder: "Commander", value: cmd[0] || "", "aria-label": "Commander", maxlength: 40 }),
    h("input", { class: "p-partner opt-cmd", placeholder: "Partner", value: cmd[1] || "", "aria-label": "Partner", maxlength: 40 }),
    h("input", { class: "p-library", type: "text", inputmode: "numeric", autocomplete: "off", placeholder: "Library", value: p.library ?? "", "aria-label": "Cards in library (optional)" }),
    h("input", { class: "p-modifier opt-vanguard", type: "text", autocomplete: "off", placeholder: "Life modifier", value: p.life_modifier ?? "", "aria-label": "Vanguard life modifier" }),
    h("label", { class: "check opt-archenemy" }, h("input", { type: "checkbox", class: "p-archenemy", checked: !!p.archenemy }), "Archenemy"),
    h("label", { class: "check opt-emperor" }, h("input", { type: "checkbox", class: "p-emperor", checked: !!p.emperor }), "Emperor"),
    h("button", { type: "button", class: "remove", "aria-label": "Remove player", onclick: (e) => { e.target.closest(".player-row").remove(); } }, "✕"),
  );
  return row;
}

function applyVisibility() {
  const variant = document.getElementById("variant").value;
  const format = document.getElementById("format").value;
  const form = document.getElementById("create-form");
  const teams = ["team-vs-team", "two-headed-giant", "emperor", "alternating-teams", "archenemy"].includes(variant);
  form.classList.toggle("show-team", teams);
  form.classList.toggle("show-cmd", format === "commander" || format === "brawl");
  form.classList.toggle("show-vanguard", format === "vanguard");
  form.classList.toggle("show-archenemy", variant === "archenemy" || variant === "supervillain-rumble");
  form.classList.toggle("show-emperor", variant === "emperor");
}

function fill(preset) {
  document.getElementById("variant").value = preset.variant || "";
  document.getElementById("format").value = preset.format || "normal";
  const box = document.getElementById("players");
  box.replaceChildren();
  for (const p of preset.players) box.append(playerRow(p));
  applyVisibility();
}

// A number field, read exactly from its text (empty: not given); an error names the field.
function numberOrNull(input, label, min) {
  return input.value.trim() === "" ? null : parseWhole(input.value, label, min);
}

function readForm() {
  const form = {
    variant: document.getElementById("variant").value || null,
    format: document.getElementById("format").value,
    starting_life: numberOrNull(document.getElementById("starting-life"), "Starting life", 1),
    players: [],
  };
  const bestOf = document.getElementById("best-of").value;
  if (bestOf === "open") form.best_of = null;
  else if (bestOf !== "auto") form.best_of = Number(bestOf);
  const cls = document.getElementById("create-form").classList;
  let index = 0;
  for (const row of document.querySelectorAll(".player-row")) {
    index += 1;
    const p = { name: row.querySelector(".p-name").value, colour: Number(row.querySelector(".p-colour").value) };
    const who = p.name.trim() ? `${p.name.trim()}'s` : `Player ${index}'s`;
    if (cls.contains("show-team") && row.querySelector(".p-team").value.trim()) p.team = row.querySelector(".p-team").value;
    if (cls.contains("show-cmd")) {
      p.commanders = [row.querySelector(".p-cmd").value, row.querySelector(".p-partner").value].filter((x) => x.trim());
    }
    const lib = numberOrNull(row.querySelector(".p-library"), `${who} library`, 0);
    if (lib !== null) p.library = lib;
    if (cls.contains("show-vanguard")) {
      const m = numberOrNull(row.querySelector(".p-modifier"), `${who} life modifier`, null);
      if (m !== null) p.life_modifier = m;
    }
    if (cls.contains("show-archenemy") && row.querySelector(".p-archenemy").checked) p.archenemy = true;
    if (cls.contains("show-emperor") && row.querySelector(".p-emperor").checked) p.emperor = true;
    form.players.push(p);
  }
  return form;
}

// "I'm Ana": take the seat; a seat another phone took meanwhile is asked for (this browser
// opened the table, so the server gives it at once).
function seatButton(res, p) {
  const name = p.name || p.id;
  const note = document.getElementById("opened-note");
  const btn = h("button", {
    class: "seat", "data-seat": p.id,
    onclick: async () => {
      if (btn.disabled) return;
      btn.disabled = true;
      try {
        await claimSeat(res.id, p.id, !!btn.dataset.ask, {
          waiting: () => { note.textContent = `Waiting for ${name}'s phone to allow it…`; },
        });
        location.href = `/t/${res.id}`;
      } catch (ex) {
        btn.disabled = false;
        if (ex.code === "seat-taken") {
          btn.dataset.ask = "1";
          btn.textContent = `Ask to take ${name}'s seat`;
          note.textContent = `Another phone has taken ${name}'s seat. Ask to take it?`;
        } else note.textContent = ex.code === "refused" ? `${name}'s phone refused to give the seat.` : ex.message;
      }
    },
  }, `I'm ${name}`);
  return btn;
}

function showOpened(res) {
  // The server's links reach it from the other phones (its LAN address when this page was
  // opened on the serving machine itself as localhost).
  const links = res.links || { play: `${location.origin}/t/${res.id}`, watch: `${location.origin}/w/${res.watch}` };
  saveHost(res.id, res.host);
  document.getElementById("opened").classList.remove("hidden");
  document.getElementById("opened-code").textContent = formatCode(res.code);
  const link = document.getElementById("opened-link");
  link.textContent = links.play; link.href = `/t/${res.id}`;
  const watch = document.getElementById("opened-watch");
  watch.textContent = links.watch; watch.href = `/w/${res.watch}`;
  document.getElementById("opened-only-here").replaceChildren(onlyHereNote(links.play) || "");
  document.getElementById("opened-qr").src = `/api/tables/${res.id}/qr.svg`;
  document.getElementById("one-device").onclick = () => { saveDevice(res.id, "table"); location.href = `/t/${res.id}`; };
  document.getElementById("own-phones").onclick = () => {
    saveDevice(res.id, "phone");
    document.getElementById("opened-seats-title").scrollIntoView({ behavior: "smooth" });
    const first = document.querySelector("#opened-seats button");
    if (first) first.focus({ preventScroll: true });
  };
  const seats = document.getElementById("opened-seats");
  seats.replaceChildren(
    ...res.header.players.map((p) => seatButton(res, p)),
    h("a", { class: "seat watch", href: `/t/${res.id}` }, "Choose later"),
  );
  document.getElementById("opened").scrollIntoView({ behavior: "smooth" });
}

async function main() {
  CATALOGUE = await api("GET", "/api/catalogue");
  const variant = document.getElementById("variant");
  variant.append(h("option", { value: "" }, "automatic"), ...CATALOGUE.variants.map((v) => h("option", { value: v.name }, `${v.name} (${v.rule})`)));
  const format = document.getElementById("format");
  format.append(...CATALOGUE.formats.map((f) => h("option", { value: f }, f)));
  variant.addEventListener("change", applyVisibility);
  format.addEventListener("change", applyVisibility);
  const presets = document.getElementById("presets");
  // Our playgroup: the last table's players, names and colours, offered first.
  const group = loadPlaygroup();
  if (group) {
    presets.append(h("button", { type: "button", class: "chip playgroup", "data-preset": "playgroup", onclick: () => fill(group) },
      `Our playgroup: ${group.players.map((p) => p.name).join(", ")}`));
  }
  for (const [label, preset] of Object.entries(PRESETS)) {
    presets.append(h("button", { type: "button", class: "chip", onclick: () => fill(preset) }, label));
  }
  fill(group || PRESETS["Two players"]);
  document.getElementById("add-player").addEventListener("click", () => {
    document.getElementById("players").append(playerRow({}));
    applyVisibility();
  });
  document.getElementById("create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = document.getElementById("create-error");
    err.textContent = "";
    let form;
    try { form = readForm(); } catch (ex) { err.textContent = ex.message; return; }
    try {
      const res = await api("POST", "/api/tables", form);
      savePlaygroup({ variant: form.variant || "", format: form.format, players: form.players.map((p) => ({
        name: p.name, team: p.team, commanders: p.commanders, colour: p.colour,
      })) });
      showOpened(res);
    } catch (ex) {
      err.textContent = ex.message + (ex.data && ex.data.member ? ` (${ex.data.member})` : "");
    }
  });
  document.getElementById("join-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = document.getElementById("join-error");
    err.textContent = "";
    const code = normCode(document.getElementById("join-code").value);
    const wrong = checkCode(code);
    if (wrong) { err.textContent = wrong; return; }
    try {
      const res = await api("GET", "/api/code/" + encodeURIComponent(code));
      location.href = `/t/${res.id}`;
    } catch (ex) { err.textContent = ex.message; }
  });
}

main();
