// The table page's early module: table.js's first import, so in the page's bundle (make,
// esbuild) it runs once its own few modules have (device.js, i18n.js, common.js), before the
// two dozen others, and starts what a device table (table.html?t=d-…) waits for longest: the
// engine worker (Pyodide's start, from the start the worker kept) and the read of the table's
// log from IndexedDB, which the engine then opens. Modules run once a page, so table.js's
// device.js is this one: the same Engine, the same opening (DeviceTables.open) that the page's
// DeviceSocket then waits for. A served table's page, a spectator's and the replay start
// nothing here.

import { DeviceTables, Engine, isDeviceTable } from "./device.js";

const ASKED = new URLSearchParams(location.search).get("t");
if (isDeviceTable(ASKED)) {
  Engine.start();
  // A table this device doesn't keep is said by the page (table.js), which opens it again.
  DeviceTables.open(ASKED).catch(() => null);
}
