// Disputes: tapped pieces, the questions asked about them and the verdict pane.
import { $, html } from "./dom.js";
import { redraw } from "./map.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { clearSelection, dieRoll, renderThreats, shareSelection, showPair, showThreats, threatsShown } from "./threat.js";
import { plainError } from "./turn.js";

// -- disputes ---------------------------------------------------------------------------------

// One tap: what that piece can hit (the threat view). A tap on a second piece: that pair's
// range and line of sight. A tap on a third starts again; a tap on the bare map clears.
export function tapPiece(id) {
  if (S.drawing) return;
  S.shownMove = null;
  if (S.selected.length === 1 && S.selected[0] !== id) {
    showPair(S.selected[0], id);
    return;
  }
  $("follow-me").disabled = false;
  $("save-picture").disabled = true;
  if (S.info.ruleset.questions.includes("targets")) showThreats(id);
  else {  // a system with no all-pairs map: the piece waits for a second one
    shareSelection(id);
    S.selected = [id];
    S.dispute = null;
    S.threats = null;
    S.asked = null;
    renderDispute();
  }
  redraw();
}

export async function askDispute() {
  const [a, b] = S.selected;
  const queries = [{ ask: "range", from: a, to: b }, { ask: "los", from: a, to: b }];
  await runQueries(queries);
}

// One dispute shown: the newest asking wins (a re-ask on a change may overtake a tap).
// A player's tap is logged; asking again because the table changed (a move, an edit, a new
// game, a reconnection) is not (`again`): the log keeps what the players asked.
let disputeAsks = 0;
export async function runQueries(queries, again) {
  const verdict = $("verdict");
  const mine = ++disputeAsks;
  S.asked = queries;
  const selected = S.selected.join(" ");
  const current = () => mine === disputeAsks && S.asked === queries && S.selected.join(" ") === selected;
  try {
    const verdicts = [];
    for (const q of queries) {
      const answer = await api(again ? "ask?log=0" : "ask?evidence=1", q);
      // A logged verdict names the pictures kept with it (evidence), shown under it.
      for (const v of answer.verdicts) verdicts.push({ ...v, evidence: answer.evidence || [] });
    }
    if (!current()) return;
    S.dispute = { queries, verdicts };
    $("save-picture").disabled = false;
    verdict.dataset.generation = S.info ? S.info.generation : "";
    verdict.dataset.asks = Number(verdict.dataset.asks || 0) + 1;
  } catch (err) {
    if (!current()) return;
    S.dispute = null;  // the selection and its questions stay: the next change asks again
    const cls = err.absent ? "muted notice" : "error";  // off the table now: grey, not red
    verdict.replaceChildren(html("p", plainError(err.message), cls));
    renderOverlay([[plainError(err.message), err.absent ? "muted notice" : "no"]]);
    return;
  }
  renderDispute();
  redraw(true);  // the pair's lines (and no threat lines: a pair or a Follow Me replaces them)
}

export function mark(v) { return v.ok === true ? "ok" : v.ok === false ? "no" : "maybe"; }

export function renderDispute() {
  const box = $("verdict");
  box.replaceChildren();
  renderOverlay([]);
  if (!S.dispute) {
    $("dispute-hint").textContent = S.selected.length === 1
      ? `${S.selected[0]} selected: tap another piece, or Follow Me.`
      : "Tap a piece: what it can hit. Tap a second piece: range and line of sight.";
    if (threatsShown()) renderThreats();
    return;
  }
  $("dispute-hint").textContent = "";
  const shown = [];
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
        (v.los === "doubtful" ? " — " + (dieRoll(v) || "too close to call") : "") +
        (v.blocking && v.blocking.length ? ` (by ${v.blocking.join(", ")})` : "");
    }
    const line = html("div", text, "line " + mark(v));
    line.dataset.ask = v.ask;
    if (v.los) line.dataset.los = v.los;
    box.appendChild(line);
    const reasons = html("ul", undefined, "reasons");
    for (const r of v.reasons || []) reasons.appendChild(html("li", r));
    box.appendChild(reasons);
    if (v.evidence && v.evidence.length) box.appendChild(evidenceFigure(v.evidence));
    shown.push([text, mark(v)]);
  }
  renderOverlay(shown);
}

// What the camera saw when the verdict was logged: the log's pictures of its pieces.
// A picture the log cannot give (damaged, pruned) is a short note, not a broken image.
function evidenceFigure(evidence) {
  const figure = html("figure", undefined, "evidence");
  figure.style.margin = "0.4em 0";
  for (const e of evidence) {
    const img = document.createElement("img");
    img.alt = `event #${e.seq}: ${e.kind === "top" ? "seen from above" : "camera"}`;
    img.dataset.kind = e.kind;
    img.style.maxWidth = "48%";  // both side by side in the pane, however large the crop
    img.style.marginRight = "2%";
    const missing = () => img.replaceWith(html("span", `(no ${e.kind} picture for #${e.seq})`, "muted"));
    img.onerror = missing;
    figure.appendChild(img);
    // Through api(): an exposed server wants its token on this request too.
    api(`evidence/${e.seq}/${e.kind}.jpg`).then((blob) => { img.src = URL.createObjectURL(blob); }, missing);
  }
  figure.appendChild(html("figcaption", `what the camera saw (event #${evidence[0].seq})`, "muted"));
  return figure;
}

// The verdict's headlines over the map: readable on a tablet or a phone without scrolling
// away from the table (the reasons stay in the Dispute pane).
export function renderOverlay(lines) {
  const box = $("map-verdict");
  box.replaceChildren();
  for (const [text, cls] of lines) box.appendChild(html("div", text, "line " + cls));
  box.hidden = !lines.length;
  placeOverlay();
}

// The pieces the shown verdict is about: the tapped ones, or the shown move's.
function overlayPieces() {
  if (S.selected.length) return S.selected;
  const m = S.shownMove !== null && S.events.find((e) => e.seq === S.shownMove && e.type === "move");
  return m ? [m.piece] : [];
}

// The verdict over the map never covers the pieces it is about: over the foot of the map,
// or its top when they are down there, else under the map. On a phone always under it:
// over a map that small it would hide the nearest rows of pieces and the scale bar.
export function placeOverlay() {
  const box = $("map-verdict");
  if (box.hidden) return;
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  let place = "below";
  if (!window.matchMedia("(max-width: 600px)").matches) {
    const about = overlayPieces().map((id) => $("pieces").querySelector(`[data-id="${CSS.escape(id)}"] .base`))
      .filter(Boolean).map((n) => n.getBoundingClientRect());
    for (const side of ["bottom", "top"]) {
      box.dataset.place = side;
      const r = box.getBoundingClientRect();
      if (!about.some((a) => meet(a, r))) { place = side; break; }
    }
  }
  if (box.dataset.place !== place) box.dataset.place = place;
}

$("follow-me").onclick = () => {
  if (S.selected.length !== 1) return;
  runQueries([{ ask: "follow_me", leader: S.selected[0] }]);
};
$("clear-dispute").onclick = clearSelection;
$("map-verdict").onclick = () => { $("map-verdict").hidden = true; };
$("save-picture").onclick = async () => {
  if (!S.dispute) return;
  let blob;
  try {
    blob = await api("picture", { queries: S.dispute.queries, selected: S.selected[0] || null });
  } catch (err) {
    $("verdict").appendChild(html("p", plainError(err.message), "error"));
    return;
  }
  const link = $("picture-link");
  link.href = URL.createObjectURL(blob);
  link.hidden = false;
  link.click();
};
