// Terrain drawn and edited on the map, and the terrain list.
import { runQueries } from "./dispute.js";
import { $, el, html } from "./dom.js";
import { placeLabels } from "./labels.js";
import { drawTerrain, redraw } from "./map.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { askThreats, clearSelection } from "./threat.js";

// -- terrain ------------------------------------------------------------------------------------

export function setupTerrainKinds() {
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

export function onMapClick(evt) {
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

export function renderTerrainList() {
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
