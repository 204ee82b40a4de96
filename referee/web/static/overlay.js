// The stream overlay (/overlay): the table's map in a corner, the newest ruling as a caption
// and the threat view of the piece that ruling is about, over a transparent page for a
// streaming program's browser source. Plain JavaScript, no build step, nothing fetched but
// this server's /api. The options were checked by the server (pages.py) and come in the
// page's data attributes, so every value read here is one it accepted.
// An ES module: the colours and map shapes are the dashboard's own (js/colours.js, js/draw.js);
// $, api and targetsAsker come from shared.js, a plain script loaded first.
import { UNKNOWN_PIECE, terrainColour, threatColour, threatKind, verdictColour } from "./js/colours.js";
import { drawCloth, drawThreatMark, el, points } from "./js/draw.js";

const box = $("overlay");
const SHOW = new Set(box.dataset.show.split(","));
const SIZE = Number(box.dataset.size);

const O = {
  info: null,      // /api/info: table, roster, palette
  pieces: {},      // id -> roster piece
  live: {},        // id -> newest pose (from /api/state, then every frame)
  fixed: {},       // id -> where a correction puts it, until the camera sees it move again
  terrain: [],
  events: [],
  ruling: null,    // the newest ruling event
  rulingKey: null, // its seq and the newest ruling's (a correction's verdicts come after it)
  about: null,     // the piece it is about
  threats: null,   // {from, verdict} of `about` (the targets question, not logged)
  arrived: null,   // while the table loads: the events the stream brought meanwhile
};
window.overlay = O;

// shared.js: one targets question in flight; redrawn with each answer.
const askThreats = targetsAsker(
  () => (SHOW.has("threat") ? O.about : null),
  (from, threats) => {
    if (O.about === from) O.threats = threats;
    drawMap();
  },
);

// -- the stream: hello loads the table, events bring rulings, frames move the pieces --------

function connect() {
  const source = new EventSource("api/stream" + (TOKEN ? "?token=" + encodeURIComponent(TOKEN) : ""));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1500);
  };
  source.addEventListener("hello", () => load().catch(() => setTimeout(() => load().catch(() => {}), 5000)));
  source.addEventListener("events", (e) => onEvents(JSON.parse(e.data)));
  source.addEventListener("frame", (e) => {
    for (const p of JSON.parse(e.data).pieces) {
      O.live[p.id] = p;
      if (p.state === "moving") delete O.fixed[p.id];
    }
    drawMap();
  });
}

async function load() {
  // Events the stream brings while the table loads: the events fetched below may predate
  // them, and setting O.events would drop them (a ruling asked meanwhile never shown).
  O.arrived = [];
  const info = await api("info");
  O.info = info;
  O.pieces = Object.fromEntries(info.pieces.map((p) => [p.id, p]));
  const scene = await api("state");
  const events = (await api("events")).events;
  // a new game (the sample's next pass) numbers its events from 1 again: start afresh
  O.terrain = scene.terrain || [];
  O.live = Object.fromEntries((scene.pieces || []).map((p) => [p.id, p]));
  O.events = events;
  O.ruling = null;
  O.rulingKey = null;
  O.fixed = {};
  fixPieces(scene);
  setupMap();
  newRuling();
  const arrived = O.arrived;
  O.arrived = null;
  if (arrived.length) onEvents(arrived);
}

function onEvents(list) {
  if (O.arrived) O.arrived.push(...list);
  const have = new Set(O.events.map((e) => e.seq));
  const fresh = list.filter((e) => !have.has(e.seq));
  if (!fresh.length) return;
  O.events.push(...fresh);
  O.events.sort((a, b) => a.seq - b.seq);
  if (fresh.some((e) => e.type === "edit" || e.type === "correction")) {
    api("state").then((scene) => { O.terrain = scene.terrain || []; fixPieces(scene); drawMap(); }).catch(() => {});
  }
  // a settled move, a correction or a terrain edit may change what the piece can hit
  const changed = fresh.some((e) => e.type === "move" || e.type === "correction" || e.type === "edit");
  if (!newRuling() && changed) askThreats();
}

// As the dashboard's map: a piece whose last move was corrected is drawn where /api/state
// (the players' word over the camera's) has it, until the camera sees it move again.
function fixPieces(scene) {
  const last = {};
  for (const e of O.events) if (e.type === "move" && e.piece) last[e.piece] = e.seq;
  const corrected = new Set(O.events.filter((e) => e.type === "correction").map((e) => e.supersedes));
  for (const p of scene.pieces || []) {
    if (corrected.has(last[p.id])) O.fixed[p.id] = { ...p, state: "settled" };
  }
}

function poseOf(id) {
  return O.fixed[id] || O.live[id];
}

// -- the ruling: the newest verdict (a move judged, a range or sight line asked, a standing
// question answered again), correction, or piece entering with a verdict ---------------------

function isRuling(e) {
  return e.type === "verdict" || e.type === "correction" || (e.type === "entered" && e.verdict);
}

function moveOf(seq) {
  return O.events.find((e) => e.seq === seq && e.type === "move");
}

function aboutOf(e) {
  if (e.type === "correction") { const m = moveOf(e.supersedes); return m ? m.piece : null; }
  if (e.type === "entered") return e.piece;
  const v = e.verdict || {};
  for (const key of ["piece", "from", "leader"]) if (typeof v[key] === "string") return v[key];
  const m = typeof e.about === "number" ? moveOf(e.about) : null;
  if (m) return m.piece;
  return Array.isArray(e.pieces) && e.pieces.length ? e.pieces[0] : null;
}

