// The dashboard page: plain JavaScript, no build step, no network beyond this server.
// It listens to /api/stream (Server-Sent Events) and asks /api for everything else.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);
const TOKEN = params.get("token");
const $ = (id) => document.getElementById(id);

const S = {
  info: null,          // /api/info
  pieces: {},          // id -> roster piece (side, base, colour, ranges)
  live: {},            // id -> latest tracked pose from the stream
  terrain: [],         // current terrain (scene-file objects)
  selected: [],        // tapped pieces, at most two
  dispute: null,       // {queries, verdicts}
  replay: null,        // scene shown while scrubbing the log
  events: [],
  drawing: null,       // terrain vertices being drawn
  kind: "woods",
  picked: null,        // terrain id picked in the terrain list
  redraw: null,        // terrain id whose outline is being drawn again
  lastFrame: null,
  shown: [],           // [frame, ms since epoch] when the map showed a frame (benchmarks)
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
    if (!r.ok) throw new Error((data && data.error) || r.statusText);
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
    const load = !S.info || hello.generation !== S.info.generation
      ? loadAll() : Promise.all([refreshState(), loadEvents()]);
    load.catch(() => setConnected(false));  // the stream will say hello again
  });
  source.addEventListener("events", (e) => onEvents(JSON.parse(e.data)));
  source.addEventListener("frame", (e) => onFrame(JSON.parse(e.data)));
}

function setConnected(ok) {
  const badge = $("conn");
  badge.textContent = ok ? "live" : "reconnecting…";
  badge.classList.toggle("away", !ok);
}

async function loadAll() {
  S.info = await api("info");
  S.pieces = {};
  for (const p of S.info.pieces) S.pieces[p.id] = p;
  $("game").textContent = S.info.ruleset.title + " · " + (S.info.game || "not logged");
  setupMap();
  setupTerrainKinds();
  setupTurn();
  await refreshState();
  await loadEvents();
}

async function refreshState() {
  const scene = await api("state");
  S.terrain = scene.terrain || [];
  for (const p of scene.pieces || []) {
    if (!S.live[p.id]) S.live[p.id] = { id: p.id, x: p.x, y: p.y, heading: p.heading, state: "settled", seen: false };
  }
  drawTerrain();
  drawPieces();
  renderTerrainList();
}

// -- the live map ----------------------------------------------------------------------------

function setupMap() {
  const t = S.info.table;
  const map = $("map");
  map.setAttribute("viewBox", `-1 -1 ${t.width + 2} ${t.depth + 3.6}`);
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
    const group = el("g", { class: "terrain" + (t.id === S.picked ? " picked" : ""), "data-id": t.id }, g);
    el("polygon", { points: t.polygon.map((p) => p.join(",")).join(" "), fill: colour, stroke: colour }, group);
    const cx = t.polygon.reduce((s, p) => s + p[0], 0) / t.polygon.length;
    const cy = t.polygon.reduce((s, p) => s + p[1], 0) / t.polygon.length;
    el("text", { x: cx, y: cy }, group, t.id + (t.objective ? ` (${t.objective} VP)` : ""));
  }
}

function piecePoses() {
  if (S.replay) {
    return (S.replay.pieces || []).map((p) => ({ id: p.id, x: p.x, y: p.y, heading: p.heading, state: "settled" }));
  }
  return Object.values(S.live);
}

