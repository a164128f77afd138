#!/usr/bin/env python3
"""A match between two `kumalak` executables (two builds, or one build with other engine
options) through the engine protocol (docs/protocol.md), over paired openings: each
random opening is played twice with the colours swapped, so that the opening's bias
cancels. Prints a line per game (running score, games/hour, ETA) and ends with the
score and Elo of A with a 95 % interval over the pairs (pentanomial, as train/elo.h and
`kumalak levels-match` report it).

  tools/engine_match.py --a build/tools/kumalak --b /tmp/old/kumalak --games 200 \\
                        [--level expert] [--movetime 1000 | --nodes N] [--threads 1]
                        [--game togyz]
                        [--opening-plies 4] [--seed 7] [--a-option NAME=VALUE ...]
                        [--b-option NAME=VALUE ...] [--record match.jsonl] [--shard I/N]
                        [--clock 10s+0.1 [--b-unclocked]]

--clock plays on a clock instead of --movetime: each side starts with the base time and
gets the increment after every move it makes in time (Fischer); the match keeps both
clocks itself, from sending `go wtime W btime B winc I binc I` to reading `bestmove`
(so the pipe and the engine's setting up count, as under a GUI), and a side whose time
runs out loses, or draws where the opponent could not win any more (the flag rule of
core/game_clock.h: the flagged side's kazan already holds half the stones). The format
is kumalak play's: BASE[+INC], BASE in minutes unless it says h, m, s or ms, INC in
seconds unless it says m, s or ms ("10s+0.1", "1+1", "5+3"). Each record line then has
the time each engine used (a_ms, b_ms, over a_moves and b_moves moves) and `flag`, the
engine whose time ran out (null: none), and the summary the losses on time. With
--b-unclocked only A plays on the clock and B thinks for --movetime a move (its time
counted, never flagged): a level under a clock against the same level at its fixed
budget (expert's is one second a move, the default --movetime).

--nodes N searches N visits a move (`go nodes N`) instead of --movetime: equal visits
for both sides whatever their speed, so that a match measures what the engines' answers
are worth and not how fast they come (e.g. one network's arithmetic against another's,
docs/browser.md's integer forward).

--record keeps one JSON line per finished game and resumes a stopped match: the games
already in it are not played again (the openings come from --seed, so they are the
same). A record that does not belong to this match (another seed, opening length or
game) or a line that does not parse is refused with its line number. The position of
each game is kept by a third engine (A's executable), whose `d` command gives the legal
moves and the result, so the script needs no rules of its own. Standard library only.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine_threads_bench import Engine  # noqa: E402


class MatchEngine(Engine):
    """An engine that plays and keeps score: positions, moves and the referee's `d`."""

    def set_position(self, moves):
        self.send("position startpos" + (" moves " + " ".join(map(str, moves)) if moves else ""))

    def best_move(self, moves, movetime, clock=None, nodes=0):
        """The engine's move after `moves`: with `movetime` ms, or on `clock`, the
        (wtime, btime, winc, binc) in ms the go sends, or `nodes` visits when > 0."""
        self.set_position(moves)
        if clock:
            self.send("go wtime %d btime %d winc %d binc %d" % clock)
        elif nodes > 0:
            self.send(f"go nodes {nodes}")
        else:
            self.send(f"go movetime {movetime}")
        words = self.wait_for("bestmove")[-1].split()
        if len(words) < 2 or not words[1].isdigit():
            raise RuntimeError(f"{self.exe}: no move in '{' '.join(words)}' after moves {moves}")
        return int(words[1])

    def state(self, moves):
        """(legal moves, result or None) of the position after `moves`."""
        return self.full_state(moves)[:2]

    def full_state(self, moves):
        """(legal moves, result or None, position string) after `moves`."""
        self.set_position(moves)
        self.send("d")
        result = None
        lines = self.wait_for("legal")
        position = next((l.split(None, 1)[1].strip() for l in lines
                         if l.startswith("position ")), "")
        words = lines[-1].split()
        legal = [] if words[1:] == ["none"] else [int(w) for w in words[1:]]
        # "result" follows "legal" only when the game is decided.
        self.send("isready")
        for line in self.wait_for("readyok"):
            if line.startswith("result "):
                result = line.split()[1]
        return legal, result, position


