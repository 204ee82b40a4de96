// The dashboard page: ES modules loaded as they are (no build step), no network beyond this
// server. It listens to /api/stream (Server-Sent Events) and asks /api for everything else.
import { $, showTab } from "./js/dom.js";
import { refreshHealth } from "./js/health.js";
import { scrubTo } from "./js/log.js";
import { drawLines, redraw } from "./js/map.js";
import { onFrame } from "./js/moves.js";
import { measure, DOUBLE_TAP_MS, pointDoubt } from "./js/ruler.js";
import { S } from "./js/state.js";
import { connect, loadAll, loadFailed } from "./js/stream.js";
import { askThreats } from "./js/threat.js";

// The dashboard's entry: imports every part of the page (see README.s layout), wires the tabs
// and starts the stream. Module scripts are deferred, so the page's elements exist by now.

// What tests and benchmarks read and drive from the page (`referee.view`, `measure(...)`):
// module bindings are not globals, so the few they use are named on window here, once.
Object.assign(window, {
  referee: S, measure, DOUBLE_TAP_MS, askThreats, loadAll, scrubTo, pointDoubt, onFrame, drawLines, redraw,
});

// -- tabs and start -------------------------------------------------------------------------------

for (const tab of document.querySelectorAll(".tab")) tab.onclick = () => showTab(tab.dataset.tab);

loadAll().catch((err) => {
  if (err.status) loadFailed(err);  // the server answered with an error: say which
  else $("camera-note").textContent = "cannot reach the referee: " + err.message;
});
connect();
refreshHealth();
setInterval(refreshHealth, 2000);
