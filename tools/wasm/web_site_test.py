#!/usr/bin/env python3
"""The static site (build-wasm/web-site: the page with its WebAssembly engine, its service
worker, manifest and icons) in headless Chromium, as a player meets it on a plain static
host (CTest WasmSiteOffline; docs/browser.md):

 1. served with no special headers, the first visit installs the service worker and the
    page reloads itself once under it, cross-origin isolated (the engine's threads),
    having downloaded the threaded engine only (not the one-thread one);
 2. the installable-app check: the manifest read without errors, no installability error
    (Chromium's own, through the DevTools protocol), every file in the version's cache;
 3. the host is shut down, and on a 360 px phone in each of kk, ru, ky and en the page
    plays a move against the engine, gives a hint, analyses a loaded game, judges a
    puzzle and lists the mistakes, with no network (tools/web_test.py's phone check:
    40 px holes, no sideways scroll, no English left in kk/ru/ky);
 4. the game in progress survives a reload, offline; Kalah's perfect level builds its
    endgame table once, the page keeps it in IndexedDB and reads it back only when a call
    names Kalah (a worker of the page's driven directly), and after a reload a perfect hint
    is solved with it at once, offline, without building it again; a kept table damaged
    in IndexedDB is refused, built again and kept again;
 5. the first engine move after the page opens (a kept game at the default level with the
    engine to move), with the CPU as it is and throttled 4x (DevTools' throttling, which
    slows the page but not, in this Chromium, its workers: the engine's time is not a
    phone's); and the engine's move with the service worker's register() never
    answering: the installed page starts its engine without waiting for it;
 6. a new version of the site on the same address: the page says a new version is ready,
    and after the player's tap the new version's files, never a mix, are used;
 7. a damaged download (the engine's .wasm cut short) on another address: the page says
    the engine could not start and what to do, in the language chosen (the catalogs come
    with the site, not from the engine), and the Rules guide still works; a browser
    without WebAssembly SIMD: said before anything downloads, the guide still works; and
    a page whose engine is of another version of the site: said, with what to do;
 8. a browser that gives the page no service worker (hidden before the page's scripts
    run) and so no isolation: the page runs the engine without threads, having downloaded
    only that one, and plays a move against it and gives a hint, in Kazakh, no English
    left;
 9. a browser that runs the service worker but is not isolated by its headers (made so by
    a copy of the site whose service worker sends no COEP header): the page runs the
    engine without threads, which the service worker keeps, and its Stop ends a hint at
    expert while it searches (within 0.3 s); with the host shut down, the
    page opened again plays a move; a new version installs that engine, not the threaded
    one, and plays offline in its turn.

  tools/wasm/web_site_test.py --site build-wasm/web-site --po tools/po/ru.po
  tools/wasm/web_site_test.py --site build-wasm/web-site --po tools/po/ru.po --only-not-isolated

Exit status 0 when every check passes."""
import argparse
import gzip
import http.server
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import web_browser  # noqa: E402
import web_test  # noqa: E402  (the page's checks on a phone)


def page_wait(driver, timeout):
    """A WebDriverWait that also polls on past an element gone stale: the site's page
    reloads itself on a first visit (the service worker taking over, the isolation), so an
    element found just before may belong to the document that went away."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))


def fail(message):
    print("web_site_test: FAIL: " + message, flush=True)
    sys.exit(1)


web_test.fail = fail  # the shared checks report through this script


class StaticHost:
    """A plain static host of `folder` on 127.0.0.1:`port` (0: a free one): the files and
    their types, no isolation headers, no caching rules. `requested`: the paths of the
    files it sent, in order (a path it has no file for, such as the `/api/runs` with which
    the page asks whether a `kumalak serve` watches training runs, is answered 404 and not
    listed: nothing was downloaded)."""

    def __init__(self, folder, port=0):
        requested = self.requested = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".wasm": "application/wasm", ".js": "text/javascript",
                              ".webmanifest": "application/manifest+json",
                              ".data": "application/octet-stream"}

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=folder, **kwargs)

            def log_message(self, *args):
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                if os.path.isfile(os.path.join(folder, path.lstrip("/") or "index.html")):
                    requested.append(path)
                super().do_GET()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def site_on_static_host(folder, prefix):
    """A copy of the site `folder` in a new temporary folder (the checks change and remove
    files of it) served by a StaticHost: (the temporary folder, the copy, the host, its URL)."""
    work = tempfile.mkdtemp(prefix=prefix)
    site = os.path.join(work, "site")
    shutil.copytree(os.path.abspath(folder), site)
    host = StaticHost(site)
    return work, site, host, "http://127.0.0.1:%d/" % host.port


def english_words(po):
    """Every Latin word of three or more letters in the catalog's English message ids,
    placeholders left out (what web_test.english_words reads from a server)."""
    text = open(po, encoding="utf-8").read()
    words = set()
    for msgid in re.findall(r'^msgid "(.*)"$', text, re.M):
        words.update(re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", msgid)))
    return words - web_test.ALLOWED_LATIN


CACHED_FILES_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const names = await caches.keys();
  const out = {};
  for (const n of names) out[n] = (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname);
  done(out);
})().catch((e) => done({error: String(e)}));
"""


