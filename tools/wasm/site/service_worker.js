// The site's service worker (docs/browser.md), written into the site as sw.js by
// tools/wasm/make_site.cmake with this version's files and their version filled in.
//  - Installs by caching every file of this version in one cache named by the version,
//    so the page works with no network after the first visit, and never from a mix of
//    two versions: each version answers only from its own cache.
//  - A new version waits until the page asks it to take over (the page says that a new
//    version is ready and reloads when the player agrees); the first one takes over at
//    once.
//  - Every answer it gives carries the headers that make the page cross-origin isolated
//    (COOP, COEP), which the engine's threads need, so a static host that sends no such
//    headers serves a page that can run them.
const VERSION = "@KZ_SITE_VERSION@";
const FILES = [@KZ_SITE_FILES@];
const CACHE = "kumalakzero-" + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // Straight from the network: an HTTP cache could still hold the older version.
    await cache.addAll(FILES.map((f) => new Request(f, { cache: "reload" })));
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

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // The site's own files from this version's cache ("/" is its index.html).
    const path = url.pathname.endsWith("/") ? url.pathname + "index.html" : url.pathname;
    const cached = await cache.match(new URL(path, url.origin).href, { ignoreSearch: true });
    if (cached) return isolated(cached);
    return isolated(await fetch(request));
  })());
});
