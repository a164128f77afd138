#!/usr/bin/env python3
"""Nodes per move of one level at a fixed time, two `kumalak` builds side by side: the two
engines take turns on the same positions (the start and random openings; which goes
first alternates), so a change in the machine's load touches both alike. Prints one line
per position and the ratio of the totals (new / old).

  tools/engine_nodes_ab.py --old /tmp/main/kumalak --new build/tools/kumalak
                           [--level expert] [--movetime 1000] [--positions 8]
                           [--threads 1] [--game togyz]

The engines are `kumalak engine --level LEVEL` with the shipped model (KZ_MODELS_DIR, as
the executables find it); each position is searched from a fresh tree (`newgame`)."""
import argparse, random, sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from engine_threads_bench import Engine  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the kumalak executable to compare against")
    ap.add_argument("--new", default="build/tools/kumalak")
    ap.add_argument("--level", default="expert")
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--game", default="togyz")
    a = ap.parse_args()
    rng = random.Random(1)
    pits = 9 if a.game == "togyz" else 6
    openings = [[]] + [[str(rng.randint(1, pits)) for _ in range(2 + i % 5)]
                       for i in range(a.positions - 1)]
    engines = {"old": Engine(a.old, a.level, a.threads, a.game),
               "new": Engine(a.new, a.level, a.threads, a.game)}
    tot = {"old": [0, 0], "new": [0, 0]}
    try:
        for i, moves in enumerate(openings):
            order = ["old", "new"] if i % 2 == 0 else ["new", "old"]
            row = {}
            for name in order:
                n, ms = engines[name].visits(moves, a.movetime)
                row[name] = (n, ms)
                tot[name][0] += n
                tot[name][1] += ms
            (on, oms), (nn, nms) = row["old"], row["new"]
            print(f"{' '.join(moves) or 'start':>12}: old {on:7d} nodes in {oms} ms, "
                  f"new {nn:7d} nodes in {nms} ms, ratio {nn / max(on, 1):.2f}", flush=True)
    finally:
        for e in engines.values():
            e.close()
    (on, oms), (nn, nms) = tot["old"], tot["new"]
    print(f"total: old {on / len(openings):.0f} nodes/move, new {nn / len(openings):.0f} "
          f"nodes/move ({a.level}, {a.movetime} ms, Threads {a.threads}), ratio {nn / max(on, 1):.2f}")


if __name__ == "__main__":
    main()
