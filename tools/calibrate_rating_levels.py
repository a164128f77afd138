#!/usr/bin/env python3
"""Calibrate the lambda the rating levels play with (docs/levels.md, "Calibrated on results"),
or with --filter the tau of their search filter (docs/levels.md, "The search filter").

A rating level at R plays the move of a small search with probability lambda(R) and
otherwise draws from the human policy. The lambda fitted for likelihood is nearly flat
from 1,400 up, so those levels are one strength. This script chooses lambda at each knot
of the human model's rating inputs (800, 1000, ..., 2200), from the lowest one asked for
upwards, so that the level at R scores TARGET against the level at R - 200 (whose lambda
is already fixed), and writes the result into a copy of the model as its play weights
(`kumalak human-train --epochs 0 --play-mix`).

TARGET is what PlayOK players 200 points apart score against each other. `--data DIR`
fits it from the rated games there (a logistic curve in the rating difference, fitted by
maximum likelihood: docs/levels.md gives the figures); without it, --target.

Each knot takes --trials matches of --games games (`kumalak levels-match`, paired openings,
seeds that differ per trial). The first trial is at the lower knot's lambda + --step; the
next ones aim at the target along the line, in Elo, through the trials so far (the
first through the point "the lower knot's lambda scores 50 %"); the knot's lambda is the
line fitted to all of its trials, read at the target, kept between the lower knot's lambda
and 1. Every finished trial is appended to --log (JSON lines) and reused when the same
command runs again, so a stopped calibration resumes where it stopped.

With --filter the same is done for tau, the share of the search's visits below which the
level's human policy leaves a move aside (`kumalak human-train --epochs 0 --play-filter`);
the knots below --from keep theirs (0, the human policy alone, where none is set). Its
strength rises steeply from 0, so each knot's first trial is at the lower knot's tau (the
policy's own step); while no trial reaches the target the next goes past the highest one
(--step past it, then along the line through the two highest), and once one does, where
the measured points, linearly interpolated, cross it.

    tools/calibrate_rating_levels.py --human-model models/togyz-human.pt \\
        --out models/togyz-human.pt --data ../shared/data/togyz --from 1400 \\
        --log docs/records/human/calibrate-rating-levels.jsonl
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time


def elo(score):
    score = min(max(score, 0.001), 0.999)
    return -400 * math.log10(1 / score - 1)


def rated_games(data_dir):
    """(White's rating, Black's rating, White's score) of every rated game with a result."""
    games = []
    for name in sorted(os.listdir(data_dir)):
        if not name.endswith(".pgn"):
            continue
        with open(os.path.join(data_dir, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for block in text.split("[Event ")[1:]:
            tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', block))
            try:
                white, black = int(tags["WhiteElo"]), int(tags["BlackElo"])
            except (KeyError, ValueError):
                continue
            result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(tags.get("Result"))
            if result is not None:
                games.append((white, black, result))
    return games


def fitted_scale(games):
    """S of the curve score = 1 / (1 + 10^(-difference / S)), by maximum likelihood."""

    def loglik(scale):
        total = 0.0
        for white, black, result in games:
            p = min(max(1 / (1 + 10 ** (-(white - black) / scale)), 1e-9), 1 - 1e-9)
            total += result * math.log(p) + (1 - result) * math.log(1 - p)
        return total

    return max(range(100, 4000, 10), key=loglik)


def fit_target(data_dir, step):
    """PlayOK's score at +step points, from the curve fitted to all rated games there."""
    games = rated_games(data_dir)
    if len(games) < 100:
        sys.exit(f"calibrate: only {len(games)} rated games with a result in {data_dir}")
    scale = fitted_scale(games)
    target = 1 / (1 + 10 ** (-step / scale))
    print(f"calibrate: {len(games)} rated games: the fitted scale is {scale} points, so "
          f"+{step} scores {target:.3f}", file=sys.stderr)
    return target


def print_curve(data_dir):
    """The curve fitted per band of the two players' mean rating, and the raw scores."""
    games = rated_games(data_dir)
    print("| games | mean rating | fitted scale S | score at +200 |")
    print("|---:|---|---:|---:|")
    for low in range(800, 2000, 200):
        band = [g for g in games if low <= (g[0] + g[1]) / 2 < low + 300]
        if len(band) >= 100:
            scale = fitted_scale(band)
            print(f"| {len(band)} | {low}-{low + 299} | {scale} | "
                  f"{1 / (1 + 10 ** (-200 / scale)):.3f} |")
    scale = fitted_scale(games)
    print(f"| {len(games)} | all | {scale} | {1 / (1 + 10 ** (-200 / scale)):.3f} |")
    print()
    print("| difference | games | the higher rated scores |")
    print("|---|---:|---:|")
    for low in range(0, 400, 50):
        scores = [g[2] if g[0] >= g[1] else 1 - g[2] for g in games
                  if low <= abs(g[0] - g[1]) < low + 50]
        if scores:
            print(f"| {low}-{low + 49} | {len(scores)} | {sum(scores) / len(scores):.3f} |")


def model_info(kumalak, path):
    out = subprocess.run([kumalak, "model-info", path], capture_output=True, text=True, check=True)
    info = json.loads(out.stdout)
    mix = info.get("human", {}).get("search_mix")
    if not mix:
        sys.exit(f"calibrate: {path} has no search mixture (kumalak human-train --fit-search-mix)")
    return mix


def write_model(kumalak, src, dst, play, option):
    spec = ",".join(f"{r}:{lam:.4f}" for r, lam in sorted(play.items()))
    subprocess.run([kumalak, "human-train", "--init", src, "--epochs", "0", option, spec,
                    "--out", dst], check=True, capture_output=True)


def play_match(kumalak, model, a, b, games, seed, threads):
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "match.jsonl")
        proc = subprocess.run(
            [kumalak, "levels-match", "--game", "togyz", "--games", str(games), "--threads",
             str(threads), "--a", str(a), "--b", str(b), "--seed", str(seed), "--human-model",
             model, "--record", record], capture_output=True, text=True)
        if not os.path.exists(record):
            sys.exit(f"calibrate: levels-match failed: {proc.stderr.strip()[-500:]}")
        points = played = 0
        with open(record) as f:
            for line in f.readlines()[1:]:
                points += json.loads(line)["points"]
                played += 1
    if played == 0:
        sys.exit("calibrate: levels-match played no game")
    return points / (2 * played), played


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kumalak", default="build/tools/kumalak")
    ap.add_argument("--human-model", default="models/togyz-human.pt")
    ap.add_argument("--out", help="the model with the calibrated play weights")
    ap.add_argument("--data", help="rated PGN games to fit the target score from")
    ap.add_argument("--target", type=float, default=0.69,
                    help="the score of R against R - 200 without --data (default 0.69)")
    ap.add_argument("--from", dest="first", type=int, default=1400,
                    help="the lowest knot to calibrate; the knots below keep their lambda")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--step", type=float, default=0.15,
                    help="the first trial's lambda above the lower knot's")
    ap.add_argument("--threads", type=int, default=1, help="games at once")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--log", help="JSON lines of every trial; reused on a rerun")
    ap.add_argument("--filter", action="store_true",
                    help="calibrate the search filter's tau instead of the mixture's lambda")
    ap.add_argument("--curve", action="store_true",
                    help="print the score curve of --data's rated games (per rating band) and stop")
    args = ap.parse_args()
    if args.curve:
        if not args.data:
            sys.exit("calibrate: --curve needs --data")
        print_curve(args.data)
        return

    if not args.out or not args.log:
        sys.exit("calibrate: --out and --log are needed")
    target = fit_target(args.data, 200) if args.data else args.target
    mix = model_info(args.kumalak, args.human_model)
    knots = mix["ratings"]
    if args.filter:
        name, option = "tau", "--play-filter"
        play = dict(zip(knots, mix.get("play_filter", [0.0] * len(knots))))
    else:
        name, option = "lambda", "--play-mix"
        play = dict(zip(knots, mix.get("play_lambda", mix["lambda"])))
    done = {}
    if os.path.exists(args.log):
        with open(args.log) as f:
            for n, line in enumerate(f, 1):
                try:
                    t = json.loads(line)
                    if name not in t:
                        continue  # a trial of the other calibration
                    done[(t["rating"], t["trial"], round(t[name], 4), t["seed"],
                          t["games"], round(t["lower_" + name], 4))] = t["score"]
                except (ValueError, KeyError) as e:
                    sys.exit(f"calibrate: {args.log}:{n}: not a trial ({e})")
    calibrate = [r for r in knots if r >= args.first]
    if not calibrate or knots.index(calibrate[0]) == 0:
        sys.exit(f"calibrate: --from must name a knot above the lowest: {knots}")
    tmp_model = args.out + ".calibrating.pt"
    started = time.time()
    trials_done = 0
    total_trials = len(calibrate) * args.trials
    for rating in calibrate:
        lower = knots[knots.index(rating) - 1]
        base = play[lower]
        points = []  # (lambda, elo)
        for trial in range(args.trials):
            if args.filter:
                # The filter's strength rises steeply from tau 0 (a tau of 0.04 can be worth
                # +300 Elo): measure the lower knot's tau first, then aim by piecewise-linear
                # interpolation between the measured points, never by a line through them.
                if trial == 0:
                    lam = base
                elif max(p[1] for p in points) < elo(target):
                    lam = beyond(points, elo(target), args.step)
                else:
                    lam = crossing(points, elo(target))
                if trial > 0 and any(abs(p[0] - lam) < 1e-4 for p in points):
                    break  # the crossing is a point already measured
            elif trial == 0:
                lam = base + args.step
            else:
                # The line in Elo through the trials so far (the first one through "base
                # scores 50 %"), read at the target.
                xs = [base] + [p[0] for p in points] if len(points) == 1 else [p[0] for p in points]
                ys = [0.0] + [p[1] for p in points] if len(points) == 1 else [p[1] for p in points]
                lam = line_at(xs, ys, elo(target), base)
            lam = round(min(max(lam, base), 1.0), 4)
            play[rating] = lam
            seed = args.seed + 10 * rating + trial
            key = (rating, trial, lam, seed, args.games, round(base, 4))
            if key in done:
                score = done[key]
            else:
                write_model(args.kumalak, args.human_model, tmp_model, play, option)
                score, played = play_match(args.kumalak, tmp_model, rating, lower, args.games,
                                           seed, args.threads)
                with open(args.log, "a") as f:
                    f.write(json.dumps({"rating": rating, "trial": trial, name: lam,
                                        "lower_" + name: base, "seed": seed, "games": played,
                                        "score": score}) + "\n")
            points.append((lam, elo(score)))
            trials_done += 1
            elapsed = time.time() - started
            eta = elapsed / trials_done * (total_trials - trials_done)
            print(f"calibrate: {rating} vs {lower} ({name} {base:.4f}): {name} {lam:.4f} scores "
                  f"{score:.3f} (target {target:.3f}); {trials_done}/{total_trials} trials, "
                  f"{elapsed / 60:.1f} min, ETA {eta / 60:.1f} min", file=sys.stderr, flush=True)
        if args.filter:
            play[rating] = round(min(max(crossing(points, elo(target)), base), 1.0), 4)
        else:
            play[rating] = round(min(max(line_at([p[0] for p in points], [p[1] for p in points],
                                                 elo(target), base), base), 1.0), 4)
        print(f"calibrate: {name} at {rating}: {play[rating]:.4f}", file=sys.stderr, flush=True)
    write_model(args.kumalak, args.human_model, args.out, play, option)
    if os.path.exists(tmp_model):
        os.remove(tmp_model)
    key = "play_filter" if args.filter else "play_lambda"
    print(json.dumps({"target": round(target, 4), key: {str(r): play[r] for r in knots}}))


def beyond(points, y, step):
    """The next trial while every point is below y: along the line through the two points of
    highest x (at least `step` and at most 0.5 past the highest), `step` past it with one."""
    pts = sorted(points)
    top = pts[-1][0]
    if len(pts) < 2 or pts[-1][1] <= pts[-2][1]:
        return min(top + step, 1.0)
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    x = x1 + (y - y1) * (x1 - x0) / (y1 - y0)
    return min(max(x, top + step), top + 0.5, 1.0)


def crossing(points, y):
    """Where the measured (x, Elo) points, sorted by x, first reach y, linearly
    interpolated; the lowest x when the first point already does, the highest when none."""
    pts = sorted(points)
    if pts[0][1] >= y:
        return pts[0][0]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if y1 >= y:
            return x0 + (x1 - x0) * (y - y0) / (y1 - y0)
    return pts[-1][0]


def line_at(xs, ys, y, fallback):
    """The least-squares line through (xs, ys), solved for y; `fallback` when it is flat."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (v - my) for x, v in zip(xs, ys))
    if sxx == 0 or sxy <= 0:
        # No slope to read (noise, or one point): a step further the way the target lies.
        return max(xs) + 0.1 if my < y else fallback
    slope = sxy / sxx
    return mx + (y - my) / slope


if __name__ == "__main__":
    main()
