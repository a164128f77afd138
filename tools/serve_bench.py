#!/usr/bin/env python3
"""Load test of `kumalak serve`: N sessions at once, each starting a game and asking for
a hint at a level, against a server on this machine (127.0.0.1 only). Reports how many
were answered and the latency of each hint (request to hint shown), as percentiles.

  tools/serve_bench.py --kumalak build/tools/kumalak --sessions 32 --level hard

starts its own server (--workers, --max-sessions as given) and stops it at the end;
--port P uses a server already running on 127.0.0.1:P instead. Standard library only.
"""
import argparse
import json
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kumalak", help="start this executable's server")
    ap.add_argument("--port", type=int, help="use a server already on 127.0.0.1:PORT")
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--level", default="hard")
    ap.add_argument("--game", default="togyz")
    ap.add_argument("--workers", type=int, default=0, help="the server's --workers (0: its default)")
    ap.add_argument("--limit", type=float, default=300, help="give up after this many seconds")
    ap.add_argument("--random-plies", type=int, default=8,
                    help="random moves each game plays first, so that every hint is a new position "
                         "(the engine's evaluation cache would answer repeats at once)")
    args = ap.parse_args()
    if args.sessions < 1 or args.sessions > 256:
        sys.exit("serve_bench: --sessions must be 1..256")

    server = None
    if args.port:
        base = "http://127.0.0.1:%d" % args.port
    elif args.kumalak:
        cmd = [args.kumalak, "serve", "--port", "0", "--max-sessions", str(args.sessions + 8)]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        banner = server.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not m:
            sys.exit("serve_bench: no address in %r" % banner)
        print(banner.strip())
        base = "http://127.0.0.1:%s" % m.group(1)
    else:
        sys.exit("serve_bench: give --kumalak or --port")

    results = [None] * args.sessions
    start_gate = threading.Barrier(args.sessions)

    def client(i):
        try:
            st, s = request(base, "POST", "/api/new", {"game": args.game, "human": "both"})
            if st != 200:
                results[i] = ("new game refused %d: %s" % (st, s.get("error")), None)
                return
            sid = s["session"]
            rng = random.Random(i)
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
    status = None
    if server:
        alive = server.poll() is None
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
        if not alive:
            print("serve_bench: the server died during the run")

    lat = sorted(r[1] for r in results if r and r[0] is None)
    errors = [r[0] for r in results if not r or r[0] is not None]
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
    return 0 if not errors and status in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
