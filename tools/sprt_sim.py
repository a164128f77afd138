#!/usr/bin/env python3
"""Simulates kumalak-gate's promotion rule to choose [gate] SPRT bounds and game counts.

The rule is train/gate.h decide_gate with the SPRT of train/elo.cpp (the pentanomial
GSPRT normal approximation of fishtest, checked after every pair once min_samples pairs
are in): promote on H1, refuse on H0, and when neither is reached by `games`, promote
when the score is at least promote_min_score. Pairs are simulated as two independent
games (what a gate with [gate] opening_temperature comes close to) between a candidate
`elo` points stronger than the best and the best, with a fixed draw rate.

For each setting and true Elo difference it prints how often the candidate is promoted
and the mean number of games played. Plain Python, no dependencies:

  tools/sprt_sim.py                      # the settings compared in docs/training.md
  tools/sprt_sim.py --games 400 --elo0 0 --elo1 30 --alpha 0.05 --beta 0.1 --min-score 0.55
"""
import argparse
import math
import random


def score_from_elo(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def llr(counts, elo0, elo1):
    """train/elo.cpp sprt(const Pentanomial&): zero counts count as 1e-3."""
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    w = [c if c > 0 else 1e-3 for c in counts]
    n = sum(w)
    mean = sum(wi * v for wi, v in zip(w, values)) / n
    var = sum(wi * (v - mean) ** 2 for wi, v in zip(w, values)) / n
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var) if var > 0 else 0.0


def gate(rng, elo, draw, games, elo0, elo1, alpha, beta, min_score, min_pairs=20):
    """One gate: (promoted, games played)."""
    # Win probability so that the expected score is score_from_elo(elo) with `draw` draws.
    s = score_from_elo(elo)
    p_win = s - draw / 2
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    counts = [0] * 5
    pairs = (games + 1) // 2
    for k in range(1, pairs + 1):
        points = 0
        for _ in range(2):
            x = rng.random()
            points += 2 if x < p_win else 1 if x < p_win + draw else 0
        counts[points] += 1
        if elo1 > elo0 and k >= min_pairs:
            l = llr(counts, elo0, elo1)
            if l >= upper:
                return True, 2 * k
            if l <= lower:
                return False, 2 * k
    score = sum(c * p for p, c in enumerate(counts)) / (4 * pairs)
    return score >= min_score, 2 * pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int)
    ap.add_argument("--elo0", type=float, default=0)
    ap.add_argument("--elo1", type=float, default=30)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--min-score", type=float, default=0.55)
    ap.add_argument("--draw", type=float, default=0.05, help="draw rate per game")
    ap.add_argument("--runs", type=int, default=2000, help="simulated gates per point")
    ap.add_argument("--elos", default="-20,0,10,20,30,50")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    settings = []
    if a.games:
        settings.append((a.games, a.elo0, a.elo1, a.alpha, a.beta, a.min_score))
    else:
        settings = [
            (40, 0, 40, 0.05, 0.05, 0.52),   # configs/base.toml before pool32-gen0088
            (100, 0, 30, 0.05, 0.10, 0.55),
            (200, 0, 30, 0.05, 0.10, 0.55),
            (400, 0, 30, 0.05, 0.10, 0.55),
        ]
    elos = [float(e) for e in a.elos.split(",")]
    rng = random.Random(a.seed)
    print(f"draw rate {a.draw}, {a.runs} gates per point; pass rate (mean games)")
    print("games elo0 elo1 alpha beta min_score | " + " | ".join(f"Elo {e:+.0f}" for e in elos))
    for games, elo0, elo1, alpha, beta, min_score in settings:
        cells = []
        for elo in elos:
            passed = played = 0
            for _ in range(a.runs):
                p, g = gate(rng, elo, a.draw, games, elo0, elo1, alpha, beta, min_score)
                passed += p
                played += g
            cells.append(f"{passed / a.runs:5.1%} ({played / a.runs:3.0f})")
        print(f"{games:5d} {elo0:4.0f} {elo1:4.0f} {alpha:5.2f} {beta:4.2f} {min_score:9.2f} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
