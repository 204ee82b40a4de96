// Where the map's words go: beside what they name, never over a base or another word.
import { UNKNOWN_PIECE } from "./colours.js";
import { $ } from "./dom.js";
import { S } from "./state.js";

// -- where the words go -------------------------------------------------------------------------
// Every word on the map is placed after the layers are drawn: each tries spots around what
// it names, nearest first, and takes the first inside the cloth that covers no base and no
// word placed before it (pieces' names first, then move distances, range names, terrain);
// the least crowded spot when none is free. A word keeps its spot while that stays free, so
// the names do not hop about as pieces move. (referee/picture.py does the same for pictures.)

const LABEL_GAP = 0.12;  // inches between a word and what it must not cover
const labelSizes = new Map();  // "text|size" -> [width, height] inches

function labelSize(node, size) {
  const key = node.textContent + "|" + size;
  let wh = labelSizes.get(key);
  if (!wh) {
    const box = node.getBBox();  // once per word and size: a layout pass
    if (!box.width) return [node.textContent.length * size * 0.6, size * 1.2];
    wh = [box.width, box.height];
    if (labelSizes.size > 4000) labelSizes.clear();
    labelSizes.set(key, wh);
  }
  return wh;
}

// Each drawn piece's base as a box on the table (its rotated rectangle's bounds).
function baseBoxes() {
  const out = [];
  for (const node of $("pieces").children) {
    const info = S.pieces[node.dataset.id] || UNKNOWN_PIECE;
    const [w, d] = info.base;
    const a = Number(node.dataset.heading || 0) * Math.PI / 180;
    const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
    const hx = (d * c + w * s) / 2, hy = (d * s + w * c) / 2;
    const x = Number(node.dataset.x), y = Number(node.dataset.y);
    out.push({ id: node.dataset.id, x, y, hx, hy, box: [x - hx, y - hy, x + hx, y + hy] });
  }
  return out;
}

function boxesMeet(a, b, pad) {
  return a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;
}

// The spots a piece's name may take (centres), nearest first: below, above, beside, the
// corners, then further out.
function* aroundBase(base, w, h) {
  for (let k = 0; k < 5; k++) {
    const e = LABEL_GAP + k * h * 0.75;
    const dy = base.hy + e + h / 2, dx = base.hx + e + w / 2;
    yield [base.x, base.y + dy]; yield [base.x, base.y - dy];
    yield [base.x + dx, base.y]; yield [base.x - dx, base.y];
    yield [base.x + dx, base.y + dy]; yield [base.x - dx, base.y + dy];
    yield [base.x + dx, base.y - dy]; yield [base.x - dx, base.y - dy];
  }
}

function* besideLine(ends, w, h) {
  const [ax, ay, bx, by] = ends;
  const len = Math.hypot(bx - ax, by - ay) || 1;
  const [nx, ny] = [-(by - ay) / len, (bx - ax) / len];
  for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {
    for (const gap of [0.3, 0.8, 1.4]) {
      const off = gap + Math.abs(nx) * w / 2 + Math.abs(ny) * h / 2;
      const [mx, my] = [ax + (bx - ax) * t, ay + (by - ay) * t];
      yield [mx + nx * off, my + ny * off];
      yield [mx - nx * off, my - ny * off];
    }
  }
}

function* onRing(cx, cy, r) {
  for (let k = 0; k < 16; k++) {
    const a = (-45 - 22.5 * (k % 2 ? -(k + 1) / 2 : k / 2)) * Math.PI / 180;  // from upper right
    yield [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  }
}

function* nearPoint(cx, cy, w, h) {
  yield [cx, cy];
  for (let k = 1; k < 6; k++) {
    yield [cx, cy + k * h * 1.1]; yield [cx, cy - k * h * 1.1];
    yield [cx + k * w * 0.6, cy]; yield [cx - k * w * 0.6, cy];
  }
}

export function placeLabels() {
  if (!S.info) return;
  const table = [0, 0, S.info.table.width, S.info.table.depth];
  const bases = baseBoxes();
  const placed = [];
  const place = (node, size, spots, origin) => {
    const [w, h] = labelSize(node, size);
    const pad = size * 0.08;
    const boxAt = ([x, y]) => [x - w / 2, y - h / 2, x + w / 2, y + h / 2];
    const cost = (box) => {
      let c = box[0] < table[0] || box[1] < table[1] || box[2] > table[2] || box[3] > table[3] ? 1 : 0;
      for (const b of bases) if (boxesMeet(box, b.box, pad)) c += 10;
      for (const other of placed) if (boxesMeet(box, other, pad)) c += 5;
      return c;
    };
    const list = Array.from(spots);
    const kept = Number(node.dataset.slot);
    const order = Number.isInteger(kept) && kept < list.length ? [kept, ...list.keys()] : list.keys();
    let best = null;
    for (const i of order) {
      const box = boxAt(list[i]);
      const c = cost(box);
      if (!best || c < best.c) best = { i, c, box };
      if (c === 0) break;
    }
    if (!best) return;
    const [x, y] = list[best.i];
    node.dataset.slot = best.i;
    node.setAttribute("x", +(x - origin[0]).toFixed(3));
    node.setAttribute("y", +(y - origin[1]).toFixed(3));
    placed.push(best.box);
  };
  const { label, small } = S.font;
  for (const base of bases) {
    const text = $("pieces").querySelector(`[data-id="${CSS.escape(base.id)}"] > text.label`);
    if (!text) continue;
    const [w, h] = labelSize(text, label);
    place(text, label, aroundBase(base, w, h), [base.x, base.y]);
  }
  for (const text of $("moves").querySelectorAll("text.move-label")) {
    const [w, h] = labelSize(text, small);
    place(text, small, besideLine(text.dataset.ends.split(" ").map(Number), w, h), [0, 0]);
  }
  for (const text of $("rings").querySelectorAll("text.ring-label")) {
    place(text, small, onRing(Number(text.dataset.cx), Number(text.dataset.cy), Number(text.dataset.r)), [0, 0]);
  }
  for (const text of $("terrain").querySelectorAll("text.terrain-label")) {
    const [w, h] = labelSize(text, label);
    place(text, label, nearPoint(Number(text.dataset.cx), Number(text.dataset.cy), w, h), [0, 0]);
  }
}
