// The static site as an installable app that works offline (docs/browser.md): its
// service worker (sw.js, from tools/wasm/site/service_worker.js) keeps this version's
// files, and gives the page the headers that let the engine use threads (cross-origin
// isolation) on any static host. The page compiled into `kumalak serve` (site.js:
// localEngine false) has no service worker and nothing to do here.
import { SITE } from "./site.js";
import { tr } from "./i18n.js";

// Resolves when the page may start its engine. On a first visit to a host that sends no
// isolation headers, the service worker is installed and the page reloaded once under
// it (this promise then never resolves: the page is going away), so that the engine is
// started, and downloaded, only once, as the threaded one.
//
// A page already under the service worker (every opening after the first visit) starts
// its engine at once and registers in the background (which keeps the watch for a new
// version): register() resolved 1.5-2.8 s after it was called in one opening of four or
// five at a phone's speed, most often the first or second after installing, and held the
// engine back that long (tools/wasm/phone_speed.py, docs/browser.md).
export async function prepareSite() {
  if (!SITE.localEngine || !("serviceWorker" in navigator)) return;
  // Under the service worker already, the page came with its isolation headers: a page
  // that is not isolated then is in a browser that does not isolate by them (a WebView,
  // an older browser), where a reload would change nothing. It runs the engine without
  // threads, which the service worker keeps offline as well.
  if (navigator.serviceWorker.controller) {
    sessionStorage.removeItem("kz-isolation-reload");
    navigator.serviceWorker.register("sw.js").then(watchForUpdates, (e) => {
      console.warn("service worker not registered:", e);
    });
    return;
  }
  let registration;
  try {
    registration = await navigator.serviceWorker.register("sw.js");
  } catch (e) {
    // A browser that refuses service workers here (a private window, an address that
    // is not https): the page runs where the server's headers isolate it, and runs the
    // engine without threads where nothing does (page_worker.js).
    console.warn("service worker not registered:", e);
    return;
  }
  watchForUpdates(registration);
  if (crossOriginIsolated) {
    sessionStorage.removeItem("kz-isolation-reload");
    return;
  }
  if (sessionStorage.getItem("kz-isolation-reload")) return;  // reloaded once already
  if (!navigator.serviceWorker.controller)
    await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
  try {
    sessionStorage.setItem("kz-isolation-reload", "1");
  } catch (e) {
    return;  // a reload could not know it had happened: never a loop of reloads
  }
  // The document left behind by this reload may come back from the back/forward cache
  // (Chromium restored it on a hard reload, Ctrl+Shift+R, of the isolated page), frozen
  // here with no engine: it reloads again, this time under the service worker.
  window.addEventListener("pageshow", (e) => {
    if (e.persisted) location.reload();
  });
  location.reload();
  await new Promise(() => {});
}

// A newer version of the site installed beside this one waits; the page says so and
// reloads under it when the player agrees, so its files never mix with these.
function watchForUpdates(registration) {
  const offer = (waiting) => {
    if (!waiting || !navigator.serviceWorker.controller) return;  // a first install
    showUpdate(waiting);
  };
  offer(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const incoming = registration.installing;
    if (!incoming) return;
    incoming.addEventListener("statechange", () => {
      if (incoming.state === "installed") offer(incoming);
    });
  });
}

function showUpdate(waiting) {
  let bar = document.getElementById("update-ready");
  if (!bar) {
    bar = document.createElement("div");
    bar.id = "update-ready";
    bar.setAttribute("role", "status");
    const text = document.createElement("span");
    text.textContent = tr("A new version of the page is ready.");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = tr("Reload");
    bar.append(text, " ", button);
    document.body.prepend(bar);
    button.addEventListener("click", () => {
      navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
      waiting.postMessage("take-over");
    });
  }
}
