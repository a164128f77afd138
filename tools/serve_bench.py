#!/usr/bin/env python3
"""Load test of `kumalak serve`: N sessions at once, each starting a game and asking for
a hint at a level, against a server on this machine (127.0.0.1 only). Reports how many
were answered and the latency of each hint (request to hint shown), as percentiles.

  tools/serve_bench.py --kumalak build/tools/kumalak --sessions 32 --level hard

starts its own server (--workers, --max-sessions as given) and stops it at the end;
--port P uses a server already running on 127.0.0.1:P instead. Two or more --kumalak
compare executables side by side: --rounds R runs each R times, taking turns (A B A B
...), so that every one sees the same machine and load, and ends with a Markdown table
(each round's median, 90th percentile, failures and the load average, then the median
of the rounds per executable). Standard library only.
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


def request(base, method, path, body=None, timeout=120):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(p / 100 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def run_once(args, kumalak, port=None):
    """One load test; returns (sorted latencies, failures, wall seconds, exit status)."""
    server = None
    if port:
        base = "http://127.0.0.1:%d" % port
    else:
        cmd = [kumalak, "serve", "--port", "0", "--max-sessions", str(args.sessions + 8)]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        banner = server.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not m:
            sys.exit("serve_bench: no address in %r" % banner)
        print(banner.strip())
        base = "http://127.0.0.1:%s" % m.group(1)

    if args.warmup and not port:
        # A first wave, not counted, with other positions: what the server does once
        # (loading a network, its first calls) is then behind it, as on a server that
        # has been up a while.
        wave(args, base, seed_base=1000)
    lat, errors, wall = wave(args, base, seed_base=0)
    status = None
    if server:
        alive = server.poll() is None
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
        if not alive:
            print("serve_bench: the server died during the run")
    print("sessions %d, level %s, game %s, %d random plies first: answered %d, failed %d, wall %.1f s"
          % (args.sessions, args.level, args.game, args.random_plies, len(lat), len(errors), wall))
    if lat:
        print("hint latency s: min %.2f  p50 %.2f  p90 %.2f  p99 %.2f  max %.2f  mean %.2f"
              % (lat[0], percentile(lat, 50), percentile(lat, 90), percentile(lat, 99), lat[-1],
                 sum(lat) / len(lat)))
    for e in errors[:5]:
        print("  failure: %s" % e)
    if status is not None:
        print("server exit status %d" % status)
    return lat, errors, wall, status


def wave(args, base, seed_base):
    """args.sessions games at once, each asking for one hint; (latencies, failures, wall)."""
    results = [None] * args.sessions
    start_gate = threading.Barrier(args.sessions)

    def client(i):
        try:
            st, s = request(base, "POST", "/api/new", {"game": args.game, "human": "both"})
            if st != 200:
                results[i] = ("new game refused %d: %s" % (st, s.get("error")), None)
                return
            sid = s["session"]
            rng = random.Random(seed_base + i)
            for _ in range(args.random_plies):
                if s["board"]["decided"] or not s["board"]["legal"]:
                    break
                st, s = request(base, "POST", "/api/move",
                                {"session": sid, "move": rng.choice(s["board"]["legal"])})
                if st != 200:
                    results[i] = ("move refused %d: %s" % (st, s.get("error")), None)
                    return
            start_gate.wait(timeout=60)
            t0 = time.monotonic()
            st, s = request(base, "POST", "/api/hint", {"session": sid, "level": args.level})
            if st != 200:
                results[i] = ("hint refused %d: %s" % (st, s.get("error")), None)
                return
            while time.monotonic() - t0 < args.limit:
                st, s = request(base, "GET", "/api/state?session=" + sid)
                if st != 200:
                    results[i] = ("state %d: %s" % (st, s.get("error")), None)
                    return
                if s["engine"]["task"] == "":
                    ok = s["hint"] and len(s["hint"]["moves"]) > 0
                    results[i] = (None if ok else "no hint in the answer", time.monotonic() - t0)
                    request(base, "POST", "/api/close", {"session": sid})
                    return
                time.sleep(0.1)
            results[i] = ("no answer in %.0f s" % args.limit, None)
        except Exception as e:  # a dropped connection counts as a failure
            results[i] = ("%s: %s" % (type(e).__name__, e), None)

    t_all = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t_all
    lat = sorted(r[1] for r in results if r and r[0] is None)
    errors = [r[0] for r in results if not r or r[0] is not None]
    return lat, errors, wall


def median(values):
    v = sorted(values)
    n = len(v)
    return float("nan") if n == 0 else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kumalak", action="append", default=[],
                    help="start this executable's server; give two or more to compare them")
    ap.add_argument("--port", type=int, help="use a server already on 127.0.0.1:PORT")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each executable, taking turns")
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--level", default="hard")
    ap.add_argument("--game", default="togyz")
    ap.add_argument("--workers", type=int, default=0, help="the server's --workers (0: its default)")
    ap.add_argument("--limit", type=float, default=300, help="give up after this many seconds")
    ap.add_argument("--warmup", action="store_true",
                    help="a first wave of hints (other positions) before the one measured")
    ap.add_argument("--random-plies", type=int, default=8,
                    help="random moves each game plays first, so that every hint is a new position "
                         "(the engine's evaluation cache would answer repeats at once)")
    args = ap.parse_args()
    if args.sessions < 1 or args.sessions > 256:
        sys.exit("serve_bench: --sessions must be 1..256")
    if args.rounds < 1:
        sys.exit("serve_bench: --rounds must be at least 1")
    if args.port:
        lat, errors, _, status = run_once(args, None, args.port)  # noqa: F841
        return 0 if not errors else 1
    if not args.kumalak:
        sys.exit("serve_bench: give --kumalak or --port")

    rows = []  # (round, executable, answered, failed, p50, p90, max, load average)
    ok = True
    for rnd in range(1, args.rounds + 1):
        for exe in args.kumalak:
            load = os.getloadavg()[0]
            print("== round %d, %s (load average %.1f)" % (rnd, exe, load))
            lat, errors, _, status = run_once(args, exe)
            ok = ok and not errors and status == 0
            rows.append((rnd, exe, len(lat), len(errors), percentile(lat, 50), percentile(lat, 90),
                         lat[-1] if lat else float("nan"), load))
    if len(args.kumalak) > 1 or args.rounds > 1:
        print()
        print("| round | executable | answered | failed | p50 | p90 | max | load average |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print("| %d | `%s` | %d | %d | %.2f s | %.2f s | %.2f s | %.1f |" % r)
        for exe in args.kumalak:
            mine = [r for r in rows if r[1] == exe]
            print("| median of %d | `%s` | %d | %d | **%.2f s** | **%.2f s** | %.2f s | |"
                  % (len(mine), exe, sum(r[2] for r in mine), sum(r[3] for r in mine),
                     median([r[4] for r in mine]), median([r[5] for r in mine]),
                     median([r[6] for r in mine])))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
