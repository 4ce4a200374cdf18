// Keeping the screen awake while a table is open. First the Screen Wake Lock API; where it is
// missing (plain HTTP: it exists only on secure pages) or refused (battery saver; WebKit before
// a tap), a tiny silent video that plays a canvas's stream, started by the first tap:
// - Blink (Chrome, Edge, Samsung Internet) holds the screen on for a playing video that is on
//   screen, and a video playing a MediaStream needs no minimum size; muted is fine.
// - Gecko (Firefox) holds it for a playing video with a MediaStream source; muted is fine.
// - WebKit (Safari, every iOS browser) only for a playing, not looping, unmuted video with an
//   audio track: there the stream gets a silent audio track and the video plays unmuted.
// (A recorded file, MediaRecorder's, would need to cover a fifth of the screen in Blink and an
// audio track in Gecko: the stream itself is the better video.)

import { t } from "./i18n.js";
import { h } from "./common.js";

export const AWAKE = { lock: null, video: null, paint: null, how: "none", tried: false };

// The Wake Lock, or the video where the lock can't be had. ``gesture``: called from a tap
// (WebKit grants the lock, and plays an unmuted video, only then).
export async function keepAwake(gesture) {
  if (document.visibilityState !== "visible" || AWAKE.lock) return;
  if ("wakeLock" in navigator && navigator.wakeLock && AWAKE.how !== "video") {
    try {
      const lock = await navigator.wakeLock.request("screen");
      AWAKE.lock = lock;
      AWAKE.how = "lock";
      lock.addEventListener("release", () => { if (AWAKE.lock === lock) AWAKE.lock = null; });
      return;
    } catch {
      if (!gesture) return; // asked again at the first tap (WebKit wants one)
    }
  }
  if (gesture) awakeVideo();
}

function awakeVideo() {
  AWAKE.tried = true;
  if (!AWAKE.video) {
    const canvas = document.createElement("canvas");
    if (typeof canvas.captureStream !== "function") return;
    canvas.width = 2; canvas.height = 2;
    const ctx = canvas.getContext("2d");
    let on = false;
    const paint = () => { on = !on; ctx.fillStyle = on ? "#15171c" : "#16181d"; ctx.fillRect(0, 0, 2, 2); };
    paint();
    const stream = canvas.captureStream(1);
    const webkit = "GestureEvent" in window;
    if (webkit) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (AC) {
        try {
          const audio = new AC();
          const silence = audio.createGain();
          silence.gain.value = 0;
          const out = audio.createMediaStreamDestination();
          const tone = audio.createOscillator();
          tone.connect(silence).connect(out);
          tone.start();
          for (const track of out.stream.getAudioTracks()) stream.addTrack(track);
        } catch { /* no audio track: WebKit may let the screen sleep */ }
      }
    }
    const video = h("video", { class: "awake", playsinline: true, "aria-hidden": "true", tabindex: "-1" });
    video.muted = !webkit;
    video.playsInline = true;
    video.srcObject = stream;
    document.body.append(video);
    AWAKE.video = video;
    AWAKE.paint = setInterval(paint, 1000);
  }
  AWAKE.video.play().then(() => { AWAKE.how = "video"; }).catch(() => { /* the next tap tries again */ });
}

// What the menu says about it.
export function awakeText() {
  if (AWAKE.how === "lock" && AWAKE.lock) return t("The screen stays awake while this page is open (Screen Wake Lock).");
  if (AWAKE.how === "video" && AWAKE.video && !AWAKE.video.paused) {
    return t("The screen stays awake while this page is open (a silent video: this browser has no Wake Lock here).");
  }
  if (!AWAKE.tried) return t("The screen is kept awake from your first tap.");
  return t("This browser can't keep the screen awake: set a longer screen timeout on the phone.");
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  if (AWAKE.how === "video" && AWAKE.video) AWAKE.video.play().catch(() => {});
  else keepAwake(false);
});
// Every tap tries again while the screen isn't held (it costs a check when it is).
for (const type of ["pointerup", "keydown"]) {
  document.addEventListener(type, () => {
    const held = AWAKE.lock || (AWAKE.video && !AWAKE.video.paused);
    if (!held) keepAwake(true);
  }, true);
}
