// The turn assistant: initiative, dice and declarations.
import { mark } from "./dispute.js";
import { $, html } from "./dom.js";
import { api } from "./server.js";
import { S } from "./state.js";

// -- turn assistant -----------------------------------------------------------------------------

// Built again for each new game (a new pass of the sample...), keeping what the player typed
// and picked: only a side or a piece the new game lacks loses its entry.
export function setupTurn() {
  const pt = S.info.ruleset.name === "paper-tigers";
  $("turn-pt").hidden = !pt;
  $("turn-questions").textContent = `${S.info.ruleset.title} answers: ${S.info.ruleset.questions.join(", ")}`;
  const sides = $("dice-sides");
  const typed = {};
  for (const input of sides.querySelectorAll("input")) typed[input.dataset.side] = input.value;
  sides.replaceChildren();
  for (const side of Object.keys(S.info.sides)) {
    const input = html("input");
    input.placeholder = `${side}: two dice 1-6, e.g. 5 2`;
    input.dataset.side = side;
    input.size = 14;
    input.value = typed[side] || "";
    sides.appendChild(input);
  }
  const sel = $("act-piece");
  const picked = sel.value;
  sel.replaceChildren(html("option", ""));
  for (const id of Object.keys(S.pieces)) sel.appendChild(html("option", id));
  if (picked in S.pieces) sel.value = picked;
  diceHint();
}

// Paper Tigers: a red card fires with 3 dice or moves with 2, a black card moves with 3 or
// fires with 2, a recovery rolls 2: the hint asks for the number the rules will accept.
function diceHint() {
  const card = $("act-card").value.trim().toUpperCase();
  const action = $("act-action").value;
  const suit = card.slice(-1);
  const red = suit === "H" || suit === "D";
  const black = suit === "S" || suit === "C";
  let need = null;
  if (action === "recover") need = 2;
  else if (red) need = action === "fire" ? 3 : 2;
  else if (black) need = action === "move" ? 3 : 2;
  $("act-dice").placeholder = need === null ? "dice 1-6, e.g. 4 5" : `${need} dice 1-6, e.g. ${[4, 5, 2].slice(0, need).join(" ")}`;
}
$("act-card").oninput = diceHint;
$("act-action").onchange = diceHint;

function numbers(text) { return (text.match(/\d+/g) || []).map(Number); }

// A refusal in plain words: the API names the field the way a scene file does
// ("request: $.queries[0].dice.red: must be..."); the player typed no scene file.
export function plainError(message) {
  return String(message)
    .replace(/^request: \$\.queries\[0\]\.?/, "")
    .replace(/\$\.queries\[\d+\]\.?/g, "")
    .replace(/^([\w.\[\]]+): /, (_, path) => path.replace(/\[(\d+)\]/g, (m, i) => ` ${Number(i) + 1}`)
      .replace(/\./g, " ") + ": ");
}

async function declare(query) {
  const out = $("turn-result");
  out.replaceChildren();
  try {
    const answer = await api("declare", query);
    for (const v of answer.verdicts) {
      out.appendChild(html("div", v.summary || v.ask, "line " + mark(v)));
      const reasons = html("ul", undefined, "reasons");
      for (const r of v.reasons || []) reasons.appendChild(html("li", r));
      out.appendChild(reasons);
    }
    if (!answer.verdicts.length) out.appendChild(html("p", "noted for the next moves"));
  } catch (err) {
    out.appendChild(html("p", plainError(err.message), "error"));
  }
}

$("init-go").onclick = () => {
  const cards = {};
  for (const part of $("init-cards").value.split(",")) {
    const [id, card] = part.split("=").map((s) => s && s.trim());
    if (id && card) cards[id] = card;
  }
  declare({ ask: "initiative", cards });
};
$("dice-go").onclick = () => {
  const dice = {};
  for (const input of $("dice-sides").querySelectorAll("input")) {
    if (input.value.trim()) dice[input.dataset.side] = numbers(input.value);
  }
  declare({ ask: "cards", dice });
};
$("act-go").onclick = () => {
  const q = { ask: "action", card: $("act-card").value.trim(), action: $("act-action").value };
  if ($("act-piece").value) q.piece = $("act-piece").value;
  const dice = numbers($("act-dice").value);
  if (dice.length) q.dice = dice;
  declare(q);
};
$("declare-go").onclick = () => {
  let q;
  try { q = JSON.parse($("declare-json").value); } catch (err) {
    $("turn-result").replaceChildren(html("p", "that is not a question in JSON, like the example: " +
      err.message, "error"));
    return;
  }
  declare(q);
};
