// The dashboard page: plain JavaScript, no build step, no network beyond this server.
// It listens to /api/stream (Server-Sent Events) and asks /api for everything else.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// The access token of an exposed server: read from the URL once, kept for this tab, and taken
// out of the address bar (the server also set its cookie on this first visit), so it is not
// left on screen for anyone looking over a shoulder, nor in a bookmark or a screenshot.
const TOKEN = (() => {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given) {
    try { sessionStorage.setItem("referee-token", given); } catch (err) { /* private mode */ }
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    return given;
  }
  try { return sessionStorage.getItem("referee-token"); } catch (err) { return null; }
})();

const S = {
  info: null,          // /api/info
  pieces: {},          // id -> roster piece (side, base, colour, ranges)
  live: {},            // id -> latest tracked pose from the stream
  terrain: [],         // current terrain (scene-file objects)
  selected: [],        // tapped pieces, at most two
  dispute: null,       // {queries, verdicts}
  threats: null,       // {from, verdict, error}: what the one tapped piece can hit (threat view)
  replay: null,        // scene shown while scrubbing the log
  events: [],
  drawing: null,       // terrain vertices being drawn
  kind: "woods",
  picked: null,        // terrain id picked in the terrain list
  redraw: null,        // terrain id whose outline is being drawn again
  lastFrame: null,
  shown: [],           // [frame, ms since epoch] when the map showed a frame (benchmarks)
  generation: null,    // the newest game generation the stream announced
  replaySeq: null,     // the event the replayed scene stands at
  shownMove: null,     // seq of the move whose verdict is shown (tapped arrow)
  tool: null,          // "ruler" while the map measures instead of picking pieces
  ruler: { points: [], hover: null, done: false },
  doubt: null,         // /api/doubt: how far a map point may be from the cloth (inches)
  view: null,          // [x, y, w, h] of the map's viewBox (zoom and pan)
  home: null,          // the whole table's viewBox
  ended: null,         // why the table stopped ("video ended"...), null while it plays
  camera: 1,           // which camera's picture the camera panel shows (from 1)
  font: { label: 0.8, small: 0.6 },  // the map's word sizes now (inches on the table)
  movedSince: {},      // piece id -> seq of the correction it was seen moving after
  asked: null,         // the questions of the shown dispute (a pair, Follow Me), asked again on changes
};
window.referee = S;

// -- talking to the server ----------------------------------------------------------------------

