#!/usr/bin/env python3
"""The WebAssembly `kumalak` under Node, end to end (CTest WasmEngineUnderNode; docs/browser.md).

- perft from the start of Togyz, Kalah and Bantumi: the known counts, and the native
  engine's when one is given (--native);
- the engine protocol on stdin/stdout as a tournament manager speaks it: the handshake, a
  search by nodes, an infinite search ended by `stop` (the search runs on a thread of its
  own while the protocol reads on), bad commands answered with `error` lines, `quit`;
- with --native and recorded games: the same move as the native engine, both searching a
  fixed number of visits in fp32, on positions from the games (--positions of them);
  --wasm-precision int8 runs the WebAssembly engine's integer forward instead
  (nn/portable_int_convolution.h), --native-precision int8 the native engine's portable
  forward with the same integer path (KUMALAK_BACKEND=portable).

Exit status 0 when every check passes, 1 otherwise; each failure is printed.
"""
import argparse
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time

# perft from the start, depths 1..7 (docs/rules-core.md; the native build prints the same).
KNOWN_PERFT = {
    "togyz": [9, 73, 613, 5199, 43184, 360035, 3003052],
    "kalah": [6, 35, 185, 942, 4690, 23233, 114430],
    "bantumi": [5, 24, 104, 438, 1823, 7654, 32131],
}
NODE = ["node"]  # the module needs no flags (tools/wasm/node_environment.js)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return ok


