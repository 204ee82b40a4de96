// The stream (/api/stream, Server-Sent Events) and the loads that fill the state.
import { setupCameraPick } from "./camera.js";
import { renderDispute, runQueries } from "./dispute.js";
import { $ } from "./dom.js";
import { loadEvents, onEvents } from "./log.js";
import { redraw, setupMap } from "./map.js";
import { onFrame } from "./moves.js";
import { drawRuler } from "./ruler.js";
import { TOKEN, api } from "./server.js";
import { S } from "./state.js";
import { renderTerrainList, setupTerrainKinds } from "./terrain.js";
import { askThreats, clearSelection } from "./threat.js";
import { plainError, setupTurn } from "./turn.js";

// -- the stream ---------------------------------------------------------------------------------

let source = null;
export function connect() {
  const url = "api/stream" + (TOKEN ? "?token=" + encodeURIComponent(TOKEN) : "");
  source = new EventSource(url);
  source.onopen = () => setConnected(true);
  source.onerror = () => {
    setConnected(false);
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1500);
  };
  source.addEventListener("hello", (e) => {
    const hello = JSON.parse(e.data);
    S.generation = hello.generation;
    const load = !S.info || hello.generation !== S.info.generation
      ? loadAll() : Promise.all([refreshState(), loadEvents()]);
    load.catch(loadFailed);
  });
  source.addEventListener("events", (e) => onEvents(JSON.parse(e.data)));
  source.addEventListener("frame", (e) => onFrame(JSON.parse(e.data)));
}

export let connected = false;
export function setConnected(ok) {
  connected = ok;
  const badge = $("conn");
  // "live" only while frames can still come: a video that ended, or a stopped camera, says so
  // connected, but the table could not be loaded: say what failed, not "reconnecting"
  const failed = ok && loadError;
  badge.textContent = failed ? loadError : !ok ? "reconnecting…" : S.ended || "live";
  badge.title = failed ? loadError : "";
  badge.classList.toggle("away", !ok || !!failed);
  badge.classList.toggle("ended", ok && !!S.ended);
}

// A load that failed (an endpoint's error, not a lost connection) is said in the header
// and tried again a few seconds later; the first load that works clears it.
let loadError = null;
let loadRetry = null;
export function loadFailed(err) {
  loadError = "could not load the table: " + plainError(err.message);
  setConnected(connected);  // before the stream opens: shown when it does
  clearTimeout(loadRetry);
  loadRetry = setTimeout(() => loadAll().catch(loadFailed), 5000);
}

// One load at a time; a hello for a newer game while one runs loads again after it.
let loading = null;
export function loadAll() {
  if (!loading) {
    loading = loadOnce().finally(() => { loading = null; });
    loading.then(() => {
      if (S.generation !== null && S.info && S.info.generation !== S.generation) return loadAll();
    }).catch(() => {});
  }
  return loading;
}

async function loadOnce() {
  const info = await api("info");
  S.info = info;
  S.pieces = {};
  for (const p of info.pieces) S.pieces[p.id] = p;
  S.movedSince = {};  // a new game's corrections are its own
  if (S.shownMove !== null) {  // a move of the previous game: its seq means another event now
    S.shownMove = null;
    renderDispute();
  }
  $("game").textContent = info.ruleset.title + " · " + (info.game || "not logged");
  $("game").title = $("game").textContent;  // whole, where the header cuts it short
  setupCameraPick();
  setupMap();
  setupTerrainKinds();
  setupTurn();
  api("doubt").then((d) => { S.doubt = d; drawRuler(); }).catch(() => {});
  // Frames that came before the roster are in S.live: draw them now, sized and coloured.
  redraw();
  await refreshState();
  await loadEvents();
  if (loadError) { loadError = null; setConnected(connected); }
}

export async function refreshState() {
  const scene = await api("state");
  S.terrain = scene.terrain || [];
  for (const p of scene.pieces || []) {
    if (!S.live[p.id]) S.live[p.id] = { id: p.id, x: p.x, y: p.y, heading: p.heading, state: "settled", seen: false };
  }
  redraw();
  renderTerrainList();
  reaskSelection();  // a new game, a reconnection (moves missed) or a terrain edit
}

// The selection survives a new game (the sample's next pass) or a reconnection while its
// pieces are still in the roster: what is shown is asked again on the table as it is now
// (a piece not on the table this instant gets its answer in words, and the next change
// naming it asks again). A piece the roster no longer has ends the selection.
function reaskSelection() {
  if (!S.selected.length) return;
  if (S.selected.some((id) => !(id in S.pieces))) {
    clearSelection();
    return;
  }
  if (S.asked) runQueries(S.asked, true);
  else askThreats();
}
