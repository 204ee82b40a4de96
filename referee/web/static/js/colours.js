// The colours every page draws with, from the server's palette (GET /api/info `palette`):
// verdicts, threat kinds, moves, terrain kinds and side colours. No state and no DOM, so the
// dashboard, the overlay, the projector and the club's pages all import these same functions.

// A piece the roster does not name (never one of this game's) is a plain grey square.
export const UNKNOWN_PIECE = { base: [1, 1], colour: "#ccc" };

// A terrain kind the palette does not know: plain grey rather than nothing.
export const UNKNOWN_TERRAIN = "#808080";

// A side's colour from the game's side colours (/api/info `sides`, or a club map's), grey
// for a side they do not name.
export function sideColour(sides, side) {
  return Object.hasOwn(sides, side) ? sides[side] : UNKNOWN_TERRAIN;
}

export function verdictColour(palette, v) {
  const c = palette.verdict;
  if (v.los) return c[v.los];
  return v.ok === true ? c.clear : v.ok === false ? c.blocked : c.doubtful;
}

export function terrainColour(palette, kind) {
  return palette.terrain[kind] || UNKNOWN_TERRAIN;
}

// The four answers a target can get, in the order the lists show them. Each `targets` entry
// is the pair's own range and los verdicts; a definite "no" outranks a doubt.
export const THREAT_KINDS = [
  ["seen", "in range & seen"], ["out", "out of range"], ["blocked", "blocked"], ["doubt", "too close to call"],
];

export function threatKind(t) {
  if (!t.range || t.range.ok === false) return "out";  // no range: a piece without a weapon
  if (t.los.ok === false) return "blocked";
  if (t.range.ok !== true || t.los.ok !== true) return "doubt";
  return "seen";
}

export function threatColour(palette, kind) {
  return verdictColour(palette, { ok: kind === "seen" ? true : kind === "doubt" ? null : false });
}

// The worst of the move's verdicts: one illegal makes it red, one too close to call amber.
export function moveMark(verdicts) {
  if (!verdicts.length) return "none";
  if (verdicts.some((v) => v.ok === false)) return "no";
  if (verdicts.some((v) => v.ok !== true)) return "maybe";
  return "ok";
}

export function moveColour(palette, markName) {
  const c = palette.verdict;
  return { ok: c.clear, no: c.blocked, maybe: c.doubtful }[markName] || "#e8e8e8";
}
