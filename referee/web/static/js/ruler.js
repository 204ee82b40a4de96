// The free ruler: points tapped on the map, measured with the cloth's doubt.
import { $, el } from "./dom.js";
import { S } from "./state.js";

// The ruler: a tape laid from point to point on the table, in table inches (never pixels).
// Each tap lays a point (the first starts the tape); a double-tap or Enter ends it; Escape
// clears. A drag pans as it does without the ruler: where a finger lifts after a drag is
// not a point, and only two taps close in time and place are a double-tap (the browser's
// dblclick is not used: its interval and slop are the system's, and a touch may send none).
export const DOUBLE_TAP_MS = 350;  // most ms from the first tap's lift to the second's
const DOUBLE_TAP_SLOP = 12;  // most screen px between a double-tap's two taps

function setTool(tool) {
  S.tool = S.tool === tool ? null : tool;
  $("ruler-tool").classList.toggle("active", S.tool === "ruler");
  $("map").classList.toggle("measuring", S.tool === "ruler");
  if (S.tool !== "ruler") S.ruler = { points: [], hover: null, done: false };
  drawRuler();
}
$("ruler-tool").onclick = () => setTool("ruler");

export function rulerHover(p) {
  if (!S.ruler.points.length || S.ruler.done) return;
  S.ruler.hover = p;
  drawRuler();
}

// A tap at table point `p` (screen point `screen`, at event time `t` ms).
export function rulerTap(p, screen, t) {
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
export function pointDoubt([x, y]) {
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
export function measure(points) {
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

export function drawRuler() {
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
