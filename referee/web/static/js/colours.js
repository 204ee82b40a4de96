// Verdict, threat and move colours from the server's palette (no state: shared by every page).
import { S } from "./state.js";

// A piece the roster does not name (never one of this game's) is a plain grey square.
export const UNKNOWN_PIECE = { base: [1, 1], colour: "#ccc" };

export function verdictColour(v) {
  const c = S.info.palette.verdict;
  if (v.los) return c[v.los];
  return v.ok === true ? c.clear : v.ok === false ? c.blocked : c.doubtful;
}

// -- the threat view: what one tapped piece can hit --------------------------------------------

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

export function threatColour(kind) {
  return verdictColour({ ok: kind === "seen" ? true : kind === "doubt" ? null : false });
}

// The worst of the move's verdicts: one illegal makes it red, one too close to call amber.
export function moveMark(verdicts) {
  if (!verdicts.length) return "none";
  if (verdicts.some((v) => v.ok === false)) return "no";
  if (verdicts.some((v) => v.ok !== true)) return "maybe";
  return "ok";
}

export function moveColour(markName) {
  const c = S.info.palette.verdict;
  return { ok: c.clear, no: c.blocked, maybe: c.doubtful }[markName] || "#e8e8e8";
}
