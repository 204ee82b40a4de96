// The projector page (/projector): verdicts drawn on the cloth at true scale by a projector
// over the table, through its fit (GET /api/projector: projector px -> table inches; drawn
// here through its inverse), and a black disc over every tag so none is ever lit. It follows
// the piece selected on the dashboard (the stream's `selection` events), asks that piece's
// threat view (targets, not logged) as overlay.js does, and draws the newest moves' arrows.
// With ?pattern=1 it shows the calibration pattern full screen instead.
// An ES module: the colours are the dashboard's own (js/colours.js); $, api and targetsAsker
// come from shared.js, a plain script loaded first.
import { moveColour, moveMark, threatColour, threatKind } from "./js/colours.js";

const PATTERN = $("projector").dataset.pattern === "1";
const MOVES_SHOWN = 5;
const LINE_IN = 0.15;   // line width on the cloth, inches
const TEXT_IN = 0.9;    // verdict text height on the cloth: read standing at the table
const MIN_TEXT_PX = 28;

const P = {
  info: null,      // /api/info
  pieces: {},      // id -> roster piece
  fit: null,       // /api/projector: fit and discs
  toPx: null,      // 3x3 table inches -> projector px
  live: {},        // id -> newest pose
  events: [],
  selected: null,  // the dashboard's piece
  threats: null,   // {from, verdict}
  latencies: [],   // ms from a frame message arriving to its drawing done
  lastLatency: null,
  draws: 0,
  redraw: () => draw(),  // a module's functions are not globals: tests and the console redraw here
};
window.projector = P;

// shared.js: one targets question in flight; redrawn with each answer.
const askThreats = targetsAsker(
  () => (P.info && P.info.ruleset.questions.includes("targets") ? P.selected : null),
  (from, threats) => {
    if (P.selected === from) P.threats = threats;
    draw();
  },
);


// -- the mapping: table inches -> projector px -> canvas px --------------------------------

function invert3(m) {
  const [a, b, c] = m[0], [d, e, f] = m[1], [g, h, i] = m[2];
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
    [C / det, -(a * h - b * g) / det, (a * e - b * d) / det],
  ];
}

// The canvas covers the window; the projector's picture is the whole window (full screen).
function scale() {
  const canvas = $("pj-canvas");
  return P.fit ? canvas.width / P.fit.resolution[0] : 1;
}

function px(x, y) {
  const m = P.toPx;
  const w = m[2][0] * x + m[2][1] * y + m[2][2];
  const k = scale();
  const [u, v] = lens((m[0][0] * x + m[0][1] * y + m[0][2]) / w, (m[1][0] * x + m[1][1] * y + m[1][2]) / w);
  return [k * u, k * v];
}

// The projector's radial lens terms (calibration/projector_fit.py's distort): about the
// picture centre, in half-widths; none in a profile from before them.
function lens(u, v) {
  const terms = P.fit.lens || [];
  if (!terms.length) return [u, v];
  const [width, height] = P.fit.resolution;
  const cx = (width - 1) / 2, cy = (height - 1) / 2, s = width / 2;
  const ox = (u - cx) / s, oy = (v - cy) / s, r2 = ox * ox + oy * oy;
  const f = 1 + (terms[0] || 0) * r2 + (terms[1] || 0) * r2 * r2;
  return [cx + ox * f * s, cy + oy * f * s];
}

// Canvas pixels per table inch at (x, y): lines and text keep their size on the cloth.
function pxPerInch(x, y) {
  const [ax, ay] = px(x, y);
  const [bx, by] = px(x + 1, y);
  return Math.hypot(bx - ax, by - ay);
}

// A circle on the table is a conic in the picture: drawn through many of its points.
function circlePath(ctx, cx, cy, r, out = 1) {
  const n = 96;
  ctx.beginPath();
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    const [x, y] = px(cx + r * out * Math.cos(a), cy + r * out * Math.sin(a));
    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  }
  ctx.closePath();
}

// -- the stream ------------------------------------------------------------------------------

function connect() {
  const source = new EventSource("api/stream" + (TOKEN ? "?token=" + encodeURIComponent(TOKEN) : ""));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1500);
  };
  source.addEventListener("hello", () => load().catch(notice));
  source.addEventListener("selection", (e) => {
    const piece = JSON.parse(e.data).piece;
    if (piece === P.selected) return;
    P.selected = piece;
    P.threats = null;
    draw();
    askThreats();
  });
  source.addEventListener("events", (e) => onEvents(JSON.parse(e.data)));
  source.addEventListener("frame", (e) => {
    const arrived = performance.now();
    for (const p of JSON.parse(e.data).pieces) P.live[p.id] = p;
    if (draw()) {
      P.lastLatency = performance.now() - arrived;
      P.latencies.push(P.lastLatency);
      if (P.latencies.length > 500) P.latencies.shift();
    }
  });
}

function notice(error) {
  const box = $("pj-notice");
  box.textContent = String(error.message || error);
  box.hidden = false;
}