function api(path, body) {
  const headers = {};
  if (TOKEN) headers["X-Referee-Token"] = TOKEN;
  const init = { headers, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch("api/" + path, init).then(async (r) => {
    const type = r.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await r.json() : await r.blob();
    if (!r.ok) {
      const err = new Error((data && data.error) || r.statusText);
      err.status = r.status;
      // 409 "pz1 is not on the table now": a state of the table, not the player's mistake
      err.absent = (data && data.absent) || null;
      throw err;
    }
    return data;
  });
}

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

// -- the stream ---------------------------------------------------------------------------------

let source = null;
function connect() {
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

let connected = false;
function setConnected(ok) {
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
function loadFailed(err) {
  loadError = "could not load the table: " + plainError(err.message);
  setConnected(connected);  // before the stream opens: shown when it does
  clearTimeout(loadRetry);
  loadRetry = setTimeout(() => loadAll().catch(loadFailed), 5000);
}

// One load at a time; a hello for a newer game while one runs loads again after it.
let loading = null;
function loadAll() {
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

async function refreshState() {
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

// -- the live map ----------------------------------------------------------------------------

// Map layers, bottom to top. Each draws its <g> from S alone, so any order of arrivals
// (roster, scene, frames, events) ends in the same picture: whoever changes S calls redraw().
// `poses`: the layer follows the pieces (redrawn on every frame). A new view is one more
// entry here and one more <g> in index.html.
const LAYERS = [
  { id: "terrain", draw: () => drawTerrain() },
  { id: "moves", draw: () => drawMoves() },
  { id: "rings", draw: () => drawRings(), poses: true },
  { id: "lines", draw: () => drawLines(), poses: true },
  { id: "threats", draw: () => drawThreats(), poses: true },  // what the tapped piece can hit
  { id: "pieces", draw: () => drawPieces(), poses: true },
  { id: "move-fix", draw: () => drawMoveEnd() },  // over the pieces: the shown move's end handle
  { id: "ruler", draw: () => drawRuler() },
];

function redraw(posesOnly) {
  if (!S.info) return;  // nothing can be sized or coloured before the roster is known
  for (const layer of LAYERS) if (!posesOnly || layer.poses) layer.draw();
  placeLabels();  // the pieces moved or the words changed: each word to a free spot again
  placeOverlay();
}

function setupMap() {
  const t = S.info.table;
  const map = $("map");
  S.home = [-1, -1, t.width + 2, t.depth + 3.6];
  if (!S.view) S.view = S.home.slice();
  applyView();
  const cloth = $("cloth");
  Object.entries({ x: 0, y: 0, width: t.width, height: t.depth, fill: S.info.palette.cloth,
    stroke: S.info.palette.edge, "stroke-width": 0.08 }).forEach(([k, v]) => cloth.setAttribute(k, v));
  const img = $("topdown");
  Object.entries({ x: 0, y: 0, width: t.width, height: t.depth }).forEach(([k, v]) => img.setAttribute(k, v));
  const scale = $("scale");
  scale.replaceChildren();
  const y = t.depth + 1.2;
  el("rect", { x: 0, y: y - 0.15, width: 6, height: 0.3, fill: "#fff" }, scale);
  el("rect", { x: 3, y: y - 0.15, width: 3, height: 0.3, fill: "#888" }, scale);
  el("text", { x: 3, y: y + 1.0 }, scale, "6 inches");
  // nothing is drawn past the cloth (rings, sight lines, terrain): see index.html
  Object.entries({ x: 0, y: 0, width: t.width, height: t.depth })
    .forEach(([k, v]) => $("table-clip-rect").setAttribute(k, v));
  map.onclick = onMapClick;
  drawGrid();
}

// The mat of a grid game (hexes, zones), under the terrain and the pieces.
function drawGrid() {
  const g = $("grid");
  g.replaceChildren();
  const grid = S.info.grid;
  if (!grid) return;
  g.setAttribute("data-kind", grid.kind);
  for (const c of grid.cells) {
    const cell = el("polygon", { points: c.outline.map((p) => p.join(",")).join(" "), class: "cell",
      "data-cell": c.label }, g);
    el("title", {}, cell, c.label);
    if (grid.kind === "zone") {
      const cx = c.outline.reduce((s, p) => s + p[0], 0) / c.outline.length;
      const cy = c.outline.reduce((s, p) => s + p[1], 0) / c.outline.length;
      el("text", { x: cx, y: cy, class: "cell-label" }, g, c.label);
    }
  }
}

function drawTerrain() {
  const g = $("terrain");
  g.replaceChildren();
  const terrain = S.replay ? S.replay.terrain || [] : S.terrain;
  for (const t of terrain) {
    const colour = S.info.palette.terrain[t.kind] || "#808080";
    const group = el("g", { class: "terrain" + (t.id === S.picked ? " picked" : "") + (t.hidden ? " hidden" : ""), "data-id": t.id }, g);
    el("polygon", { points: t.polygon.map((p) => p.join(",")).join(" "), fill: colour, stroke: colour }, group);
    const cx = t.polygon.reduce((s, p) => s + p[0], 0) / t.polygon.length;
    const cy = t.polygon.reduce((s, p) => s + p[1], 0) / t.polygon.length;
    el("text", { class: "terrain-label", x: cx, y: cy, "data-cx": cx, "data-cy": cy }, group,
      t.id + (t.objective ? ` (${t.objective} VP)` : ""));
  }
}

function piecePoses() {
  if (S.replay) {
    return (S.replay.pieces || []).map((p) => ({ id: p.id, x: p.x, y: p.y, heading: p.heading, state: "settled" }));
  }
  // The players' word over the camera's: a piece whose last move was corrected is drawn
  // where the correction puts it (as /api/state has it) until the camera sees it move again.
  // A casualty is off the table: not drawn (the list under the map names it).
  const rests = correctedRests();
  const gone = new Set(casualties(null).map((c) => c.piece));
  return Object.values(S.live).filter((p) => p.state !== "removed" && !gone.has(p.id)).map((p) => {
    const rest = rests.get(p.id);
    if (!rest || p.state === "moving" || S.movedSince[p.id] === rest.seq) return p;
    return { ...p, x: rest.pose.x, y: rest.pose.y, heading: rest.pose.heading, corrected: rest.seq };
  });
}

// Where corrections put pieces, as referee/game/corrections.py's rests() has it: only a
// piece whose last move was corrected is named; a voided move leaves it where it rested
// before (walking back over earlier voided moves), a `to` puts it there. Kept while the
// log is unchanged: the map asks for it on every frame.
const restsMemo = { key: null, value: new Map() };
function correctedRests() {
  const last = S.events.length ? S.events[S.events.length - 1].seq : 0;
  const key = `${S.events.length}:${last}`;
  if (restsMemo.key === key) return restsMemo.value;
  const fixes = corrections();
  const moves = new Map();
  for (const e of S.events) {
    if (e.type !== "move" || !e.piece) continue;
    if (!moves.has(e.piece)) moves.set(e.piece, []);
    moves.get(e.piece).push(e);
  }
  const out = new Map();
  for (const [piece, history] of moves) {
    const newest = fixes.get(history[history.length - 1].seq);
    if (!newest) continue;  // the camera's last word stands
    for (let i = history.length - 1; i >= 0; i--) {
      const fix = fixes.get(history[i].seq);
      let pose;
      if (!fix) pose = history[i + 1].from;  // before the voided move after it
      else if (fix.void) {
        if (i > 0) continue;
        pose = history[i].from;
      } else pose = fix.to;
      if (pose) out.set(piece, { pose, seq: newest.seq });
      break;
    }
  }
  restsMemo.key = key;
  restsMemo.value = out;
  return out;
}

// The pieces removed from the table (casualties) at event `upto` (null: now), as the session's
// casualties() has them: each piece whose last move, removal or entry is a removal that no
// correction undid. Oldest first.
function casualties(upto) {
  const undone = new Set(S.events.filter((e) => e.type === "correction").map((e) => e.supersedes));
  const last = new Map();
  for (const e of S.events) {
    if (upto !== null && e.seq > upto) break;
    if ((e.type === "move" || e.type === "removed" || e.type === "entered") && e.piece) last.set(e.piece, e);
  }
  return [...last.values()].filter((e) => e.type === "removed" && !undone.has(e.seq)).sort((a, b) => a.seq - b.seq);
}

function renderCasualties() {
  const box = $("casualties");
  if (!box) return;
  const list = casualties(S.replay ? S.replaySeq : null);
  const text = list.map((e) => `${e.piece} (#${e.seq}, ${e.reason || "removed"})`).join(", ");
  if (box.dataset.text === text) return;
  box.dataset.text = text;
  box.hidden = !list.length;
  box.replaceChildren(html("strong", "Casualties: "));
  list.forEach((e, i) => {
    const item = html("span", `${e.piece} (${e.reason || "removed"})`, "casualty");
    item.dataset.id = e.piece;
    item.dataset.seq = e.seq;
    box.append(item);
    if (i < list.length - 1) box.append(", ");
  });
}

// A piece the roster does not name (never one of this game's) is a plain grey square.
const UNKNOWN_PIECE = { base: [1, 1], colour: "#ccc" };

function drawPieces() {
  renderCasualties();
  const g = $("pieces");
  const poses = piecePoses();
  const keep = new Set(poses.map((p) => p.id));
  for (const node of Array.from(g.children)) if (!keep.has(node.dataset.id)) node.remove();
  for (const pose of poses) {
    const info = S.pieces[pose.id] || UNKNOWN_PIECE;
    let node = g.querySelector(`[data-id="${CSS.escape(pose.id)}"]`);
    if (!node) {
      node = el("g", { class: "piece", "data-id": pose.id }, g);
      el("g", { class: "body" }, node);
      el("text", { class: "label" }, node, pose.id);
      node.addEventListener("click", (e) => {
        if (S.drawing || S.tool) return;  // a corner or a ruler point over a piece: the map's
        e.stopPropagation();
        tapPiece(pose.id);
      });
    }
    // The body is rebuilt whenever what it shows (base, side colour) differs from the roster
    // now: a piece first drawn from a frame that came before the roster is drawn again.
    const look = `${info.base.join("x")} ${info.colour}`;
    if (node.dataset.look !== look) {
      const body = node.firstChild;
      body.replaceChildren();
      const [w, d] = info.base;
      el("circle", { r: Math.max(w, d) * 0.75, fill: "transparent" }, body);
      el("rect", { class: "base", x: -d / 2, y: -w / 2, width: d, height: w, fill: info.colour }, body);
      el("line", { class: "front", x1: 0, y1: 0, x2: d / 2, y2: 0 }, body);
      node.lastChild.setAttribute("y", Math.max(w, d) / 2 + 0.15);
      node.dataset.look = look;
      node.dataset.side = info.side || "";
    }
    node.setAttribute("transform", `translate(${pose.x} ${pose.y})`);
    node.firstChild.setAttribute("transform", `rotate(${pose.heading})`);
    node.setAttribute("class", `piece ${pose.state || ""}${S.selected.includes(pose.id) ? " selected" : ""}` +
      (pose.corrected ? " corrected" : ""));
    node.dataset.x = pose.x;
    node.dataset.y = pose.y;
    node.dataset.heading = pose.heading;
    node.dataset.corrected = pose.corrected || "";
  }
}

function poseOf(id) {
  return piecePoses().find((p) => p.id === id);
}

function drawRings() {
  const g = $("rings");
  g.replaceChildren();
  if (S.selected.length !== 1) return;
  const pose = poseOf(S.selected[0]);
  if (!pose) return;
  const info = S.pieces[pose.id] || { ranges: {} };
  for (const r of S.info.rings) el("circle", { cx: pose.x, cy: pose.y, r }, g);
  for (const [name, r] of Object.entries(info.ranges || {})) {
    el("circle", { class: "own", cx: pose.x, cy: pose.y, r }, g);
    el("text", { class: "ring-label", x: pose.x + r * 0.71, y: pose.y - r * 0.71, "data-cx": pose.x,
      "data-cy": pose.y, "data-r": r }, g, `${name} ${r}"`);
  }
}

function verdictColour(v) {
  const c = S.info.palette.verdict;
  if (v.los) return c[v.los];
  return v.ok === true ? c.clear : v.ok === false ? c.blocked : c.doubtful;
}

function drawLines() {
  const g = $("lines");
  g.replaceChildren();
  if (!S.dispute || S.replay) return;
  for (const v of S.dispute.verdicts) {
    if (v.ask === "los" || v.ask === "range") {
      const a = poseOf(v.from), b = poseOf(v.to);
      if (!a || !b) continue;
      // A verdict that names its line (Papercraft: the shortest clear line, edge to edge)
      // is drawn there; the others run centre to centre.
      const [p, q] = v.ask === "los" && Array.isArray(v.line) ? v.line : [[a.x, a.y], [b.x, b.y]];
      const line = el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: verdictColour(v),
        class: v.ask + " " + (v.los || ""), "data-los": v.los || "" }, g);
      if (v.ask === "range") line.setAttribute("stroke-dasharray", "0.5 0.4");
    }
    for (const chain of v.chains || []) {
      for (let i = 1; i < chain.length; i++) {
        const a = poseOf(chain[i - 1]), b = poseOf(chain[i]);
        if (a && b) el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: S.info.palette.verdict.clear, class: "chain" }, g);
      }
    }
  }
}

// -- the threat view: what one tapped piece can hit --------------------------------------------

// The four answers a target can get, in the order the lists show them. Each `targets` entry
// is the pair's own range and los verdicts; a definite "no" outranks a doubt.
const THREAT_KINDS = [
  ["seen", "in range & seen"], ["out", "out of range"], ["blocked", "blocked"], ["doubt", "too close to call"],
];

function threatKind(t) {
  if (!t.range || t.range.ok === false) return "out";  // no range: a piece without a weapon
  if (t.los.ok === false) return "blocked";
  if (t.range.ok !== true || t.los.ok !== true) return "doubt";
  return "seen";
}

function threatColour(kind) {
  return verdictColour({ ok: kind === "seen" ? true : kind === "doubt" ? null : false });
}

// The die roll a system settles a doubtful line with ("if in doubt roll one die: 1-3
// blocked, 4-6 clear"), from the LOS verdict's own words; "" where the system has none.
function dieRoll(v) {
  const text = [...(v.reasons || []), v.summary || ""].find((s) => /\broll\b/i.test(s));
  return text ? text.replace(/^.*?doubtful[^:]*: /i, "") : "";
}

function rangeText(v) {
  if (v.distance === undefined || v.distance === null) return "";
  if (v.units) return `${v.distance} ${v.units}` + (v.uncertainty ? ` ± ${v.uncertainty}` : "");
  return `${Number(v.distance).toFixed(2)}"` + (v.uncertainty ? ` ± ${Number(v.uncertainty).toFixed(2)}` : "");
}

// One target in words: its distance, and why it is not a clean shot where it is not.
function threatText(t, kind) {
  const range = t.range || t.los;  // an unarmed piece has no range verdict: the sight line's distance
  const dist = rangeText(range);
  const unit = range.units ? ` ${range.units}` : '"';
  if (kind === "out") return `${t.to} ${dist}` + (range.limit ? ` (limit ${range.limit}${unit})` : "");
  if (kind === "blocked") {
    return `${t.to}` + (t.los.blocking && t.los.blocking.length ? ` by ${t.los.blocking.join(", ")}` : ` ${dist}`);
  }
  if (kind === "doubt") {
    if (t.los.ok !== true && t.los.ok !== false) return `${t.to}: ${dieRoll(t.los) || "line too close to call"}`;
    return `${t.to} ${dist}: range too close to call`;
  }
  return `${t.to} ${dist}`;
}

function threatsShown() {
  return !!S.threats && !S.dispute && !S.replay && S.selected.length === 1 && S.selected[0] === S.threats.from;
}

function threatGroups() {
  const groups = Object.fromEntries(THREAT_KINDS.map(([k]) => [k, []]));
  for (const t of (S.threats && S.threats.verdict && S.threats.verdict.targets) || []) groups[threatKind(t)].push(t);
  return groups;
}

// A line from the tapped piece to every piece of another side, coloured by its answer
// (out of range dashed), and a ring round each target; drawn from the poses of this
// frame, so the lines follow a piece while it moves.
function drawThreats() {
  const g = $("threats");
  g.replaceChildren();
  const shown = threatsShown() && S.threats.verdict;
  g.dataset.from = shown ? S.threats.from : "";
  if (!shown) return;
  const a = poseOf(S.threats.from);
  if (!a) return;
  for (const t of S.threats.verdict.targets || []) {
    const b = poseOf(t.to);
    if (!b) continue;
    const kind = threatKind(t);
    const colour = threatColour(kind);
    const group = el("g", { class: "threat " + kind, "data-to": t.to, "data-verdict": kind }, g);
    const line = el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: colour }, group);
    if (kind === "out") line.setAttribute("stroke-dasharray", "0.5 0.4");
    const info = S.pieces[t.to] || UNKNOWN_PIECE;
    el("circle", { cx: b.x, cy: b.y, r: Math.max(...info.base) * 0.75 + 0.2, stroke: colour }, group);
    el("title", {}, group, threatText(t, kind));
  }
}

