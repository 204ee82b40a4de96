// Health: the pipeline's figures, warm-up and the cameras.
import { $, html } from "./dom.js";
import { api } from "./server.js";
import { S } from "./state.js";
import { connected, setConnected } from "./stream.js";

// -- health -------------------------------------------------------------------------------------

export async function refreshHealth() {
  let h;
  try { h = await api("health"); } catch (err) { return; }
  const cal = h.calibration;
  const rms = cal.rms_px === null ? "n/a" : `${cal.rms_px.toFixed(2)} px`;
  // The sample's camera is simulated: its profile is exact, made without photos of a
  // board; "0 views, RMS 0" would read as a calibration that failed.
  const calText = cal.frame_source === "simulated"
    ? "exact (the sample's simulated camera: no calibration photos needed)"
    : `${cal.frame_source}, RMS ${rms}, ${cal.views_used} views`;
  const rows = [
    ["Calibration", calText + (cal.re_registered ? ", re-registered after a bump" : "")],
    ["Frame rate", `${h.fps} fps (${h.frames} frames)`],
    ["Pieces seen", h.pieces.seen.join(", ") || "none"],
    ["Hidden", h.pieces.hidden.join(", ") || "none"],
    ["Missing", h.pieces.missing.join(", ") || "none"],
    ["Unknown tags", h.unknown_tags.join(", ") || "none"],
    ["Camera", h.camera.map((e) => `${e.t.toFixed(1)}s ${e.camera ? `camera ${e.camera} ` : ""}${e.kind}`)
      .join("; ") || "no events"],
  ];
  if (h.error) rows.push(["Stopped", h.error]);
  const was = S.ended;
  S.ended = h.running || !h.frames ? null : h.error ? "stopped"
    : S.info && S.info.live_source ? "camera stopped" : "video ended";
  if (was !== S.ended) setConnected(connected);
  const table = $("health");
  table.replaceChildren();
  for (const [k, v] of rows) {
    const tr = html("tr");
    tr.append(html("td", k), html("td", v));
    table.appendChild(tr);
  }
  showCameras(h.cameras || []);
  showWarmUp(h.warm_up);
  // A camera that dropped or ended while the others go on is named in the header line too.
  const out = (h.cameras || []).filter((c) => c.state === "dropped" || (c.state === "ended" && h.running));
  $("health-summary").textContent = `${h.pieces.seen.length} seen · ${h.pieces.missing.length} missing` +
    (h.unknown_tags.length ? ` · ${h.unknown_tags.length} unknown tags` : "") +
    out.map((c) => ` · camera ${c.camera} ${c.state}`).join("");
}

// The first start after installing: the line-of-sight engine compiles for this machine in
// the background, and answers come (a little slower) meanwhile; nothing waits on it.
function showWarmUp(warm) {
  const badge = $("warm-up");
  badge.hidden = !(warm && warm.running);
  badge.textContent = "warming up";
  badge.title = "preparing the line-of-sight engine for this machine (once after installing); "
    + "answers are a little slower until it is ready";
}

// One row per camera: what it sees this tick, its calibration, bumps, and whether it is live.
function showCameras(cameras) {
  const table = $("cameras");
  table.replaceChildren();
  for (const c of cameras) {
    const tr = html("tr");
    tr.className = c.state;
    tr.dataset.camera = String(c.camera);
    tr.dataset.state = c.state;
    const tick = c.tags === null ? "no frame"
      : `${c.tags} tags, ${c.pieces.length} pieces` + (c.disagreed.length ? ` (left out: ${c.disagreed.join(", ")})` : "");
    const rms = c.rms_px === null ? "RMS n/a" : `RMS ${c.rms_px.toFixed(2)} px`;
    const bumps = c.re_registered ? `, re-registered after ${c.moved} bump${c.moved === 1 ? "" : "s"}`
      : c.moved ? `, bumped ${c.moved}x` : "";
    // Two columns, as the health table above: the line wraps on a phone instead of widening it.
    tr.append(html("td", `${c.camera}: ${c.name}`),
      html("td", `${c.state} · ${c.frames} frames · ${tick} · ${rms}${bumps}`));
    table.appendChild(tr);
  }
}