def perft_counts(command, game, depth):
    """The node counts of depths 1..depth from the start; None when perft fails."""
    out = subprocess.run(command + ["perft", "--game", game, "--depth", str(depth)],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        print(out.stderr, flush=True)
        return None
    return [int(m.group(1)) for m in re.finditer(r"nodes (\d+)", out.stdout)]


class Engine:
    """A `kumalak engine` process; lines read on a thread so that a wait can time out."""

    def __init__(self, command, env):
        self.proc = subprocess.Popen(command + ["engine"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix, timeout=60.0):
        """The first line starting with prefix; the lines before it; None at a timeout."""
        seen = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None, seen
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None, seen
            if line is None:
                return None, seen
            if line.startswith(prefix):
                return line, seen
            seen.append(line)

    def quit(self, timeout=30.0):
        self.send("quit")
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def protocol_checks(wasm, env):
    e = Engine(wasm, env)
    e.send("uci")
    line, _ = e.wait_for("uciok")
    check(line == "uciok", "uci is answered with uciok")
    e.send("isready")
    check(e.wait_for("readyok")[0] == "readyok", "isready is answered with readyok")
    e.send("position startpos moves 76 98")
    e.send("go nodes 300")
    line, info = e.wait_for("bestmove", timeout=120)
    check(line is not None and re.fullmatch(r"bestmove [1-9]", line) is not None,
          f"go nodes 300 ends with a legal bestmove (got {line!r})")
    check(any(l.startswith("info ") for l in info), "the search reports info lines")
    # stop: the search runs on its own thread while the protocol reads on.
    e.send("go infinite")
    time.sleep(1.0)
    e.send("isready")
    check(e.wait_for("readyok", timeout=10)[0] == "readyok",
          "isready is answered during an infinite search")
    e.send("stop")
    line, _ = e.wait_for("bestmove", timeout=30)
    check(line is not None, f"stop ends an infinite search with a bestmove (got {line!r})")
    # Bad input: an error line, and the engine goes on.
    for bad in ["go nodes x", "position startpos moves 10", "position fen 9/9 0 0", "frobnicate"]:
        e.send(bad)
        line, _ = e.wait_for("error", timeout=10)
        check(line is not None, f"'{bad}' is answered with an error line")
    e.send("isready")
    check(e.wait_for("readyok", timeout=10)[0] == "readyok", "the engine goes on after bad input")
    code = e.quit()
    check(code == 0, f"quit ends the engine with status 0 (got {code})")


def game_positions(shared_data, count, seed):
    """Move lists (the protocol's notation) of positions from the recorded Togyz games."""
    games = []
    folder = os.path.join(shared_data, "togyz")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for body in re.split(r"\n\s*\n(?=\[)", text):
            moves = re.sub(r"\[[^\]]*\]", " ", body)
            moves = re.sub(r"\{[^}]*\}", " ", moves)
            # a move: its hole and where its last stone lands, then a tuzdyk's x or a
            # capture's count in brackets, which the protocol checks as given
            tokens = [t for t in moves.split() if re.fullmatch(r"[1-9][1-9]x?(\(\d+\))?", t)]
            if len(tokens) >= 10:
                games.append(tokens)
    rng = random.Random(seed)
    rng.shuffle(games)
    positions = []
    for tokens in games:
        if len(positions) >= count:
            break
        positions.append(tokens[: rng.randrange(0, len(tokens) - 2)])
    return positions


def same_move_checks(wasm, native, envs, positions, nodes, need, names):
    """Both engines search each position; the share of equal best moves must reach need.
    `envs` and `names`: each engine's environment and name (wasm's first)."""
    engines = [Engine(wasm, envs[0]), Engine(native, envs[1])]
    for e in engines:
        e.send("uci")
        e.wait_for("uciok")
    same = compared = refused = 0
    start = time.monotonic()
    for i, moves in enumerate(positions):
        answers = []
        for e in engines:
            e.send("ucinewgame")
            e.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
            e.send(f"go nodes {nodes}")
            line, seen = e.wait_for("bestmove", timeout=120)
            errors = [l for l in seen if l.startswith("error")]
            answers.append(line if not errors else "error")
        if answers[0] == "error" and answers[1] == "error":
            refused += 1  # a record the rules refuse: both engines agree on that too
            continue
        compared += 1
        same += answers[0] == answers[1]
        if answers[0] != answers[1] and compared - same <= 10:
            print(f"  differs after {' '.join(moves) or 'the start'}: {names[0]} {answers[0]}, "
                  f"{names[1]} {answers[1]}", flush=True)
        if (i + 1) % 50 == 0:
            rate = (i + 1) / (time.monotonic() - start)
            print(f"  {i + 1}/{len(positions)} positions, {rate:.1f}/s, same {same}/{compared}",
                  flush=True)
    for e in engines:
        e.quit()
    share = same / compared if compared else 0.0
    print(f"same move, {names[0]} and {names[1]}: {same}/{compared} = {share:.3f} ({refused} "
          f"refused by both) at {nodes} visits", flush=True)
    check(compared > 0 and share >= need,
          f"the WebAssembly engine ({names[0]}) picks the native move ({names[1]}) in "
          f"{share:.3f} >= {need} of positions")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wasm", required=True, help="the WebAssembly kumalak.js")
    p.add_argument("--native", default="", help="a native kumalak to compare with (optional)")
    p.add_argument("--source", required=True, help="the source tree (its models/)")
    p.add_argument("--shared-data", default="", help="recorded games (skipped when absent)")
    p.add_argument("--positions", type=int, default=100, help="positions compared with native")
    p.add_argument("--nodes", type=int, default=200, help="visits per compared search")
    p.add_argument("--need", type=float, default=0.99, help="share of equal moves required")
    p.add_argument("--skip-protocol", action="store_true", help="only the comparisons")
    p.add_argument("--wasm-precision", default="fp32", choices=["fp32", "int8"],
                   help="the WebAssembly engine's forward in the comparison")
    p.add_argument("--native-precision", default="fp32", choices=["fp32", "int8"],
                   help="the native engine's (int8: its portable forward's integer path)")
    args = p.parse_args()

    wasm = NODE + [args.wasm]
    native = [args.native] if args.native else None
    env = dict(os.environ, KZ_MODELS_DIR=os.path.join(args.source, "models"),
               KUMALAK_PRECISION="fp32", LANGUAGE="en")

    if not args.skip_protocol:
        for game, known in KNOWN_PERFT.items():
            depth = 6 if game == "togyz" else 7
            counts = perft_counts(wasm, game, depth)
            check(counts == known[:depth], f"wasm perft {game} 1..{depth}: {counts}")
            if native:
                check(counts == perft_counts(native, game, depth),
                      f"wasm perft {game} equals native's")
        protocol_checks(wasm, env)

    positions = game_positions(args.shared_data, args.positions, seed=1) if args.shared_data else []
    if native and positions:
        wasm_env = dict(env, KUMALAK_PRECISION=args.wasm_precision)
        native_env = dict(env, KUMALAK_PRECISION=args.native_precision)
        if args.native_precision == "int8":
            native_env["KUMALAK_BACKEND"] = "portable"
        same_move_checks(wasm, native, [wasm_env, native_env], positions, args.nodes, args.need,
                         ["wasm " + args.wasm_precision, "native " + args.native_precision])
    elif not native:
        print("no --native: the same-move comparison is skipped")
    else:
        print(f"no recorded games under {args.shared_data}: the same-move comparison is skipped")

    print("FAILED" if failures else "PASSED", f"({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