// The threat view in words: counts, then each kind's pieces, each a button showing that
// pair's range and line of sight; in the Dispute pane and, shorter, over the map.
function renderThreats() {
  if (!threatsShown()) return;
  const th = S.threats;
  const box = $("verdict");
  box.replaceChildren();
  $("dispute-hint").textContent = `${th.from}: what it can hit. Tap a name or another piece for that pair; tap the map to clear.`;
  if (th.error) {
    // a piece off the table this instant is a grey notice, an error is red
    box.appendChild(html("p", th.error, th.notice ? "muted notice" : "error"));
    renderOverlay([[th.error, th.notice ? "muted notice" : "no"]]);
    return;
  }
  if (!th.verdict) {
    box.appendChild(html("p", "asking…", "muted"));
    renderOverlay([]);
    return;
  }
  const groups = threatGroups();
  const counts = THREAT_KINDS.map(([k, label]) => `${label}: ${groups[k].length}`).join(", ");
  const total = (th.verdict.targets || []).length;
  const head = html("div", `${th.from} → ${total} piece${total === 1 ? "" : "s"} of other sides: ${counts}`, "line threats-head");
  head.dataset.ask = "targets";
  box.appendChild(head);
  // why no target is in range when the piece cannot fire at all (no weapon), said once
  const unarmed = (th.verdict.targets || []).find((t) => !t.range && t.range_error);
  if (unarmed) box.appendChild(html("p", plainError(unarmed.range_error), "muted"));
  // over the map, one short paragraph (the table stays in sight): the kinds that have
  // pieces, each with its count and its pieces' names
  const over = $("map-verdict");
  const brief = html("div", `${th.from} → `, "line threats-brief");
  over.replaceChildren(brief);
  if (!total) brief.append("no pieces of other sides on the table");
  for (const [kind, label] of THREAT_KINDS) {
    const list = groups[kind];
    const section = html("div", undefined, "threat-group");
    section.dataset.kind = kind;
    section.appendChild(html("div", `${label}: ${list.length}`, "line " + KIND_MARK[kind]));
    const picks = html("div", undefined, "row threat-picks");
    const chips = html("span", `${label} ${list.length}: `, "threat-kind " + KIND_MARK[kind]);
    chips.dataset.kind = kind;
    for (const t of list) {
      const name = S.pieces[t.to] && S.pieces[t.to].name;
      const b = html("button", threatText(t, kind), "threat-pick " + KIND_MARK[kind]);
      b.type = "button";
      b.dataset.to = t.to;
      if (name && name !== t.to) b.title = name;
      b.onclick = () => showPair(th.from, t.to);
      picks.appendChild(b);
      const chip = html("button", t.to, "chip");
      chip.type = "button";
      chip.dataset.to = t.to;
      chip.onclick = (e) => { e.stopPropagation(); showPair(th.from, t.to); };
      chips.appendChild(chip);
    }
    section.appendChild(picks);
    box.appendChild(section);
    if (list.length) {
      if (brief.childElementCount) brief.append(" · ");
      brief.appendChild(chips);
    }
  }
  over.hidden = false;
  placeOverlay();
}
const KIND_MARK = { seen: "ok", out: "no", blocked: "no", doubt: "maybe" };

// Asked without logging (a view, not a dispute): one request at a time; a change while one
// is out asks again when it returns, so the newest table always gets its answer.
const threatAsk = { busy: false, again: false };

function askThreats() {
  if (!threatsShown()) return;
  if (threatAsk.busy) { threatAsk.again = true; return; }
  threatAsk.busy = true;
  const from = S.threats.from;
  const still = () => threatsShown() && S.threats.from === from;
  const show = (threats) => {
    if (!still()) return;  // the player moved on meanwhile
    S.threats = threats;
    renderThreats();
    drawThreats();
  };
  api("ask?log=0", { ask: "targets", from })
    .then((answer) => show({ from, verdict: answer.verdicts[0], error: null }))
    .catch((err) => show({ from, verdict: null, error: plainError(err.message), notice: !!err.absent }))
    .finally(() => {
      threatAsk.busy = false;
      if (threatAsk.again) { threatAsk.again = false; askThreats(); }
    });
}

// The projector page draws the dashboard's selected piece (POST /api/selection).
function shareSelection(id) { api("selection", { piece: id }).catch(() => {}); }

function showThreats(id) {
  shareSelection(id);
  const kept = threatsShown() && S.threats.from === id;  // the same piece again: keep its answer
  S.selected = [id];
  S.dispute = null;
  S.asked = null;
  if (!kept) S.threats = { from: id, verdict: null, error: null };
  renderThreats();
  askThreats();
}

function showPair(a, b) {
  shareSelection(null);
  S.selected = [a, b];
  S.threats = null;
  S.dispute = null;
  S.asked = null;
  S.shownMove = null;
  $("follow-me").disabled = true;
  $("save-picture").disabled = true;
  redraw();
  askDispute();
}

function clearSelection() {
  shareSelection(null);
  S.selected = []; S.dispute = null; S.threats = null; S.shownMove = null; S.asked = null;
  $("follow-me").disabled = true;
  $("save-picture").disabled = true;
  renderDispute();
  redraw();
}

// -- moves on the map ---------------------------------------------------------------------------

const MOVES_SHOWN = 5;  // the newest moves drawn; older ones fade, then go

// Each corrected move's last correction (seq -> the correction event).
function corrections() {
  const out = new Map();
  for (const e of S.events) if (e.type === "correction") out.set(e.supersedes, e);
  return out;
}

function shownMoves() {
  const upto = S.replay ? S.replaySeq ?? 0 : Infinity;
  const fixes = corrections();
  const voided = new Set(S.events.filter((e) => e.type === "correction" && e.void).map((e) => e.supersedes));
  // A move corrected to end elsewhere is drawn to where the players said it ended.
  const moves = S.events.filter((e) => e.type === "move" && e.seq <= upto && !voided.has(e.seq) &&
    e.from && e.to).map((e) => (fixes.get(e.seq)?.to ? { ...e, to: fixes.get(e.seq).to, via: [], corrected: true } : e));
  return moves.slice(-MOVES_SHOWN);
}

// The verdicts on a move: those on its last correction when one re-judged it.
function moveVerdicts(seq) {
  const fix = corrections().get(seq);
  const about = fix && fix.to ? fix.seq : seq;
  return S.events.filter((e) => e.type === "verdict" && e.about === about &&
    (about === seq || e.verdict?.ask === "move")).map((e) => e.verdict || {});
}

// The worst of the move's verdicts: one illegal makes it red, one too close to call amber.
function moveMark(verdicts) {
  if (!verdicts.length) return "none";
  if (verdicts.some((v) => v.ok === false)) return "no";
  if (verdicts.some((v) => v.ok !== true)) return "maybe";
  return "ok";
}

function moveColour(markName) {
  const c = S.info.palette.verdict;
  return { ok: c.clear, no: c.blocked, maybe: c.doubtful }[markName] || "#e8e8e8";
}

function drawMoves() {
  const g = $("moves");
  g.replaceChildren();
  const moves = shownMoves();
  moves.forEach((m, i) => {
    const verdicts = moveVerdicts(m.seq);
    const markName = moveMark(verdicts);
    const colour = moveColour(markName);
    const path = [m.from, ...(m.via || []), m.to].map((p) => [p.x, p.y]);
    const group = el("g", { class: "move" + (m.seq === S.shownMove ? " shown" : ""), "data-seq": m.seq,
      "data-piece": m.piece, "data-verdict": markName,
      opacity: (0.3 + 0.7 * (i + 1) / moves.length).toFixed(2) }, g);
    const points = path.map((p) => p.join(",")).join(" ");
    if (m.via && m.via.length) {  // the tracked course, and the straight line from rest to rest
      el("polyline", { class: "via", points, stroke: colour }, group);
    }
    const [a, b] = [path[0], path[path.length - 1]];
    el("line", { class: "shaft", x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: colour }, group);
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
    const [ux, uy] = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
    const head = Math.min(0.9, len * 0.4);
    el("polygon", { class: "head", fill: colour, points: [
      b, [b[0] - ux * head - uy * head * 0.5, b[1] - uy * head + ux * head * 0.5],
      [b[0] - ux * head + uy * head * 0.5, b[1] - uy * head - ux * head * 0.5]].map((p) => p.join(",")).join(" ") }, group);
    // a wide invisible band along the move: easy to tap with a finger
    el("polyline", { class: "hit", points: path.length > 2 ? points : `${a.join(",")} ${b.join(",")}` }, group);
    // white on its halo (placeLabels): the arrow carries the verdict's colour
    const label = el("text", { class: "move-label", x: (a[0] + b[0]) / 2 - uy * 0.6,
      y: (a[1] + b[1]) / 2 + ux * 0.6, "data-ends": [a, b].flat().join(" ") }, group,
      `${Number(m.distance).toFixed(2)}"`);
    label.dataset.distance = m.distance;
    group.addEventListener("click", (e) => {
      if (S.drawing || S.tool) return;
      e.stopPropagation();
      showMove(m.seq);
    });
  });
}

// "Ended here": the shown move's end, a ring over the pieces to drag to where it really rests.
function drawMoveEnd() {
  const g = $("move-fix");
  g.replaceChildren();
  const m = S.replay ? null : shownMoves().find((x) => x.seq === S.shownMove);
  if (!m) return;
  const colour = moveColour(moveMark(moveVerdicts(m.seq)));
  el("circle", { class: "drag-end", id: "move-end", cx: m.to.x, cy: m.to.y, r: 0.8, stroke: colour,
    "data-seq": m.seq }, g);
}

function moveText(m) {
  return `Move ${m.piece}: ${Number(m.distance).toFixed(2)}" ± ${Number(m.uncertainty).toFixed(3)}` +
    ` (${m.from.x.toFixed(1)}, ${m.from.y.toFixed(1)}) → (${m.to.x.toFixed(1)}, ${m.to.y.toFixed(1)})`;
}

// A tapped arrow: the move and what the rules said about it, in the verdict box. A corrected
// move shows the correction (what, why), the verdicts asked again on the corrected table,
// and what was said before it, struck through: no longer the ruling.
function showMove(seq) {
  const m = S.events.find((e) => e.seq === seq && e.type === "move");
  if (!m) return;
  S.shownMove = seq;
  shareSelection(null);
  S.selected = [];
  S.dispute = null;
  S.threats = null;
  S.asked = null;
  const fix = corrections().get(seq);
  const verdicts = moveVerdicts(seq);
  const headMark = fix && fix.void ? "muted" : moveMark(verdicts);
  const box = $("verdict");
  box.replaceChildren();
  $("dispute-hint").textContent = "";
  const head = html("div", moveText(m), "line move " + headMark);
  head.dataset.ask = "move";
  head.dataset.seq = seq;
  if (fix && fix.void) head.classList.add("superseded");
  box.appendChild(head);
  const notes = html("ul", undefined, "reasons");
  for (const n of m.notes || []) notes.appendChild(html("li", n));
  box.appendChild(notes);
  const overlay = [[moveText(m), headMark]];
  if (fix) {
    const said = html("div", correctionText(fix), "line correction-said");
    said.id = "correct-done";
    said.dataset.seq = fix.seq;
    said.dataset.kind = fix.void ? "void" : "to";
    box.appendChild(said);
    overlay.push([correctionText(fix), "correction-said"]);
    const again = S.events.filter((e) => e.type === "verdict" && e.about === fix.seq).map((e) => e.verdict || {});
    const asked = html("div", undefined, "asked-again");
    asked.id = "asked-again";
    asked.appendChild(html("h2", "Asked again after the correction"));
    if (!again.length) asked.appendChild(html("p", "no verdict depended on it", "muted"));
    for (const v of again) {
      asked.appendChild(verdictLine(v));
      overlay.push([v.summary || v.ask, mark(v)]);
    }
    box.appendChild(asked);
    const before = S.events.filter((e) => e.type === "verdict" && e.about === seq).map((e) => e.verdict || {});
    if (before.length) {
      const old = html("div", undefined, "superseded-verdicts");
      old.id = "superseded";
      old.appendChild(html("h2", "Said before (no longer stands)"));
      for (const v of before) old.appendChild(verdictLine(v, "superseded"));
      box.appendChild(old);
    }
  } else {
    if (!verdicts.length) box.appendChild(html("p", "no rule judged this move", "muted"));
    for (const v of verdicts) {
      box.appendChild(verdictLine(v));
      overlay.push([v.summary || v.ask, mark(v)]);
    }
  }
  box.appendChild(correctionForm(m));
  showTab("dispute");
  renderOverlay(overlay);
  redraw();
}

