#!/usr/bin/python3
"""The Run view of `kumalak serve --run DIR` in a real browser (headless Chromium through
Debian's chromium-driver and python3-selenium), on a committed run folder
(tests/data/run-view: four gate records, a metrics file, shards of two workers, a model,
and a damaged file of each kind). It checks that the page draws the Elo ladder with its
promoted generations, the gate table, the loss curves, the workers and the model, that
the damaged files are counted, that a gate record written while the page is open shows
at the next poll, and that the board page links to the view. The run folder is copied
first, so the committed one is never written. Then, on a 360 px phone (Chromium's
mobile emulation, touch), that the view does not scroll sideways, that each table and
chart fits the screen or scrolls inside its own card, and that every button, menu and
link is at least 40 px tall. Registered with CTest as ServeRunBrowser
(tests/CMakeLists.txt), and with `--site` as WasmSiteRunView (tools/wasm/tests.cmake):
the same checks where the server serves the static site, whose page leaves the Run
view's calls to the server and answers the rest with its own engine.

  tools/web_run_test.py --kumalak build/tools/kumalak --run tests/data/run-view \
      [--site build-wasm/web-site] [--screenshot docs/img/run-view.png] [--phone-screenshot docs/img/phone-run.png]

Exit status 0 when every check passed; a missing browser or driver is a failure.
"""
import argparse
import os
import json
import shutil
import sys
import tempfile

from web_browser import desktop_driver, phone_driver, require_browser, start_server, stop_server


def fail(message):
    print("web_run_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kumalak", required=True, help="the built kumalak executable")
    ap.add_argument("--run", required=True, help="the run folder to watch (tests/data/run-view)")
    ap.add_argument("--screenshot", default=None, help="save a PNG of the view here")
    ap.add_argument("--phone-screenshot", default=None,
                    help="save a PNG of the view on a 360 px phone here")
    ap.add_argument("--site", default=None,
                    help="serve this static site (the WebAssembly build's web-site) with "
                         "the run: the page's engine in the browser, the Run view's calls "
                         "to the server")
    ap.add_argument("--timeout", type=float, default=30, help="seconds for each wait")
    args = ap.parse_args()

    require_browser(fail)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    run = os.path.join(tempfile.mkdtemp(prefix="kz-run-view-"), os.path.basename(args.run.rstrip("/")))
    shutil.copytree(args.run, run)
    server, url = start_server(fail, args.kumalak, "--run", run,
                               *(["--site", args.site] if args.site else ["--builtin-page"]))
    driver = None
    try:
        driver = desktop_driver(1280, 1700)
        driver.set_page_load_timeout(args.timeout)
        wait = WebDriverWait(driver, args.timeout)
        text = lambda id_: driver.find_element(By.ID, id_).text

        # The board page links to the view once it knows that runs are watched.
        driver.get(url)
        wait.until(lambda d: d.find_element(By.ID, "run-link").is_displayed())
        driver.find_element(By.ID, "run-link").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ladder-table tbody tr")) == 5)

        # The ladder: gen0000 and the four candidates, gen0003 and gen0009 promoted, gen0009 best.
        names = [e.get_attribute("data-name") for e in
                 driver.find_elements(By.CSS_SELECTOR, "#ladder-chart g.rung")]
        if names != ["gen0000", "gen0003", "gen0005", "gen0009", "gen0011"]:
            fail("the ladder chart shows %r" % names)
        promoted = [e.get_attribute("data-name") for e in
                    driver.find_elements(By.CSS_SELECTOR, "#ladder-chart g.rung.promoted")]
        if promoted != ["gen0003", "gen0009"]:
            fail("promoted in the chart: %r, not gen0003 and gen0009" % promoted)
        if [e.get_attribute("data-name") for e in
                driver.find_elements(By.CSS_SELECTOR, "#ladder-chart g.rung.best")] != ["gen0009"]:
            fail("the best model is not ringed as gen0009")
        first = driver.find_element(By.CSS_SELECTOR, "#ladder-table tbody tr").text
        if not first.startswith("gen0011") or "[" not in first:
            fail("the ladder table's first row is %r" % first)

        # The gate table: newest first, with W-D-L, Elo, interval and the verdict.
        gates = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#gates-table tbody tr")]
        if len(gates) != 4:
            fail("the gate table has %d rows, not 4: %r" % (len(gates), gates))
        for want in ("gen0009", "gen0003", "15-5-4", "+172", "[+54, +349]", "passed"):
            if want not in gates[1]:
                fail("the gate row %r lacks %r" % (gates[1], want))
        if "failed" not in gates[0] or "gen0011 gen0009 10-4-10" not in gates[0]:
            fail("the newest gate row is %r" % gates[0])

        # The losses: a line per loss series, drawn with more than a few points.
        series = driver.find_elements(By.CSS_SELECTOR, "#loss-chart polyline.series")
        drawn = sorted(s.get_attribute("data-series") for s in series)
        for want in ("loss", "policy", "value", "val_loss"):
            if want not in drawn:
                fail("the loss chart lacks %r: %r" % (want, drawn))
        if "lr" in drawn:
            fail("the learning rate is drawn among the losses")
        loss = [s for s in series if s.get_attribute("data-series") == "loss"][0]
        if len(loss.get_attribute("points").split()) != 30:
            fail("the loss line has %d points, not 30" % len(loss.get_attribute("points").split()))

        # Workers, the model and what was skipped.
        workers = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#workers-table tbody tr")]
        if len(workers) != 2 or not workers[0].startswith("vm-w1 16"):
            fail("the workers table shows %r" % workers)
        if "6512891179078610788" not in text("models-table"):
            fail("the best model's checksum is not shown")
        skipped = text("skipped")
        for want in ("1 gate records", "2 metrics lines", "1 shards", "1 models"):
            if want not in skipped:
                fail("the skipped line %r lacks %r" % (skipped, want))
        if "gates/gen0012.json" not in text("problems") or run in text("problems"):
            fail("the problems do not name gates/gen0012.json inside the run: %r" % text("problems"))

        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            driver.save_screenshot(args.screenshot)

        # The run goes on: a new gate record appears at the next poll, promoted.
        record = {"candidate": "models/gen0014.pt", "baseline": "models/best.pt", "wins": 12,
                  "draws": 8, "losses": 4, "score": 0.6667, "elo": 120.4, "elo_lo": 20.1,
                  "elo_hi": 232.0, "los": 0.98, "llr": 0.0, "sprt": "continue", "pass": True,
                  "seconds": 40.0}
        with open(os.path.join(run, "gates", "gen0014.json"), "w") as f:
            f.write(json.dumps(record) + "\n")
        WebDriverWait(driver, args.timeout).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#gates-table tbody tr")) == 5)
        newest = driver.find_element(By.CSS_SELECTOR, "#gates-table tbody tr").text
        if not newest.startswith("gen0014 gen0009 12-8-4") or "passed" not in newest:
            fail("the new gate record shows as %r" % newest)
        if [e.get_attribute("data-name") for e in
                driver.find_elements(By.CSS_SELECTOR, "#ladder-chart g.rung.best")] != ["gen0014"]:
            fail("the newly promoted gen0014 is not the best in the ladder")
        print("web_run_test: ladder, gates, losses, workers, model and skipped files shown; "
              "a new gate record showed at the next poll")
        driver.quit()
        driver = None

        # On a phone (Chromium's mobile emulation, 360 px wide, touch).
        driver = phone_driver()
        driver.set_page_load_timeout(args.timeout)
        driver.get(url + "run.html")
        WebDriverWait(driver, args.timeout).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#gates-table tbody tr")) == 5
            and d.find_elements(By.CSS_SELECTOR, "#loss-chart polyline.series"))
        phone_fits(driver)
        if args.phone_screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.phone_screenshot)), exist_ok=True)
            driver.save_screenshot(args.phone_screenshot)
        print("web_run_test: phone, 360 px: no sideways scroll, tables and charts inside their "
              "cards, controls at least 40 px tall")
        return 0
    finally:
        if driver:
            driver.quit()
        stop_server(server)
        shutil.rmtree(os.path.dirname(run), ignore_errors=True)