// The ruling's words: what the dashboard's log and turn pane say of it.
function rulingWords(e) {
  if (e.type === "correction") {
    const m = moveOf(e.supersedes);
    const what = e.void ? "did not happen" : e.to ? `ends at (${Number(e.to.x).toFixed(1)}, ${Number(e.to.y).toFixed(1)})` : "corrected";
    const again = O.events.filter((v) => v.type === "verdict" && v.about === e.seq)
      .map((v) => (v.verdict || {}).summary).filter(Boolean);
    const why = (e.reason || "") + (again.length ? " · asked again: " + again.join("; ") : "");
    return { ok: null, head: `correction: move #${e.supersedes}${m ? " of " + m.piece : ""} ${what}`, why };
  }
  const v = e.verdict || {};
  const head = e.type === "entered" ? `entered ${e.piece}: ${v.summary || v.ask}` : v.summary || v.ask || "verdict";
  return { ok: v.ok, los: v.los, head, why: (v.reasons || []).join("; ") };
}

// Returns whether the ruling changed (its threat view is then asked anew). The verdicts a
// correction asks again come after it and point at it (`about`): the correction is the ruling.
function newRuling() {
  const newest = [...O.events].reverse().find(isRuling) || null;
  let ruling = newest;
  const fix = ruling && ruling.type === "verdict" && O.events.find((e) => e.seq === ruling.about);
  if (fix && fix.type === "correction") ruling = fix;
  // the same correction with more verdicts asked again since: its words grow, its piece stays
  const key = ruling ? `${ruling.seq}:${newest.seq}` : "";
  if (key === O.rulingKey) return false;
  O.rulingKey = key;
  const same = ruling && O.ruling && ruling.seq === O.ruling.seq;
  O.ruling = ruling;
  if (same) { drawCaption(); return false; }
  O.about = ruling ? aboutOf(ruling) : null;
  O.threats = null;
  drawCaption();
  askThreats();
  drawMap();
  return true;
}

function drawCaption() {
  const cap = $("ov-caption");
  if (!SHOW.has("verdict") || !O.ruling || !O.info) { cap.hidden = true; return; }
  const words = rulingWords(O.ruling);
  cap.style.maxWidth = (SHOW.has("map") ? SIZE : Math.max(SIZE, 420)) + "px";
  cap.style.borderLeftColor = verdictColour(O.info.palette, words);
  cap.dataset.seq = O.ruling.seq;
  cap.replaceChildren();
  const head = document.createElement("div");
  head.className = "head";
  head.textContent = words.head;
  cap.appendChild(head);
  if (words.why) {
    const why = document.createElement("div");
    why.className = "why";
    why.textContent = words.why;
    cap.appendChild(why);
  }
  cap.hidden = false;
}

// -- the map: the cloth, terrain, pieces, and the threat lines of the ruling's piece ---------

function setupMap() {
  const map = $("ov-map");
  // an <svg> has no `hidden` property (HTML elements do): the attribute itself
  if (!SHOW.has("map")) { map.setAttribute("hidden", ""); return; }
  const t = O.info.table;
  map.setAttribute("viewBox", `-0.5 -0.5 ${t.width + 1} ${t.depth + 1}`);
  map.setAttribute("height", Math.round(SIZE * (t.depth + 1) / (t.width + 1)));
  const cloth = $("ov-cloth");
  drawCloth(cloth, t, O.info.palette, 0.1);
  map.removeAttribute("hidden");
  drawMap();
}

function drawMap() {
  if (!O.info || !SHOW.has("map")) return;
  const terrain = $("ov-terrain");
  terrain.replaceChildren();
  for (const t of O.terrain) {
    const colour = terrainColour(O.info.palette, t.kind);
    el("polygon", { points: points(t.polygon), fill: colour, "fill-opacity": 0.8,
      "data-id": t.id }, terrain);
  }
  const pieces = $("ov-pieces");
  pieces.replaceChildren();
  for (const id of Object.keys(O.live)) {
    const pose = poseOf(id);
    if (pose.state === "removed") continue;
    const info = O.pieces[pose.id] || UNKNOWN_PIECE;
    const [w, d] = info.base;
    const g = el("g", { class: "piece", "data-id": pose.id, "data-x": pose.x, "data-y": pose.y, transform: `translate(${pose.x} ${pose.y})` }, pieces);
    const body = el("g", { transform: `rotate(${pose.heading})` }, g);
    el("rect", { class: "base", x: -d / 2, y: -w / 2, width: d, height: w, fill: info.colour }, body);
    el("line", { class: "front", x1: 0, y1: 0, x2: d / 2, y2: 0 }, body);
    el("text", { class: "label", y: Math.max(w, d) / 2 + 0.9 }, g, pose.id);
  }
  drawThreats();
}

function drawThreats() {
  const g = $("ov-threats");
  g.replaceChildren();
  const th = O.threats;
  g.dataset.from = th && th.verdict ? th.from : "";
  if (!SHOW.has("threat") || !th || !th.verdict) return;
  const a = poseOf(th.from);
  if (!a) return;
  for (const t of th.verdict.targets || []) {
    const b = poseOf(t.to);
    if (!b || b.state === "removed") continue;
    const kind = threatKind(t);
    const info = O.pieces[t.to] || UNKNOWN_PIECE;
    drawThreatMark(g, a, b, t.to, kind, threatColour(O.info.palette, kind), info.base);
  }
}

// One question out at a time; a change meanwhile asks again when it returns.

connect();