function correctionText(fix) {
  const what = fix.void ? "did not happen"
    : `ended at (${fix.to.x.toFixed(1)}, ${fix.to.y.toFixed(1)})`;
  return `Corrected (#${fix.seq}): ${what} — ${fix.reason}`;
}

// A verdict's headline and its reasons (a list under it).
function verdictLine(v, extra) {
  const wrap = html("div", undefined, "verdict-item" + (extra ? " " + extra : ""));
  const line = html("div", v.summary || v.ask, "line " + (extra === "superseded" ? "muted" : mark(v)));
  line.dataset.ask = v.ask || "";
  wrap.appendChild(line);
  const reasons = html("ul", undefined, "reasons");
  for (const r of v.reasons || []) reasons.appendChild(html("li", r));
  wrap.appendChild(reasons);
  return wrap;
}

// Correcting a move the camera got wrong: "did not happen", or drag its end on the map.
// Once voided the button says it is done and takes no more taps.
function correctionForm(m) {
  const form = document.createElement("div");
  form.className = "correction";
  const fix = corrections().get(m.seq);
  const why = document.createElement("input");
  why.id = "correct-why";
  why.placeholder = "why? (e.g. knocked over)";
  why.maxLength = 500;
  const voidButton = document.createElement("button");
  voidButton.id = "correct-void";
  voidButton.type = "button";
  voidButton.textContent = "did not happen";
  voidButton.onclick = () => sendCorrection({ seq: m.seq, void: true });
  const hint = html("p", "ended elsewhere? drag the ring at the arrow's end to where it rests", "muted");
  const error = html("p", "", "error");
  error.id = "correct-error";
  form.append(why, voidButton, hint, error);
  if (fix && fix.void) {
    voidButton.textContent = "✓ did not happen";
    voidButton.classList.add("done");
    voidButton.setAttribute("aria-pressed", "true");
    voidButton.disabled = true;
    why.disabled = true;
    why.hidden = true;
    hint.hidden = true;
  } else if (S.replay) voidButton.disabled = true;
  return form;
}

async function sendCorrection(body) {
  const why = ($("correct-why")?.value || "").trim();
  const error = $("correct-error");
  if (error) error.textContent = "";
  if (!why) {
    if (error) error.textContent = "say why first (e.g. knocked over)";
    return;
  }
  const button = $("correct-void");
  if (button) button.disabled = true;  // one tap, one correction
  try {
    const answer = await api("correct", { ...body, why });
    addEvents(answer.events);
  } catch (err) {
    if ($("correct-error")) $("correct-error").textContent = err.message;
    if (button) button.disabled = false;
    return;
  }
  showMove(body.seq);
}

// Events this page has not had yet (the answer to a correction and the stream both bring
// the correction's events): added in seq order, listed in the log, and returned.
function addEvents(list) {
  const have = new Set(S.events.map((e) => e.seq));
  const fresh = list.filter((e) => !have.has(e.seq));
  if (!fresh.length) return fresh;
  S.events.push(...fresh);
  S.events.sort((a, b) => a.seq - b.seq);
  renderEvents(fresh);
  return fresh;
}

function onFrame(msg) {
  S.lastFrame = msg;
  const rests = correctedRests();
  for (const p of msg.pieces) {
    S.live[p.id] = p;
    if (p.state === "moving" && rests.has(p.id)) S.movedSince[p.id] = rests.get(p.id).seq;
  }
  $("fps").textContent = `${msg.fps.toFixed(1)} fps · frame ${msg.frame}`;
  if (!S.replay) redraw(true);
  drawCamera(msg);
  // When the change is on screen: the animation frame after the one that painted it.
  requestAnimationFrame(() => requestAnimationFrame(() => {
    S.shown.push([msg.frame, performance.timeOrigin + performance.now()]);
    if (S.shown.length > 2000) S.shown.splice(0, 1000);
  }));
}

// -- camera view with the tags outlined --------------------------------------------------------

const CAMERA_EVERY = 125;  // ms: the server makes at most 8 new camera pictures a second
const recentTags = new Map();  // frame -> tags, to outline the frame the picture shows
let camBusy = false;
let camLast = 0;

// Several cameras: a picker chooses whose picture the panel shows (the health tab lists all).
function setupCameraPick() {
  const cameras = (S.info && S.info.cameras) || [];
  const pick = $("camera-pick");
  $("camera-pick-row").hidden = cameras.length < 2;
  if (S.camera > cameras.length) S.camera = 1;
  pick.replaceChildren();
  for (const c of cameras) {
    const option = html("option", `${c.camera}: ${c.name.split(/[\\/]/).pop()}`);  // a path's file name
    option.value = String(c.camera);
    pick.appendChild(option);
  }
  pick.value = String(S.camera);
  pick.onchange = () => { S.camera = Number(pick.value) || 1; camLast = 0; };
}

// The tags (and picture size) of the camera shown: a frame message of several cameras
// carries each one's under "cameras"; the top-level tags are the first camera's.
function cameraTags(msg) {
  if (!msg) return msg;
  return msg.cameras ? msg.cameras[S.camera - 1] : msg;
}

function drawCamera(msg) {
  recentTags.set(msg.frame, msg);
  if (recentTags.size > 60) recentTags.delete(recentTags.keys().next().value);
  const now = performance.now();
  if (camBusy || now - camLast < CAMERA_EVERY) return;
  camBusy = true;
  camLast = now;
  const headers = TOKEN ? { "X-Referee-Token": TOKEN } : {};
  const camera = S.camera;
  const query = camera > 1 ? `?camera=${camera}` : "";
  fetch("api/camera.jpg" + query, { headers, credentials: "same-origin" })
    .then(async (r) => {
      if (!r.ok || camera !== S.camera) return;  // the user picked another camera meanwhile
      const frame = Number(r.headers.get("X-Frame"));
      const bitmap = await createImageBitmap(await r.blob());
      paintCamera(bitmap, cameraTags(recentTags.get(frame)));
    })
    .catch(() => {})
    .finally(() => { camBusy = false; });
}

function paintCamera(bitmap, tags) {
  const canvas = $("camera");
  const ctx = canvas.getContext("2d");
  if (canvas.width !== bitmap.width) {
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
  }
  ctx.drawImage(bitmap, 0, 0);
  $("camera-note").textContent = "";
  if (!tags || !tags.tags) return;
  const k = canvas.width / tags.image_size[0];
  const colours = { piece: "#3ad15a", anchor: "#3c9cff", unknown: "#ff4040" };
  ctx.lineWidth = 2;
  ctx.font = "bold 16px sans-serif";
  for (const tag of tags.tags) {
    ctx.strokeStyle = ctx.fillStyle = colours[tag.kind] || "#fff";
    ctx.beginPath();
    tag.corners.forEach(([x, y], i) => (i ? ctx.lineTo(x * k, y * k) : ctx.moveTo(x * k, y * k)));
    ctx.closePath();
    ctx.stroke();
    const [x, y] = tag.corners[2];
    ctx.fillText(tag.label, x * k + 4, y * k + 4);
  }
}

// -- disputes ---------------------------------------------------------------------------------

// One tap: what that piece can hit (the threat view). A tap on a second piece: that pair's
// range and line of sight. A tap on a third starts again; a tap on the bare map clears.
function tapPiece(id) {
  if (S.drawing) return;
  S.shownMove = null;
  if (S.selected.length === 1 && S.selected[0] !== id) {
    showPair(S.selected[0], id);
    return;
  }
  $("follow-me").disabled = false;
  $("save-picture").disabled = true;
  if (S.info.ruleset.questions.includes("targets")) showThreats(id);
  else {  // a system with no all-pairs map: the piece waits for a second one
    shareSelection(id);
    S.selected = [id];
    S.dispute = null;
    S.threats = null;
    S.asked = null;
    renderDispute();
  }
  redraw();
}

async function askDispute() {
  const [a, b] = S.selected;
  const queries = [{ ask: "range", from: a, to: b }, { ask: "los", from: a, to: b }];
  await runQueries(queries);
}

// One dispute shown: the newest asking wins (a re-ask on a change may overtake a tap).
// A player's tap is logged; asking again because the table changed (a move, an edit, a new
// game, a reconnection) is not (`again`): the log keeps what the players asked.
let disputeAsks = 0;
async function runQueries(queries, again) {
  const verdict = $("verdict");
  const mine = ++disputeAsks;
  S.asked = queries;
  const selected = S.selected.join(" ");
  const current = () => mine === disputeAsks && S.asked === queries && S.selected.join(" ") === selected;
  try {
    const verdicts = [];
    for (const q of queries) {
      const answer = await api(again ? "ask?log=0" : "ask?evidence=1", q);
      // A logged verdict names the pictures kept with it (evidence), shown under it.
      for (const v of answer.verdicts) verdicts.push({ ...v, evidence: answer.evidence || [] });
    }
    if (!current()) return;
    S.dispute = { queries, verdicts };
    $("save-picture").disabled = false;
    verdict.dataset.generation = S.info ? S.info.generation : "";
    verdict.dataset.asks = Number(verdict.dataset.asks || 0) + 1;
  } catch (err) {
    if (!current()) return;
    S.dispute = null;  // the selection and its questions stay: the next change asks again
    const cls = err.absent ? "muted notice" : "error";  // off the table now: grey, not red
    verdict.replaceChildren(html("p", plainError(err.message), cls));
    renderOverlay([[plainError(err.message), err.absent ? "muted notice" : "no"]]);
    return;
  }
  renderDispute();
  redraw(true);  // the pair's lines (and no threat lines: a pair or a Follow Me replaces them)
}

function mark(v) { return v.ok === true ? "ok" : v.ok === false ? "no" : "maybe"; }