# A hint at Kalah's perfect level through the page's own API module (the same worker as the
# page's), on a position its endgame table holds (15 seeds on the pits): what the hint
# said and how long it took, in seconds, from the request to the engine's end.
PERFECT_HINT_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const { api } = await import('./api.js');
  const game = await api('POST', '/api/new', { game: 'kalah', level: 'medium', human: 'white',
                                               position: '2,0,3,1,0,2/1,1,0,2,0,3 18 15 s' });
  const t0 = performance.now();
  await api('POST', '/api/hint', { session: game.session, level: 'perfect' });
  for (;;) {
    const s = await api('GET', '/api/state?session=' + game.session);
    if (s.engine.task === '') {
      await api('POST', '/api/close', { session: game.session });
      return done({ seconds: (performance.now() - t0) / 1000,
                    proven: !!(s.hint && s.hint.value && s.hint.value.margin_exact),
                    message: s.message });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})().catch((e) => done({ error: String(e) }));
"""

# The endgame tables the page keeps in IndexedDB (page_worker.js: emscripten's IDBFS, one
# database named by the folder, the files' paths as keys): each table's time written; with
# arguments[0] true, one byte of each table's values changed first (a damaged table).
TABLES_DB = "/home/web_user/.cache/kumalak/egtb"
KEPT_TABLES_JS = """
const damage = arguments[0];
const done = arguments[arguments.length - 1];
const open = indexedDB.open('%s');
open.onerror = () => done({ error: String(open.error) });
open.onsuccess = () => {
  const db = open.result;
  if (!db.objectStoreNames.contains('FILE_DATA')) return done({ tables: {} });
  const store = db.transaction('FILE_DATA', 'readwrite').objectStore('FILE_DATA');
  const tables = {};
  const walk = store.openCursor();
  walk.onsuccess = () => {
    const cursor = walk.result;
    if (!cursor) return;
    if (String(cursor.key).endsWith('.egtb')) {
      tables[cursor.key] = cursor.value.timestamp.getTime();
      if (damage) {
        const entry = cursor.value;
        entry.contents[1000] ^= 0x10;
        cursor.update(entry);
      }
    }
    cursor.continue();
  };
  walk.transaction.oncomplete = () => done({ tables });
  walk.transaction.onerror = () => done({ error: String(walk.transaction.error) });
};
""" % TABLES_DB


# A worker of the page's own (page_worker.js) driven directly: a Togyz game until the
# engine's first move, then a new Kalah game; what the worker posted, in order. The kept
# endgame tables are read only when a call names Kalah, not before the engine's start.
LAZY_TABLES_JS = """
const done = arguments[arguments.length - 1];
const worker = new Worker('page_worker.js');
const events = [];
const pending = new Map();
let next = 1;
worker.onmessage = (e) => {
  const m = e.data;
  if (m.failed) return done({ error: m.failed });
  if (m.ready) events.push('ready');
  if (m.tables) events.push('tables ' + m.tables + ': ' + m.kept.join(','));
  const settle = pending.get(m.id);
  if (settle) { pending.delete(m.id); settle(JSON.parse(m.body)); }
};
const call = (method, path, body, params) => new Promise((resolve) => {
  const id = next++;
  pending.set(id, resolve);
  worker.postMessage({ id, method, path, params: params || {},
                       body: body ? JSON.stringify(body) : '', lang: 'en' });
});
(async () => {
  const togyz = await call('POST', '/api/new', { game: 'togyz', level: 'medium', human: 'black' });
  for (;;) {
    const s = await call('GET', '/api/state', null, { session: togyz.session });
    if (s.moves.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  events.push('togyz moved');
  const kalah = await call('POST', '/api/new', { game: 'kalah', human: 'both' });
  events.push(kalah.session ? 'kalah started' : 'kalah refused');
  worker.terminate();
  done({ events });
})().catch((e) => done({ error: String(e) }));
"""


def tables_read_lazily(driver, kept):
    r = driver.execute_async_script(LAZY_TABLES_JS)
    if "error" in r:
        fail("a worker of the page's, driven directly: %s" % r["error"])
    names = ",".join(sorted(k.rsplit("/", 1)[-1] for k in kept))
    want = ["ready", "togyz moved", "tables read: " + names, "kalah started"]
    if r["events"] != want:
        fail("the kept endgame tables were not read only when a call named Kalah: the worker "
             "posted %r, not %r" % (r["events"], want))
    print("web_site_test: the kept endgame table was read only when a call named Kalah, after "
          "a Togyz game's first engine move", flush=True)


def perfect_hint(driver, what):
    r = driver.execute_async_script(PERFECT_HINT_JS)
    if "error" in r:
        fail("a perfect hint, %s: %s" % (what, r["error"]))
    return r


def kept_tables(driver, damage=False):
    r = driver.execute_async_script(KEPT_TABLES_JS, damage)
    if "error" in r:
        fail("reading the kept endgame tables: %s" % r["error"])
    return r["tables"]


def build_table(driver, what):
    """Perfect hints until one is solved: the page's 10 s limit may stop the build first,
    and the next hint resumes it. Returns the seconds they took and how many there were."""
    built = 0.0
    for attempt in range(6):
        r = perfect_hint(driver, what)
        built += r["seconds"]
        if r["proven"]:
            return built, attempt + 1
    fail("%s: the perfect level never solved a position its table holds: %r" % (what, r))


def wait_kept(driver, timeout, other_than):
    """The tables in IndexedDB once they are there and differ from `other_than`."""
    end = time.monotonic() + timeout
    kept = {}
    while time.monotonic() < end:
        kept = kept_tables(driver)
        if kept and kept != other_than:
            return kept
        time.sleep(0.2)
    fail("the endgame table was not kept in IndexedDB: %r (before: %r)" % (kept, other_than))


def kalah_table_kept(driver, timeout):
    """Kalah's perfect level: its table built once, written to IndexedDB, and used after a
    reload without building it again; a kept table damaged in IndexedDB is refused, built
    again and kept again."""
    built, hints = build_table(driver, "building the table")
    kept = wait_kept(driver, timeout, {})
    tables_read_lazily(driver, kept)
    driver.refresh()
    page_wait(driver, timeout).until(lambda d: d.execute_script("return !!window.kzState"))
    again = perfect_hint(driver, "after a reload")
    if not again["proven"] or again["seconds"] > min(5.0, built / 2):
        fail("after a reload the perfect hint took %.2f s (proven: %s; the build took %.1f s): "
             "the table was not read back" % (again["seconds"], again["proven"], built))
    print("web_site_test: Kalah's endgame table built in %.1f s (%d hint%s), kept in IndexedDB "
          "(%s), and after a reload a perfect hint solved in %.2f s, offline"
          % (built, hints, "" if hints == 1 else "s", ", ".join(kept), again["seconds"]),
          flush=True)
    kept_tables(driver, damage=True)
    driver.refresh()
    page_wait(driver, timeout).until(lambda d: d.execute_script("return !!window.kzState"))
    rebuilt, hints = build_table(driver, "after the kept table was damaged")
    if rebuilt < again["seconds"] * 2:
        fail("a damaged kept table was used: the perfect hint took %.2f s" % rebuilt)
    wait_kept(driver, timeout, kept)
    print("web_site_test: a kept table damaged in IndexedDB: refused, built again in %.1f s "
          "and kept again" % rebuilt, flush=True)


def page_report(driver):
    """What the page shows, for a failure's message: the state, the message box."""
    return driver.execute_script("""
      const s = window.kzState;
      return JSON.stringify({game: s && s.game, level: s && s.level, human: s && s.human,
                             moves: s && s.moves.length, task: s && s.engine.task,
                             message: s && s.message,
                             toast: document.getElementById('toast').hidden ? '' :
                                    document.getElementById('toast').textContent});""")


def gzip_bytes(folder, paths):
    """The bytes of the files `paths` (the host's paths asked for, "/" the index) of
    `folder` at gzip -9, each counted as often as it is named."""
    total = 0
    for p in paths:
        with open(os.path.join(folder, p.lstrip("/") or "index.html"), "rb") as f:
            total += len(gzip.compress(f.read(), 9))
    return total


def engine_moves(driver, wait, By, Select, what):
    """A new game at level beginner with the player white, a move played and the engine's
    answer awaited; fails with `what` and the page's state when it does not come."""
    from selenium.common.exceptions import TimeoutException
    try:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
        Select(driver.find_element(By.ID, "game")).select_by_value("togyz")
        Select(driver.find_element(By.ID, "level")).select_by_value("beginner")
        Select(driver.find_element(By.ID, "human")).select_by_value("0")
        web_test.tap_centered(driver, driver.find_element(By.ID, "new-game"))
        hole = '#board .pit.playable[data-player="0"][data-pit="9"]'
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, hole))
        web_test.click_fresh(driver, wait, By.CSS_SELECTOR, hole)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) >= 2
                   and d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
    except TimeoutException:
        fail("%s: no engine move; %s" % (what, page_report(driver)))


