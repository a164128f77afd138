#!/usr/bin/env python3
"""The static site's first engine move at a phone's speed (docs/browser.md): the whole
browser (the page, its engine's workers, the service worker) held to a share of this
machine's CPU by a Linux cpu cgroup, which, unlike DevTools' CPU throttling, slows the
engine's Web Workers too.

  sudo tools/wasm/phone_speed.py --site build-wasm/web-site [--cpu-share 0.25] [--rounds 5]

A share of 0.25 gives the browser a quarter of the machine (on 2 cores, half of one),
about a phone's speed against a desktop's. The first visit installs the service worker
and the page reloads itself isolated; then the host is shut down, and each round opens the
page with a kept game in which the engine is to move at --level (the page's default,
medium) and times, from the page's start (performance.now()), the board drawn and the
engine's move on it. Needs root for the cgroup (cgroup v1 `cpu` at /sys/fs/cgroup/cpu, or
cgroup v2 at /sys/fs/cgroup with the cpu controller); --cpu-share 1 runs unthrottled.
Prints the rounds and their median; nothing is written."""
import argparse
import os
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import web_browser  # noqa: E402
from web_site_test import site_on_static_host  # noqa: E402

PERIOD_US = 100000


def fail(message):
    print("phone_speed: FAIL: " + message, flush=True)
    sys.exit(1)


class CpuShare:
    """This process and every process it starts from now on held to `share` of the
    machine's CPU time (a cgroup of their own, removed on exit)."""

    def __init__(self, share):
        self.share = share
        self.group = None
        if share >= 1:
            return
        quota = int(share * os.cpu_count() * PERIOD_US)
        v1 = "/sys/fs/cgroup/cpu"
        if os.path.isfile(os.path.join(v1, "cpu.cfs_quota_us")):
            self.root = v1
            self.group = os.path.join(v1, "kz-phone-%d" % os.getpid())
            os.mkdir(self.group)
            self._write("cpu.cfs_period_us", str(PERIOD_US))
            self._write("cpu.cfs_quota_us", str(quota))
            self._write("tasks", str(os.getpid()))
        elif os.path.isfile("/sys/fs/cgroup/cgroup.controllers"):
            self.root = "/sys/fs/cgroup"
            self.group = os.path.join(self.root, "kz-phone-%d" % os.getpid())
            os.mkdir(self.group)
            self._write("cpu.max", "%d %d" % (quota, PERIOD_US))
            self._write("cgroup.procs", str(os.getpid()))
        else:
            fail("no cpu cgroup found to hold the browser to a share of the CPU")

    def _write(self, name, value):
        with open(os.path.join(self.group, name), "w") as f:
            f.write(value)

    def close(self):
        if not self.group:
            return
        back = "tasks" if self.root.endswith("/cpu") else "cgroup.procs"
        with open(os.path.join(self.root, back), "w") as f:
            f.write(str(os.getpid()))
        # The browser's processes are gone by now; the group empties and can be removed.
        for _ in range(50):
            try:
                os.rmdir(self.group)
                return
            except OSError:
                time.sleep(0.1)
        print("phone_speed: could not remove %s" % self.group, flush=True)


FIRST_MOVE_JS = """
return window.kzState && kzState.board && document.querySelector('#board .pit')
  ? {board: performance.now(), moved: kzState.moves.length > 0} : null;
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", required=True, help="the static site folder (build-wasm/web-site)")
    ap.add_argument("--cpu-share", type=float, default=0.25,
                    help="the share of the machine's CPU the browser gets (1: all of it)")
    ap.add_argument("--rounds", type=int, default=5, help="page openings timed")
    ap.add_argument("--level", default="medium", help="the engine's level in the kept game")
    ap.add_argument("--timeout", type=float, default=120, help="seconds for each wait")
    args = ap.parse_args()
    if not 0 < args.cpu_share <= 1:
        fail("--cpu-share %g: give a share of the CPU in (0, 1]" % args.cpu_share)
    web_browser.require_browser(fail)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    share = CpuShare(args.cpu_share)
    work, _, host, url = site_on_static_host(args.site, "kz-phone-")
    driver = web_browser.phone_driver(os.path.join(work, "profile"))
    try:
        driver.set_page_load_timeout(args.timeout)
        wait = WebDriverWait(driver, args.timeout)
        start = time.monotonic()
        driver.get(url)
        wait.until(lambda d: d.execute_script("return self.crossOriginIsolated === true")
                   and d.find_elements(By.CSS_SELECTOR, "#board .pit.playable"))
        print("phone_speed: %d cores, the browser held to %.0f %% of them; first visit "
              "(service worker, reload, engine) playable after %.1f s"
              % (os.cpu_count(), 100 * args.cpu_share, time.monotonic() - start), flush=True)
        host.stop()  # offline from now on, as a player who installed the page
        boards, moves = [], []
        for i in range(args.rounds):
            driver.execute_script(
                "localStorage.setItem('kz-game', JSON.stringify({game: 'togyz', level: arguments[0],"
                " human: 'black', pgn: '[White \"KumalakZero\"]\\n[Black \"Human\"]\\n\\n*\\n'}));"
                "sessionStorage.clear()", args.level)
            driver.get(url)  # as a player opens it (chromedriver's refresh() can lose the isolation)
            board = moved = None
            end = time.monotonic() + args.timeout
            while moved is None and time.monotonic() < end:
                seen = driver.execute_script(FIRST_MOVE_JS)
                if seen and board is None:
                    board = seen["board"]
                if seen and seen["moved"]:
                    moved = seen["board"]
                time.sleep(0.02)
            if moved is None:
                fail("round %d: no engine move within %.0f s" % (i + 1, args.timeout))
            boards.append(board / 1000)
            moves.append(moved / 1000)
            print("phone_speed: round %d: board drawn %.2f s, the engine's first move (level %s) "
                  "%.2f s after the page opened" % (i + 1, board / 1000, args.level, moved / 1000),
                  flush=True)
        print("phone_speed: median of %d: board %.2f s, first move %.2f s (max %.2f s)"
              % (args.rounds, statistics.median(boards), statistics.median(moves), max(moves)),
              flush=True)
    finally:
        driver.quit()
        share.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
