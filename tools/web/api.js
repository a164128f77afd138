// Talking to the engine's JSON API (docs/serve.md), and the one message box of a page
// (#toast), shared by the board page (game.js, puzzles.js) and the Run view (run.js).
// The API is answered by `kumalak serve` over HTTP, or, in the static site
// (site.js), by the WebAssembly engine in a Web Worker of this page: the same calls and
// answers, from the same C++ (tools/serve/api_router.h). It says its errors, the hints'
// reasons and the analysis' comments in the language of the page's menu, so every
// request carries it.
import { currentLanguage, keepNumbersWithEndings, tr } from "./i18n.js";
import { SITE } from "./site.js";

// The page's engine worker (tools/wasm/page_worker.js), started on the first call, and
// the calls it has not answered yet by id.
let engine = null;
let engineFailure = null;
let engineMismatch = false;
let engineUnsupported = false;
let nextCall = 1;
const unanswered = new Map();

// The smallest module with a SIMD128 instruction (i8x16.splat, i8x16.popcnt): a browser
// that does not validate it cannot compile the engine (built with -msimd128), whatever
// its files.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
                                   10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

function browserRunsTheEngine() {
  try {
    return typeof WebAssembly === "object" && WebAssembly.validate(SIMD_PROBE);
  } catch (e) {
    return false;
  }
}

function startEngine() {
  if (!browserRunsTheEngine()) {
    console.error("the page's engine cannot run: no WebAssembly SIMD in this browser");
    engineUnsupported = true;
    engineFailure = "no WebAssembly SIMD";
    return;
  }
  engine = new Worker("page_worker.js");
  const fail = (reason) => {
    console.error("the page's engine failed:", reason);
    engineFailure = reason;
    for (const settle of unanswered.values()) settle(null);
    unanswered.clear();
  };
  engine.onmessage = (event) => {
    const m = event.data;
    if (m.failed) fail(m.failed);
    // A page and an engine of two versions of the site would disagree on the calls.
    if (m.ready && m.version !== SITE.version) {
      engineMismatch = true;
      fail(`the page is version ${SITE.version}, its engine ${m.version}`);
    }
    const settle = unanswered.get(m.id);
    if (!settle) return;
    unanswered.delete(m.id);
    settle(m);
  };
  engine.onerror = (event) => fail(event.message || "the worker stopped");
}

// Why the engine could not start, in the player's words (the technical reason goes to
// the console). A page the browser does not isolate runs the engine without threads
// (page_worker.js), so the lack of threads is never the reason.
function failureWords() {
  if (engineMismatch) return tr("The page and its engine are of different versions. Reload the page.");
  if (engineUnsupported)
    return tr("This browser cannot run the engine (it lacks WebAssembly SIMD). Update it, or open the page in a current Chrome, Firefox or Safari.");
  return tr("The engine could not start: its files did not load completely. Reload the page while online.");
}

// The local engine's answer as a fetch Response: 503 saying why when the engine cannot
// run here.
function localRequest(method, path, body) {
  if (!engine && !engineFailure) startEngine();
  const failed = () =>
    new Response(JSON.stringify({ error: failureWords() }),
                 { status: 503, headers: { "Content-Type": "application/json" } });
  if (engineFailure) return Promise.resolve(failed());
  const [where, query] = path.split("?");
  const id = nextCall++;
  return new Promise((resolve) => {
    unanswered.set(id, resolve);
    engine.postMessage({
      id, method, path: where, params: Object.fromEntries(new URLSearchParams(query || "")),
      body: body === undefined ? "" : JSON.stringify(body), lang: currentLanguage(),
    });
  }).then((a) => a ? new Response(a.body, { status: a.status, headers: [["Content-Type", a.type], ...a.headers] })
                   : failed());
}

// The Run view's calls (run.js): training runs are read from the disk of the server the
// page came from (`kumalak serve --site DIR --run RUN`), so they go to that server even
// where the page's own engine answers everything else. A static host answers them 404.
const SERVER_CALLS = ["/api/runs", "/api/run"];

// The engine's answer to `method` `path` with the JSON `body` (none when undefined), as
// a fetch Response, whatever its status.
export function request(method, path, body) {
  if (SITE.localEngine && !SERVER_CALLS.includes(path.split("?")[0]))
    return localRequest(method, path, body);
  const opts = { method, headers: { "Accept-Language": currentLanguage() } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  return fetch(path, opts);
}

// The engine's JSON answer to `method` `path` with `body`. A refusal throws an Error
// with the engine's message (its `error`, else the HTTP status text) and the status in
// `.status`.
export async function api(method, path, body) {
  let res;
  try {
    res = await request(method, path, body);
  } catch (e) {
    // No answer at all (the browser says "Failed to fetch", in English): the server is
    // down or out of reach. Status 0 tells the callers to try again later.
    const err = new Error(tr("The server does not answer: is kumalak serve still running? The page will try again."));
    err.status = 0;
    throw err;
  }
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) {
    const err = new Error(keepNumbersWithEndings(data.error || res.statusText || String(res.status)));
    err.status = res.status;
    throw err;
  }
  return data;
}

// Shows `message` in the page's #toast for `ms` milliseconds; a newer message replaces
// it and starts the time again. `tone` "info" shows it as news, not as an error.
let toastTimer = null;
export function toast(message, ms = 5000, tone = "error") {
  const t = document.getElementById("toast");
  t.textContent = message;
  t.className = tone === "info" ? "info" : "";
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), ms);
}