# Clicks Stop and answers the milliseconds until the page has disabled it (the stop's
# answer rendered).
STOP_CLICK_JS = """
const done = arguments[arguments.length - 1];
const stop = document.getElementById("stop");
const start = performance.now();
const observer = new MutationObserver(() => {
  if (!stop.disabled) return;
  observer.disconnect();
  done(performance.now() - start);
});
observer.observe(stop, {attributes: true});
stop.click();
"""


def hint_stopped(driver, wait, By, Select):
    """A hint at expert (1 s of search) stopped with the Stop button in the engine without
    threads: its search pauses for the worker's calls (tools/wasm/worker_yield.h), so the
    stop is answered while it runs, not after it; fails when the page takes longer than
    0.3 s to say so. A hint at hard comes first, to its end: the first search that uses
    the network loads it, which does not pause."""
    Select(driver.find_element(By.ID, "hint-level")).select_by_value("hard")
    web_test.tap_centered(driver, driver.find_element(By.ID, "hint"))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hint-box li")) == 3)
    Select(driver.find_element(By.ID, "hint-level")).select_by_value("expert")
    web_test.tap_centered(driver, driver.find_element(By.ID, "hint"))
    wait.until(lambda d: d.find_element(By.ID, "stop").is_enabled())
    time.sleep(0.2)  # the search has started
    # Timed in the page: from the click until the answer has disabled the button again.
    took = driver.execute_async_script(STOP_CLICK_JS) / 1000
    if took > 0.3:
        fail("not isolated: Stop ended the hint after %.2f s, not during its search" % took)
    print("web_site_test: not isolated: Stop ended a hint at expert %.3f s after the click"
          % took, flush=True)