def parse_duration_ms(text, default_unit_ms, what):
    """"10s", "0.1", "5m", "1h", "250ms" in milliseconds (core/clock_control.h's form)."""
    units = {"h": 3600000, "m": 60000, "min": 60000, "s": 1000, "ms": 1}
    number = text.rstrip("hmins")
    unit = text[len(number):]
    if unit and unit not in units:
        raise ValueError(f"{what} '{text}': unknown unit '{unit}' (h, m, s or ms)")
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{what} '{text}' is not a number") from None
    if not math.isfinite(value) or value < 0 or number.startswith(("+", "-")):
        raise ValueError(f"{what} '{text}' is not a number of at least 0")
    return round(value * units.get(unit, default_unit_ms))


def parse_clock(text):
    """(base ms, increment ms) of a time control such as "10s+0.1" or "5+3"."""
    base, _, inc = text.partition("+")
    base_ms = parse_duration_ms(base, 60000, "--clock base")
    inc_ms = parse_duration_ms(inc, 1000, "--clock increment") if inc else 0
    if base_ms <= 0:
        raise ValueError(f"--clock '{text}': the base must be more than 0")
    return base_ms, inc_ms


def flag_result(position, flagged_white):
    """The result when the flagged side's time ran out in `position` (the project's
    position string): the opponent wins unless it could not win any more, that is
    unless the flagged side's store holds at least half of all stones (a draw)."""
    rows, white_store, black_store = position.split()[:3]
    board = sum(int(v) for v in rows.replace("/", ",").split(",") if v.isdigit())
    total = board + int(white_store) + int(black_store)
    kept = int(white_store if flagged_white else black_store)
    if total - kept <= kept:
        return "1/2-1/2"
    return "0-1" if flagged_white else "1-0"


def opening(referee, rng, plies):
    """A random opening of `plies` legal moves after which the game is still open."""
    for _ in range(1000):
        moves = []
        for _ in range(plies):
            legal, result = referee.state(moves)
            if result or not legal:
                break
            moves.append(rng.choice(legal))
        else:
            legal, result = referee.state(moves)
            if legal and not result:
                return moves
    raise RuntimeError(f"no open position after {plies} random plies in 1000 tries")


def points_for_a(result, a_is_white):
    white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
    return white if a_is_white else 1.0 - white


def elo(score):
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def pentanomial(pairs):
    """Mean score per game, its 95 % interval and Elo over complete pairs (A's points)."""
    n = len(pairs)
    if n == 0:
        return None
    per_game = [p / 2 for p in pairs]
    mean = sum(per_game) / n
    var = sum((x - mean) ** 2 for x in per_game) / n
    se = math.sqrt(var / n)
    lo, hi = max(0.0, mean - 1.96 * se), min(1.0, mean + 1.96 * se)
    return mean, elo(mean), elo(lo), elo(hi)


