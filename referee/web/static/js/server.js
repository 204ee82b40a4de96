// Talking to this server's /api with the tab's access token (nothing else is fetched).
// The access token of an exposed server: read from the URL once, kept for this tab, and taken
// out of the address bar (the server also set its cookie on this first visit), so it is not
// left on screen for anyone looking over a shoulder, nor in a bookmark or a screenshot.
export const TOKEN = (() => {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given) {
    try { sessionStorage.setItem("referee-token", given); } catch (err) { /* private mode */ }
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    return given;
  }
  try { return sessionStorage.getItem("referee-token"); } catch (err) { return null; }
})();

// -- talking to the server ----------------------------------------------------------------------

export function api(path, body) {
  const headers = {};
  if (TOKEN) headers["X-Referee-Token"] = TOKEN;
  const init = { headers, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch("api/" + path, init).then(async (r) => {
    const type = r.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await r.json() : await r.blob();
    if (!r.ok) {
      const err = new Error((data && data.error) || r.statusText);
      err.status = r.status;
      // 409 "pz1 is not on the table now": a state of the table, not the player's mistake
      err.absent = (data && data.absent) || null;
      throw err;
    }
    return data;
  });
}
