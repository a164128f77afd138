#!/usr/bin/env python3
"""A/B test of training options at equal compute.

Every arm starts from the same model and gets the same work: per generation it plays
--games self-play games with its own latest model, then trains
train.steps_per_generation steps (or --steps) on its own shards; no gating, so a
harmful option cannot hide behind a rejected candidate. The arms' final models then
play one paired-opening match (kumalak-gate: each opening with both colours, Elo with a
95 % interval).

An arm is NAME or NAME=SNIPPET.toml: the snippet's keys are laid over --config (it is
written after an `extends` line, so it may hold whole [section] tables). The first arm
is the baseline; without a snippet it is --config as is. Arms whose self-play settings
(every key outside [network], [train], [gate], [loop] and [follow]) come out identical share one
set of self-play games in the first generation, since the seeded games would be the same.

  tools/ab_train.py --config configs/togyz.toml --init models/togyz.pt --out ab/blend \
      --arm base --arm blend=blend.toml --games 384 --generations 2 --match-games 200

Resumes: a finished step (shards of a generation, a model, the match) is not redone.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import tomllib

# [network] too: every arm starts from --init, a model that brings its own network, so
# the section only shapes what the trainer builds (e.g. an extra training-only head).
SHARED_SECTIONS_IGNORED_FOR_SELFPLAY = {"network", "train", "gate", "loop", "follow"}


def run(cmd, log):
    print("+ " + " ".join(cmd), flush=True)
    with open(log, "a") as f:
        f.write("+ " + " ".join(cmd) + "\n")
        f.flush()
        started = time.time()
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        sys.exit(f"ab_train: '{cmd[0]}' failed with exit code {rc}; see {log}")
    return time.time() - started


def dump_config(bin_dir, path):
    out = subprocess.run([os.path.join(bin_dir, "kumalak-train"), "--config", path, "--dump-config"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ab_train: config {path} is refused:\n{out.stderr.strip()}")
    return tomllib.loads(out.stdout)


def selfplay_part(cfg):
    return {k: v for k, v in cfg.items() if k not in SHARED_SECTIONS_IGNORED_FOR_SELFPLAY}


def elo(x, null_means="+inf"):
    return null_means if x is None else f"{x:+.0f}"  # the gate writes an infinite Elo as null


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True, help="base run config")
    ap.add_argument("--init", required=True, help="model every arm starts from")
    ap.add_argument("--out", required=True, help="folder for the arms' configs, data, models and the result")
    ap.add_argument("--arm", action="append", required=True,
                    help="NAME or NAME=SNIPPET.toml; give two or more, the first is the baseline")
    ap.add_argument("--games", type=int, default=384, help="self-play games per arm and generation")
    ap.add_argument("--generations", type=int, default=1, help="self-play + train rounds per arm")
    ap.add_argument("--steps", type=int, default=0, help="training steps per generation (0: the config's)")
    ap.add_argument("--match-games", type=int, default=200, help="games of the final match (paired)")
    ap.add_argument("--match-visits", type=int, default=0, help="visits a move in the match (0: gate.visits)")
    ap.add_argument("--seed", type=int, default=1, help="self-play seed (the same for every arm)")
    ap.add_argument("--bin", default="build/tools", help="folder of the kumalak-* executables")
    a = ap.parse_args()

    if a.games < 1 or a.generations < 1 or a.match_games < 2 or a.steps < 0:
        sys.exit("ab_train: --games, --generations must be >= 1, --match-games >= 2, --steps >= 0")
    for path, what in ((a.config, "--config"), (a.init, "--init")):
        if not os.path.isfile(path):
            sys.exit(f"ab_train: {what} '{path}' is not a file")
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "ab.log")

    arms = []
    for spec in a.arm:
        name, _, snippet = spec.partition("=")
        if not name.isidentifier():
            sys.exit(f"ab_train: arm name '{name}' must be letters, digits and _")
        if any(name == n for n, _ in arms):
            sys.exit(f"ab_train: arm '{name}' given twice")
        text = f'extends = "{os.path.abspath(a.config)}"\n'
        if snippet:
            if not os.path.isfile(snippet):
                sys.exit(f"ab_train: snippet '{snippet}' of arm '{name}' is not a file")
            text += open(snippet).read()
        folder = os.path.join(a.out, name)
        os.makedirs(folder, exist_ok=True)
        write_atomic(os.path.join(folder, "config.toml"), text)
        arms.append((name, folder))
    if len(arms) < 2:
        sys.exit("ab_train: give at least two --arm")

    configs = {n: dump_config(a.bin, os.path.join(f, "config.toml")) for n, f in arms}
    timings = {n: {"selfplay_s": 0.0, "train_s": 0.0} for n, _ in arms}
    for g in range(1, a.generations + 1):
        shared_data = {}  # first generation: arms with equal self-play settings share games
        for name, folder in arms:
            cfg_path = os.path.join(folder, "config.toml")
            prev = a.init if g == 1 else os.path.join(folder, f"gen{g - 1}.pt")
            data = os.path.join(folder, "data", f"gen{g}")
            key = json.dumps(selfplay_part(configs[name]), sort_keys=True)
            if g == 1 and key in shared_data:
                src = shared_data[key]
                # Hard links, not a symlink: the trainer's recursive search does not
                # follow links to folders.
                os.makedirs(data, exist_ok=True)
                for f in os.listdir(src):
                    if not os.path.exists(os.path.join(data, f)):
                        os.link(os.path.join(src, f), os.path.join(data, f))
            else:
                done = os.path.join(data, ".done")
                if not os.path.exists(done):
                    timings[name]["selfplay_s"] += run(
                        [os.path.join(a.bin, "kumalak-selfplay"), "--config", cfg_path, "--model", prev,
                         "--out", data, "--games", str(a.games), "--generation", str(g),
                         "--worker", f"ab-{name}-{g}", "--seed", str(a.seed + 1000 * g)], log)
                    write_atomic(done, "")
                if g == 1:
                    shared_data[key] = data
            model = os.path.join(folder, f"gen{g}.pt")
            if not os.path.exists(model):
                cmd = [os.path.join(a.bin, "kumalak-train"), "--config", cfg_path,
                       "--data", os.path.join(folder, "data"), "--init", prev, "--out", model,
                       "--resume", "--metrics", os.path.join(folder, "train.jsonl")]
                if a.steps:
                    cmd += ["--steps", str(a.steps)]
                timings[name]["train_s"] += run(cmd, log)

    base_name, base_folder = arms[0]
    results = []
    for name, folder in arms[1:]:
        # Named by everything that decides the match, so a rerun with more generations or
        # another match size plays its own match instead of reporting an older one.
        out_json = os.path.join(a.out, f"match-{name}-vs-{base_name}-gen{a.generations}"
                                       f"-{a.match_games}g-{a.match_visits}v.json")  # 0v: gate.visits
        if not os.path.exists(out_json):
            cmd = [os.path.join(a.bin, "kumalak-gate"), "--config", a.config, "--games", str(a.match_games)]
            if a.match_visits:
                cmd += ["--visits", str(a.match_visits)]
            cmd += ["match", "--candidate", os.path.join(folder, f"gen{a.generations}.pt"),
                    "--baseline", os.path.join(base_folder, f"gen{a.generations}.pt"), "--json", out_json]
            run(cmd, log)
        with open(out_json) as f:
            m = json.load(f)
        results.append({"arm": name, "baseline": base_name, **{k: m.get(k) for k in
                        ("wins", "draws", "losses", "score", "elo", "elo_lo", "elo_hi")}})
        print(f"{name} vs {base_name}: +{m['wins']} ={m['draws']} -{m['losses']}  score {m['score']:.3f}  "
              f"Elo {elo(m['elo'], '+inf' if m['score'] >= 0.5 else '-inf')} [{elo(m['elo_lo'], '-inf')}, {elo(m['elo_hi'])}]", flush=True)
    summary = {"config": a.config, "init": a.init, "games": a.games, "generations": a.generations,
               "steps": a.steps, "match_games": a.match_games, "match_visits": a.match_visits,
               "timings_this_invocation": timings, "results": results}
    write_atomic(os.path.join(a.out, "result.json"), json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
