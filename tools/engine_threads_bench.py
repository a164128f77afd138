#!/usr/bin/env python3
"""Visits per second of one `kumalak engine` search at Threads 1 and Threads N, measured
side by side: the two engines take turns on the same positions (the start and a few
openings), so a change in the machine's load touches both alike. Prints one line per
position and the ratio of the totals.

  tools/engine_threads_bench.py [--kumalak build/tools/kumalak] [--threads 2]
                                [--movetime 1000] [--positions 6] [--level expert]

`--busy` starts one CPU-bound process beside the engines for the whole run (the
"beside another busy process" figure of docs/performance.md)."""
import argparse, random, subprocess, sys, time, multiprocessing


def spin():
    x = 0
    while True:
        x += 1


class Engine:
    """One `kumalak engine` process (also tools/engine_nodes_ab.py's and
    tools/engine_match.py's): `options` are further (name, value) setoptions, `stderr`
    where its standard error goes (None: this process's)."""

    def __init__(self, exe, level, threads, game, options=(), stderr=None):
        self.exe = exe
        self.p = subprocess.Popen([exe, "engine", "--level", level], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1)
        self.send("kumalak")
        self.wait_for("kumalakok")
        self.send(f"setoption name Game value {game}")
        self.send(f"setoption name Threads value {threads}")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.exe}: the engine ended; its last lines: "
                                   + "".join(lines[-5:]))
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def visits(self, moves, movetime):
        self.send("newgame")
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go movetime {movetime}")
        lines = self.wait_for("bestmove")
        infos = [l.split() for l in lines if l.startswith("info")]
        last = infos[-1]
        nodes = int(last[last.index("nodes") + 1])
        ms = int(last[last.index("time") + 1])
        return nodes, ms

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except Exception:  # already ended, or hung: never mask the error being raised
            self.p.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kumalak", default="build/tools/kumalak")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--level", default="expert")
    ap.add_argument("--game", default="togyz")
    ap.add_argument("--busy", action="store_true")
    a = ap.parse_args()
    busy = None
    if a.busy:
        busy = multiprocessing.Process(target=spin, daemon=True)
        busy.start()
    rng = random.Random(1)
    pits = 9 if a.game == "togyz" else 6
    openings = [[]] + [[str(rng.randint(1, pits)) for _ in range(2)] for _ in range(a.positions - 1)]
    one = Engine(a.kumalak, a.level, 1, a.game)
    many = Engine(a.kumalak, a.level, a.threads, a.game)
    tot = {1: [0, 0], a.threads: [0, 0]}
    try:
        for i, moves in enumerate(openings):
            # Alternate which engine goes first, so neither always meets a warmer machine.
            order = [(1, one), (a.threads, many)] if i % 2 == 0 else [(a.threads, many), (1, one)]
            row = {}
            for t, e in order:
                try:
                    n, ms = e.visits(moves, a.movetime)
                except (RuntimeError, ValueError, IndexError) as err:
                    print(f"position {' '.join(moves) or 'start'}: {err}", file=sys.stderr)
                    break
                row[t] = n / max(ms, 1) * 1000
                tot[t][0] += n
                tot[t][1] += ms
            if len(row) == 2:
                print(f"{' '.join(moves) or 'start':>8}: Threads 1 {row[1]:8.0f} visits/s, "
                      f"Threads {a.threads} {row[a.threads]:8.0f} visits/s, ratio {row[a.threads] / row[1]:.2f}")
    finally:
        one.close()
        many.close()
        if busy:
            busy.terminate()
    r1 = tot[1][0] / max(tot[1][1], 1) * 1000
    rn = tot[a.threads][0] / max(tot[a.threads][1], 1) * 1000
    print(f"total: Threads 1 {r1:.0f} visits/s, Threads {a.threads} {rn:.0f} visits/s, "
          f"ratio {rn / r1:.2f}{' (one other busy process)' if a.busy else ''}")


if __name__ == "__main__":
    main()