def cached_files(driver):
    """{cache name: [paths]} of the site's caches (kumalakzero-*)."""
    cached = driver.execute_async_script(CACHED_FILES_JS)
    if "error" in cached:
        fail("reading the caches: %s" % cached["error"])
    return {n: f for n, f in cached.items() if n.startswith("kumalakzero-")}


def check_not_isolated_offline(args, work):
    """Step 9: the service worker runs but its headers do not isolate the page (a browser
    without COEP, simulated by a copy of the site whose service worker leaves that header
    out): the engine without threads is kept offline, and a new version keeps it instead
    of the threaded one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    start = time.monotonic()
    site = os.path.join(work, "not-isolated")
    shutil.copytree(os.path.abspath(args.site), site)
    sw = os.path.join(site, "sw.js")
    with open(sw, encoding="utf-8") as f:
        worker = f.read()
    coep = 'headers.set("Cross-Origin-Embedder-Policy", "require-corp");'
    if coep not in worker:
        fail("sw.js no longer sets %r: the check cannot leave it out" % coep)
    with open(sw, "w", encoding="utf-8") as f:
        f.write(worker.replace(coep, ""))
    host = StaticHost(site)
    port = host.port  # each new version, and the host serving another one, at the same origin
    url = "http://127.0.0.1:%d/" % port
    driver = web_browser.phone_driver(os.path.join(work, "profile-sw-not-isolated"))
    try:
        driver.set_script_timeout(args.timeout)
        wait = page_wait(driver, args.timeout)
        driver.get(url)
        # The first visit reloads the page once, under the service worker.
        wait.until(lambda d: d.execute_script(
            "return !!navigator.serviceWorker.controller"
            " && performance.getEntriesByType('navigation')[0].type === 'reload'"))
        if driver.execute_script("return self.crossOriginIsolated"):
            fail("not isolated: the page is isolated without COEP")
        engine_moves(driver, wait, By, Select, "not isolated, online")
        one_thread = ["/kumalak-web-1t.js", "/kumalak-web-1t.wasm"]
        asked = [p for p in host.requested if p.startswith("/kumalak-web-1t.")]
        if sorted(asked) != one_thread:
            fail("not isolated: the engine without threads was downloaded as %r" % asked)
        caches = cached_files(driver)
        if len(caches) != 1:
            fail("not isolated: the caches are %r" % list(caches))
        version, kept = next(iter(caches.items()))
        missing = [p for p in one_thread + ["/kumalak-web.data"] if p not in kept]
        if missing:
            fail("not isolated: the engine without threads is not kept: %r missing" % missing)
        first_visit = list(host.requested)
        hint_stopped(driver, wait, By, Select)

        # Offline: the page opened again, the engine without threads from the cache. (Opened,
        # not reloaded: right after the first visit's own reload, Chromium's reload of the
        # page with the host gone came back uncontrolled, isolated or not.)
        host.stop()
        driver.get(url)
        engine_moves(driver, wait, By, Select, "not isolated, offline")
        print("web_site_test: a service worker that does not isolate: the engine without "
              "threads kept (the first visit until the engine's move downloaded %.2f MB at "
              "gzip -9 in %d requests), a move offline"
              % (gzip_bytes(site, first_visit) / 1e6, len(first_visit)), flush=True)

        # A new version: offered, taken, with the engine without threads installed (not
        # the threaded one), and playing offline.
        with open(sw, encoding="utf-8") as f:
            worker = f.read()
        with open(sw, "w", encoding="utf-8") as f:
            f.write(re.sub(r'const VERSION = "([^"]*)"', r'const VERSION = "\1-next"', worker))
        host = StaticHost(site, port)
        driver.get(url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#update-ready button"))
        web_test.tap_centered(driver, driver.find_element(By.CSS_SELECTOR, "#update-ready button"))
        wait.until(lambda d: sorted(cached_files(d)) == [version + "-next"])
        kept = cached_files(driver)[version + "-next"]
        engines = sorted(p for p in kept
                         if p.startswith("/kumalak-web") and p != "/kumalak-web.data")
        if engines != one_thread:
            fail("not isolated: the new version installed the engines %r" % engines)
        threaded = [p for p in host.requested
                    if p.startswith("/kumalak-web.") and p != "/kumalak-web.data"]
        if threaded:
            fail("not isolated: the new version downloaded %r" % threaded)
        update = list(host.requested)
        host.stop()
        driver.get(url)
        engine_moves(driver, wait, By, Select, "not isolated, the new version offline")
        print("web_site_test: ... a new version installed the engine without threads only "
              "(%.2f MB at gzip -9 in %d requests) and played offline (%.1f s in all)"
              % (gzip_bytes(site, update) / 1e6, len(update), time.monotonic() - start), flush=True)

        # A host already serving another version's engine without threads (the site updated
        # between the service worker's install and the page's first call): the service
        # worker refuses the file whose hash is not its version's (503), the page says that
        # its engine could not start, and nothing of that file is kept; with the host's
        # files of one version again, a reload plays.
        started = time.monotonic()
        wasm = os.path.join(site, "kumalak-web-1t.wasm")
        with open(wasm, "rb") as f:
            good = f.read()
        with open(wasm, "ab") as f:
            f.write(b"\0")
        host = StaticHost(site, port)
        driver.quit()
        driver = web_browser.phone_driver(os.path.join(work, "profile-sw-other-engine"))
        driver.set_script_timeout(args.timeout)
        wait = page_wait(driver, args.timeout)
        driver.get(url)
        wait.until(lambda d: d.find_element(By.ID, "toast").is_displayed()
                   and "could not start" in d.find_element(By.ID, "toast").text)
        said = driver.find_element(By.ID, "toast").text
        kept = [p for files in cached_files(driver).values() for p in files]
        if "/kumalak-web-1t.wasm" in kept:
            fail("not isolated: another version's engine without threads was kept")
        with open(wasm, "wb") as f:
            f.write(good)
        # The player's reload (location.reload(): Selenium's refresh of the failed page
        # was seen to leave a page that never started).
        driver.execute_script("window.kzBeforeReload = true; location.reload()")
        wait.until(lambda d: d.execute_script("return window.kzBeforeReload === undefined"))
        engine_moves(driver, wait, By, Select, "not isolated, the host's files of one version again")
        print("web_site_test: ... another version's engine without threads refused: %r; with "
              "the host's files of one version again a reload played (%.1f s)"
              % (said, time.monotonic() - started), flush=True)
    finally:
        host.stop()
        driver.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", required=True, help="the static site folder (build-wasm/web-site)")
    ap.add_argument("--po", required=True, help="a catalog (tools/po/ru.po): the English ids")
    ap.add_argument("--timeout", type=float, default=60, help="seconds for each wait")
    ap.add_argument("--screenshots", default=None, help="save PNGs of the page offline here")
    ap.add_argument("--only-not-isolated", action="store_true",
                    help="run only step 9: a service worker that does not isolate the page")
    args = ap.parse_args()
    web_browser.require_browser(fail)
    if args.only_not_isolated:
        work = tempfile.mkdtemp(prefix="kz-site-")
        try:
            check_not_isolated_offline(args, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print("web_site_test: all checks passed")
        return
    from selenium.webdriver.common.by import By
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import Select

    work, site, host, url = site_on_static_host(args.site, "kz-site-")
    driver = web_browser.phone_driver(os.path.join(work, "profile"))
    try:
        driver.set_page_load_timeout(args.timeout)
        driver.set_script_timeout(args.timeout)
        wait = page_wait(driver, args.timeout)

        # 1. The first visit: the service worker, then the page again under it, isolated.
        start = time.monotonic()
        driver.get(url)
        wait.until(lambda d: d.execute_script("return self.crossOriginIsolated === true")
                   and len(d.find_elements(By.CSS_SELECTOR, "#board .pit.playable")) > 0)
        print("web_site_test: first visit: isolated under the service worker, board playable "
              "in %.1f s" % (time.monotonic() - start), flush=True)
        if not driver.execute_script("return !!navigator.serviceWorker.controller"):
            fail("the page is not controlled by the service worker")
        one_thread = [p for p in host.requested if "kumalak-web-1t" in p]
        if one_thread or "/kumalak-web.wasm" not in host.requested:
            fail("the first visit downloaded %r" % host.requested)

        # 2. Installable: the manifest, Chromium's installability check, the cache.
        manifest = driver.execute_cdp_cmd("Page.getAppManifest", {})
        if manifest.get("errors") or not manifest.get("data"):
            fail("the manifest: %r" % manifest)
        errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})
        if errors.get("installabilityErrors"):
            fail("Chromium's installability errors: %r" % errors["installabilityErrors"])
        cached = driver.execute_async_script(CACHED_FILES_JS)
        files = sorted(f for f in os.listdir(site))
        ours = [n for n in cached if n.startswith("kumalakzero-")]
        if len(ours) != 1:
            fail("the caches are %r, not one of this version" % list(cached))
        # sw.js itself is kept by the browser as the worker, not in its own cache; the
        # engine without threads is for browsers that run no service worker.
        missing = [f for f in files if f != "sw.js" and not f.startswith("kumalak-web-1t.")
                   and "/" + f not in cached[ours[0]]]
        if missing:
            fail("not cached: %r" % missing)
        print("web_site_test: installable (manifest, no installability errors), %d files cached "
              "in %s" % (len(files), ours[0]), flush=True)

        # A hard reload (Ctrl+Shift+R, the service worker bypassed): Chromium brought back
        # the first visit's document, the one that reloaded itself, from its back/forward
        # cache, frozen with no engine; the page must reload under the service worker.
        before = driver.execute_script("return performance.timeOrigin")
        driver.execute_cdp_cmd("Page.reload", {"ignoreCache": True})
        try:
            page_wait(driver, 20).until(lambda d: d.execute_script(
                "return performance.timeOrigin !== arguments[0] && self.crossOriginIsolated"
                " === true && !!window.kzState", before)
                and d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
        except TimeoutException:
            fail("after a hard reload the page has no game: %s" % driver.execute_script(
                "return JSON.stringify([performance.getEntriesByType('navigation')[0].type,"
                " self.crossOriginIsolated, !!navigator.serviceWorker.controller])"))
        print("web_site_test: a hard reload: the board playable again, isolated", flush=True)

        # 3. No network: the host is gone; each language on the phone.
        host.stop()
        try:
            urllib.request.urlopen(url, timeout=2)
            fail("the host still answers")
        except OSError:
            pass
        record = os.path.join(work, "short.pgn")
        with open(record, "w") as f:
            f.write('[White "Ann"]\n[Black "Bob"]\n\n1. 98(10) 98(10) 2. 11 12 3. 89 *\n')
        english = english_words(args.po)
        for lang in web_test.LANGUAGES:
            # Each language from a fresh game, as tools/web_test.py's fresh browsers have:
            # the page would otherwise bring back the last one's game (step 4).
            driver.execute_script("localStorage.removeItem('kz-game'); sessionStorage.clear()")
            try:
                # Pictures of the installed page offline: the board with a hint and a
                # puzzle, in Kazakh.
                web_test.phone_check(driver, wait, By, Select, url, lang, english,
                                     args.screenshots if lang == "kk" else None, record)
            except TimeoutException:
                fail("offline, phone, %s: timed out; %s" % (lang, page_report(driver)))
            print("web_site_test: offline, phone, %s: a move, a hint, an analysis, a puzzle, "
                  "the mistakes" % lang, flush=True)

        # 4. The game in progress survives a reload, offline.
        Select(driver.find_element(By.ID, "game")).select_by_value("togyz")
        Select(driver.find_element(By.ID, "level")).select_by_value("easy")
        Select(driver.find_element(By.ID, "human")).select_by_value("0")
        web_test.tap_centered(driver, driver.find_element(By.ID, "new-game"))
        hole = '#board .pit.playable[data-player="0"][data-pit="7"]'
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, hole))
        web_test.click_fresh(driver, wait, By.CSS_SELECTOR, hole)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) >= 2
                   and d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
        before = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#moves li")]
        driver.refresh()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) >= len(before))
        after = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#moves li")]
        if after[:len(before)] != before:
            fail("after a reload the game shows %r, not %r" % (after, before))
        kept = driver.execute_script("return [kzState.level, kzState.human]")
        if kept != ["easy", "white"]:
            fail("after a reload the level and side are %r, not easy and white" % kept)
        print("web_site_test: the game in progress survived a reload offline: %r" % before,
              flush=True)
        kalah_table_kept(driver, args.timeout)

        # 5. The first engine move after the page opens, offline.
        for rate in (1, 4):
            driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})
            driver.execute_script(
                "localStorage.setItem('kz-game', JSON.stringify({game: 'togyz', level: 'medium',"
                " human: 'black', pgn: '[White \"KumalakZero\"]\\n[Black \"Human\"]\\n\\n*\\n'}));"
                "sessionStorage.clear()")
            driver.refresh()
            moved = None
            end = time.monotonic() + args.timeout
            while moved is None and time.monotonic() < end:
                moved = driver.execute_script(
                    "return window.kzState && kzState.moves.length > 0 ? performance.now() : null")
                time.sleep(0.02)
            if moved is None:
                fail("no engine move after the page opened (CPU throttled %dx)" % rate)
            print("web_site_test: the engine's first move %.2f s after the page opened, offline, "
                  "level medium, CPU throttled %dx" % (moved / 1000, rate), flush=True)
            if moved > 10000:
                fail("the first engine move took %.1f s" % (moved / 1000))
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
        # The installed page does not wait for register(), which answered seconds late in
        # some openings at a phone's speed (docs/browser.md): here it never answers.
        hang = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
            "source": "ServiceWorkerContainer.prototype.register = () => new Promise(() => {});"})
        driver.execute_script(
            "localStorage.setItem('kz-game', JSON.stringify({game: 'togyz', level: 'medium',"
            " human: 'black', pgn: '[White \"KumalakZero\"]\\n[Black \"Human\"]\\n\\n*\\n'}));"
            "sessionStorage.clear()")
        driver.get(url)
        try:
            page_wait(driver, 20).until(lambda d: d.execute_script(
                "return window.kzState && kzState.moves.length > 0"))
        except TimeoutException:
            fail("with register() not answering the engine did not move; %s" % page_report(driver))
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                               {"identifier": hang["identifier"]})
        print("web_site_test: the installed page's engine moved with register() never "
              "answering", flush=True)

        # 6. A new version on the same address: offered, then used whole.
        with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
            index = f.read()
        with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as f:
            f.write(index.replace("<body>", '<body data-version="next">', 1))
        with open(os.path.join(site, "sw.js"), encoding="utf-8") as f:
            worker = f.read()
        worker = re.sub(r'const VERSION = "([^"]*)"', r'const VERSION = "\1-next"', worker)
        with open(os.path.join(site, "sw.js"), "w", encoding="utf-8") as f:
            f.write(worker)
        host = StaticHost(site, int(url.rsplit(":", 1)[1].strip("/")))
        driver.refresh()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#update-ready button"))
        if driver.execute_script("return document.body.dataset.version || ''") == "next":
            fail("the new version's page showed before the player agreed")
        web_test.tap_centered(driver, driver.find_element(By.CSS_SELECTOR, "#update-ready button"))
        wait.until(lambda d: d.execute_script("return document.body.dataset.version === 'next'")
                   and d.find_elements(By.CSS_SELECTOR, "#board .pit"))
        cached = driver.execute_async_script(CACHED_FILES_JS)
        if sorted(n for n in cached if n.startswith("kumalakzero-")) != [ours[0] + "-next"]:
            fail("after the update the caches are %r" % list(cached))
        print("web_site_test: a new version was offered, taken on the player's tap, the old "
              "cache gone", flush=True)
        host.stop()
        driver.quit()

        # 7. A damaged engine: said, and the page otherwise usable.
        damaged = os.path.join(work, "damaged")
        shutil.copytree(os.path.abspath(args.site), damaged)
        wasm = os.path.join(damaged, "kumalak-web.wasm")
        with open(wasm, "r+b") as f:
            f.truncate(os.path.getsize(wasm) // 2)
        host = StaticHost(damaged)
        driver = web_browser.phone_driver(os.path.join(work, "profile-damaged"))
        wait = page_wait(driver, args.timeout)
        driver.get("http://127.0.0.1:%d/" % host.port)
        wait.until(lambda d: d.find_element(By.ID, "toast").is_displayed()
                   and "could not start" in d.find_element(By.ID, "toast").text)
        said = driver.find_element(By.ID, "toast").text
        if "Reload the page while online" not in said:
            fail("a damaged engine is told as %r" % said)
        # The page's words come with the site, not from the engine: in Russian the failure
        # is said in Russian.
        Select(driver.find_element(By.ID, "lang")).select_by_value("ru")
        wait.until(lambda d: d.execute_script("return document.documentElement.lang") == "ru")
        web_test.tap_centered(driver, driver.find_element(By.ID, "new-game"))
        wait.until(lambda d: d.find_element(By.ID, "toast").is_displayed()
                   and "Программа не запустилась" in d.find_element(By.ID, "toast").text)
        said_ru = driver.find_element(By.ID, "toast").text
        web_test.tap_centered(driver, driver.find_element(By.ID, "guide-open"))
        wait.until(lambda d: d.find_element(By.ID, "guide").is_displayed()
                   and d.find_elements(By.CSS_SELECTOR, "#guide-board .pit"))
        print("web_site_test: a damaged engine download: %r, in Russian %r; the Rules guide "
              "still opens" % (said, said_ru), flush=True)
        host.stop()
        driver.quit()

        # A browser without WebAssembly SIMD (made so by answering the page's probe with
        # false before any of its scripts run): said before anything downloads.
        host = StaticHost(os.path.abspath(args.site))
        driver = web_browser.phone_driver(os.path.join(work, "profile-no-simd"))
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": "WebAssembly.validate = () => false;"})
        wait = page_wait(driver, args.timeout)
        driver.get("http://127.0.0.1:%d/" % host.port)
        wait.until(lambda d: d.find_element(By.ID, "toast").is_displayed()
                   and "cannot run the engine" in d.find_element(By.ID, "toast").text)
        said = driver.find_element(By.ID, "toast").text
        if "WebAssembly SIMD" not in said:
            fail("a browser without SIMD is told %r" % said)
        web_test.tap_centered(driver, driver.find_element(By.ID, "guide-open"))
        wait.until(lambda d: d.find_element(By.ID, "guide").is_displayed()
                   and d.find_elements(By.CSS_SELECTOR, "#guide-board .pit"))
        print("web_site_test: a browser without WebAssembly SIMD: %r; the Rules guide still "
              "opens" % said, flush=True)
        host.stop()
        driver.quit()

        # A page and an engine of two versions.
        mixed = os.path.join(work, "mixed")
        shutil.copytree(os.path.abspath(args.site), mixed)
        with open(os.path.join(mixed, "site.js"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(mixed, "site.js"), "w", encoding="utf-8") as f:
            f.write(re.sub(r'version: "([^"]*)"', r'version: "\1-older"', text))
        host = StaticHost(mixed)
        driver = web_browser.phone_driver(os.path.join(work, "profile-mixed"))
        wait = page_wait(driver, args.timeout)
        driver.get("http://127.0.0.1:%d/" % host.port)
        wait.until(lambda d: d.find_element(By.ID, "toast").is_displayed()
                   and "different versions" in d.find_element(By.ID, "toast").text)
        print("web_site_test: a page and an engine of two versions: %r"
              % driver.find_element(By.ID, "toast").text, flush=True)
        host.stop()
        driver.quit()

        # 8. No service worker, so no isolation: the engine without threads.
        host = StaticHost(os.path.abspath(args.site))
        driver = web_browser.phone_driver(os.path.join(work, "profile-no-isolation"))
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": "delete Navigator.prototype.serviceWorker;"})
        wait = page_wait(driver, args.timeout)
        start = time.monotonic()
        driver.get("http://127.0.0.1:%d/" % host.port)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .pit.playable")) > 0)
        if driver.execute_script("return self.crossOriginIsolated || 'serviceWorker' in navigator"):
            fail("the page without a service worker is isolated or has one")
        web_test.choose_language(driver, wait, Select, By, "kk")
        Select(driver.find_element(By.ID, "level")).select_by_value("beginner")
        Select(driver.find_element(By.ID, "human")).select_by_value("0")
        web_test.tap_centered(driver, driver.find_element(By.ID, "new-game"))
        hole = '#board .pit.playable[data-player="0"][data-pit="9"]'
        try:
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, hole))
            web_test.click_fresh(driver, wait, By.CSS_SELECTOR, hole)
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) >= 2
                       and d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
            Select(driver.find_element(By.ID, "hint-level")).select_by_value("medium")
            web_test.tap_centered(driver, driver.find_element(By.ID, "hint"))
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hint-box li")) == 3)
        except TimeoutException:
            fail("no isolation: timed out; %s" % page_report(driver))
        reason = driver.find_element(By.CSS_SELECTOR, "#hint-box .hint-reason").text
        if not reason.strip() or re.search(r"[A-Za-z]{3,}", reason):
            fail("no isolation: the hint's reason is %r" % reason)
        web_test.no_english_left(driver, "kk", "the board without isolation", english)
        engines = sorted(p for p in set(host.requested) if p.startswith("/kumalak-web"))
        if engines != ["/kumalak-web-1t.js", "/kumalak-web-1t.wasm", "/kumalak-web.data"]:
            fail("without isolation the page downloaded %r" % engines)
        print("web_site_test: no service worker, no isolation: the engine without threads "
              "(%s) played a move and gave a hint in Kazakh, %.1f s from the page asked for"
              % (", ".join(engines), time.monotonic() - start), flush=True)
        host.stop()
        driver.quit()
        driver = None

        # 9. A service worker that does not isolate the page.
        check_not_isolated_offline(args, work)
    finally:
        if driver:
            driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    print("web_site_test: all checks passed")


if __name__ == "__main__":
    main()
