#!/usr/bin/env python3
"""Latency of the Openings view's calls through `kumalak serve` on this machine
(docs/openings.md, "Figures"): GET /api/openings/engine for every position of the first
two plies, the first time (the engine's search and the human model) and again (kept), and
POST /api/openings/games over a file of games (--pgn), the first time (read and built) and
while walking its tree (kept), with the file sent each step and, as the page does, named by
the key of the first answer.

  tools/openings_bench.py --kumalak build-player/tools/kumalak --pgn GAMES.pgn

starts its own server (from the working directory, so models/ is the shipped one) and
stops it at the end. Standard library only. With --site build-wasm/web-site it times the
same calls in the static site instead, answered by the WebAssembly engine in the page's
worker, in headless Chromium (Selenium, tools/web_browser.py): the first position's
columns, the nine after the first move (first asked, kept, another rating) and the
file's first call and one step of walking it.
"""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_browser import desktop_driver, start_server, stop_server  # noqa: E402

# The same calls from inside the page (its api.js), timed with performance.now().
SITE_JS = """
const done = arguments[arguments.length - 1];
const [pgn, rating] = [arguments[0], arguments[1]];
(async () => {
  const m = await import(new URL("api.js", document.baseURI).href);
  const q = (p, r) => `/api/openings/engine?game=togyz&rating=${r}&position=${encodeURIComponent(p)}`;
  const settled = async (p, r) => {
    const t = performance.now();
    for (;;) {
      const a = await m.api("GET", q(p, r));
      if (!a.pending) return [a, (performance.now() - t) / 1000];
      await new Promise((ok) => setTimeout(ok, 1));
    }
  };
  const [start, first] = await settled("", rating);
  const out = {start, first, fresh: [], kept: [], other: []};
  for (const mv of start.moves) out.fresh.push((await settled(mv.after, rating))[1]);
  for (const mv of start.moves) out.kept.push((await settled(mv.after, rating))[1]);
  for (const mv of start.moves) out.other.push((await settled(mv.after, rating + 100))[1]);
  if (pgn) {
    let t = performance.now();
    const g = await m.api("POST", "/api/openings/games", {game: "togyz", pgn, player: ""});
    out.build = (performance.now() - t) / 1000;
    t = performance.now();
    await m.api("POST", "/api/openings/games", {game: "togyz", pgn, player: "", position: g.moves[0].after});
    out.walk = (performance.now() - t) / 1000;
    t = performance.now();
    await m.api("POST", "/api/openings/games", {game: "togyz", games_key: g.games_key, position: g.moves[0].after});
    out.walk_keyed = (performance.now() - t) / 1000;
    out.about = g.about;
  }
  return out;
})().then(done, (e) => done({error: String(e)}));
"""


def site(args):
    import tempfile
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    pgn = open(args.pgn, encoding="utf-8").read() if args.pgn else ""
    server, url = start_server(sys.exit, args.kumalak, "--site", args.site)
    driver = desktop_driver(1280, 900, tempfile.mkdtemp(prefix="kz-chromium-"), lang="en-US")
    try:
        driver.set_script_timeout(600)
        driver.get(url)
        WebDriverWait(driver, 120).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .pit")) == 18)
        got = driver.execute_async_script(SITE_JS, pgn, args.rating)
        if "error" in got:
            sys.exit("openings_bench: " + got["error"])
        summary("site: engine, the start's columns (first call)", [got["first"]])
        summary("site: engine, a position's columns, first asked", got["fresh"])
        summary("site: engine, a position kept", got["kept"])
        summary("site: engine, a position kept, another rating", got["other"])
        print("site: the start's search: %d visits in %.1f ms"
              % (got["start"]["engine"]["nodes"], 1000 * got["start"]["engine"]["seconds"]))
        if pgn:
            print("site: games: %s, %.0f KB" % (got["about"]["player"], len(pgn) / 1000))
            summary("site: games, first call (read and build)", [got["build"]])
            summary("site: games, one step of walking, the file sent again", [got["walk"]])
            summary("site: games, one step of walking, the file named by its key", [got["walk_keyed"]])
    finally:
        driver.quit()
        stop_server(server)
    return 0


