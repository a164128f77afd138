"""What the browser tests share (tools/web_test.py, tools/web_run_test.py): Selenium from
Debian's python3-selenium, headless Chromium through chromium-driver on a desktop window
or on a 360 px phone (Chromium's mobile emulation, touch), and a `kumalak serve` on a
free port. A missing browser, driver or Selenium is a failure, never a skip: the tests
that import this are the page's only check in a real browser."""
import os
import re
import signal
import subprocess
import tempfile

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
HEADLESS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-extensions")
PHONE = {"deviceMetrics": {"width": 360, "height": 780, "pixelRatio": 2, "touch": True},
         "userAgent": "Mozilla/5.0 (Linux; Android 13; Phone) AppleWebKit/537.36 "
                      "(KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"}


def require_browser(fail):
    """Imports Selenium and checks that Chromium and its driver are installed; `fail`
    (which does not return) says what is missing."""
    try:
        import selenium.webdriver  # noqa: F401
    except ImportError:
        fail("python3-selenium is missing (tools/install-deps.sh installs it)")
    for exe in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(exe):
            fail(exe + " is missing: install chromium and chromium-driver (tools/install-deps.sh)")


def start_server(fail, kumalak, *args, env=None):
    """Starts `kumalak serve --port 0 --workers 1 ARGS...` and returns (process, url) from
    the address in its first line."""
    server = subprocess.Popen([kumalak, "serve", "--port", "0", "--workers", "1", *args],
                              stdout=subprocess.PIPE, text=True, env=env)
    banner = server.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
    if not m:
        stop_server(server)
        fail("no address in the server's first line: " + repr(banner))
    return server, "http://127.0.0.1:%s/" % m.group(1)


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def _chrome(options, profile):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options.binary_location = CHROMIUM
    for a in HEADLESS:
        options.add_argument(a)
    options.add_argument("--user-data-dir=" + (profile or tempfile.mkdtemp(prefix="kz-chromium-")))
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def desktop_driver(width, height, profile=None, lang=None):
    """A headless desktop window of width x height px; `lang` (say "en-US") fixes the
    language the browser asks for; `profile` keeps localStorage between drivers."""
    from selenium import webdriver
    opts = webdriver.ChromeOptions()
    opts.add_argument("--window-size=%d,%d" % (width, height))
    if lang:
        opts.add_argument("--lang=" + lang)
        opts.add_experimental_option("prefs", {"intl.accept_languages": lang + "," + lang.split("-")[0]})
    return _chrome(opts, profile)


def phone_driver(profile=None):
    """A 360 px wide phone with touch (Chromium's mobile emulation)."""
    from selenium import webdriver
    opts = webdriver.ChromeOptions()
    opts.add_experimental_option("mobileEmulation", PHONE)
    return _chrome(opts, profile)
