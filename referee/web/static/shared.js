// What the overlay and projector pages share, loaded before either (plain scripts, no build
// step): the server's API with the page's token, and a threat view's targets asked as the
// dashboard asks them. Their colours and kinds are js/colours.js, which both pages import.
"use strict";

const $ = (id) => document.getElementById(id);
// A browser source's or projector's URL is not on anyone's screen: the token stays in it,
// and goes with every request (the server also set its cookie on the page's own visit).
const TOKEN = new URLSearchParams(location.search).get("token");

function api(path, body) {
  const headers = {};
  if (TOKEN) headers["X-Referee-Token"] = TOKEN;
  const init = { headers, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch("api/" + path, init).then(async (r) => {
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  });
}

// The `targets` question (not logged) of the piece `current()` names, one in flight at a
// time: a call meanwhile asks again once it is answered, so the newest table is asked.
// `done(from, threats)` gets {from, verdict}, or null when the piece cannot be asked now.
function targetsAsker(current, done) {
  const state = { busy: false, again: false };
  return function askThreats() {
    const from = current();
    if (!from) return;
    if (state.busy) { state.again = true; return; }
    state.busy = true;
    api("ask?log=0", { ask: "targets", from })
      .then((answer) => done(from, { from, verdict: answer.verdicts[0] }))
      .catch(() => done(from, null))  // off the table now: no lines
      .finally(() => {
        state.busy = false;
        if (state.again) { state.again = false; askThreats(); }
      });
  };
}