function renderDispute() {
  const box = $("verdict");
  box.replaceChildren();
  renderOverlay([]);
  if (!S.dispute) {
    $("dispute-hint").textContent = S.selected.length === 1
      ? `${S.selected[0]} selected: tap another piece, or Follow Me.`
      : "Tap a piece: what it can hit. Tap a second piece: range and line of sight.";
    if (threatsShown()) renderThreats();
    return;
  }
  $("dispute-hint").textContent = "";
  const shown = [];
  for (const v of S.dispute.verdicts) {
    let text = v.summary || v.ask;
    if (v.ask === "range" && v.distance !== undefined) {
      const unc = v.uncertainty ? ` ± ${v.uncertainty.toFixed(2)}` : "";
      // Grid games count in cells (v.units: hexes, zones), others in inches.
      const unit = v.units ? ` ${v.units}` : '"';
      const d = v.units ? String(v.distance) : v.distance.toFixed(2);
      const u = v.units ? ` ± ${v.uncertainty}` : unc;
      text = `Range ${v.from} → ${v.to}: ${d}${unit}${v.uncertainty ? u : ""} — ` +
        (v.ok === true ? "in range" : v.ok === false ? "out of range" : "too close to call") +
        (v.limit ? ` (limit ${v.limit}${unit})` : "");
    } else if (v.ask === "los") {
      text = `Line of sight ${v.from} → ${v.to}: ${v.los}` +
        (v.los === "doubtful" ? " — " + (dieRoll(v) || "too close to call") : "") +
        (v.blocking && v.blocking.length ? ` (by ${v.blocking.join(", ")})` : "");
    }
    const line = html("div", text, "line " + mark(v));
    line.dataset.ask = v.ask;
    if (v.los) line.dataset.los = v.los;
    box.appendChild(line);
    const reasons = html("ul", undefined, "reasons");
    for (const r of v.reasons || []) reasons.appendChild(html("li", r));
    box.appendChild(reasons);
    if (v.evidence && v.evidence.length) box.appendChild(evidenceFigure(v.evidence));
    shown.push([text, mark(v)]);
  }
  renderOverlay(shown);
}

// What the camera saw when the verdict was logged: the log's pictures of its pieces.
// A picture the log cannot give (damaged, pruned) is a short note, not a broken image.
function evidenceFigure(evidence) {
  const figure = html("figure", undefined, "evidence");
  figure.style.margin = "0.4em 0";
  for (const e of evidence) {
    const img = document.createElement("img");
    img.alt = `event #${e.seq}: ${e.kind === "top" ? "seen from above" : "camera"}`;
    img.dataset.kind = e.kind;
    img.style.maxWidth = "48%";  // both side by side in the pane, however large the crop
    img.style.marginRight = "2%";
    const missing = () => img.replaceWith(html("span", `(no ${e.kind} picture for #${e.seq})`, "muted"));
    img.onerror = missing;
    figure.appendChild(img);
    // Through api(): an exposed server wants its token on this request too.
    api(`evidence/${e.seq}/${e.kind}.jpg`).then((blob) => { img.src = URL.createObjectURL(blob); }, missing);
  }
  figure.appendChild(html("figcaption", `what the camera saw (event #${evidence[0].seq})`, "muted"));
  return figure;
}

// The verdict's headlines over the map: readable on a tablet or a phone without scrolling
// away from the table (the reasons stay in the Dispute pane).
function renderOverlay(lines) {
  const box = $("map-verdict");
  box.replaceChildren();
  for (const [text, cls] of lines) box.appendChild(html("div", text, "line " + cls));
  box.hidden = !lines.length;
  placeOverlay();
}

// The pieces the shown verdict is about: the tapped ones, or the shown move's.
function overlayPieces() {
  if (S.selected.length) return S.selected;
  const m = S.shownMove !== null && S.events.find((e) => e.seq === S.shownMove && e.type === "move");
  return m ? [m.piece] : [];
}

// The verdict over the map never covers the pieces it is about: over the foot of the map,
// or its top when they are down there, else under the map. On a phone always under it:
// over a map that small it would hide the nearest rows of pieces and the scale bar.
function placeOverlay() {
  const box = $("map-verdict");
  if (box.hidden) return;
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  let place = "below";
  if (!window.matchMedia("(max-width: 600px)").matches) {
    const about = overlayPieces().map((id) => $("pieces").querySelector(`[data-id="${CSS.escape(id)}"] .base`))
      .filter(Boolean).map((n) => n.getBoundingClientRect());
    for (const side of ["bottom", "top"]) {
      box.dataset.place = side;
      const r = box.getBoundingClientRect();
      if (!about.some((a) => meet(a, r))) { place = side; break; }
    }
  }
  if (box.dataset.place !== place) box.dataset.place = place;
}

$("follow-me").onclick = () => {
  if (S.selected.length !== 1) return;
  runQueries([{ ask: "follow_me", leader: S.selected[0] }]);
};
$("clear-dispute").onclick = clearSelection;
$("map-verdict").onclick = () => { $("map-verdict").hidden = true; };
$("save-picture").onclick = async () => {
  if (!S.dispute) return;
  let blob;
  try {
    blob = await api("picture", { queries: S.dispute.queries, selected: S.selected[0] || null });
  } catch (err) {
    $("verdict").appendChild(html("p", plainError(err.message), "error"));
    return;
  }
  const link = $("picture-link");
  link.href = URL.createObjectURL(blob);
  link.hidden = false;
  link.click();
};

// -- terrain ------------------------------------------------------------------------------------

function setupTerrainKinds() {
  const row = $("terrain-kinds");
  row.replaceChildren();
  for (const kind of S.info.terrain_kinds) {
    const b = html("button", kind, kind === S.kind ? "active" : "");
    b.type = "button";
    b.dataset.kind = kind;
    b.onclick = () => { S.kind = kind; setupTerrainKinds(); $("vp-label").hidden = kind !== "objective"; };
    row.appendChild(b);
  }
}

function svgPoint(evt) {
  const map = $("map");
  const pt = map.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(map.getScreenCTM().inverse());
  return [Math.round(p.x * 100) / 100, Math.round(p.y * 100) / 100];
}

function onMapClick(evt) {
  if (!S.drawing) {
    // a tap on the bare map (not a piece, an arrow or the ruler) clears what was picked
    if (!S.tool && evt.target.id !== "move-end" && (S.selected.length || S.shownMove !== null)) clearSelection();
    return;
  }
  S.drawing.push(svgPoint(evt));
  drawDraft();
}

function drawDraft() {
  const g = $("draft");
  g.replaceChildren();
  if (!S.drawing) return;
  if (S.drawing.length) el("polyline", { points: [...S.drawing, S.drawing[0]].map((p) => p.join(",")).join(" ") }, g);
  for (const [x, y] of S.drawing) el("circle", { cx: x, cy: y, r: 0.25 }, g);
  $("finish-terrain").disabled = S.drawing.length < 3;
}

function setDrawing(on) {
  S.drawing = on ? [] : null;
  $("draw-terrain").classList.toggle("active", on);
  $("cancel-terrain").disabled = !on;
  $("finish-terrain").disabled = true;
  drawDraft();
}

$("draw-terrain").onclick = () => setDrawing(true);
$("cancel-terrain").onclick = () => { S.redraw = null; setDrawing(false); };
$("finish-terrain").onclick = async () => {
  if (S.redraw) {  // a new outline for an existing feature: same id, kind and VP
    const old = S.terrain.find((t) => t.id === S.redraw);
    S.redraw = null;
    if (old) await editTerrain({ action: "replace", terrain: { ...old, polygon: S.drawing } });
    setDrawing(false);
    return;
  }
  const used = new Set(S.terrain.map((t) => t.id));
  let n = 1;
  while (used.has(S.kind + n)) n++;
  const terrain = { id: S.kind + n, kind: S.kind, polygon: S.drawing };
  if (S.kind === "objective") terrain.objective = Number($("vp").value) || 1;
  await editTerrain({ action: "add", terrain });
  setDrawing(false);
};

async function editTerrain(body) {
  $("terrain-error").textContent = "";
  try {
    const answer = await api("terrain", body);
    S.terrain = answer.terrain;
  } catch (err) {
    $("terrain-error").textContent = err.message;
    return;
  }
  redraw();
  renderTerrainList();
  if (S.asked) runQueries(S.asked, true);  // a terrain edit may change the verdict
  askThreats();
}

function renderTerrainList() {
  const list = $("terrain-list");
  list.replaceChildren();
  for (const t of S.terrain) {
    const li = html("li");
    li.appendChild(html("span", `${t.id} `));
    const kind = html("select");
    for (const k of new Set([...S.info.terrain_kinds, t.kind])) {
      const o = html("option", k); o.selected = k === t.kind; kind.appendChild(o);
    }
    kind.onchange = () => editTerrain({ action: "replace", terrain: { ...t, kind: kind.value } });
    const del = html("button", "Delete");
    del.type = "button";
    del.onclick = () => editTerrain({ action: "remove", id: t.id });
    const redraw = html("button", "Redraw");
    redraw.type = "button";
    redraw.onclick = () => {
      setDrawing(true);
      S.redraw = t.id;
      S.picked = t.id;
      drawTerrain();
      placeLabels();
      $("terrain-hint").textContent = `Tap the new corners of ${t.id}, then Finish.`;
    };
    li.append(kind, " ", redraw, " ", del);
    li.onmouseenter = () => { S.picked = t.id; drawTerrain(); placeLabels(); };
    list.appendChild(li);
  }
}

let photoTimer = null;
$("show-photo").onchange = () => {
  const img = $("topdown");
  const on = $("show-photo").checked;
  img.setAttribute("visibility", on ? "visible" : "hidden");
  $("cloth").setAttribute("fill-opacity", on ? 0 : 1);
  clearInterval(photoTimer);
  const load = () => img.setAttribute("href", "api/table.jpg?t=" + Date.now());
  if (on) { load(); photoTimer = setInterval(load, 2000); }
};

// -- zoom, pan and the free ruler ------------------------------------------------------------

function applyView() {
  $("map").setAttribute("viewBox", S.view.map((v) => +v.toFixed(3)).join(" "));
  fitLabels();
}

// Labels at least 11.5 screen pixels tall, however small the map is drawn (a phone) and
// never smaller than 0.8 in on the table when zoomed in.
function fitLabels() {
  const map = $("map");
  const width = map.getBoundingClientRect().width;
  if (!width || !S.view) return;
  const perInch = width / S.view[2];
  const label = +Math.max(0.8, 11.5 / perInch).toFixed(3), small = +Math.max(0.6, 11.5 / perInch).toFixed(3);
  map.style.setProperty("--label", label + "px");
  map.style.setProperty("--small", small + "px");
  if (S.font.label !== label || S.font.small !== small) {
    S.font = { label, small };
    placeLabels();  // the words' sizes changed: their spots too
  }
  placeOverlay();
}
window.addEventListener("resize", fitLabels);

