// The live map: cloth, grid, terrain, pieces, range rings and the dispute's lines.
import { UNKNOWN_PIECE, terrainColour, verdictColour } from "./colours.js";
import { placeOverlay, tapPiece } from "./dispute.js";
import { drawBase, drawCloth, points } from "./draw.js";
import { $, el, html } from "./dom.js";
import { placeLabels } from "./labels.js";
import { corrections, drawMoveEnd, drawMoves } from "./moves.js";
import { drawRuler } from "./ruler.js";
import { S } from "./state.js";
import { onMapClick } from "./terrain.js";
import { drawThreats } from "./threat.js";
import { applyView } from "./view.js";

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

export function redraw(posesOnly) {
  if (!S.info) return;  // nothing can be sized or coloured before the roster is known
  for (const layer of LAYERS) if (!posesOnly || layer.poses) layer.draw();
  placeLabels();  // the pieces moved or the words changed: each word to a free spot again
  placeOverlay();
}

export function setupMap() {
  const t = S.info.table;
  const map = $("map");
  S.home = [-1, -1, t.width + 2, t.depth + 3.6];
  if (!S.view) S.view = S.home.slice();
  applyView();
  const cloth = $("cloth");
  drawCloth(cloth, t, S.info.palette, 0.08);
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

export function drawTerrain() {
  const g = $("terrain");
  g.replaceChildren();
  const terrain = S.replay ? S.replay.terrain || [] : S.terrain;
  for (const t of terrain) {
    const colour = terrainColour(S.info.palette, t.kind);
    const group = el("g", { class: "terrain" + (t.id === S.picked ? " picked" : "") + (t.hidden ? " hidden" : ""), "data-id": t.id }, g);
    el("polygon", { points: points(t.polygon), fill: colour, stroke: colour }, group);
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
export function correctedRests() {
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
      drawBase(body, info.base, info.colour);
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

export function poseOf(id) {
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

export function drawLines() {
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
      const line = el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: verdictColour(S.info.palette, v),
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
