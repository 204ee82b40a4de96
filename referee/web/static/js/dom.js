// The page's DOM helpers: an element by id, SVG and HTML nodes, the side panel's tabs.
import { el } from "./draw.js";

// SVG nodes are drawn by draw.js; the dashboard's modules take them from here with the rest.
export { el };
export const $ = (id) => document.getElementById(id);


export function html(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

// The side panel's tabs: one pane shown at a time.
export function showTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const pane of document.querySelectorAll(".pane")) pane.hidden = pane.id !== "pane-" + name;
}