// -- where the words go -------------------------------------------------------------------------
// Every word on the map is placed after the layers are drawn: each tries spots around what
// it names, nearest first, and takes the first inside the cloth that covers no base and no
// word placed before it (pieces' names first, then move distances, range names, terrain);
// the least crowded spot when none is free. A word keeps its spot while that stays free, so
// the names do not hop about as pieces move. (referee/picture.py does the same for pictures.)

const LABEL_GAP = 0.12;  // inches between a word and what it must not cover
const labelSizes = new Map();  // "text|size" -> [width, height] inches

function labelSize(node, size) {
  const key = node.textContent + "|" + size;
  let wh = labelSizes.get(key);
  if (!wh) {
    const box = node.getBBox();  // once per word and size: a layout pass
    if (!box.width) return [node.textContent.length * size * 0.6, size * 1.2];
    wh = [box.width, box.height];
    if (labelSizes.size > 4000) labelSizes.clear();
    labelSizes.set(key, wh);
  }
  return wh;
}

// Each drawn piece's base as a box on the table (its rotated rectangle's bounds).
function baseBoxes() {
  const out = [];
  for (const node of $("pieces").children) {
    const info = S.pieces[node.dataset.id] || UNKNOWN_PIECE;
    const [w, d] = info.base;
    const a = Number(node.dataset.heading || 0) * Math.PI / 180;
    const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
    const hx = (d * c + w * s) / 2, hy = (d * s + w * c) / 2;
    const x = Number(node.dataset.x), y = Number(node.dataset.y);
    out.push({ id: node.dataset.id, x, y, hx, hy, box: [x - hx, y - hy, x + hx, y + hy] });
  }
  return out;
}

function boxesMeet(a, b, pad) {
  return a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;
}

// The spots a piece's name may take (centres), nearest first: below, above, beside, the
// corners, then further out.
function* aroundBase(base, w, h) {
  for (let k = 0; k < 5; k++) {
    const e = LABEL_GAP + k * h * 0.75;
    const dy = base.hy + e + h / 2, dx = base.hx + e + w / 2;
    yield [base.x, base.y + dy]; yield [base.x, base.y - dy];
    yield [base.x + dx, base.y]; yield [base.x - dx, base.y];
    yield [base.x + dx, base.y + dy]; yield [base.x - dx, base.y + dy];
    yield [base.x + dx, base.y - dy]; yield [base.x - dx, base.y - dy];
  }
}

function* besideLine(ends, w, h) {
  const [ax, ay, bx, by] = ends;
  const len = Math.hypot(bx - ax, by - ay) || 1;
  const [nx, ny] = [-(by - ay) / len, (bx - ax) / len];
  for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {
    for (const gap of [0.3, 0.8, 1.4]) {
      const off = gap + Math.abs(nx) * w / 2 + Math.abs(ny) * h / 2;
      const [mx, my] = [ax + (bx - ax) * t, ay + (by - ay) * t];
      yield [mx + nx * off, my + ny * off];
      yield [mx - nx * off, my - ny * off];
    }
  }
}

function* onRing(cx, cy, r) {
  for (let k = 0; k < 16; k++) {
    const a = (-45 - 22.5 * (k % 2 ? -(k + 1) / 2 : k / 2)) * Math.PI / 180;  // from upper right
    yield [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  }
}

function* nearPoint(cx, cy, w, h) {
  yield [cx, cy];
  for (let k = 1; k < 6; k++) {
    yield [cx, cy + k * h * 1.1]; yield [cx, cy - k * h * 1.1];
    yield [cx + k * w * 0.6, cy]; yield [cx - k * w * 0.6, cy];
  }
}

function placeLabels() {
  if (!S.info) return;
  const table = [0, 0, S.info.table.width, S.info.table.depth];
  const bases = baseBoxes();
  const placed = [];
  const place = (node, size, spots, origin) => {
    const [w, h] = labelSize(node, size);
    const pad = size * 0.08;
    const boxAt = ([x, y]) => [x - w / 2, y - h / 2, x + w / 2, y + h / 2];
    const cost = (box) => {
      let c = box[0] < table[0] || box[1] < table[1] || box[2] > table[2] || box[3] > table[3] ? 1 : 0;
      for (const b of bases) if (boxesMeet(box, b.box, pad)) c += 10;
      for (const other of placed) if (boxesMeet(box, other, pad)) c += 5;
      return c;
    };
    const list = Array.from(spots);
    const kept = Number(node.dataset.slot);
    const order = Number.isInteger(kept) && kept < list.length ? [kept, ...list.keys()] : list.keys();
    let best = null;
    for (const i of order) {
      const box = boxAt(list[i]);
      const c = cost(box);
      if (!best || c < best.c) best = { i, c, box };
      if (c === 0) break;
    }
    if (!best) return;
    const [x, y] = list[best.i];
    node.dataset.slot = best.i;
    node.setAttribute("x", +(x - origin[0]).toFixed(3));
    node.setAttribute("y", +(y - origin[1]).toFixed(3));
    placed.push(best.box);
  };
  const { label, small } = S.font;
  for (const base of bases) {
    const text = $("pieces").querySelector(`[data-id="${CSS.escape(base.id)}"] > text.label`);
    if (!text) continue;
    const [w, h] = labelSize(text, label);
    place(text, label, aroundBase(base, w, h), [base.x, base.y]);
  }
  for (const text of $("moves").querySelectorAll("text.move-label")) {
    const [w, h] = labelSize(text, small);
    place(text, small, besideLine(text.dataset.ends.split(" ").map(Number), w, h), [0, 0]);
  }
  for (const text of $("rings").querySelectorAll("text.ring-label")) {
    place(text, small, onRing(Number(text.dataset.cx), Number(text.dataset.cy), Number(text.dataset.r)), [0, 0]);
  }
  for (const text of $("terrain").querySelectorAll("text.terrain-label")) {
    const [w, h] = labelSize(text, label);
    place(text, label, nearPoint(Number(text.dataset.cx), Number(text.dataset.cy), w, h), [0, 0]);
  }
}

function tableAt(clientX, clientY) {
  const map = $("map");
  const pt = map.createSVGPoint();
  pt.x = clientX; pt.y = clientY;
  const p = pt.matrixTransform(map.getScreenCTM().inverse());
  return [p.x, p.y];
}

// Zoom by `factor` (>1 zooms in) keeping the table point under (clientX, clientY) in place.
function zoomAt(factor, clientX, clientY) {
  if (!S.view) return;
  const [px, py] = tableAt(clientX, clientY);
  const [x, y, w, h] = S.view;
  const nw = Math.min(S.home[2] * 1.5, Math.max(4, w / factor));
  const k = nw / w;
  S.view = [px - (px - x) * k, py - (py - y) * k, w * k, h * k];
  applyView();
}

function zoomCentre(factor) {
  const r = $("map").getBoundingClientRect();
  zoomAt(factor, r.left + r.width / 2, r.top + r.height / 2);
}

function panBy(dxPx, dyPx) {
  const r = $("map").getBoundingClientRect();
  // the viewBox is fitted (meet): one screen pixel is the larger of the two ratios
  const perPx = Math.max(S.view[2] / r.width, S.view[3] / r.height);
  S.view = [S.view[0] - dxPx * perPx, S.view[1] - dyPx * perPx, S.view[2], S.view[3]];
  applyView();
}

$("zoom-in").onclick = () => zoomCentre(1.5);
$("zoom-out").onclick = () => zoomCentre(1 / 1.5);
$("zoom-fit").onclick = () => { S.view = S.home.slice(); applyView(); };

const TAP_SLOP = 8;  // px a finger may wander and still tap
const gesture = { pointers: new Map(), start: null, pinch: null, moved: false, swallow: false };

function onPointerDown(e) {
  if (!S.view || (e.pointerType === "mouse" && e.button !== 0)) return;
  gesture.pointers.set(e.pointerId, [e.clientX, e.clientY]);
  if (gesture.pointers.size === 1) {
    gesture.start = { x: e.clientX, y: e.clientY, last: [e.clientX, e.clientY] };
    gesture.moved = false;
    gesture.dragEnd = e.target && e.target.id === "move-end" ? Number(e.target.dataset.seq) : null;
  } else if (gesture.pointers.size === 2) {
    const [a, b] = Array.from(gesture.pointers.values());
    gesture.pinch = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]) || 1 };
    gesture.moved = true;  // two fingers never tap
    if (S.tool === "ruler") S.ruler.hover = null;
  }
}

function onPointerMove(e) {
  if (S.tool === "ruler" && !gesture.pointers.size && e.pointerType === "mouse") {
    rulerHover(tableAt(e.clientX, e.clientY));  // the tape follows the mouse to the next point
    return;
  }
  if (!gesture.pointers.has(e.pointerId)) return;
  gesture.pointers.set(e.pointerId, [e.clientX, e.clientY]);
  if (gesture.pointers.size === 2 && gesture.pinch) {
    const [a, b] = Array.from(gesture.pointers.values());
    const dist = Math.hypot(a[0] - b[0], a[1] - b[1]) || 1;
    zoomAt(dist / gesture.pinch.dist, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
    gesture.pinch.dist = dist;
    return;
  }
  const st = gesture.start;
  if (!st) return;
  if (!gesture.moved && Math.hypot(e.clientX - st.x, e.clientY - st.y) > TAP_SLOP) gesture.moved = true;
  if (!gesture.moved) return;
  if (gesture.dragEnd) {
    const [x, y] = tableAt(e.clientX, e.clientY);
    const ring = $("move-end");
    if (ring) { ring.setAttribute("cx", x); ring.setAttribute("cy", y); }
  } else if (!S.drawing) {  // a drag pans, the ruler's too: only a tap lays a point
    panBy(e.clientX - st.last[0], e.clientY - st.last[1]);
  }
  st.last = [e.clientX, e.clientY];
}

function onPointerUp(e) {
  if (!gesture.pointers.has(e.pointerId)) return;
  gesture.pointers.delete(e.pointerId);
  if (gesture.pointers.size) return;
  const wasPinch = !!gesture.pinch;
  const st = gesture.start;
  gesture.pinch = null;
  gesture.start = null;
  if (gesture.moved) gesture.swallow = true;  // a drag or a pinch is not a tap on what is under it
  // a tap is where the finger came down (it may wander a few pixels before lifting)
  const at = gesture.moved || !st ? [e.clientX, e.clientY] : [st.x, st.y];
  if (S.tool === "ruler" && e.type === "pointerup") {
    if (gesture.moved || !st) S.ruler.lastTap = null;  // a drag or a pinch between breaks a double-tap
    else rulerTap(tableAt(st.x, st.y), [st.x, st.y], e.timeStamp);
  }
  const dragged = gesture.dragEnd;
  gesture.dragEnd = null;
  if (dragged && gesture.moved && !wasPinch && e.type === "pointerup") {
    const m = S.events.find((x) => x.seq === dragged && x.type === "move");
    const fix = corrections().get(dragged);
    const heading = (fix && fix.to ? fix.to : m.to).heading;
    const [x, y] = tableAt(...at);
    sendCorrection({ seq: dragged, to: { x: +x.toFixed(3), y: +y.toFixed(3), heading } });
  }
}

function setupGestures() {
  const map = $("map");
  map.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerUp);
  map.addEventListener("click", (e) => {
    if (gesture.swallow) { e.stopPropagation(); e.preventDefault(); }
    gesture.swallow = false;
  }, true);
  map.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX, e.clientY);
  }, { passive: false });
}
setupGestures();

