#!/usr/bin/env python3
"""The page's two engines side by side in headless Chromium (docs/browser.md): the site's
page_worker.js served cross-origin isolated (kumalak-web.js, with threads) and served
without isolation (kumalak-web-1t.js, one thread), in rounds alternating between the two,
each round a fresh page and so a fresh worker. Prints, for each round, the time from the
page's start to the engine's ready message, to the engine's first move at level medium
(a new game with the engine playing white, as the site's first visit has it), and the
visits of level expert's hint from the start (its 1 s search, the first of the worker).
With --downloads, instead: what a first visit to the site on a plain static host
downloads, with a service worker (it installs, the page reloads isolated: the threaded
engine) and without one (hidden before the page's scripts: the one-thread engine), each
file asked for counted at its gzip -9 size, as often as it was asked for, until the
engine's first move at level medium.

  /usr/bin/python3 tools/wasm/page_engine_speed.py --site build-wasm/web-site --rounds 3
  /usr/bin/python3 tools/wasm/page_engine_speed.py --site build-wasm/web-site --downloads"""
import argparse
import gzip
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import web_browser  # noqa: E402
import web_engine_test  # noqa: E402  (its static server)

PAGE = """<!doctype html><meta charset="utf-8"><title>speed</title>
<script>
const worker = new Worker('page_worker.js');
const pending = new Map();
let next = 1;
worker.onmessage = (e) => {
  const m = e.data;
  if (m.ready) window.kzReady = performance.now();
  if (m.failed) window.kzFailed = m.failed;
  const settle = pending.get(m.id);
  if (settle) { pending.delete(m.id); settle(JSON.parse(m.body)); }
};
function call(method, path, body, params) {
  return new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    worker.postMessage({id, method, path, params: params || {},
                        body: body ? JSON.stringify(body) : '', lang: 'en'});
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(session, test) {
  for (;;) {
    const s = await call('GET', '/api/state', null, {session});
    if (test(s)) return s;
    await sleep(20);
  }
}
window.kzRun = (async () => {
  const a = await call('POST', '/api/new', {game: 'togyz', level: 'medium', human: 'black'});
  await until(a.session, (s) => s.moves.length > 0);
  const firstMove = performance.now();
  const b = await call('POST', '/api/new', {game: 'togyz', human: 'both'});
  await call('POST', '/api/hint', {session: b.session, level: 'expert'});
  const s = await until(b.session, (s) => !!s.hint);
  return {isolated: self.crossOriginIsolated, ready: window.kzReady, firstMove,
          nodes: s.hint.nodes, seconds: s.hint.seconds};
})();
</script>"""


def serve(folder, isolated):
    """The site `folder` with the timing page at /speed.html, isolated or not."""
    server, base = web_engine_test.serve(folder, PAGE, "speed.html", isolated)
    return server, base + "speed.html"


def first_visit_downloads(site, timeout):
    """{case: (paths asked for, their gzip -9 bytes)} of a first visit with and without a
    service worker."""
    from web_site_test import StaticHost
    out = {}
    for case in ("service worker", "no service worker"):
        host = StaticHost(site)
        with tempfile.TemporaryDirectory(prefix="kz-downloads-") as profile:
            driver = web_browser.phone_driver(profile)
            try:
                # A kept game against the engine at medium, the engine playing white, which
                # the page brings back and the engine answers at once.
                source = ("if (!localStorage.getItem('kz-game')) localStorage.setItem('kz-game', "
                          "JSON.stringify({game: 'togyz', level: 'medium', human: 'black', "
                          "pgn: '*'}));")
                if case == "no service worker":
                    source += "delete Navigator.prototype.serviceWorker;"
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
                driver.get("http://127.0.0.1:%d/" % host.port)
                end = time.monotonic() + timeout
                while not driver.execute_script(
                        "return !!(window.kzState && kzState.moves.length > 0)"):
                    if time.monotonic() > end:
                        sys.exit("FAIL: %s: no engine move" % case)
                    time.sleep(0.05)
            finally:
                driver.quit()
                host.stop()
        sizes = {}
        total = 0
        for path in host.requested:
            name = path.lstrip("/") or "index.html"
            if name not in sizes:
                with open(os.path.join(site, name), "rb") as f:
                    sizes[name] = len(gzip.compress(f.read(), 9))
            total += sizes[name]
        out[case] = (host.requested, total)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--site", required=True, help="the static site folder (build-wasm/web-site)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of each engine, alternating")
    p.add_argument("--timeout", type=float, default=120, help="seconds for one round")
    p.add_argument("--downloads", action="store_true", help="what a first visit downloads")
    args = p.parse_args()
    web_browser.require_browser(lambda why: sys.exit("FAIL: " + why))
    site = os.path.abspath(args.site)
    if args.downloads:
        for case, (paths, total) in first_visit_downloads(site, args.timeout).items():
            engines = sorted(set(x for x in paths if x.startswith("/kumalak-web")))
            print("%-17s %d requests, %.2f MB gzip -9; engine files: %s"
                  % (case, len(paths), total / 1e6, ", ".join(engines)), flush=True)
        return 0
    servers = {name: serve(site, name == "threads") for name in ("threads", "one thread")}
    driver = web_browser.desktop_driver(1000, 800)
    driver.set_script_timeout(args.timeout)
    results = {name: [] for name in servers}
    try:
        for _ in range(args.rounds):
            for name, (_, url) in servers.items():
                driver.get(url)
                r = driver.execute_async_script(
                    "window.kzRun.then(arguments[arguments.length - 1])")
                if r["isolated"] != (name == "threads"):
                    sys.exit("FAIL: the %s page is %sisolated" % (name, "" if r["isolated"] else "not "))
                results[name].append(r)
                print("%-10s ready %.2f s, first move (medium) %.2f s, expert's hint %d visits "
                      "in %.2f s" % (name, r["ready"] / 1000, r["firstMove"] / 1000, r["nodes"],
                                     r["seconds"]), flush=True)
    finally:
        driver.quit()
        for server, _ in servers.values():
            server.shutdown()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