def call(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            answer = json.loads(r.read())
    except urllib.error.HTTPError as e:
        sys.exit("openings_bench: %s %s: %s %s" % (method, path, e.code, e.read()[:300]))
    return answer, time.perf_counter() - start


def summary(name, seconds):
    s = sorted(seconds)
    print("%-44s n=%-3d median %7.1f ms  max %7.1f ms" % (name, len(s), 1000 * s[len(s) // 2], 1000 * s[-1]))


def settled(base, path):
    """The engine's answer once computed (the first ones say `pending`) and the seconds from
    the first request to it, asking again every millisecond."""
    start = time.perf_counter()
    while True:
        answer, _ = call(base, "GET", path)
        if not answer["pending"]:
            return answer, time.perf_counter() - start
        time.sleep(0.001)


def engine_path(position, rating):
    return "/api/openings/engine?" + urllib.parse.urlencode(
        {"game": "togyz", "position": position, "rating": rating})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kumalak", required=True, help="the built kumalak executable")
    ap.add_argument("--pgn", help="a file of games for POST /api/openings/games")
    ap.add_argument("--player", default="", help="whose games (default: the name playing most)")
    ap.add_argument("--rating", type=int, default=1500)
    ap.add_argument("--site", help="time the calls in this static site (build-wasm/web-site) instead")
    args = ap.parse_args()
    if args.site:
        return site(args)
    server, url = start_server(sys.exit, args.kumalak, "--builtin-page")
    base = url.rstrip("/")
    try:
        start, first = settled(base, engine_path("", args.rating))
        positions = [m["after"] for m in start["moves"]]
        fresh = []
        for p in positions:
            answer, _ = settled(base, engine_path(p, args.rating))
            fresh += [m["after"] for m in answer["moves"]]
        # The positions at ply 2, each asked for the first time: the search and the human
        # model, from the first request to the answer that has them.
        timed = [settled(base, engine_path(p, args.rating))[1] for p in fresh[:60]]
        summary("engine, a position's columns, first asked (ply 2)", timed)
        summary("engine, a position kept", [call(base, "GET", engine_path(p, args.rating))[1]
                                            for p in fresh[:60]])
        summary("engine, a position kept, another rating", [
            settled(base, engine_path(p, args.rating + 100))[1] for p in fresh[:60]])
        print("the start's search: %d visits in %.1f ms (its columns: %.1f ms)"
              % (start["engine"]["nodes"], 1000 * start["engine"]["seconds"], 1000 * first))
        if args.pgn:
            text = open(args.pgn, encoding="utf-8").read()
            body = {"game": "togyz", "pgn": text, "player": args.player}
            built, t = call(base, "POST", "/api/openings/games", body)
            print("games: %s (%d as White, %d as Black of %d records, %d skipped), %.0f KB"
                  % (built["about"]["player"], built["about"]["as_white"], built["about"]["as_black"],
                     built["about"]["records"], len(built["about"]["skipped"]), len(text) / 1000))
            summary("games, first call (read and build)", [t])
            walk, answer = [], built
            for _ in range(12):
                if not answer["moves"]:
                    break
                body["position"] = answer["moves"][0]["after"]
                answer, t = call(base, "POST", "/api/openings/games", body)
                walk.append(t)
            summary("games, walking the tree, the file sent each step", walk)
            # What the page does: the file once, then its key.
            walk, answer = [], built
            for _ in range(12):
                if not answer["moves"]:
                    break
                keyed = {"game": "togyz", "games_key": built["games_key"],
                         "position": answer["moves"][0]["after"]}
                answer, t = call(base, "POST", "/api/openings/games", keyed)
                walk.append(t)
            summary("games, walking the tree, the file named by its key", walk)
    finally:
        stop_server(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
