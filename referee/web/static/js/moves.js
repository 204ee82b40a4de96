// Moves on the map (arrows, their verdicts) and corrections sent from the dashboard.
import { drawCamera } from "./camera.js";
import { moveColour, moveMark } from "./colours.js";
import { mark, renderOverlay } from "./dispute.js";
import { $, el, html, showTab } from "./dom.js";
import { renderEvents } from "./log.js";
import { correctedRests, redraw } from "./map.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { shareSelection } from "./threat.js";

// -- moves on the map ---------------------------------------------------------------------------

const MOVES_SHOWN = 5;  // the newest moves drawn; older ones fade, then go

// Each corrected move's last correction (seq -> the correction event).
export function corrections() {
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

export function drawMoves() {
  const g = $("moves");
  g.replaceChildren();
  const moves = shownMoves();
  moves.forEach((m, i) => {
    const verdicts = moveVerdicts(m.seq);
    const markName = moveMark(verdicts);
    const colour = moveColour(S.info.palette, markName);
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
export function drawMoveEnd() {
  const g = $("move-fix");
  g.replaceChildren();
  const m = S.replay ? null : shownMoves().find((x) => x.seq === S.shownMove);
  if (!m) return;
  const colour = moveColour(S.info.palette, moveMark(moveVerdicts(m.seq)));
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
export function showMove(seq) {
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

export async function sendCorrection(body) {
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
export function addEvents(list) {
  const have = new Set(S.events.map((e) => e.seq));
  const fresh = list.filter((e) => !have.has(e.seq));
  if (!fresh.length) return fresh;
  S.events.push(...fresh);
  S.events.sort((a, b) => a.seq - b.seq);
  renderEvents(fresh);
  return fresh;
}

export function onFrame(msg) {
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