// The ruler: a tape laid from point to point on the table, in table inches (never pixels).
// Each tap lays a point (the first starts the tape); a double-tap or Enter ends it; Escape
// clears. A drag pans as it does without the ruler: where a finger lifts after a drag is
// not a point, and only two taps close in time and place are a double-tap (the browser's
// dblclick is not used: its interval and slop are the system's, and a touch may send none).
const DOUBLE_TAP_MS = 350;  // most ms from the first tap's lift to the second's
const DOUBLE_TAP_SLOP = 12;  // most screen px between a double-tap's two taps

function setTool(tool) {
  S.tool = S.tool === tool ? null : tool;
  $("ruler-tool").classList.toggle("active", S.tool === "ruler");
  $("map").classList.toggle("measuring", S.tool === "ruler");
  if (S.tool !== "ruler") S.ruler = { points: [], hover: null, done: false };
  drawRuler();
}
$("ruler-tool").onclick = () => setTool("ruler");

function rulerHover(p) {
  if (!S.ruler.points.length || S.ruler.done) return;
  S.ruler.hover = p;
  drawRuler();
}

// A tap at table point `p` (screen point `screen`, at event time `t` ms).
function rulerTap(p, screen, t) {
  const last = S.ruler.lastTap;
  const twice = last && t - last.t >= 0 && t - last.t <= DOUBLE_TAP_MS &&
    Math.hypot(screen[0] - last.screen[0], screen[1] - last.screen[1]) <= DOUBLE_TAP_SLOP;
  if (twice && !S.ruler.done) {
    S.ruler.lastTap = null;
    rulerFinish();  // the first tap of the two laid the end point
    return;
  }
  if (S.ruler.done) S.ruler = { points: [], hover: null, done: false };  // a new tape
  S.ruler.points.push(p);
  S.ruler.hover = null;
  S.ruler.lastTap = { t, screen };
  drawRuler();
}

function rulerFinish() {
  const r = S.ruler;
  // the double tap laid its point twice: keep one
  while (r.points.length > 1) {
    const [a, b] = r.points.slice(-2);
    if (Math.hypot(a[0] - b[0], a[1] - b[1]) > 0.05) break;
    r.points.pop();
  }
  r.hover = null;
  r.done = r.points.length > 1;
  drawRuler();
}

function rulerClear() {
  S.ruler = { points: [], hover: null, done: false };
  drawRuler();
}

document.addEventListener("keydown", (e) => {
  if (S.tool !== "ruler" || e.target.closest("input, textarea, select")) return;
  if (e.key === "Enter") { e.preventDefault(); rulerFinish(); }
  if (e.key === "Escape") { e.preventDefault(); rulerClear(); }
});

// How far a point the map shows may be from that point on the cloth (inches): /api/doubt's
// grid over the table, interpolated; its largest value off the grid.
function pointDoubt([x, y]) {
  const d = S.doubt;
  if (!d || !d.grid) return d ? d.table || 0 : 0;
  const g = d.grid;
  const fx = Math.min(Math.max(x / g.step, 0), g.values[0].length - 1);
  const fy = Math.min(Math.max(y / g.step, 0), g.values.length - 1);
  const [i, j] = [Math.floor(fy), Math.floor(fx)];
  const [i2, j2] = [Math.min(i + 1, g.values.length - 1), Math.min(j + 1, g.values[0].length - 1)];
  const at = (r, c) => g.values[r][c] ?? d.table;
  const [ty, tx] = [fy - i, fx - j];
  return (at(i, j) * (1 - tx) + at(i, j2) * tx) * (1 - ty) + (at(i2, j) * (1 - tx) + at(i2, j2) * tx) * ty;
}

// The tape's length and its doubt: each end moves the length by up to its own doubt; a
// waypoint turning by angle θ by up to 2 sin(θ/2) times its doubt (added up, as the
// referee adds the two pieces' doubts of a range).
function measure(points) {
  let length = 0, doubt = 0;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (i) length += Math.hypot(p[0] - points[i - 1][0], p[1] - points[i - 1][1]);
    let k = 1;
    if (i > 0 && i < points.length - 1) {
      const a = points[i - 1], b = points[i + 1];
      const u = [p[0] - a[0], p[1] - a[1]], v = [b[0] - p[0], b[1] - p[1]];
      const nu = Math.hypot(...u) || 1, nv = Math.hypot(...v) || 1;
      k = Math.hypot(u[0] / nu - v[0] / nv, u[1] / nu - v[1] / nv);  // = 2 sin(θ/2)
    }
    doubt += k * pointDoubt(p);
  }
  return { length, doubt };
}
window.measure = measure;

function drawRuler() {
  const g = $("ruler");
  g.replaceChildren();
  const out = $("ruler-readout");
  const r = S.ruler;
  const points = r.hover && !r.done ? [...r.points, r.hover] : r.points;
  if (S.tool !== "ruler" || !points.length) {
    out.textContent = S.tool === "ruler" ? "tap points on the table" : "";
    return;
  }
  el("polyline", { class: "tape", points: points.map((p) => p.join(",")).join(" ") }, g);
  for (const p of points) el("circle", { class: "stop", cx: p[0], cy: p[1], r: 0.22 }, g);
  const { length, doubt } = measure(points);
  const text = `${length.toFixed(2)}" ± ${doubt < 0.01 ? doubt.toFixed(3) : doubt.toFixed(2)}`;
  const end = points[points.length - 1];
  el("text", { class: "tape-label", x: end[0], y: end[1] - 0.6 }, g, text);
  g.dataset.length = length;
  g.dataset.doubt = doubt;
  out.textContent = text + (points.length > 2 ? ` (${points.length - 2} waypoint${points.length > 3 ? "s" : ""})` : "") +
    (r.done ? "" : " · double-tap or Enter to end, Esc clears");
}

// -- turn assistant -----------------------------------------------------------------------------

// Built again for each new game (a new pass of the sample...), keeping what the player typed
// and picked: only a side or a piece the new game lacks loses its entry.
function setupTurn() {
  const pt = S.info.ruleset.name === "paper-tigers";
  $("turn-pt").hidden = !pt;
  $("turn-questions").textContent = `${S.info.ruleset.title} answers: ${S.info.ruleset.questions.join(", ")}`;
  const sides = $("dice-sides");
  const typed = {};
  for (const input of sides.querySelectorAll("input")) typed[input.dataset.side] = input.value;
  sides.replaceChildren();
  for (const side of Object.keys(S.info.sides)) {
    const input = html("input");
    input.placeholder = `${side}: two dice 1-6, e.g. 5 2`;
    input.dataset.side = side;
    input.size = 14;
    input.value = typed[side] || "";
    sides.appendChild(input);
  }
  const sel = $("act-piece");
  const picked = sel.value;
  sel.replaceChildren(html("option", ""));
  for (const id of Object.keys(S.pieces)) sel.appendChild(html("option", id));
  if (picked in S.pieces) sel.value = picked;
  diceHint();
}

// Paper Tigers: a red card fires with 3 dice or moves with 2, a black card moves with 3 or
// fires with 2, a recovery rolls 2: the hint asks for the number the rules will accept.
function diceHint() {
  const card = $("act-card").value.trim().toUpperCase();
  const action = $("act-action").value;
  const suit = card.slice(-1);
  const red = suit === "H" || suit === "D";
  const black = suit === "S" || suit === "C";
  let need = null;
  if (action === "recover") need = 2;
  else if (red) need = action === "fire" ? 3 : 2;
  else if (black) need = action === "move" ? 3 : 2;
  $("act-dice").placeholder = need === null ? "dice 1-6, e.g. 4 5" : `${need} dice 1-6, e.g. ${[4, 5, 2].slice(0, need).join(" ")}`;
}
$("act-card").oninput = diceHint;
$("act-action").onchange = diceHint;

function numbers(text) { return (text.match(/\d+/g) || []).map(Number); }

// A refusal in plain words: the API names the field the way a scene file does
// ("request: $.queries[0].dice.red: must be..."); the player typed no scene file.
function plainError(message) {
  return String(message)
    .replace(/^request: \$\.queries\[0\]\.?/, "")
    .replace(/\$\.queries\[\d+\]\.?/g, "")
    .replace(/^([\w.\[\]]+): /, (_, path) => path.replace(/\[(\d+)\]/g, (m, i) => ` ${Number(i) + 1}`)
      .replace(/\./g, " ") + ": ");
}

async function declare(query) {
  const out = $("turn-result");
  out.replaceChildren();
  try {
    const answer = await api("declare", query);
    for (const v of answer.verdicts) {
      out.appendChild(html("div", v.summary || v.ask, "line " + mark(v)));
      const reasons = html("ul", undefined, "reasons");
      for (const r of v.reasons || []) reasons.appendChild(html("li", r));
      out.appendChild(reasons);
    }
    if (!answer.verdicts.length) out.appendChild(html("p", "noted for the next moves"));
  } catch (err) {
    out.appendChild(html("p", plainError(err.message), "error"));
  }
}