# Each table and chart that does not fit the screen, unless a box of its own (a card,
# a scroll area) that does fit scrolls it sideways; each control under 40 px tall.
PHONE_PROBLEMS_JS = """
const width = window.innerWidth, out = [];
const name = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase();
const fits = (r) => r.left >= -0.5 && r.right <= width + 0.5;
for (const el of document.querySelectorAll('table, svg')) {
  const r = el.getBoundingClientRect();
  if (!r.width || fits(r)) continue;
  let box = el.parentElement;
  for (; box && box !== document.body; box = box.parentElement) {
    const ox = getComputedStyle(box).overflowX;
    if (ox === 'auto' || ox === 'scroll') break;
  }
  if (!box || box === document.body || !fits(box.getBoundingClientRect()))
    out.push(name(el) + ' is ' + Math.round(r.width) + ' px wide and no box of its own scrolls it');
}
for (const el of document.querySelectorAll('button, select, input, a[href]')) {
  const r = el.getBoundingClientRect();
  if (!r.width || getComputedStyle(el).visibility === 'hidden') continue;
  if (r.height < 39.5) out.push(name(el) + ' (' + el.textContent.trim().slice(0, 20) + ') is ' + r.height.toFixed(1) + ' px tall');
}
return out;
"""


def phone_fits(driver):
    """Fails when the view scrolls sideways at 360 px, when a table or chart sticks out of
    the screen without a box of its own that scrolls it, or when a control is under 40 px
    tall (too small for a thumb)."""
    width = driver.execute_script("return window.innerWidth")
    scroll = driver.execute_script("return document.documentElement.scrollWidth")
    if width != 360:
        fail("phone: the view is laid out %d px wide on a 360 px phone" % width)
    if scroll > width:
        fail("phone: the view scrolls sideways (%d px of content in %d)" % (scroll, width))
    problems = driver.execute_script(PHONE_PROBLEMS_JS)
    if problems:
        fail("phone: " + "; ".join(problems[:8]))


if __name__ == "__main__":
    sys.exit(main())
