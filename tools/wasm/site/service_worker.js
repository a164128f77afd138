// The site's service worker (docs/browser.md), written into the site as sw.js by
// tools/wasm/make_site.cmake with this version's files and their version filled in.
//  - Installs by caching every file of this version in one cache named by the version,
//    so the page works with no network after the first visit, and never from a mix of
//    two versions: each version answers only from its own cache.
//  - Of the two engines it installs one (the page runs one, page_worker.js): on a first
//    install the threaded one, which the isolation it gives lets the page run; after a
//    version whose page ran the engine without threads (a browser that runs this worker
//    but does not isolate the page by its headers: its cache holds that engine), that
//    one. The other is kept the first time the page asks for it, if its bytes are this
//    version's (their SHA-256 is written in below): never a newer version's engine in
//    this version's cache.
//  - A new version waits until the page asks it to take over (the page says that a new
//    version is ready and reloads when the player agrees); the first one takes over at
//    once.
//  - Every answer it gives carries the headers that make the page cross-origin isolated
//    (COOP, COEP), which the engine's threads need, so a static host that sends no such
//    headers serves a page that can run them.
const VERSION = "@KZ_SITE_VERSION@";
// Every file of this version but the engines' code.
const FILES = [@KZ_SITE_FILES@];
// Each engine's files and their SHA-256: {threads: {name: hash}, oneThread: {...}}.
const ENGINES = @KZ_SITE_ENGINES@;
const CACHE = "kumalakzero-" + VERSION;

// The engine files by their address: {engine, hash}.
const ENGINE_FILES = new Map();
for (const [engine, files] of Object.entries(ENGINES))
  for (const [name, hash] of Object.entries(files))
    ENGINE_FILES.set(new URL(name, self.location.href).href, { engine, hash });

// Which engine to install: the one without threads where an earlier version's page ran it
// (its cache holds it), else the threaded one.
async function engineToInstall() {
  const oneThread = Object.keys(ENGINES.oneThread);
  for (const name of await caches.keys()) {
    if (!name.startsWith("kumalakzero-") || name === CACHE) continue;
    const old = await caches.open(name);
    if (await old.match(new URL(oneThread[0], self.location.href).href, { ignoreSearch: true }))
      return "oneThread";
  }
  return "threads";
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const files = FILES.concat(Object.keys(ENGINES[await engineToInstall()]));
    // Straight from the network: an HTTP cache could still hold the older version.
    await cache.addAll(files.map((f) => new Request(f, { cache: "reload" })));
    if (!self.registration.active) await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith("kumalakzero-") && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data === "take-over") self.skipWaiting();
  else if (event.data === "version") event.source.postMessage({ version: VERSION });
});

function isolated(response) {
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// An engine file this version did not install, from the network into this version's
// cache, if it is this version's: a host that already serves a newer version gets a 503
// (the page says that its engine could not start, and the browser's next update check
// finds the new version), never a mix of two.
async function fetchEngineFile(cache, href, hash) {
  const response = await fetch(new Request(href, { cache: "reload" }));
  if (!response.ok) return response;
  const bytes = await response.arrayBuffer();
  if (hex(await crypto.subtle.digest("SHA-256", bytes)) !== hash)
    return new Response("this file is of another version of the site", { status: 503,
      statusText: "Another version", headers: { "Content-Type": "text/plain" } });
  const kept = new Response(bytes, { status: response.status, statusText: response.statusText,
                                     headers: response.headers });
  await cache.put(href, kept.clone());
  return kept;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // The site's own files from this version's cache ("/" is its index.html).
    const path = url.pathname.endsWith("/") ? url.pathname + "index.html" : url.pathname;
    const href = new URL(path, url.origin).href;
    const cached = await cache.match(href, { ignoreSearch: true });
    if (cached) return isolated(cached);
    const engineFile = ENGINE_FILES.get(href);
    if (engineFile) return isolated(await fetchEngineFile(cache, href, engineFile.hash));
    return isolated(await fetch(request));
  })());
});
