// The map's drawing primitives, in table inches on an SVG: nodes, the cloth, terrain shapes,
// a piece's base and a threat view's marks. Shared by the dashboard, the overlay and the club's mini-maps,
// so a piece, a wood or a blocked line looks the same on every page.

const SVGNS = "http://www.w3.org/2000/svg";

export function el(tag, attrs, parent, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// A polygon's `points` attribute from scene-file vertices ([[x, y], ...]).
export function points(polygon) {
  return polygon.map((p) => p.join(",")).join(" ");
}

// The cloth: the table's rectangle in the palette's colours, edged `edge` inches wide.
export function drawCloth(rect, table, palette, edge) {
  const attrs = { x: 0, y: 0, width: table.width, height: table.depth, fill: palette.cloth,
    stroke: palette.edge, "stroke-width": edge };
  for (const [k, v] of Object.entries(attrs)) rect.setAttribute(k, v);
}

// A piece's base in its own frame (front along +x): its rectangle (`base` is [width, depth])
// in `colour` and a line from its centre to its front. Returns the rectangle.
export function drawBase(parent, base, colour) {
  const [w, d] = base;
  const rect = el("rect", { class: "base", x: -d / 2, y: -w / 2, width: d, height: w, fill: colour }, parent);
  el("line", { class: "front", x1: 0, y1: 0, x2: d / 2, y2: 0 }, parent);
  return rect;
}

// One target of a threat view: a line from the shooter `a` to the target `b` in its kind's
// colour (dashed when out of range) and a ring round the target's base.
export function drawThreatMark(parent, a, b, to, kind, colour, base) {
  const group = el("g", { class: "threat " + kind, "data-to": to, "data-verdict": kind }, parent);
  const line = el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: colour }, group);
  if (kind === "out") line.setAttribute("stroke-dasharray", "0.5 0.4");
  el("circle", { cx: b.x, cy: b.y, r: Math.max(...base) * 0.75 + 0.2, stroke: colour }, group);
  return group;
}
