// The camera panel: the newest picture with the tags it saw outlined.
import { $, html } from "./dom.js";
import { TOKEN } from "./server.js";
import { S } from "./state.js";

// -- camera view with the tags outlined --------------------------------------------------------

const CAMERA_EVERY = 125;  // ms: the server makes at most 8 new camera pictures a second
const recentTags = new Map();  // frame -> tags, to outline the frame the picture shows
let camBusy = false;
let camLast = 0;

// Several cameras: a picker chooses whose picture the panel shows (the health tab lists all).
export function setupCameraPick() {
  const cameras = (S.info && S.info.cameras) || [];
  const pick = $("camera-pick");
  $("camera-pick-row").hidden = cameras.length < 2;
  if (S.camera > cameras.length) S.camera = 1;
  pick.replaceChildren();
  for (const c of cameras) {
    const option = html("option", `${c.camera}: ${c.name.split(/[\\/]/).pop()}`);  // a path's file name
    option.value = String(c.camera);
    pick.appendChild(option);
  }
  pick.value = String(S.camera);
  pick.onchange = () => { S.camera = Number(pick.value) || 1; camLast = 0; };
}

// The tags (and picture size) of the camera shown: a frame message of several cameras
// carries each one's under "cameras"; the top-level tags are the first camera's.
function cameraTags(msg) {
  if (!msg) return msg;
  return msg.cameras ? msg.cameras[S.camera - 1] : msg;
}

export function drawCamera(msg) {
  recentTags.set(msg.frame, msg);
  if (recentTags.size > 60) recentTags.delete(recentTags.keys().next().value);
  const now = performance.now();
  if (camBusy || now - camLast < CAMERA_EVERY) return;
  camBusy = true;
  camLast = now;
  const headers = TOKEN ? { "X-Referee-Token": TOKEN } : {};
  const camera = S.camera;
  const query = camera > 1 ? `?camera=${camera}` : "";
  fetch("api/camera.jpg" + query, { headers, credentials: "same-origin" })
    .then(async (r) => {
      if (!r.ok || camera !== S.camera) return;  // the user picked another camera meanwhile
      const frame = Number(r.headers.get("X-Frame"));
      const bitmap = await createImageBitmap(await r.blob());
      paintCamera(bitmap, cameraTags(recentTags.get(frame)));
    })
    .catch(() => {})
    .finally(() => { camBusy = false; });
}

function paintCamera(bitmap, tags) {
  const canvas = $("camera");
  const ctx = canvas.getContext("2d");
  if (canvas.width !== bitmap.width) {
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
  }
  ctx.drawImage(bitmap, 0, 0);
  $("camera-note").textContent = "";
  if (!tags || !tags.tags) return;
  const k = canvas.width / tags.image_size[0];
  const colours = { piece: "#3ad15a", anchor: "#3c9cff", unknown: "#ff4040" };
  ctx.lineWidth = 2;
  ctx.font = "bold 16px sans-serif";
  for (const tag of tags.tags) {
    ctx.strokeStyle = ctx.fillStyle = colours[tag.kind] || "#fff";
    ctx.beginPath();
    tag.corners.forEach(([x, y], i) => (i ? ctx.lineTo(x * k, y * k) : ctx.moveTo(x * k, y * k)));
    ctx.closePath();
    ctx.stroke();
    const [x, y] = tag.corners[2];
    ctx.fillText(tag.label, x * k + 4, y * k + 4);
  }
}
