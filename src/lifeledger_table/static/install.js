// Installing the app: the service worker (sw.js at the app's root, the app shell offline) and the
// browser's
// "install" offer, kept for the table menu's "Install the app" button. Every page loads this.
// Service workers exist only on a secure page (HTTPS, or localhost): on plain HTTP over a LAN
// the app still works, without the offline shell (docs/table.md, Installing the app).

export const INSTALL = { prompt: null, installed: false };

if ("serviceWorker" in navigator) {
  // Relative to the page's <base>: the app's root, / on the server, a static folder's own.
  navigator.serviceWorker.register("sw.js", { scope: "./" }).catch(() => { /* no offline shell: the app works on */ });
}

// Chromium offers the install once the manifest and the service worker qualify: the offer is
// kept for a button of our own (the menu shows it while one is kept).
window.addEventListener("beforeinstallprompt", (e) => { e.preventDefault(); INSTALL.prompt = e; });
window.addEventListener("appinstalled", () => { INSTALL.prompt = null; INSTALL.installed = true; });

// Ask the browser to install the app (the kept offer); resolves to whether it was accepted.
export async function installApp() {
  const offer = INSTALL.prompt;
  if (!offer) return false;
  INSTALL.prompt = null;
  offer.prompt();
  const choice = await offer.userChoice;
  return choice.outcome === "accepted";
}