function drawPieces() {
  const g = $("pieces");
  const poses = piecePoses();
  const keep = new Set(poses.map((p) => p.id));
  for (const node of Array.from(g.children)) if (!keep.has(node.dataset.id)) node.remove();
  for (const pose of poses) {
    const info = S.pieces[pose.id] || { base: [1, 1], colour: "#ccc" };
    let node = g.querySelector(`[data-id="${CSS.escape(pose.id)}"]`);
    if (!node) {
      node = el("g", { class: "piece", "data-id": pose.id }, g);
      const body = el("g", { class: "body" }, node);
      const [w, d] = info.base;
      el("circle", { r: Math.max(w, d) * 0.75, fill: "transparent" }, body);
      el("rect", { class: "base", x: -d / 2, y: -w / 2, width: d, height: w, fill: info.colour }, body);
      el("line", { class: "front", x1: 0, y1: 0, x2: d / 2, y2: 0 }, body);
      el("text", { class: "label", x: 0, y: Math.max(w, d) / 2 + 0.9 }, node, pose.id);
      node.addEventListener("click", (e) => {
        if (S.drawing) return;  // a corner drawn over a piece: the map takes the tap
        e.stopPropagation();
        tapPiece(pose.id);
      });
    }
    node.setAttribute("transform", `translate(${pose.x} ${pose.y})`);
    node.firstChild.setAttribute("transform", `rotate(${pose.heading})`);
    node.setAttribute("class", `piece ${pose.state || ""}${S.selected.includes(pose.id) ? " selected" : ""}`);
    node.dataset.x = pose.x;
    node.dataset.y = pose.y;
  }
  drawRings();
  drawLines();
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
    el("text", { x: pose.x + r * 0.71 + 0.2, y: pose.y - r * 0.71 }, g, `${name} ${r}"`);
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

function onFrame(msg) {
  S.lastFrame = msg;
  for (const p of msg.pieces) S.live[p.id] = p;
  $("fps").textContent = `${msg.fps.toFixed(1)} fps · frame ${msg.frame}`;
  if (!S.replay) drawPieces();
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

function drawCamera(msg) {
  recentTags.set(msg.frame, msg);
  if (recentTags.size > 60) recentTags.delete(recentTags.keys().next().value);
  const now = performance.now();
  if (camBusy || now - camLast < CAMERA_EVERY) return;
  camBusy = true;
  camLast = now;
  const headers = TOKEN ? { "X-Referee-Token": TOKEN } : {};
  fetch("api/camera.jpg", { headers, credentials: "same-origin" })
    .then(async (r) => {
      if (!r.ok) return;
      const frame = Number(r.headers.get("X-Frame"));
      const bitmap = await createImageBitmap(await r.blob());
      paintCamera(bitmap, recentTags.get(frame));
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
  if (!tags) return;
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

function tapPiece(id) {
  if (S.drawing) return;
  if (S.selected.length >= 2 || S.selected.includes(id)) S.selected = [];
  S.selected.push(id);
  S.dispute = null;
  $("follow-me").disabled = S.selected.length !== 1;
  $("save-picture").disabled = true;
  if (S.selected.length === 2) askDispute();
  else renderDispute();
  drawPieces();
}

async function askDispute() {
  const [a, b] = S.selected;
  const queries = [{ ask: "range", from: a, to: b }, { ask: "los", from: a, to: b }];
  await runQueries(queries);
}

async function runQueries(queries) {
  const verdict = $("verdict");
  try {
    const verdicts = [];
    for (const q of queries) verdicts.push(...(await api("ask", q)).verdicts);
    S.dispute = { queries, verdicts };
    $("save-picture").disabled = false;
  } catch (err) {
    S.dispute = null;
    verdict.replaceChildren(html("p", err.message, "error"));
    return;
  }
  renderDispute();
  drawLines();
}

function mark(v) { return v.ok === true ? "ok" : v.ok === false ? "no" : "maybe"; }

function renderDispute() {
  const box = $("verdict");
  box.replaceChildren();
  if (!S.dispute) {
    $("dispute-hint").textContent = S.selected.length === 1
      ? `${S.selected[0]} selected: tap another piece, or Follow Me.`
      : "Tap a piece, then a second piece: range and line of sight.";
    return;
  }
  $("dispute-hint").textContent = "";
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
        (v.los === "doubtful" ? " — roll one die: 1-3 blocked" : "") +
        (v.blocking && v.blocking.length ? ` (by ${v.blocking.join(", ")})` : "");
    }
    const line = html("div", text, "line " + mark(v));
    line.dataset.ask = v.ask;
    if (v.los) line.dataset.los = v.los;
    box.appendChild(line);
    const reasons = html("ul", undefined, "reasons");
    for (const r of v.reasons || []) reasons.appendChild(html("li", r));
    box.appendChild(reasons);
  }
}

$("follow-me").onclick = () => {
  if (S.selected.length !== 1) return;
  runQueries([{ ask: "follow_me", leader: S.selected[0] }]);
};
$("clear-dispute").onclick = () => { S.selected = []; S.dispute = null; renderDispute(); drawPieces(); };
$("save-picture").onclick = async () => {
  if (!S.dispute) return;
  let blob;
  try {
    blob = await api("picture", { queries: S.dispute.queries, selected: S.selected[0] || null });
  } catch (err) {
    $("verdict").appendChild(html("p", err.message, "error"));
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
  if (!S.drawing) return;
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
  drawTerrain();
  renderTerrainList();
  if (S.dispute) runQueries(S.dispute.queries);  // a terrain edit may change the verdict
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
      $("terrain-hint").textContent = `Tap the new corners of ${t.id}, then Finish.`;
    };
    li.append(kind, " ", redraw, " ", del);
    li.onmouseenter = () => { S.picked = t.id; drawTerrain(); };
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

// -- turn assistant -----------------------------------------------------------------------------

function setupTurn() {
  const pt = S.info.ruleset.name === "paper-tigers";
  $("turn-pt").hidden = !pt;
  $("turn-questions").textContent = `${S.info.ruleset.title} answers: ${S.info.ruleset.questions.join(", ")}`;
  const sides = $("dice-sides");
  sides.replaceChildren();
  for (const side of Object.keys(S.info.sides)) {
    const input = html("input");
    input.placeholder = `${side}: two dice`;
    input.dataset.side = side;
    input.size = 10;
    sides.appendChild(input);
  }
  const sel = $("act-piece");
  sel.replaceChildren(html("option", ""));
  for (const id of Object.keys(S.pieces)) sel.appendChild(html("option", id));
}

function numbers(text) { return (text.match(/\d+/g) || []).map(Number); }

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
    out.appendChild(html("p", err.message, "error"));
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
    $("turn-result").replaceChildren(html("p", "not JSON: " + err.message, "error"));
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
  return `${e.type} ${e.kind || ""}: ${e.message || ""}`;
}

async function loadEvents() {
  const answer = await api("events");
  S.events = answer.events;
  renderEvents();
}

function onEvents(list) {
  S.events.push(...list);
  renderEvents(list);
  let terrainChanged = false, moved = new Set();
  for (const e of list) {
    if (e.type === "edit") terrainChanged = true;
    if (e.type === "move") moved.add(e.piece);
    if (e.type === "verdict" && e.about !== undefined) showRuling(e);
  }
  if (terrainChanged) refreshState().catch(() => {});
  if (S.dispute && S.selected.some((id) => moved.has(id))) runQueries(S.dispute.queries);
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
  const where = answer.event ? `#${answer.event.seq}, ${answer.event.t.toFixed(1)}s` : "the start";
  $("replay-where").textContent = where;
  $("scrub-label").textContent = "replay at " + where;
  $("replay-banner").hidden = false;
  drawTerrain();
  drawPieces();
}

function goLive() {
  S.replay = null;
  $("replay-banner").hidden = true;
  const scrub = $("scrubber");
  scrub.value = scrub.max;
  $("scrub-label").textContent = `live (event #${scrub.max})`;
  drawTerrain();
  drawPieces();
}
$("replay-live").onclick = goLive;

// -- health -------------------------------------------------------------------------------------

async function refreshHealth() {
  let h;
  try { h = await api("health"); } catch (err) { return; }
  const cal = h.calibration;
  const rms = cal.rms_px === null ? "n/a" : `${cal.rms_px.toFixed(2)} px`;
  const rows = [
    ["Calibration", `${cal.frame_source}, RMS ${rms}, ${cal.views_used} views${cal.re_registered ? ", re-registered after a bump" : ""}`],
    ["Frame rate", `${h.fps} fps (${h.frames} frames)`],
    ["Pieces seen", h.pieces.seen.join(", ") || "none"],
    ["Hidden", h.pieces.hidden.join(", ") || "none"],
    ["Missing", h.pieces.missing.join(", ") || "none"],
    ["Unknown tags", h.unknown_tags.join(", ") || "none"],
    ["Camera", h.camera.map((e) => `${e.t.toFixed(1)}s ${e.kind}`).join("; ") || "no events"],
  ];
  if (h.error) rows.push(["Stopped", h.error]);
  const table = $("health");
  table.replaceChildren();
  for (const [k, v] of rows) {
    const tr = html("tr");
    tr.append(html("td", k), html("td", v));
    table.appendChild(tr);
  }
  $("health-summary").textContent = `${h.pieces.seen.length} seen · ${h.pieces.missing.length} missing` +
    (h.unknown_tags.length ? ` · ${h.unknown_tags.length} unknown tags` : "");
}

// -- tabs and start -------------------------------------------------------------------------------

for (const tab of document.querySelectorAll(".tab")) {
  tab.onclick = () => {
    for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
    for (const pane of document.querySelectorAll(".pane")) pane.hidden = pane.id !== "pane-" + tab.dataset.tab;
  };
}

loadAll().catch((err) => { $("camera-note").textContent = "cannot reach the referee: " + err.message; });
connect();
refreshHealth();
setInterval(refreshHealth, 2000);
