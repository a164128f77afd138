// Talking to `kumalak serve`'s JSON API (docs/serve.md), and the one message box of a
// page (#toast), shared by the board page (game.js, puzzles.js) and the Run view
// (run.js). The server says its errors, the hints' reasons and the analysis' comments in
// the language of the page's menu, so every request carries it as Accept-Language.
import { currentLanguage } from "./i18n.js";

// The server's answer to `method` `path` with the JSON `body` (none when undefined), as
// a fetch Response, whatever its status.
export function request(method, path, body) {
  const opts = { method, headers: { "Accept-Language": currentLanguage() } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  return fetch(path, opts);
}

// The server's JSON answer to `method` `path` with `body`. A refusal throws an Error
// with the server's message (its `error`, else the HTTP status text) and the status in
// `.status`.
export async function api(method, path, body) {
  const res = await request(method, path, body);
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) {
    const err = new Error(data.error || res.statusText || String(res.status));
    err.status = res.status;
    throw err;
  }
  return data;
}

// Shows `message` in the page's #toast for `ms` milliseconds; a newer message replaces
// it and starts the time again.
let toastTimer = null;
export function toast(message, ms = 5000) {
  const t = document.getElementById("toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), ms);
}