async function load() {
  const info = await api("info");
  P.info = info;
  P.pieces = Object.fromEntries(info.pieces.map((p) => [p.id, p]));
  const scene = await api("state");
  P.live = Object.fromEntries((scene.pieces || []).map((p) => [p.id, p]));
  P.events = (await api("events")).events;
  await loadFit();
  resize();
  askThreats();
}

const CHECK_DUE = "the camera moved since the projector was fitted: open /projector?pattern=1 " +
  "on this screen and press check";

async function loadFit() {
  try {
    P.fit = await api("projector");
    P.toPx = invert3(P.fit.homography);
    if (P.fit.check_due) notice(new Error(CHECK_DUE));
    else $("pj-notice").hidden = true;
  } catch (error) {
    P.fit = null;
    notice(error);  // no projector calibrated: say what to do, light nothing else
  }
}

function onEvents(list) {
  const have = new Set(P.events.map((e) => e.seq));
  const fresh = list.filter((e) => !have.has(e.seq));
  if (!fresh.length) return;
  P.events.push(...fresh);
  P.events.sort((a, b) => a.seq - b.seq);
  // A bumped camera was re-registered: the fit may be due a check (the server says).
  if (fresh.some((e) => e.type === "camera" && e.data.kind === "moved")) loadFit().then(draw);
  draw();
  if (fresh.some((e) => e.type === "move" || e.type === "correction" || e.type === "edit")) askThreats();
}

// One question out at a time; a change meanwhile asks again when it returns (as overlay.js).

// -- drawing ---------------------------------------------------------------------------------

function resize() {
  const canvas = $("pj-canvas");
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(window.innerWidth * dpr);
  canvas.height = Math.round(window.innerHeight * dpr);
  canvas.style.width = window.innerWidth + "px";
  canvas.style.height = window.innerHeight + "px";
  draw();
}


// Returns whether anything could be drawn (a fit and the table are known).
function draw() {
  const canvas = $("pj-canvas");
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#000";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (!P.fit || !P.info) return false;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  drawMoves(ctx);
  drawThreats(ctx);
  drawDiscs(ctx);  // last: nothing drawn may light a tag
  P.draws += 1;
  return true;
}

function drawThreats(ctx) {
  P.verdictText = null;
  const th = P.threats;
  const a = P.selected && P.live[P.selected];
  if (!a || a.state === "removed") return;
  const k = pxPerInch(a.x, a.y);
  // the piece's own ranges (its weapons), else the ruleset's rings
  const info = P.pieces[a.id] || { ranges: {} };
  const ranges = Object.values(info.ranges || {});
  ctx.strokeStyle = "#d0d0d0";
  ctx.lineWidth = LINE_IN * k * 0.7;
  ctx.setLineDash([]);
  for (const r of ranges.length ? ranges : P.info.rings || []) {
    circlePath(ctx, a.x, a.y, r);
    ctx.stroke();
  }
  if (!th || th.from !== a.id || !th.verdict) return;
  const counts = { seen: 0, doubt: 0, blocked: 0, out: 0 };
  for (const t of th.verdict.targets || []) {
    const b = P.live[t.to];
    const kind = threatKind(t);
    counts[kind] += 1;
    if (!b || b.state === "removed") continue;
    const [x1, y1] = px(a.x, a.y);
    const [x2, y2] = px(b.x, b.y);
    ctx.strokeStyle = threatColour(P.info.palette, kind);
    ctx.lineWidth = LINE_IN * k;
    ctx.setLineDash(kind === "out" ? [0.5 * k, 0.4 * k] : []);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
    ctx.stroke();
    ctx.setLineDash([]);
    const target = P.pieces[t.to] || { base: [1, 1] };
    circlePath(ctx, b.x, b.y, Math.max(...target.base) * 0.75 + 0.2);
    ctx.stroke();
  }
  const words = [`${a.id}: ${counts.seen} in sight`];
  if (counts.doubt) words.push(`${counts.doubt} doubtful`);
  if (counts.blocked) words.push(`${counts.blocked} blocked`);
  if (counts.out) words.push(`${counts.out} out of range`);
  P.verdictText = words.join(" · ");
  const size = Math.max(MIN_TEXT_PX, TEXT_IN * k);
  const base = Math.max(...(info.base || [1, 1]));
  const [tx, ty] = px(a.x + base, a.y - base);
  ctx.font = `600 ${Math.round(size)}px system-ui, sans-serif`;
  ctx.fillStyle = "#ffffff";
  ctx.textBaseline = "bottom";
  ctx.fillText(P.verdictText, tx, ty);
}