def read_record(path, header):
    done = {}
    if not path or not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                key = (int(row["pair"]), bool(row["a_white"]))
                if row["result"] not in ("1-0", "0-1", "1/2-1/2"):
                    raise ValueError(f"result '{row['result']}'")
                # The budget's fields too where this match has none: a record played on
                # a clock or by visits is not another budget's to resume.
                for field in sorted(set(header) | {"clock", "b_unclocked", "nodes"}):
                    value = header.get(field)
                    if row.get(field) != value:
                        raise ValueError(f"'{field}' is {row.get(field)!r}, this match's is "
                                         f"{value!r}: another match's record")
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"engine_match: {path}:{number}: {e}")
            done[key] = row
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the kumalak executable whose score is given")
    ap.add_argument("--b", required=True, help="the kumalak executable it plays against")
    ap.add_argument("--games", type=int, default=200, help="even: pairs of games")
    ap.add_argument("--level", default="expert")
    ap.add_argument("--movetime", type=int, default=1000, help="milliseconds a move")
    ap.add_argument("--nodes", type=int, default=0,
                    help="visits a move instead of --movetime (equal visits for both)")
    ap.add_argument("--threads", type=int, default=1, help="search threads of each engine")
    ap.add_argument("--game", default="togyz")
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-plies", type=int, default=600, help="a game this long is a draw")
    ap.add_argument("--a-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--b-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--record", help="JSON lines of the finished games; resumes a match")
    ap.add_argument("--clock", metavar="BASE+INC",
                    help="play on a clock kept by the match (replaces --movetime): "
                         "e.g. 10s+0.1, 1+1 (minutes+seconds)")
    ap.add_argument("--b-unclocked", action="store_true",
                    help="with --clock: B plays at --movetime, off the clock (a level on a "
                         "clock against the same level at its fixed budget)")
    ap.add_argument("--shard", default="0/1", metavar="I/N",
                    help="play only the pairs whose number is I modulo N, so that N processes "
                         "sharing one --record play one match on N cores; the others' "
                         "finished games still count in the score")
    a = ap.parse_args()
    if a.games < 2 or a.games % 2:
        ap.error("--games must be even and at least 2 (pairs of games)")
    if a.movetime < 1 or a.opening_plies < 0 or a.threads < 1:
        ap.error("--movetime and --threads must be positive, --opening-plies not negative")
    shard, _, shards = a.shard.partition("/")
    if not (shard.isdigit() and shards.isdigit() and int(shard) < int(shards)):
        ap.error(f"--shard '{a.shard}': expected I/N with 0 <= I < N")
    shard, shards = int(shard), int(shards)
    clock = None
    if a.clock:
        try:
            clock = parse_clock(a.clock)
        except ValueError as e:
            ap.error(str(e))
    if a.nodes < 0 or (a.nodes and clock):
        ap.error("--nodes must be positive and cannot be played on a --clock")
    if a.b_unclocked and not clock:
        ap.error("--b-unclocked needs --clock: A's clock")
    if shards > 1 and not a.record:
        ap.error("--shard needs --record: the shards' games meet only in the record")

    def options(pairs, flag):
        out = []
        for text in pairs:
            name, sep, value = text.partition("=")
            if not sep or not name:
                ap.error(f"{flag} '{text}': expected NAME=VALUE")
            out.append((name, value))
        return out

    a_options, b_options = options(a.a_option, "--a-option"), options(a.b_option, "--b-option")
    header = {"seed": a.seed, "opening_plies": a.opening_plies, "game": a.game}
    if clock:
        header["clock"] = a.clock
    if a.b_unclocked:
        header["b_unclocked"] = True
    if a.nodes:
        header["nodes"] = a.nodes
    clocked = {"A": bool(clock), "B": bool(clock) and not a.b_unclocked}
    done = read_record(a.record, header)
    quiet = subprocess.DEVNULL
    engines = {"A": MatchEngine(a.a, a.level, a.threads, a.game, a_options, quiet),
               "B": MatchEngine(a.b, a.level, a.threads, a.game, b_options, quiet)}
    referee = MatchEngine(a.a, "beginner", 1, a.game, stderr=quiet)
    rng = random.Random(a.seed)
    pair_points = {}
    all_rows = []  # every finished game, recorded before or played now
    played_now, started = 0, time.time()
    def mine(pair):
        return pair % shards == shard

    to_play = sum(1 for i in range(a.games)
                  if (i // 2, i % 2 == 0) not in done and mine(i // 2))
    try:
        for i in range(a.games):
            pair, a_white = i // 2, i % 2 == 0
            if a_white:
                start = opening(referee, rng, a.opening_plies)
            row = done.get((pair, a_white))
            if row is None and not mine(pair):
                continue  # another shard's game, not finished when this one started
            if row is None:
                moves = list(start)
                result = None
                flag = None
                left = {"A": clock[0], "B": clock[0]} if clock else {}
                used = {"A": 0, "B": 0}
                counted = {"A": 0, "B": 0}
                for e in engines.values():
                    e.send("newgame")  # a fresh tree: nothing carried over from the last game
                while result is None:
                    legal, result, position = referee.full_state(moves)
                    if result:
                        break
                    if len(moves) >= a.max_plies:
                        result = "1/2-1/2"
                        break
                    white_to_move = len(moves) % 2 == 0
                    name = "A" if white_to_move == a_white else "B"
                    mover = engines[name]
                    white_name, black_name = ("A", "B") if a_white else ("B", "A")
                    go_clock = ((left[white_name], left[black_name], clock[1], clock[1])
                                if clocked[name] else None)
                    t0 = time.monotonic()
                    move = mover.best_move(moves, a.movetime, go_clock, a.nodes)
                    spent = (time.monotonic() - t0) * 1000  # ms, not rounded per move
                    used[name] += spent
                    counted[name] += 1
                    if clocked[name]:
                        left[name] -= spent
                        if left[name] < 0:  # the move that took the last ms is in time
                            flag = name
                            result = flag_result(position, white_to_move)
                            break
                        left[name] += clock[1]
                    if move not in legal:
                        raise RuntimeError(f"{mover.exe} played {move}, not legal after {moves}")
                    moves.append(move)
                row = dict(header, pair=pair, a_white=a_white, opening=start,
                           moves=moves[len(start):], result=result, a_ms=round(used["A"]),
                           b_ms=round(used["B"]), a_moves=counted["A"], b_moves=counted["B"],
                           flag=flag)
                if a.record:
                    # One write of the whole line, so shards appending to one record
                    # do not interleave their lines.
                    fd = os.open(a.record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                    try:
                        os.write(fd, (json.dumps(row) + "\n").encode("utf-8"))
                    finally:
                        os.close(fd)
                played_now += 1
            all_rows.append(row)
            pts = points_for_a(row["result"], a_white)
            pair_points.setdefault(pair, []).append(pts)
            games = sum(len(p) for p in pair_points.values())
            total = sum(sum(p) for p in pair_points.values())
            elapsed = time.time() - started
            rate = played_now / elapsed * 3600 if played_now and elapsed > 0 else 0
            eta = (to_play - played_now) / rate * 3600 if rate else 0
            on_time = f", {row['flag']} lost on time" if row.get("flag") else ""
            print(f"game {games}/{a.games}: pair {pair + 1}, A {'white' if a_white else 'black'},"
                  f" {row['result']} ({len(row['moves'])} plies{on_time}); A {total:g}/{games}"
                  + (f"; {rate:.1f} games/h, ETA {eta / 60:.0f} min" if rate else ""),
                  flush=True)
    finally:
        for e in list(engines.values()) + [referee]:
            e.close()
    complete = [sum(p) for p in pair_points.values() if len(p) == 2]
    w = sum(1 for p in pair_points.values() for x in p if x == 1.0)
    d = sum(1 for p in pair_points.values() for x in p if x == 0.5)
    l = sum(1 for p in pair_points.values() for x in p if x == 0.0)
    est = pentanomial(complete)
    if est is None:
        print(f"no complete pair: {w}-{d}-{l} (W-D-L) in {len(pair_points)} games' pairs")
        return
    score, e, lo, hi = est
    budget = (f"A on a clock of {a.clock}, B at {a.movetime} ms" if a.b_unclocked
              else f"on a clock of {a.clock}" if clock
              else f"at {a.nodes} visits" if a.nodes else f"at {a.movetime} ms")
    print(f"A ({a.a}) against B ({a.b}), {a.level} {budget}, Threads {a.threads}: "
          f"{w}-{d}-{l} (W-D-L) in {len(complete)} pairs, score {100 * score:.1f} %, "
          f"Elo {e:+.0f} [{lo:+.0f}, {hi:+.0f}] (95 %, pentanomial)")
    if clock:
        rows = [r for r in all_rows if "a_ms" in r]
        flags = {side: sum(1 for r in rows if r.get("flag") == side) for side in "AB"}
        for side in "AB":
            ms = sum(r[side.lower() + "_ms"] for r in rows)
            moves = sum(r[side.lower() + "_moves"] for r in rows)
            lost = f"lost on time {flags[side]} of {len(rows)} games" if clocked[side] else "off the clock"
            print(f"{side}: {lost}; used "
                  f"{ms / max(len(rows), 1) / 1000:.2f} s a game, "
                  f"{ms / max(moves, 1):.0f} ms a move")


if __name__ == "__main__":
    main()
