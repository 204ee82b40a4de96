// The threat view: what one tapped piece can hit, on the map and in the side list.
import { THREAT_KINDS, UNKNOWN_PIECE, threatColour, threatKind } from "./colours.js";
import { askDispute, placeOverlay, renderDispute, renderOverlay } from "./dispute.js";
import { drawThreatMark } from "./draw.js";
import { $, el, html } from "./dom.js";
import { poseOf, redraw } from "./map.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { plainError } from "./turn.js";

// The die roll a system settles a doubtful line with ("if in doubt roll one die: 1-3
// blocked, 4-6 clear"), from the LOS verdict's own words; "" where the system has none.
export function dieRoll(v) {
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

export function threatsShown() {
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
export function drawThreats() {
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
    const colour = threatColour(S.info.palette, kind);
    const info = S.pieces[t.to] || UNKNOWN_PIECE;
    const group = drawThreatMark(g, a, b, t.to, kind, colour, info.base);
    el("title", {}, group, threatText(t, kind));
  }
}

// The threat view in words: counts, then each kind's pieces, each a button showing that
// pair's range and line of sight; in the Dispute pane and, shorter, over the map.
export function renderThreats() {
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

export function askThreats() {
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
export function shareSelection(id) { api("selection", { piece: id }).catch(() => {}); }

export function showThreats(id) {
  shareSelection(id);
  const kept = threatsShown() && S.threats.from === id;  // the same piece again: keep its answer
  S.selected = [id];
  S.dispute = null;
  S.asked = null;
  if (!kept) S.threats = { from: id, verdict: null, error: null };
  renderThreats();
  askThreats();
}

export function showPair(a, b) {
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

export function clearSelection() {
  shareSelection(null);
  S.selected = []; S.dispute = null; S.threats = null; S.shownMove = null; S.asked = null;
  $("follow-me").disabled = true;
  $("save-picture").disabled = true;
  renderDispute();
  redraw();
}
