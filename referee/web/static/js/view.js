// Zoom, pan and the gestures of the map (pinch, drag, tap).
import { placeOverlay } from "./dispute.js";
import { $ } from "./dom.js";
import { placeLabels } from "./labels.js";
import { corrections, sendCorrection } from "./moves.js";
import { rulerHover, rulerTap } from "./ruler.js";
import { S } from "./state.js";

// -- zoom, pan and the free ruler ------------------------------------------------------------

export function applyView() {
  $("map").setAttribute("viewBox", S.view.map((v) => +v.toFixed(3)).join(" "));
  fitLabels();
}

// Labels at least 11.5 screen pixels tall, however small the map is drawn (a phone) and
// never smaller than 0.8 in on the table when zoomed in.
function fitLabels() {
  const map = $("map");
  const width = map.getBoundingClientRect().width;
  if (!width || !S.view) return;
  const perInch = width / S.view[2];
  const label = +Math.max(0.8, 11.5 / perInch).toFixed(3), small = +Math.max(0.6, 11.5 / perInch).toFixed(3);
  map.style.setProperty("--label", label + "px");
  map.style.setProperty("--small", small + "px");
  if (S.font.label !== label || S.font.small !== small) {
    S.font = { label, small };
    placeLabels();  // the words' sizes changed: their spots too
  }
  placeOverlay();
}
window.addEventListener("resize", fitLabels);

function tableAt(clientX, clientY) {
  const map = $("map");
  const pt = map.createSVGPoint();
  pt.x = clientX; pt.y = clientY;
  const p = pt.matrixTransform(map.getScreenCTM().inverse());
  return [p.x, p.y];
}

// Zoom by `factor` (>1 zooms in) keeping the table point under (clientX, clientY) in place.
function zoomAt(factor, clientX, clientY) {
  if (!S.view) return;
  const [px, py] = tableAt(clientX, clientY);
  const [x, y, w, h] = S.view;
  const nw = Math.min(S.home[2] * 1.5, Math.max(4, w / factor));
  const k = nw / w;
  S.view = [px - (px - x) * k, py - (py - y) * k, w * k, h * k];
  applyView();
}

function zoomCentre(factor) {
  const r = $("map").getBoundingClientRect();
  zoomAt(factor, r.left + r.width / 2, r.top + r.height / 2);
}

function panBy(dxPx, dyPx) {
  const r = $("map").getBoundingClientRect();
  // the viewBox is fitted (meet): one screen pixel is the larger of the two ratios
  const perPx = Math.max(S.view[2] / r.width, S.view[3] / r.height);
  S.view = [S.view[0] - dxPx * perPx, S.view[1] - dyPx * perPx, S.view[2], S.view[3]];
  applyView();
}

$("zoom-in").onclick = () => zoomCentre(1.5);
$("zoom-out").onclick = () => zoomCentre(1 / 1.5);
$("zoom-fit").onclick = () => { S.view = S.home.slice(); applyView(); };

const TAP_SLOP = 8;  // px a finger may wander and still tap
const gesture = { pointers: new Map(), start: null, pinch: null, moved: false, swallow: false };

function onPointerDown(e) {
  if (!S.view || (e.pointerType === "mouse" && e.button !== 0)) return;
  gesture.pointers.set(e.pointerId, [e.clientX, e.clientY]);
  if (gesture.pointers.size === 1) {
    gesture.start = { x: e.clientX, y: e.clientY, last: [e.clientX, e.clientY] };
    gesture.moved = false;
    gesture.dragEnd = e.target && e.target.id === "move-end" ? Number(e.target.dataset.seq) : null;
  } else if (gesture.pointers.size === 2) {
    const [a, b] = Array.from(gesture.pointers.values());
    gesture.pinch = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]) || 1 };
    gesture.moved = true;  // two fingers never tap
    if (S.tool === "ruler") S.ruler.hover = null;
  }
}

function onPointerMove(e) {
  if (S.tool === "ruler" && !gesture.pointers.size && e.pointerType === "mouse") {
    rulerHover(tableAt(e.clientX, e.clientY));  // the tape follows the mouse to the next point
    return;
  }
  if (!gesture.pointers.has(e.pointerId)) return;
  gesture.pointers.set(e.pointerId, [e.clientX, e.clientY]);
  if (gesture.pointers.size === 2 && gesture.pinch) {
    const [a, b] = Array.from(gesture.pointers.values());
    const dist = Math.hypot(a[0] - b[0], a[1] - b[1]) || 1;
    zoomAt(dist / gesture.pinch.dist, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
    gesture.pinch.dist = dist;
    return;
  }
  const st = gesture.start;
  if (!st) return;
  if (!gesture.moved && Math.hypot(e.clientX - st.x, e.clientY - st.y) > TAP_SLOP) gesture.moved = true;
  if (!gesture.moved) return;
  if (gesture.dragEnd) {
    const [x, y] = tableAt(e.clientX, e.clientY);
    const ring = $("move-end");
    if (ring) { ring.setAttribute("cx", x); ring.setAttribute("cy", y); }
  } else if (!S.drawing) {  // a drag pans, the ruler's too: only a tap lays a point
    panBy(e.clientX - st.last[0], e.clientY - st.last[1]);
  }
  st.last = [e.clientX, e.clientY];
}

function onPointerUp(e) {
  if (!gesture.pointers.has(e.pointerId)) return;
  gesture.pointers.delete(e.pointerId);
  if (gesture.pointers.size) return;
  const wasPinch = !!gesture.pinch;
  const st = gesture.start;
  gesture.pinch = null;
  gesture.start = null;
  if (gesture.moved) gesture.swallow = true;  // a drag or a pinch is not a tap on what is under it
  // a tap is where the finger came down (it may wander a few pixels before lifting)
  const at = gesture.moved || !st ? [e.clientX, e.clientY] : [st.x, st.y];
  if (S.tool === "ruler" && e.type === "pointerup") {
    if (gesture.moved || !st) S.ruler.lastTap = null;  // a drag or a pinch between breaks a double-tap
    else rulerTap(tableAt(st.x, st.y), [st.x, st.y], e.timeStamp);
  }
  const dragged = gesture.dragEnd;
  gesture.dragEnd = null;
  if (dragged && gesture.moved && !wasPinch && e.type === "pointerup") {
    const m = S.events.find((x) => x.seq === dragged && x.type === "move");
    const fix = corrections().get(dragged);
    const heading = (fix && fix.to ? fix.to : m.to).heading;
    const [x, y] = tableAt(...at);
    sendCorrection({ seq: dragged, to: { x: +x.toFixed(3), y: +y.toFixed(3), heading } });
  }
}

function setupGestures() {
  const map = $("map");
  map.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerUp);
  map.addEventListener("click", (e) => {
    if (gesture.swallow) { e.stopPropagation(); e.preventDefault(); }
    gesture.swallow = false;
  }, true);
  map.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX, e.clientY);
  }, { passive: false });
}
setupGestures();
