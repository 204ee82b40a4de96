// The game log: events listed, rulings shown, the scrubber's replay.
import { mark, runQueries } from "./dispute.js";
import { $, html } from "./dom.js";
import { redraw } from "./map.js";
import { addEvents, showMove } from "./moves.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { refreshState } from "./stream.js";
import { askThreats } from "./threat.js";

// -- the log --------------------------------------------------------------------------------

function describe(e) {
  if (e.type === "move") return `move ${e.piece} ${Number(e.distance).toFixed(2)}" ± ${Number(e.uncertainty).toFixed(3)}`;
  if (e.type === "verdict") {
    const v = e.verdict || {};
    return `verdict ${v.ask}: ${v.ok === true ? "ok" : v.ok === false ? "NOT OK" : "??"} ${v.summary || ""}`;
  }
  if (e.type === "declare") return "declare " + JSON.stringify(e.declare);
  if (e.type === "edit") return `edit ${e.action} ${e.terrain ? e.terrain.id : e.id}`;
  if (e.type === "correction") return `correction of #${e.supersedes}`;
  if (e.type === "removed") return `removed ${e.piece}: ${e.reason || ""}`;
  if (e.type === "entered") {
    const v = e.verdict;
    const word = !v ? "" : v.ok === true ? ": ok" : v.ok === false ? ": NOT OK" : ": too close to call";
    return `entered ${e.piece} at (${Number(e.at?.x).toFixed(2)}, ${Number(e.at?.y).toFixed(2)})${word}`;
  }
  return `${e.type} ${e.kind || ""}: ${e.message || ""}`;
}

export async function loadEvents() {
  const answer = await api("events");
  S.events = answer.events;
  renderEvents();
  redraw();
}

export function onEvents(all) {
  const list = addEvents(all);
  let terrainChanged = false, moved = new Set();
  for (const e of list) {
    if (e.type === "edit") terrainChanged = true;
    if (e.type === "move") moved.add(e.piece);
    // a standing question answered again names its pieces: one just set on the table (not
    // the verdicts of asks, this page's among them: asking again on those would never end)
    if (e.type === "verdict" && e.question !== undefined && Array.isArray(e.pieces)) {
      for (const id of e.pieces) moved.add(id);
    }
    if (e.type === "verdict" && e.about !== undefined) showRuling(e);
  }
  if (terrainChanged) refreshState().catch(() => {});
  if (list.some((e) => e.type === "move" || e.type === "correction" || e.about !== undefined)) {
    redraw();
  }
  // a correction (made here, on another device or with `referee log correct`) moves its piece
  const fixed = new Map(list.filter((e) => e.type === "correction").map((e) => [e.supersedes, e]));
  for (const seq of fixed.keys()) {
    const m = S.events.find((e) => e.seq === seq && e.type === "move");
    if (m) moved.add(m.piece);
  }
  if (S.shownMove !== null && fixed.has(S.shownMove)) showMove(S.shownMove);
  if (S.asked && S.selected.some((id) => moved.has(id))) runQueries(S.asked, true);
  // the rules see a piece where it settles: any move, correction or terrain edit may change
  // what the tapped piece can hit
  if (list.some((e) => e.type === "move" || e.type === "correction" || e.type === "edit") ||
    S.selected.some((id) => moved.has(id))) askThreats();
}

function showRuling(e) {
  // the verdict on a settled move (its allowance from the dice, Follow Me obligations...)
  const v = e.verdict || {};
  const box = $("turn-last");
  box.className = "line " + mark(v);
  box.replaceChildren(html("div", `${e.t.toFixed(1)}s  ${v.summary || v.ask}`));
  const reasons = html("ul", undefined, "reasons");
  for (const r of v.reasons || []) reasons.appendChild(html("li", r));
  box.appendChild(reasons);
}

export function renderEvents(fresh) {
  const list = $("events");
  if (!fresh) list.replaceChildren();
  for (const e of fresh || S.events) {
    const li = html("li", `${e.t.toFixed(1)}s  ${describe(e)}`);
    li.value = e.seq;
    li.dataset.seq = e.seq;
    li.onclick = () => scrubTo(e.seq);
    list.prepend(li);
  }
  const last = S.events.length ? S.events[S.events.length - 1].seq : 0;
  const scrub = $("scrubber");
  const atEnd = Number(scrub.value) >= Number(scrub.max);
  scrub.max = last;
  if (atEnd && !S.replay) scrub.value = last;
  if (!S.replay) $("scrub-label").textContent = `live (event #${last})`;
}

let scrubTimer = null;
$("scrubber").oninput = () => {
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(() => scrubTo(Number($("scrubber").value)), 120);
};

export async function scrubTo(seq) {
  const scrub = $("scrubber");
  scrub.value = seq;
  if (seq >= Number(scrub.max)) return goLive();
  let answer;
  try { answer = await api("replay?seq=" + seq); } catch (err) {
    $("scrub-label").textContent = err.message;
    return;
  }
  S.replay = answer.scene;
  S.replaySeq = answer.event ? answer.event.seq : 0;
  const where = answer.event ? `#${answer.event.seq}, ${answer.event.t.toFixed(1)}s` : "the start";
  $("replay-where").textContent = where;
  $("scrub-label").textContent = "replay at " + where;
  $("replay-banner").hidden = false;
  if (S.threats) $("map-verdict").hidden = true;  // the threat view is the live table's
  redraw();
}

function goLive() {
  S.replay = null;
  S.replaySeq = null;
  $("replay-banner").hidden = true;
  const scrub = $("scrubber");
  scrub.value = scrub.max;
  $("scrub-label").textContent = `live (event #${scrub.max})`;
  redraw();
  askThreats();  // back to the live table: what the tapped piece can hit now
}
$("replay-live").onclick = goLive;
