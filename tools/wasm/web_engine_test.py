#!/usr/bin/env python3
"""The WebAssembly engine in a Web Worker of headless Chromium (CTest WasmEngineInChromium;
docs/browser.md): kumalak-web.js, its .wasm and packed models, and engine_worker.js served
with the headers that make a page cross-origin isolated (COOP and COEP, which threads
need), and a page that speaks the protocol to the worker. Checks the handshake, a search
by nodes from a position, an infinite search ended by `stop` while the page stays free,
bad input answered with `error`, and prints level expert's visits in 1 s in Chromium
(--movetime-rounds). With --one-thread (a folder holding engine_worker.js,
kumalak-web-1t.js, its .wasm and kumalak-web.data: the static site), the same worker in
a page served without those headers, and so not isolated: the engine without threads
answers the handshake, a search by nodes, `go infinite` during which `isready` is answered
at once and which `stop` ends with its bestmove (a position and a go sent right behind the
stop played after it), bad input, and `quit`.
Exit status 0 when every check passes."""
import argparse
import http.server
import json
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import web_browser  # noqa: E402
from engine_node_test import check, failures  # noqa: E402  (the same checks' bookkeeping)

PAGE = """<!doctype html><meta charset="utf-8"><title>engine</title>
<script>
window.kzLines = [];
window.kzEngine = new Worker('engine_worker.js');
window.kzEngine.onmessage = (e) => window.kzLines.push(e.data);
window.kzEngine.onerror = (e) => window.kzLines.push({error: String(e.message)});
window.kzSend = (line) => window.kzEngine.postMessage(line);
</script>"""

def serve(folder, page=PAGE, page_name="engine.html", isolated=True):
    """`folder` served on 127.0.0.1 (a free port) with `page` at /`page_name`, the
    WebAssembly files' types, nothing cached and, when `isolated`, the cross-origin
    isolation headers: (the server, its base URL)."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".js": "text/javascript",
                          ".data": "application/octet-stream"}

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=folder, **kwargs)

        def end_headers(self):
            if isolated:
                self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

        def do_GET(self):
            if self.path == "/" + page_name:
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


class Page:
    def __init__(self, driver):
        self.driver = driver
        self.seen = 0

    def send(self, line):
        self.driver.execute_script("window.kzSend(arguments[0])", line)

    def wait_for(self, prefix, timeout=60.0):
        """The first answer line after the last one looked at that starts with prefix."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            lines = self.driver.execute_script("return window.kzLines.slice(arguments[0])", self.seen)
            for i, message in enumerate(lines):
                if "error" in message and "line" not in message:
                    print("worker:", message["error"], flush=True)
                line = message.get("line", "")
                if line.startswith(prefix):
                    self.seen += i + 1
                    return line
            self.seen += len(lines)
            time.sleep(0.05)
        return None

    def info_nodes(self):
        lines = self.driver.execute_script("return window.kzLines")
        nodes = [int(m.group(1)) for l in lines
                 for m in [re.search(r"^info .*\bnodes (\d+)", l.get("line", ""))] if m]
        return nodes[-1] if nodes else 0