// The newest moves as on the dashboard: a corrected move to where the players said it
// ended, a voided one not at all; coloured by the worst verdict on it, with its distance.
function drawMoves(ctx) {
  const fixes = new Map();
  for (const e of P.events) if (e.type === "correction") fixes.set(e.supersedes, e);
  const moves = P.events.filter((e) => e.type === "move" && e.from && e.to && !(fixes.get(e.seq) || {}).void)
    .map((e) => (fixes.get(e.seq)?.to ? { ...e, to: fixes.get(e.seq).to } : e)).slice(-MOVES_SHOWN);
  for (const m of moves) {
    const fix = fixes.get(m.seq);
    const about = fix && fix.to ? fix.seq : m.seq;
    const verdicts = P.events.filter((e) => e.type === "verdict" && e.about === about).map((e) => e.verdict || {});
    const colour = moveColour(P.info.palette, moveMark(verdicts));
    const [ax, ay] = px(m.from.x, m.from.y);
    const [bx, by] = px(m.to.x, m.to.y);
    const k = pxPerInch(m.to.x, m.to.y);
    const len = Math.hypot(bx - ax, by - ay) || 1;
    const [ux, uy] = [(bx - ax) / len, (by - ay) / len];
    const head = Math.min(0.9 * k, len * 0.4);
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = LINE_IN * k;
    ctx.beginPath();
    ctx.moveTo(ax, ay);
    ctx.lineTo(bx - ux * head * 0.5, by - uy * head * 0.5);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(bx, by);
    ctx.lineTo(bx - ux * head - uy * head * 0.5, by - uy * head + ux * head * 0.5);
    ctx.lineTo(bx - ux * head + uy * head * 0.5, by - uy * head - ux * head * 0.5);
    ctx.closePath();
    ctx.fill();
    ctx.font = `600 ${Math.round(Math.max(MIN_TEXT_PX * 0.8, 0.6 * k))}px system-ui, sans-serif`;
    ctx.textBaseline = "middle";
    ctx.fillText(`${Number(m.distance).toFixed(1)}"`, (ax + bx) / 2 - uy * 0.8 * k, (ay + by) / 2 + ux * 0.8 * k);
  }
}

// Every tag dark: anchors where they are glued, each piece's tag where its pose puts it.
function drawDiscs(ctx) {
  const discs = P.fit.discs;
  // the polygon's edges must lie outside the disc: its points pushed out by 1/cos(pi/96)
  const out = 1 / Math.cos(Math.PI / 96);
  ctx.fillStyle = "#000";
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 2;  // a guard band: a lit pixel's light spills past its edge
  ctx.setLineDash([]);
  const spots = discs.anchors.map((a) => [a.x, a.y, a.radius]);
  for (const pose of Object.values(P.live)) {
    const tag = discs.pieces[pose.id];
    if (!tag) continue;
    const h = (pose.heading * Math.PI) / 180;
    const [fwd, right] = tag.offset;
    spots.push([pose.x + fwd * Math.cos(h) - right * Math.sin(h), pose.y + fwd * Math.sin(h) + right * Math.cos(h), tag.radius]);
  }
  for (const [x, y, r] of spots) {
    circlePath(ctx, x, y, r, out);
    ctx.fill();
    ctx.stroke();
  }
}

// -- the calibration pattern -----------------------------------------------------------------

// Which part of the table the projector lights: a projector over part of it is fine, said so.
function coverage(outline) {
  if (!outline || !outline.length) return "covering none of the table";
  const xs = outline.map((p) => p[0]);
  const ys = outline.map((p) => p[1]);
  const span = (v) => `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;
  return `covering x ${span(xs)} in, y ${span(ys)} in of the table`;
}

function showPattern() {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.round(window.innerWidth * dpr);
  const height = Math.round(window.innerHeight * dpr);
  const img = $("pj-pattern");
  img.style.width = window.innerWidth + "px";
  img.style.height = window.innerHeight + "px";
  img.onerror = () => notice(new Error("the pattern could not be loaded (see /api/projector/pattern.png)"));
  img.src = `api/projector/pattern.png?width=${width}&height=${height}` + (TOKEN ? "&token=" + encodeURIComponent(TOKEN) : "");
  img.hidden = false;
  $("pj-canvas").hidden = true;
  const said = (error) => { $("pj-result").textContent = String(error.message || error); };
  $("pj-calibrate").onclick = () => {
    $("pj-result").textContent = "calibrating…";
    api("projector/calibrate", { width, height })
      .then((fit) => {
        $("pj-result").textContent = `fitted: ${fit.held_out_p95_in.toFixed(3)} in (95%), ` +
          `${fit.points_used} points, ${coverage(fit.covered)}; saved ${fit.saved}; ` +
          "now open /projector";
      })
      .catch(said);
  };
  $("pj-check").onclick = () => {
    $("pj-result").textContent = "checking…";
    api("projector/check", { width, height })
      .then((c) => {
        const shift = `${c.shift_p95_in.toFixed(3)} in (95%)`;
        $("pj-result").textContent = c.holds
          ? `the fit holds: the pattern lands within ${shift}; now open /projector`
          : `re-fitted: the projector had moved ${shift}; saved ${c.saved}; now open /projector`;
      })
      .catch(said);
  };
}

if (PATTERN) showPattern();
else {
  window.addEventListener("resize", resize);
  connect();
}
