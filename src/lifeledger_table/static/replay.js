// The table page's replay mode: a record opened from a file, stepped through or played.

import { said, t } from "./i18n.js";
import { api, describe, describeChange, Names } from "./common.js";
import { S } from "./state.js";
import { $, toast } from "./toasts.js";
import { render, renderConn } from "./render.js";
import { noteText } from "./history.js";

// ---------------------------------------------------------------- replay mode

function showFrame(i) {
  S.frame = Math.max(0, Math.min(i, S.frames.length - 1));
  const f = S.frames[S.frame];
  S.state = f.state;
  S.effects = f.effects;
  // Frame n shows the game after its n-th action (frame 0: before any): the slider, its
  // figure and the caption count the same way.
  $("rp-slider").value = String(S.frame);
  $("rp-pos").textContent = `${S.frame} / ${S.frames.length - 1}`;
  const cap = $("rp-caption");
  if (f.action === null) cap.textContent = t("The game begins.");
  else {
    const changes = (f.changes || []).map((c) => describeChange(c, S.names)).join(" · ");
    const notes = (f.notes || []).map((n) => `${noteText(n)} (${n.rule})`).join(" · ");
    cap.textContent = t("Action {n} of {total}: {action}", { n: S.frame, total: S.frames.length - 1, action: describe(f.action, S.names) }) +
      (f.refused ? " — " + t("refused: {why} ({rule})", { why: said(f.refused, S.names), rule: f.refused.rule }) : changes ? ` — ${changes}` : "") +
      (notes ? ` — ${notes}` : "");
  }
  cap.className = "caption" + (f.refused ? " refused" : "");
  render();
}

function stopPlaying() {
  clearInterval(S.playTimer);
  S.playTimer = null;
  $("rp-play").textContent = "▶ " + t("Play");
}

export function setupReplay() {
  $("replay-bar").classList.remove("hidden");
  renderConn();
  $("title").textContent = t("Replay");
  $("undo-btn").classList.add("hidden");
  $("history-btn").classList.add("hidden");
  $("menu-btn").classList.add("hidden");
  $("replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    stopPlaying();
    try {
      const res = await api("POST", "/api/replay", await file.text());
      S.frames = res.frames;
      S.info = { header: res.header, labels: {}, catalogue: { cards: [] }, taken: [] };
      S.names = new Names(res.header, {});
      for (const f of res.frames) if (f.action && f.action.do === "card") S.names.map[f.action.id] = f.action.name;
      $("rp-slider").max = String(res.frames.length - 1);
      $("replay-controls").classList.remove("hidden");
      showFrame(0);
    } catch (ex) { toast(ex.message, "bad"); }
  });
  $("rp-first").addEventListener("click", () => showFrame(0));
  $("rp-prev").addEventListener("click", () => showFrame(S.frame - 1));
  $("rp-next").addEventListener("click", () => showFrame(S.frame + 1));
  $("rp-slider").addEventListener("input", (e) => showFrame(Number(e.target.value)));
  $("rp-play").addEventListener("click", () => {
    if (S.playTimer) { stopPlaying(); return; }
    $("rp-play").textContent = "⏸ " + t("Pause");
    S.playTimer = setInterval(() => {
      if (S.frame >= S.frames.length - 1) { stopPlaying(); return; }
      showFrame(S.frame + 1);
    }, 900);
  });
}