$("init-go").onclick = () => {
  const cards = {};
  for (const part of $("init-cards").value.split(",")) {
    const [id, card] = part.split("=").map((s) => s && s.trim());
    if (id && card) cards[id] = card;
  }
  declare({ ask: "initiative", cards });
};
$("dice-go").onclick = () => {
  const dice = {};
  for (const input of $("dice-sides").querySelectorAll("input")) {
    if (input.value.trim()) dice[input.dataset.side] = numbers(input.value);
  }
  declare({ ask: "cards", dice });
};
$("act-go").onclick = () => {
  const q = { ask: "action", card: $("act-card").value.trim(), action: $("act-action").value };
  if ($("act-piece").value) q.piece = $("act-piece").value;
  const dice = numbers($("act-dice").value);
  if (dice.length) q.dice = dice;
  declare(q);
};
$("declare-go").onclick = () => {
  let q;
  try { q = JSON.parse($("declare-json").value); } catch (err) {
    $("turn-result").replaceChildren(html("p", "that is not a question in JSON, like the example: " +
      err.message, "error"));
    return;
  }
  declare(q);
};

// -- the log --------------------------------------------------------------------------------

function describe(e) {
  if (e.type === "move") return `move ${e.piece} ${Number(e.distance).toFixed(2)}" ± ${Number(e.uncertainty).toFixed(3)}`;
  if (e.type === "verdict") {
    const v = e.verdict || {};
    return `verdict ${v.ask}: ${v.ok === true ? "ok" : v.ok === false ? "NOT OK" : "??"} ${v.summary || ""}`;
  }
  if (e.type === "declare") return "declare " + JSON.stringify(e.declare);
  if (e.type === "edit") return `edit ${e.action} ${e.terrain ? e.terrain.id : e.id}`;
  if (e.type === "correction") return `correction of #${e.supersedes}`;
  if (e.type === "removed") return `removed ${e.piece}: ${e.reason || ""}`;
  if (e.type === "entered") {
    const v = e.verdict;
    const word = !v ? "" : v.ok === true ? ": ok" : v.ok === false ? ": NOT OK" : ": too close to call";
    return `entered ${e.piece} at (${Number(e.at?.x).toFixed(2)}, ${Number(e.at?.y).toFixed(2)})${word}`;
  }
  return `${e.type} ${e.kind || ""}: ${e.message || ""}`;
}

async function loadEvents() {
  const answer = await api("events");
  S.events = answer.events;
  renderEvents();
  redraw();
}

function onEvents(all) {
  const list = addEvents(all);
  let terrainChanged = false, moved = new Set();
  for (const e of list) {
    if (e.type === "edit") terrainChanged = true;
    if (e.type === "move") moved.add(e.piece);
    // a standing question answered again names its pieces: one just set on the table (not
    // the verdicts of asks, this page's among them: asking again on those would never end)
    if (e.type === "verdict" && e.question !== undefined && Array.isArray(e.pieces)) {
      for (const id of e.pieces) moved.add(id);
    }
    if (e.type === "verdict" && e.about !== undefined) showRuling(e);
  }
  if (terrainChanged) refreshState().catch(() => {});
  if (list.some((e) => e.type === "move" || e.type === "correction" || e.about !== undefined)) {
    redraw();
  }
  // a correction (made here, on another device or with `referee log correct`) moves its piece
  const fixed = new Map(list.filter((e) => e.type === "correction").map((e) => [e.supersedes, e]));
  for (const seq of fixed.keys()) {
    const m = S.events.find((e) => e.seq === seq && e.type === "move");
    if (m) moved.add(m.piece);
  }
  if (S.shownMove !== null && fixed.has(S.shownMove)) showMove(S.shownMove);
  if (S.asked && S.selected.some((id) => moved.has(id))) runQueries(S.asked, true);
  // the rules see a piece where it settles: any move, correction or terrain edit may change
  // what the tapped piece can hit
  if (list.some((e) => e.type === "move" || e.type === "correction" || e.type === "edit") ||
    S.selected.some((id) => moved.has(id))) askThreats();
}

function showRuling(e) {
  // the verdict on a settled move (its allowance from the dice, Follow Me obligations...)
  const v = e.verdict || {};
  const box = $("turn-last");
  box.className = "line " + mark(v);
  box.replaceChildren(html("div", `${e.t.toFixed(1)}s  ${v.summary || v.ask}`));
  const reasons = html("ul", undefined, "reasons");
  for (const r of v.reasons || []) reasons.appendChild(html("li", r));
  box.appendChild(reasons);
}

function renderEvents(fresh) {
  const list = $("events");
  if (!fresh) list.replaceChildren();
  for (const e of fresh || S.events) {
    const li = html("li", `${e.t.toFixed(1)}s  ${describe(e)}`);
    li.value = e.seq;
    li.dataset.seq = e.seq;
    li.onclick = () => scrubTo(e.seq);
    list.prepend(li);
  }
  const last = S.events.length ? S.events[S.events.length - 1].seq : 0;
  const scrub = $("scrubber");
  const atEnd = Number(scrub.value) >= Number(scrub.max);
  scrub.max = last;
  if (atEnd && !S.replay) scrub.value = last;
  if (!S.replay) $("scrub-label").textContent = `live (event #${last})`;
}

let scrubTimer = null;
$("scrubber").oninput = () => {
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(() => scrubTo(Number($("scrubber").value)), 120);
};

async function scrubTo(seq) {
  const scrub = $("scrubber");
  scrub.value = seq;
  if (seq >= Number(scrub.max)) return goLive();
  let answer;
  try { answer = await api("replay?seq=" + seq); } catch (err) {
    $("scrub-label").textContent = err.message;
    return;
  }
  S.replay = answer.scene;
  S.replaySeq = answer.event ? answer.event.seq : 0;
  const where = answer.event ? `#${answer.event.seq}, ${answer.event.t.toFixed(1)}s` : "the start";
  $("replay-where").textContent = where;
  $("scrub-label").textContent = "replay at " + where;
  $("replay-banner").hidden = false;
  if (S.threats) $("map-verdict").hidden = true;  // the threat view is the live table's
  redraw();
}

function goLive() {
  S.replay = null;
  S.replaySeq = null;
  $("replay-banner").hidden = true;
  const scrub = $("scrubber");
  scrub.value = scrub.max;
  $("scrub-label").textContent = `live (event #${scrub.max})`;
  redraw();
  askThreats();  // back to the live table: what the tapped piece can hit now
}
$("replay-live").onclick = goLive;

// -- health -------------------------------------------------------------------------------------

async function refreshHealth() {
  let h;
  try { h = await api("health"); } catch (err) { return; }
  const cal = h.calibration;
  const rms = cal.rms_px === null ? "n/a" : `${cal.rms_px.toFixed(2)} px`;
  // The sample's camera is simulated: its profile is exact, made without photos of a
  // board; "0 views, RMS 0" would read as a calibration that failed.
  const calText = cal.frame_source === "simulated"
    ? "exact (the sample's simulated camera: no calibration photos needed)"
    : `${cal.frame_source}, RMS ${rms}, ${cal.views_used} views`;
  const rows = [
    ["Calibration", calText + (cal.re_registered ? ", re-registered after a bump" : "")],
    ["Frame rate", `${h.fps} fps (${h.frames} frames)`],
    ["Pieces seen", h.pieces.seen.join(", ") || "none"],
    ["Hidden", h.pieces.hidden.join(", ") || "none"],
    ["Missing", h.pieces.missing.join(", ") || "none"],
    ["Unknown tags", h.unknown_tags.join(", ") || "none"],
    ["Camera", h.camera.map((e) => `${e.t.toFixed(1)}s ${e.camera ? `camera ${e.camera} ` : ""}${e.kind}`)
      .join("; ") || "no events"],
  ];
  if (h.error) rows.push(["Stopped", h.error]);
  const was = S.ended;
  S.ended = h.running || !h.frames ? null : h.error ? "stopped"
    : S.info && S.info.live_source ? "camera stopped" : "video ended";
  if (was !== S.ended) setConnected(connected);
  const table = $("health");
  table.replaceChildren();
  for (const [k, v] of rows) {
    const tr = html("tr");
    tr.append(html("td", k), html("td", v));
    table.appendChild(tr);
  }
  showCameras(h.cameras || []);
  showWarmUp(h.warm_up);
  // A camera that dropped or ended while the others go on is named in the header line too.
  const out = (h.cameras || []).filter((c) => c.state === "dropped" || (c.state === "ended" && h.running));
  $("health-summary").textContent = `${h.pieces.seen.length} seen · ${h.pieces.missing.length} missing` +
    (h.unknown_tags.length ? ` · ${h.unknown_tags.length} unknown tags` : "") +
    out.map((c) => ` · camera ${c.camera} ${c.state}`).join("");
}

// The first start after installing: the line-of-sight engine compiles for this machine in
// the background, and answers come (a little slower) meanwhile; nothing waits on it.
function showWarmUp(warm) {
  const badge = $("warm-up");
  badge.hidden = !(warm && warm.running);
  badge.textContent = "warming up";
  badge.title = "preparing the line-of-sight engine for this machine (once after installing); "
    + "answers are a little slower until it is ready";
}

// One row per camera: what it sees this tick, its calibration, bumps, and whether it is live.
function showCameras(cameras) {
  const table = $("cameras");
  table.replaceChildren();
  for (const c of cameras) {
    const tr = html("tr");
    tr.className = c.state;
    tr.dataset.camera = String(c.camera);
    tr.dataset.state = c.state;
    const tick = c.tags === null ? "no frame"
      : `${c.tags} tags, ${c.pieces.length} pieces` + (c.disagreed.length ? ` (left out: ${c.disagreed.join(", ")})` : "");
    const rms = c.rms_px === null ? "RMS n/a" : `RMS ${c.rms_px.toFixed(2)} px`;
    const bumps = c.re_registered ? `, re-registered after ${c.moved} bump${c.moved === 1 ? "" : "s"}`
      : c.moved ? `, bumped ${c.moved}x` : "";
    // Two columns, as the health table above: the line wraps on a phone instead of widening it.
    tr.append(html("td", `${c.camera}: ${c.name}`),
      html("td", `${c.state} · ${c.frames} frames · ${tick} · ${rms}${bumps}`));
    table.appendChild(tr);
  }
}

// -- tabs and start -------------------------------------------------------------------------------

function showTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const pane of document.querySelectorAll(".pane")) pane.hidden = pane.id !== "pane-" + name;
}
for (const tab of document.querySelectorAll(".tab")) tab.onclick = () => showTab(tab.dataset.tab);

loadAll().catch((err) => {
  if (err.status) loadFailed(err);  // the server answered with an error: say which
  else $("camera-note").textContent = "cannot reach the referee: " + err.message;
});
connect();
refreshHealth();
setInterval(refreshHealth, 2000);