def check_not_isolated(folder, timeout):
    """engine_worker.js in a page that is not cross-origin isolated: the engine without
    threads, one line at a time."""
    server, url = serve(os.path.abspath(folder), isolated=False)
    driver = web_browser.desktop_driver(1000, 800)
    try:
        start = time.monotonic()
        driver.get(url + "engine.html")
        check(driver.execute_script("return self.crossOriginIsolated") is False,
              "not isolated: the page is not cross-origin isolated")
        page = Page(driver)
        page.send("uci")
        if not check(page.wait_for("uciok", timeout=timeout) == "uciok",
                     "not isolated: uci is answered with uciok"):
            return  # no engine: the rest would only wait
        ready = driver.execute_script("return window.kzLines.find((m) => m.ready)")
        check(ready == {"ready": True, "threads": False},
              "not isolated: the worker runs the engine without threads (%r)" % ready)
        lines = [m.get("line", "") for m in driver.execute_script("return window.kzLines")]
        check("option name Threads type spin default 1 min 1 max 1" in lines,
              "not isolated: Threads is 1..1")
        page.send("position startpos moves 76 98")
        page.send("go nodes 300")
        line = page.wait_for("bestmove", timeout=timeout)
        check(line is not None and re.fullmatch(r"bestmove [1-9]", line) is not None,
              f"not isolated: go nodes 300 ends with a legal bestmove (got {line!r})")
        # The search pauses for the worker's messages (tools/wasm/worker_yield.h): isready
        # is answered during it, stop ends it. (MoveTime bounds no infinite search; without
        # pauses this one searched the whole 2 s before answering either.)
        page.send("setoption name MoveTime value 2000")
        before = driver.execute_script("return window.kzLines.length")
        page.send("go infinite")
        time.sleep(0.3)
        asked = time.monotonic()
        page.send("isready")
        ready = page.wait_for("readyok", timeout=timeout)
        ready_s = time.monotonic() - asked
        check(ready == "readyok" and ready_s < 0.5,
              f"not isolated: isready is answered during go infinite ({ready_s:.2f} s)")
        since = [m.get("line", "") for m in
                 driver.execute_script("return window.kzLines.slice(arguments[0])", before)]
        check(any(l.startswith("info ") for l in since)
              and not any(l.startswith("bestmove") for l in since),
              "not isolated: go infinite searches, with info lines and no bestmove")
        asked = time.monotonic()
        # Sent right behind the stop, as a GUI sends its next move: the worker keeps them
        # until the search's bestmove, so the position is not refused as during a search.
        before = driver.execute_script("return window.kzLines.length")
        page.send("stop")
        page.send("position startpos moves 76")
        page.send("go nodes 50")
        line = page.wait_for("bestmove", timeout=10)
        stop_s = time.monotonic() - asked
        check(line is not None and re.fullmatch(r"bestmove [1-9]", line) is not None
              and stop_s < 0.5,
              f"not isolated: stop ends go infinite with {line!r} ({stop_s:.2f} s)")
        line = page.wait_for("bestmove", timeout=timeout)
        since = [m.get("line", "") for m in
                 driver.execute_script("return window.kzLines.slice(arguments[0])", before)]
        check(line is not None and not any(l.startswith("error") for l in since),
              f"not isolated: the position and go sent behind the stop play after it ({line!r})")
        page.send("go nodes x")
        check(page.wait_for("error", timeout=10) is not None,
              "not isolated: bad input is answered with error")
        page.send("quit")
        end = time.monotonic() + 10
        while time.monotonic() < end and not driver.execute_script(
                "return window.kzLines.some((m) => m.exit === 0)"):
            time.sleep(0.05)
        check(driver.execute_script("return window.kzLines.some((m) => m.exit === 0)"),
              "not isolated: quit ends the protocol ({exit: 0})")
        print(f"not isolated: the checks took {time.monotonic() - start:.1f} s", flush=True)
    finally:
        driver.quit()
        server.shutdown()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--web", required=True, help="the folder of kumalak-web.js")
    p.add_argument("--movetime-rounds", type=int, default=1, help="1 s searches timed")
    p.add_argument("--throttle", type=float, default=1.0,
                   help="slow the CPU down this many times (DevTools' CPU throttling: a phone)")
    p.add_argument("--one-thread", default=None,
                   help="also the worker in a page that is not isolated, from this folder "
                        "(engine_worker.js, kumalak-web-1t.js/.wasm, kumalak-web.data: the site)")
    p.add_argument("--only-one-thread", action="store_true",
                   help="only the check of --one-thread")
    args = p.parse_args()
    web_browser.require_browser(lambda why: sys.exit("FAIL: " + why))
    if args.one_thread:
        check_not_isolated(args.one_thread, 120)
    if args.only_one_thread:
        print("FAILED" if failures else "PASSED", f"({len(failures)} failures)")
        return 1 if failures else 0
    server, url = serve(os.path.abspath(args.web))
    driver = web_browser.desktop_driver(1000, 800)
    try:
        if args.throttle > 1:
            driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
        driver.get(url + "engine.html")
        check(driver.execute_script("return self.crossOriginIsolated") is True,
              "the page is cross-origin isolated (threads)")
        page = Page(driver)
        start = time.monotonic()
        page.send("uci")
        check(page.wait_for("uciok", timeout=120) == "uciok", "uci is answered with uciok")
        print(f"the engine answered uci {time.monotonic() - start:.2f} s after the page opened",
              flush=True)
        page.send("isready")
        check(page.wait_for("readyok") == "readyok", "isready is answered")
        page.send("position startpos moves 76 98")
        page.send("go nodes 300")
        line = page.wait_for("bestmove", timeout=120)
        check(line is not None and re.fullmatch(r"bestmove [1-9]", line) is not None,
              f"go nodes 300 ends with a legal bestmove (got {line!r})")
        print(f"the first move (300 visits) {time.monotonic() - start:.2f} s after the page opened",
              flush=True)
        page.send("go infinite")
        time.sleep(1.0)
        page.send("isready")
        check(page.wait_for("readyok", timeout=10) == "readyok",
              "isready is answered during an infinite search")
        page.send("stop")
        check(page.wait_for("bestmove", timeout=30) is not None, "stop ends an infinite search")
        page.send("go nodes x")
        check(page.wait_for("error", timeout=10) is not None, "bad input is answered with error")
        visits = []
        for _ in range(args.movetime_rounds):
            page.send("ucinewgame")
            page.send("position startpos")
            page.send("go movetime 1000")
            check(page.wait_for("bestmove", timeout=30) is not None, "go movetime 1000 ends")
            visits.append(page.info_nodes())
        print("expert's visits in 1 s in Chromium:", json.dumps(visits), flush=True)
    finally:
        driver.quit()
        server.shutdown()
    print("FAILED" if failures else "PASSED", f"({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
