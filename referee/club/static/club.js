// The club's maps (referee/club/pages.py) drawn in the browser with the dashboard's own modules:
// its colours (js/colours.js) and its cloth, terrain and bases (js/draw.js), so a piece or a
// wood looks the same at the club as at the table. The server draws each map as SVG too (the
// page without JavaScript, and what its tests read) and puts the values it drew from beside it
// (<script type="application/json" class="board">); this module draws the map again from
// those values, with the same classes and data attributes, and marks it data-drawn="js".
// The labels stay where the server placed them (js/labels.js places the dashboard's words
// over its live state). The front page's table cards are fetched again every few seconds and
// drawn the same way.
import { sideColour, terrainColour } from "./js/colours.js";
import { drawBase, drawCloth, el, points } from "./js/draw.js";

const REFRESH_MS = 3000;

// `value` with `digits` decimals as Python's "%.2f" writes it, so every number the module
// writes is the server's: JavaScript rounds an exact tie (10.125) away from zero, Python
// to the even digit, and writes minus zero with its sign.
export function fixed(value, digits) {
  const text = value.toFixed(digits);
  if (Object.is(value, -0)) return "-" + text;
  const exact = value.toFixed(Math.min(100, digits + 30));
  const rest = exact.slice(exact.indexOf(".") + 1 + digits);
  if (!/^50*$/.test(rest)) return text;
  const down = exact.slice(0, exact.length - rest.length).replace(/\.$/, "");
  return Number(down[down.length - 1]) % 2 === 0 ? down : text;
}

// One map: `board` is what the server drew it from (pages.py's map_json). Drawn aside, then
// put in place whole: a board that fails to draw leaves the map as it was.
export function drawMap(map, board) {
  const { palette, sides, size } = board;
  const svg = el("svg");
  drawCloth(el("rect", { class: "cloth" }, svg), board.table, palette, 0);
  for (const t of board.terrain) {
    const shape = el("polygon", { class: "terrain", "data-id": t.id, "data-kind": t.kind,
      fill: terrainColour(palette, t.kind), points: points(t.polygon) }, svg);
    el("title", {}, shape, `${t.id} (${t.kind})`);
  }
  for (const p of board.pieces) {
    const node = el("g", { class: "piece", "data-id": p.id, "data-side": p.side,
      "data-x": fixed(p.x, 2), "data-y": fixed(p.y, 2),
      transform: `translate(${fixed(p.x, 3)} ${fixed(p.y, 3)}) rotate(${fixed(p.heading, 1)})` }, svg);
    const base = drawBase(node, p.base, sideColour(sides, p.side));
    el("title", {}, base, `${p.id} (${p.side} ${p.kind})`);
  }
  const words = el("g", { class: "labels", "font-size": fixed(size, 2),
    "stroke-width": fixed(size * 0.25, 2) }, svg);
  for (const p of board.pieces) {
    const [x, y] = board.labels[p.id];
    el("text", { class: "label", "data-id": p.id, x: fixed(x, 2), y: fixed(y, 2), fill: palette.text },
      words, p.id);
  }
  map.replaceChildren(...svg.childNodes);
  map.dataset.drawn = "js";
}

// Every map under `root`. A map whose values did not come (a number JSON cannot carry) or do
// not draw keeps the server's drawing.
export function drawMaps(root) {
  for (const data of root.querySelectorAll("script.board")) {
    const svg = data.parentElement.querySelector("svg");
    try {
      const board = JSON.parse(data.textContent);
      if (svg && board) drawMap(svg, board);
    } catch (error) {
      console.warn("club map left as the server drew it:", error);
    }
  }
}

// The front page's table cards (mini-maps and "live" included) come again from the server
// every few seconds, drawn as the page's first ones were.
function followTables(tables) {
  setInterval(async () => {
    try {
      const r = await fetch("?fragment=tables", { cache: "no-store" });
      if (!r.ok) return;
      tables.innerHTML = await r.text();
      drawMaps(tables);
    } catch (e) { /* the club server restarting: try again at the next tick */ }
  }, REFRESH_MS);
}

drawMaps(document);
const tables = document.getElementById("tables");
if (tables) followTables(tables);
